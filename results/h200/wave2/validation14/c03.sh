#!/bin/bash
# call 3: BD-rate and fps of more lookahead threads with --gpu-me, veryslow and slower, 3 repeats
set -u
tar xJf build/carry03/main.tar.xz
export CUDA_ME_COMMIT=cdc4b9c+harness
FRAMES=216 T2_CLIPS=1080p T2_THREADS=16 T2_REPEATS=3 T2_PRESETS=veryslow \
  T2_CONFIGS="stock_mvt64 gpu%--lookahead-threads=4 gpu%--lookahead-threads=8" TOTAL_BUDGET=300 T2_BUDGET=295 \
  results/run.sh "$OUT/i12_lat_bd_veryslow" table2 > "$OUT/vs.log" 2>&1
T2_CLIPS=1080p T2_THREADS=16 T2_REPEATS=3 T2_PRESETS=slower T2_FRAMES_MANY=1080p:216 T2_QFRAMES_MANY=1080p:216 \
  T2_CONFIGS="stock_mvt64 gpu%--lookahead-threads=4 gpu%--lookahead-threads=8" TOTAL_BUDGET=200 T2_BUDGET=195 \
  results/run.sh "$OUT/i12_lat_bd_slower" table2 > "$OUT/sl.log" 2>&1
cd "$OUT" && tar czf /tmp/all.tgz . && mv /tmp/all.tgz .
