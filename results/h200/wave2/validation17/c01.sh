#!/bin/bash
# call 1 (session 17): the GPU unit case subpel (test_lowres: 312cf31 and
# a6da17c not yet run on a GPU); medium with --gpu-me-split 20 (the lookahead
# now off the path); veryslow with adaptive mode's hexagon fallback
# (experiment 0007) alone and with --gpu-me-subpel 20, one repeat
set -u
tar xJf build/carry17/c1.tar.xz
export CUDA_ME_COMMIT=0952ede
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
tests/device.sh data > "$OUT/device.log" 2>&1
CUDA_ME_REQUIRE_GPU=1 CK_RUN_SUITE=gpu CK_RUN_CASE=subpel timeout 150 build/tests/test_cuda_me_static > "$OUT/unit_subpel.log" 2>&1
rc=$?
echo "unit rc=$rc" >> "$OUT/unit_subpel.log"
tail -5 "$OUT/unit_subpel.log"
T2_CLIPS=1080p T2_THREADS=16 T2_REPEATS=3 T2_PRESETS=medium T2_FRAMES_MANY=1080p:216 T2_QFRAMES_MANY=1080p:216 \
  T2_CONFIGS="stock_mvt64 gpu gpu%--gpu-me-split=20" TOTAL_BUDGET=175 T2_BUDGET=170 \
  results/run.sh "$OUT/i12_split20_medium" table2 > "$OUT/md.log" 2>&1
HEX="gpu+X264_GPU_ME_ADAPT_HEX=1@build/device/x264-exp/x264"
HEXS="gpu%--gpu-me-subpel=20+X264_GPU_ME_ADAPT_HEX=1@build/device/x264-exp/x264"
FRAMES=216 T2_CLIPS=1080p T2_THREADS=16 T2_REPEATS=1 T2_PRESETS=veryslow \
  T2_CONFIGS="stock_mvt64 gpu $HEX $HEXS" TOTAL_BUDGET=320 T2_BUDGET=315 \
  results/run.sh "$OUT/i12_hex_veryslow" table2 > "$OUT/vs.log" 2>&1
grep -h "at [0-9.]*x" "$OUT"/*/table2.md | tail -4
cd "$OUT" && tar czf /tmp/all.tgz . && mv /tmp/all.tgz .
