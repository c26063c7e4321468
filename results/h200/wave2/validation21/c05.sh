#!/bin/bash
# call 5 (session 21): the final build (patches/0027: --gpu-me-fallback
# auto and --gpu-me-subpel auto at --ref 9+; the kernels as 82528d7).
# The GPU e2e set (CUDA == C; its streams come back for
# tests/verify_deferred.sh); then medium, now that the frame threads' CPU
# time shows at veryslow: does cutting x264's own search buy medium its
# 1.3x?  3 interleaved repeats: stock --mvrange-thread 64, --gpu-me,
# replace mode (a 2-step diamond where adaptive mode would run x264's
# hexagon), sub-pel pruning in all four loops, both.
set -u
tar xJf build/carry21/c5.tar.xz
export CUDA_ME_COMMIT=$(cat build/carry21/commit)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
tests/device.sh data > "$OUT/device.log" 2>&1
timeout 300 tests/device.sh e2e > "$OUT/e2e.log" 2>&1
echo "e2e rc=$?" >> "$OUT/e2e.log"
grep -E "passed|failed|FAIL|rc=" "$OUT/e2e.log" | tail -4
T2_CLIPS=1080p T2_THREADS=16 T2_REPEATS=3 T2_PRESETS=medium T2_FRAMES_MANY=1080p:216 T2_QFRAMES_MANY=1080p:216 \
  T2_CONFIGS="stock_mvt64 gpu gpu%--gpu-me-mode=replace gpu%--gpu-me-subpel=20+X264_GPU_ME_SUBPEL_SITES=15 gpu%--gpu-me-mode=replace%--gpu-me-subpel=20+X264_GPU_ME_SUBPEL_SITES=15" \
  TOTAL_BUDGET=200 T2_BUDGET=195 results/run.sh "$OUT/i12_medium_cut" table2 > "$OUT/md.log" 2>&1
grep -E "^\| street" "$OUT"/*/table2.md | head -8
cd "$OUT" && tar czf /tmp/all.tgz . && mv /tmp/all.tgz .
