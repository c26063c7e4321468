#!/bin/bash
# call 3 (session 16): --gpu-me-lookahead 1 now the default: table2 at
# slow (3 repeats, with the old default for A/B) and veryslow (216 frames,
# one speed repeat: the device budget)
set -u
tar xJf build/carry16/c3.tar.xz
export CUDA_ME_COMMIT=c58e724
tests/device.sh data > "$OUT/device.log" 2>&1
T2_CLIPS=1080p T2_THREADS=16 T2_REPEATS=3 T2_PRESETS=slow T2_FRAMES_MANY=1080p:216 T2_QFRAMES_MANY=1080p:216 \
  T2_CONFIGS="stock_mvt64 gpu gpu%--gpu-me-lookahead=0" TOTAL_BUDGET=170 T2_BUDGET=165 \
  results/run.sh "$OUT/i12_la_slow" table2 > "$OUT/slow.log" 2>&1
FRAMES=216 T2_CLIPS=1080p T2_THREADS=16 T2_REPEATS=1 T2_PRESETS=veryslow T2_FRAMES_MANY=1080p:216 T2_QFRAMES_MANY=1080p:216 \
  T2_CONFIGS="stock_mvt64 gpu" TOTAL_BUDGET=250 T2_BUDGET=245 \
  results/run.sh "$OUT/i12_la_veryslow" table2 > "$OUT/vs.log" 2>&1
grep -h "street" "$OUT"/i12_la_*/table2.md | grep -v "^| clip"
cd "$OUT" && tar czf /tmp/all.tgz . && mv /tmp/all.tgz .
