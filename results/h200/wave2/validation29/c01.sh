#!/bin/bash
# call 1 (session 29, branch lean, uncommitted): issue 13, the set-up
# before the run loop with fewer ALU-pipe instructions (window loads
# without the index walk, funnel shifts as IMAD.HI + IMAD, divisions by
# window sizes in floating point, key tables without unrolled remainders;
# LEAN=63 in me_cuda.cu's numbering since):
# base = ae99324's bench_me, lean = the branch's; the defaults at 1080p
# +-16/32/64, 720p and 2160p +-32, 3 runs interleaved; then the GPU unit
# case gpu/gpu (every variant == C) with the branch's test binary.
set -u
tar xJf build/carry29/c1.tar.xz
date +%T > "$OUT/times.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
for rep in 1 2 3; do
  for sr in 1080p:16 1080p:32 1080p:64 720p:32 2160p:32 720p:16 2160p:16; do
    IFS=: read -r sz r <<< "$sr"
    for b in base lean; do
      if [ $b = base ]; then B=build/carry29/base_bench_me; else B=build/bench/bench_me; fi
      timeout 120 $B -q -s $sz -r $r 2>&1 | awk -v rep=$rep -v b=$b '$4 == "total" || $4 == "2" {print rep, b, $0}'
    done
  done
done > "$OUT/bench.txt" 2>&1
date +%T >> "$OUT/times.txt"
tests/device.sh data > "$OUT/data.log" 2>&1
date +%T >> "$OUT/times.txt"
CUDA_ME_REQUIRE_GPU=1 CK_RUN_SUITE=gpu CK_RUN_CASE=gpu timeout 250 build/tests/test_cuda_me_static > "$OUT/unit_gpu.log" 2>&1
echo "unit rc $?" >> "$OUT/times.txt"
date +%T >> "$OUT/times.txt"
cat "$OUT/times.txt"; grep -E "^[0-9]+%|:[FE]:" "$OUT/unit_gpu.log" | head; wc -l "$OUT/bench.txt"
