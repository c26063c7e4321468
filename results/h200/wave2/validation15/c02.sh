#!/bin/bash
# call 2 (session 15): the lookahead's lowres search on the GPU: unit (CUDA == C),
# byte-identical A/B with the CUDA backend, table2 slower and medium
set -u
tar xJf build/carry15/main2.tar.xz
export CUDA_ME_COMMIT=ff53b41+lowres
tests/device.sh data > "$OUT/device.log" 2>&1
CUDA_ME_REQUIRE_GPU=1 CK_RUN_SUITE=gpu CK_RUN_CASE=subpel timeout 150 build/tests/test_cuda_me_static > "$OUT/unit_subpel.log" 2>&1
echo "unit rc=$?" >> "$OUT/unit_subpel.log"
KEEP_264=1 T2_CLIPS=1080p T2_THREADS=16 T2_REPEATS=3 T2_PRESETS=slower T2_FRAMES_MANY=1080p:216 T2_QFRAMES_MANY=1080p:216 \
  T2_CONFIGS="stock_mvt64 gpu gpu%--gpu-me-lookahead=0" TOTAL_BUDGET=200 T2_BUDGET=195 \
  results/run.sh "$OUT/i12_la_slower" table2 > "$OUT/sl.log" 2>&1
# byte-identical: --gpu-me-lookahead 1 and 0, CUDA backend, slower QP 27 (the table's speed runs)
( cd build/results-work && md5sum t2_*gpu*.264; rm -f t2_*.264 ) > "$OUT/ab_md5.txt" 2>&1
T2_CLIPS=1080p T2_THREADS=16 T2_REPEATS=3 T2_PRESETS=medium T2_FRAMES_MANY=1080p:216 T2_QFRAMES_MANY=1080p:216 \
  T2_CONFIGS="stock_mvt64 gpu gpu%--gpu-me-lookahead=0" TOTAL_BUDGET=170 T2_BUDGET=165 \
  results/run.sh "$OUT/i12_la_medium" table2 > "$OUT/md.log" 2>&1
cd "$OUT" && tar czf /tmp/all.tgz . && mv /tmp/all.tgz .
