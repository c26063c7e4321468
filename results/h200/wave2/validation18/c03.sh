#!/bin/bash
# call 3 (session 18): which thread limits the frame rate at 16 threads?
# results/run.sh THREAD_LOAD=1 (results/thread_load.py: each thread's CPU
# time from /proc), speed runs only (QP 27): stock --mvrange-thread 64 and
# --gpu-me at medium (2 repeats), slower and veryslow (1 repeat)
set -u
tar xJf build/carry18/c1.tar.xz
export CUDA_ME_COMMIT=$(cat build/carry18/commit)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
tests/device.sh data > "$OUT/device.log" 2>&1
THREAD_LOAD=1 T2_QPS=27 T2_CLIPS=1080p T2_THREADS=16 T2_REPEATS=2 T2_PRESETS=medium T2_FRAMES_MANY=1080p:216 T2_QFRAMES_MANY=1080p:216 \
  T2_CONFIGS="stock_mvt64 gpu" TOTAL_BUDGET=60 T2_BUDGET=55 results/run.sh "$OUT/i12_threads_medium" table2 > "$OUT/md.log" 2>&1
THREAD_LOAD=1 T2_QPS=27 FRAMES=216 T2_CLIPS=1080p T2_THREADS=16 T2_REPEATS=1 T2_PRESETS="slower veryslow" \
  T2_CONFIGS="stock_mvt64 gpu" TOTAL_BUDGET=150 T2_BUDGET=145 results/run.sh "$OUT/i12_threads_slow" table2 > "$OUT/vs.log" 2>&1
cat "$OUT"/*/threads_table2.txt
cd "$OUT" && tar czf /tmp/all.tgz . && mv /tmp/all.tgz .
