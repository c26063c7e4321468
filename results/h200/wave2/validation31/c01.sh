#!/bin/bash
# Session 31, call 1: the window as one tensor copy (TMA), rebuilt on main
# (session 30's branch `bulk` did not survive to this checkout).  On sm_90
# the fixed-stride variants v14 (+-16), v15 (+-32), v16 (+-48/64) copy
# their window from the 4-byte plane with one cp.async.bulk.tensor.2d,
# issued by thread 0, which waits on the mbarrier before the block's
# barrier; separate kernels (search_kernel<..., X = 1>) so that the loads'
# kernels keep their registers.
# build/carry31/c1.tar.xz (sm_90 builds): bench_base (dc13e7e's kernels),
# bench_tma (this commit; -X: the same binary without tensor copies),
# test_tma (static unit tests).
# 1. a 30 s smoke test of the copy (a copy that never completes hangs);
# 2. the GPU unit case gpu/gpu: every variant == C, and with the plane's
#    rows (tensor copies) == without (checkasm_me.c run_kernels());
# 3. bench, 5 runs interleaved, medians (tests/tools/bench_runs.py);
# 4. compute-sanitizer memcheck, racecheck, synccheck over the case while
#    the call's 600 s last.
set -u
tar xJf build/carry31/c1.tar.xz -C build/carry31
C=build/carry31/c1
date +%T > "$OUT/times.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
lscpu | grep -m1 "Model name" >> "$OUT/gpu.txt"
[ -s build/data/foreman_cif.y4m ] || tests/device.sh data > "$OUT/data.log" 2>&1
timeout 30 $C/bench_tma -q -s 720p -r 32 -v 15 > "$OUT/smoke.txt" 2>&1
smoke=$?
echo "smoke rc $smoke" >> "$OUT/times.txt"
CUDA_ME_REQUIRE_GPU=1 CK_RUN_SUITE=gpu CK_RUN_CASE=gpu timeout $([ $smoke = 0 ] && echo 240 || echo 60) $C/test_tma \
    > "$OUT/unit_gpu.log" 2>&1
echo "unit rc $?" >> "$OUT/times.txt"
date +%T >> "$OUT/times.txt"
for rep in 1 2 3 4 5; do
  # size:range:build:variant[:X]   (X: bench_me -X, no tensor copies)
  for c in 1080p:32:base:15 1080p:32:tma:15 1080p:32:tma:15:X \
           1080p:48:base:16 1080p:48:tma:16 1080p:48:tma:16:X \
           1080p:64:base:16 1080p:64:tma:16 1080p:64:tma:16:X \
           720p:32:base:15 720p:32:tma:15 720p:32:tma:15:X \
           720p:64:base:16 720p:64:tma:16 720p:64:tma:16:X \
           2160p:32:base:15 2160p:32:tma:15 2160p:32:tma:15:X \
           2160p:64:base:16 2160p:64:tma:16 2160p:64:tma:16:X \
           1080p:16:base:12 1080p:16:tma:12 1080p:16:base:14 1080p:16:tma:14 1080p:16:tma:14:X \
           720p:16:base:12 720p:16:tma:14 720p:16:tma:14:X \
           2160p:16:base:12 2160p:16:tma:14 2160p:16:tma:14:X \
           1080p:8:base:6 1080p:8:tma:14 1080p:8:tma:14:X; do
    IFS=: read -r sz r b v x <<< "$c"
    [ "$b" = tma ] && [ -z "$x" ] && [ $smoke != 0 ] && continue
    case $b in base) B=$C/bench_base;; tma) B=$C/bench_tma;; esac
    timeout 60 $B -q -s $sz -r $r -v $v ${x:+-X} 2>&1 |
      awk -v rep=$rep -v b=$b$x '$4 == "total" {print rep, b, $0}'
  done
done > "$OUT/bench.txt" 2>&1
date +%T >> "$OUT/times.txt"
for tool in memcheck racecheck synccheck; do
  left=$(( 585 - SECONDS )); [ $left -gt 150 ] && left=150
  [ $left -lt 40 ] && { echo "$tool not run: $SECONDS s gone" >> "$OUT/times.txt"; continue; }
  level=1; [ "$tool" = memcheck ] || level=2
  CK_FORK=no CK_RUN_SUITE=gpu CK_RUN_CASE=gpu CUDA_ME_SANITIZE=$level CUDA_ME_REQUIRE_GPU=1 \
    timeout $left compute-sanitizer --tool $tool --error-exitcode 9 $C/test_tma > "$OUT/sanitize_$tool.log" 2>&1
  echo "$tool rc $?" >> "$OUT/times.txt"
done
date +%T >> "$OUT/times.txt"
cat "$OUT/times.txt" "$OUT/gpu.txt"; cat "$OUT/smoke.txt" | tail -3
grep -E "^[0-9]+%|:[FE]:" "$OUT/unit_gpu.log" | head
tail -n 2 "$OUT"/sanitize_*.log; wc -l "$OUT/bench.txt"
python3 tests/tools/bench_runs.py "$OUT/bench.txt" > "$OUT/bench.md" && cat "$OUT/bench.md"
