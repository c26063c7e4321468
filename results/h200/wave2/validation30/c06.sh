#!/bin/bash
# Prepared in session 30 (no device was lent that session): branch bulk,
# on hrow (lean's LEAN=29 set-up + row runs).  On sm_90 the key-table
# variants (v15 +-32, v16 +-48/64) copy their window from the 4-byte
# plane in one tensor copy (TMA, mbarrier) when the launch gives the
# plane's rows (cme_launch_t.i_xrows), at every range.
# build/carry30/c6.tar.xz: test_bulk (fat static unit tests of bulk),
# bench_bulk (fat bench of bulk; -X: the same binary without tensor
# copies), bench_b0 (sm_90, -DBULK=0: hrow's kernels); base_bench_me
# (ae99324's kernels = main's) comes from build/carry29/c1.tar.xz.
# 1. The GPU unit case gpu/gpu with bulk: every variant == C, and with
#    the plane's rows == without (tests/checkasm_me.c run_kernels());
# 2. bench, 5 runs interleaved: base, b0, bulk, bulkX at the defaults of
#    1080p +-32/48/64, 720p and 2160p +-32/64;
# 3. compute-sanitizer memcheck, racecheck, synccheck over that case, as
#    long as the call's 600 s allow.
# Carry: build/carry29 (c1.tar.xz) and build/carry30 (c6.tar.xz).
set -u
tar xJf build/carry29/c1.tar.xz
tar xJf build/carry30/c6.tar.xz
C=build/carry30/c6
date +%T > "$OUT/times6.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/gpu6.txt" 2>&1
[ -s build/data/foreman_cif.y4m ] || tests/device.sh data > "$OUT/data6.log" 2>&1
CUDA_ME_REQUIRE_GPU=1 CK_RUN_SUITE=gpu CK_RUN_CASE=gpu timeout 250 $C/test_bulk > "$OUT/unit_gpu_bulk.log" 2>&1
echo "unit rc $?" >> "$OUT/times6.txt"
date +%T >> "$OUT/times6.txt"
for rep in 1 2 3 4 5; do
  for srv in 1080p:32:15 1080p:48:16 1080p:64:16 720p:32:15 720p:64:16 2160p:32:15 2160p:64:16; do
    IFS=: read -r sz r v <<< "$srv"
    for b in base b0 bulk bulkX; do
      case $b in base) B=build/carry29/base_bench_me; X=;; b0) B=$C/bench_b0; X=;;
                 bulk) B=$C/bench_bulk; X=;; bulkX) B=$C/bench_bulk; X=-X;; esac
      timeout 60 $B -q -s $sz -r $r -v $v $X 2>&1 | awk -v rep=$rep -v b=$b '$4 == "total" {print rep, b, $0}'
    done
  done
done > "$OUT/bench6.txt" 2>&1
date +%T >> "$OUT/times6.txt"
# the sanitizers last, each only while the call has time for it (600 s)
for tool in memcheck racecheck synccheck; do
  left=$(( 585 - SECONDS )); [ $left -gt 200 ] && left=200
  [ $left -lt 40 ] && { echo "$tool not run: $SECONDS s gone" >> "$OUT/times6.txt"; continue; }
  level=1; [ "$tool" = memcheck ] || level=2
  CK_FORK=no CK_RUN_SUITE=gpu CK_RUN_CASE=gpu CUDA_ME_SANITIZE=$level CUDA_ME_REQUIRE_GPU=1 \
    timeout $left compute-sanitizer --tool $tool --error-exitcode 9 $C/test_bulk > "$OUT/sanitize6_$tool.log" 2>&1
  echo "$tool rc $?" >> "$OUT/times6.txt"
done
date +%T >> "$OUT/times6.txt"
cat "$OUT/times6.txt"; grep -E "^[0-9]+%|:[FE]:" "$OUT/unit_gpu_bulk.log" | head
tail -n 2 "$OUT"/sanitize6_*.log; wc -l "$OUT/bench6.txt"
