#!/bin/bash
# call 1 (session 27, fbcb05d: patches/0029 + 0030, the final glue):
# issue 12's frontier with the final defaults (stock --mvrange-thread 64
# and --gpu-me at ultrafast..veryslow, street 1080p, 216 frames, 16
# threads, one repeat, QP 22-37, plots), then medium again with the time
# left, interleaved repeats.
set -u
tar xJf build/carry27/c1.tar.xz
export CUDA_ME_COMMIT=$(cat build/carry27/commit)
date +%T > "$OUT/times.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
tests/device.sh data > "$OUT/device.log" 2>&1
date +%T >> "$OUT/times.txt"
FRAMES=216 T2_CLIPS=1080p T2_PRESETS="ultrafast superfast veryfast faster fast medium slow slower veryslow" \
  T2_THREADS=16 T2_REPEATS=1 T2_CONFIGS="stock_mvt64 gpu" TOTAL_BUDGET=310 T2_BUDGET=300 PLOTS_BUDGET=8 \
  results/run.sh "$OUT/i12_frontier7" table2 plots > "$OUT/frontier.log" 2>&1
date +%T >> "$OUT/times.txt"
grep -h "at [0-9.]*x" "$OUT"/i12_frontier7/table2.md | tail -9
T2_CLIPS=1080p T2_THREADS=16 T2_REPEATS=9 T2_PRESETS=medium T2_FRAMES_MANY=1080p:216 T2_QFRAMES_MANY=1080p:216 \
  T2_CONFIGS="stock_mvt64 gpu" TOTAL_BUDGET=200 T2_BUDGET=195 results/run.sh "$OUT/i12_medium_final" table2 > "$OUT/md.log" 2>&1
date +%T >> "$OUT/times.txt"
grep -E "^\| street" "$OUT"/i12_medium_final/table2.md | cut -c1-260 | head -3
cd "$OUT" && tar czf /tmp/all.tgz . && rm -rf ./* && mv /tmp/all.tgz .
