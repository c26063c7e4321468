#!/bin/bash
# call 3 (session 17): GPU end-to-end (CUDA == C, with the new
# --gpu-me-fallback hex case), then the frontier with the current defaults
# (stock --mvrange-thread 64 and --gpu-me at every preset, one repeat)
set -u
tar xJf build/carry17/c3.tar.xz
export CUDA_ME_COMMIT=$(cat build/carry17/commit)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
tests/device.sh data > "$OUT/device.log" 2>&1
timeout 150 tests/device.sh e2e > "$OUT/e2e.log" 2>&1
echo "e2e rc=$?" >> "$OUT/e2e.log"
grep -E "passed|failed|FAIL" "$OUT/e2e.log" | tail -5
FRAMES=216 T2_CLIPS=1080p T2_PRESETS="ultrafast superfast veryfast faster fast medium slow slower veryslow" \
  T2_THREADS=16 T2_REPEATS=1 T2_CONFIGS="stock_mvt64 gpu" TOTAL_BUDGET=360 T2_BUDGET=350 PLOTS_BUDGET=5 \
  results/run.sh "$OUT/i12_frontier4" table2 plots > "$OUT/frontier.log" 2>&1
grep -h "at [0-9.]*x" "$OUT"/*/table2.md | tail -12
cd "$OUT" && tar czf /tmp/all.tgz . && mv /tmp/all.tgz .
