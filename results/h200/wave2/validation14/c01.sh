#!/bin/bash
# call 1 (fourteenth session): ADAPT_HEX at veryslow and slower, 3 repeats
set -u
tar xJf build/carry01/main.tar.xz
export CUDA_ME_COMMIT=cdc4b9c
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
HEX="gpu+X264_GPU_ME_ADAPT_HEX=1@build/device/x264-exp/x264"
FRAMES=216 T2_CLIPS=1080p T2_THREADS=16 T2_REPEATS=3 T2_PRESETS=veryslow \
  T2_CONFIGS="stock_mvt64 gpu $HEX" TOTAL_BUDGET=320 T2_BUDGET=315 \
  results/run.sh "$OUT/i12_adapthex_veryslow" table2 > "$OUT/vs.log" 2>&1
T2_CLIPS=1080p T2_THREADS=16 T2_REPEATS=3 T2_PRESETS=slower T2_FRAMES_MANY=1080p:216 T2_QFRAMES_MANY=1080p:216 \
  T2_CONFIGS="stock_mvt64 gpu $HEX" TOTAL_BUDGET=230 T2_BUDGET=225 \
  results/run.sh "$OUT/i12_adapthex_slower" table2 > "$OUT/sl.log" 2>&1
cd "$OUT" && tar czf all.tgz --exclude=all.tgz . 
