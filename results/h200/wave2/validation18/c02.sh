#!/bin/bash
# call 2 (session 18): issue 12's veryslow edge (stock --mvrange-thread 64
# against --gpu-me, 5 interleaved repeats); then what limits medium now that
# the lookahead's search is on the GPU (3 repeats): --gpu-me-subpel 20 in
# the 8x8 loops and in all four (last measured at medium before the
# lookahead moved), and 32 threads for both (are 16 frame threads the limit?)
set -u
tar xJf build/carry18/c1.tar.xz
export CUDA_ME_COMMIT=$(cat build/carry18/commit)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
tests/device.sh data > "$OUT/device.log" 2>&1
FRAMES=216 T2_CLIPS=1080p T2_THREADS=16 T2_REPEATS=5 T2_PRESETS=veryslow \
  T2_CONFIGS="stock_mvt64 gpu" TOTAL_BUDGET=330 T2_BUDGET=325 \
  results/run.sh "$OUT/i12_veryslow5" table2 > "$OUT/vs.log" 2>&1
T2_CLIPS=1080p T2_THREADS=16 T2_REPEATS=3 T2_PRESETS=medium T2_FRAMES_MANY=1080p:216 T2_QFRAMES_MANY=1080p:216 \
  T2_CONFIGS="stock_mvt64 gpu gpu%--gpu-me-subpel=20 gpu%--gpu-me-subpel=20+X264_GPU_ME_SUBPEL_SITES=15 stock_mvt64%--threads=32 gpu%--threads=32" \
  TOTAL_BUDGET=170 T2_BUDGET=165 results/run.sh "$OUT/i12_medium_diag" table2 > "$OUT/md.log" 2>&1
grep -h "at [0-9.]*x" "$OUT"/*/table2.md | tail -8
cd "$OUT" && tar czf /tmp/all.tgz . && mv /tmp/all.tgz .
