#!/bin/bash
# Prepared in session 30 (no device was lent that session): branch bulk,
# 7add8ec, on hrow (lean's LEAN=29 set-up + row runs).  On sm_90 the
# fixed-stride variants (v14, v15 +-32, v16 +-48/64) copy their window from the 4-byte
# plane in one tensor copy (TMA, mbarrier) when the launch gives the
# plane's rows (cme_launch_t.i_xrows), at every range.
# build/carry30/c6.tar.xz: test_bulk (fat static unit tests of bulk),
# bench_bulk (fat bench of bulk; -X: the same binary without tensor
# copies), bench_b0 (sm_90, -DBULK=0: hrow's kernels); base_bench_me
# (ae99324's kernels = main's) comes from build/carry29/c1.tar.xz.
# 1. The GPU unit case gpu/gpu with bulk: every variant == C, and with
#    the plane's rows == without (tests/checkasm_me.c run_kernels());
# 2. bench, 5 runs interleaved: base, b0, bulk, bulkX at the defaults of
#    1080p +-32/48/64, 720p and 2160p +-32/64; at +-16 (720p, 1080p,
#    2160p) and 1080p +-8 the defaults (v12, v6) against v14 with and
#    without the tensor copy (v14 = v12 with +-16's fixed stride, level
#    with it before: twenty-eighth session); and whether smaller blocks
#    pay once the window is one copy: +-32 and +-64 with 2 and 4 blocks a
#    macroblock (-g 96,4 and 96,6; the library's 96 x 8, 1 block and
#    96 x 11, 2 blocks); +-128 (v17: no copy, row runs) base against b0.
#    With that this call also covers c05.sh (hrow = b0 here; its unit
#    case is this one: the bulk branch holds hrow), but for lean alone;
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
# a smoke test first: a tensor copy that never completes would hang every
# bulk launch (then the unit case gets a short timeout and the bench runs
# without the bulk rows)
timeout 30 $C/bench_bulk -q -s 720p -r 32 -v 15 > "$OUT/smoke6.txt" 2>&1
smoke=$?
echo "smoke rc $smoke" >> "$OUT/times6.txt"
CUDA_ME_REQUIRE_GPU=1 CK_RUN_SUITE=gpu CK_RUN_CASE=gpu timeout $([ $smoke = 0 ] && echo 300 || echo 90) $C/test_bulk \
    > "$OUT/unit_gpu_bulk.log" 2>&1
echo "unit rc $?" >> "$OUT/times6.txt"
date +%T >> "$OUT/times6.txt"
for rep in 1 2 3 4 5; do
  # size:range:build:variant[:X]  (X: bench_me -X, the plane without its rows)
  for c in 1080p:32:base:15 1080p:32:b0:15 1080p:32:bulk:15 1080p:32:bulk:15:X \
           1080p:48:base:16 1080p:48:b0:16 1080p:48:bulk:16 1080p:48:bulk:16:X \
           1080p:64:base:16 1080p:64:b0:16 1080p:64:bulk:16 1080p:64:bulk:16:X \
           720p:32:base:15 720p:32:b0:15 720p:32:bulk:15 720p:32:bulk:15:X \
           720p:64:base:16 720p:64:b0:16 720p:64:bulk:16 720p:64:bulk:16:X \
           2160p:32:base:15 2160p:32:b0:15 2160p:32:bulk:15 2160p:32:bulk:15:X \
           2160p:64:base:16 2160p:64:b0:16 2160p:64:bulk:16 2160p:64:bulk:16:X \
           1080p:16:base:12 1080p:16:b0:12 1080p:16:bulk:14 1080p:16:bulk:14:X \
           720p:16:base:12 720p:16:b0:12 720p:16:bulk:14 720p:16:bulk:14:X \
           2160p:16:base:12 2160p:16:b0:12 2160p:16:bulk:14 2160p:16:bulk:14:X \
           1080p:8:base:6 1080p:8:bulk:14 1080p:8:bulk:14:X \
           1080p:32:b0:15::96,4 1080p:32:bulk:15::96,4 1080p:64:b0:16::96,6 1080p:64:bulk:16::96,6 \
           1080p:128:base:17 1080p:128:b0:17; do
    IFS=: read -r sz r b v x g <<< "$c"
    [ "$b" = bulk ] && [ $smoke != 0 ] && continue
    case $b in base) B=build/carry29/base_bench_me;; b0) B=$C/bench_b0;; bulk) B=$C/bench_bulk;; esac
    timeout 60 $B -q -s $sz -r $r -v $v ${x:+-X} ${g:+-g $g} 2>&1 |
      awk -v rep=$rep -v b=$b$x${g:+g$g} '$4 == "total" {print rep, b, $0}'
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
python3 tests/tools/bench_runs.py "$OUT/bench6.txt" > "$OUT/bench6.md" && cat "$OUT/bench6.md"
