#!/bin/bash
# call 4: does stock x264 lose BD-rate with more (sliced) lookahead threads too? 1 speed repeat
set -u
tar xJf build/carry04/main.tar.xz
export CUDA_ME_COMMIT=cdc4b9c+harness
T2_CLIPS=1080p T2_THREADS=16 T2_REPEATS=1 T2_PRESETS=slower T2_FRAMES_MANY=1080p:216 T2_QFRAMES_MANY=1080p:216 \
  T2_CONFIGS="stock_mvt64 stock_mvt64%--lookahead-threads=4" TOTAL_BUDGET=130 T2_BUDGET=125 \
  results/run.sh "$OUT/i12_lat_stock_slower" table2 > "$OUT/sl.log" 2>&1
FRAMES=216 T2_CLIPS=1080p T2_THREADS=16 T2_REPEATS=1 T2_PRESETS=veryslow \
  T2_CONFIGS="stock_mvt64 stock_mvt64%--lookahead-threads=4" TOTAL_BUDGET=200 T2_BUDGET=195 \
  results/run.sh "$OUT/i12_lat_stock_veryslow" table2 > "$OUT/vs.log" 2>&1
cd "$OUT" && tar czf /tmp/all.tgz . && mv /tmp/all.tgz .
