#!/bin/bash
# call 3 (session 27, ad0818b, the final defaults): the command users type,
# plain `x264 --gpu-me` against plain stock x264 (and stock
# --mvrange-thread 64 beside them), street 1080p, 216 frames, 16 threads,
# QP 22-37, medium and slow, interleaved repeats as the budget allows: the
# README's plain-command figures were from 3bd0e4c, before the sub-pel,
# split and predictor defaults.
set -u
tar xJf build/carry27/c3.tar.xz
export CUDA_ME_COMMIT=$(cat build/carry27/commit)
date +%T > "$OUT/times.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
tests/device.sh data > "$OUT/device.log" 2>&1
T2_CLIPS=1080p T2_THREADS=16 T2_REPEATS=9 T2_PRESETS="medium slow" T2_FRAMES_MANY=1080p:216 T2_QFRAMES_MANY=1080p:216 \
  T2_CONFIGS="stock stock_mvt64 gpu" TOTAL_BUDGET=470 T2_BUDGET=465 results/run.sh "$OUT/plain_cmd" table2 > "$OUT/plain.log" 2>&1
date +%T >> "$OUT/times.txt"
grep -E "^\| street" "$OUT"/plain_cmd/table2.md | cut -c1-330
cd "$OUT" && tar czf /tmp/all.tgz . && rm -rf ./* && mv /tmp/all.tgz .
