#!/bin/bash
# call 3 (session 25, 56d52d6, patches/0029 shipped): issue 12's frontier
# with the shipped defaults (stock --mvrange-thread 64 and --gpu-me at
# ultrafast..veryslow, 216 frames, one repeat, QP 22-37, plots), then
# medium again, 9 interleaved repeats: the default (sub-pel pruning in the
# P loops), --gpu-me-subpel 0 (the old default), and with experiment 0008's
# X264_GPU_ME_MVC=2 (x264 prices 2 of its predictors beside the GPU's)
# alone and beside the default.
set -u
tar xJf build/carry25/c3.tar.xz
export CUDA_ME_COMMIT=$(cat build/carry25/commit)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
tests/device.sh data > "$OUT/device.log" 2>&1
FRAMES=216 T2_CLIPS=1080p T2_PRESETS="ultrafast superfast veryfast faster fast medium slow slower veryslow" \
  T2_THREADS=16 T2_REPEATS=1 T2_CONFIGS="stock_mvt64 gpu" TOTAL_BUDGET=310 T2_BUDGET=300 PLOTS_BUDGET=8 \
  results/run.sh "$OUT/i12_frontier6" table2 plots > "$OUT/frontier.log" 2>&1
grep -h "at [0-9.]*x" "$OUT"/i12_frontier6/table2.md | tail -9
(cd "$OUT" && tar czf /tmp/f.tgz i12_frontier6 frontier.log && mv /tmp/f.tgz frontier.tgz)
X=build/device/x264-exp/x264
T2_CLIPS=1080p T2_THREADS=16 T2_REPEATS=9 T2_PRESETS=medium T2_FRAMES_MANY=1080p:216 T2_QFRAMES_MANY=1080p:216 \
  T2_CONFIGS="stock_mvt64 gpu gpu%--gpu-me-subpel=0 gpu%--gpu-me-subpel=0+X264_GPU_ME_MVC=2@$X gpu+X264_GPU_ME_MVC=2@$X" \
  TOTAL_BUDGET=210 T2_BUDGET=205 results/run.sh "$OUT/i12_medium_0029b" table2 > "$OUT/md.log" 2>&1
grep -E "^\| street" "$OUT"/i12_medium_0029b/table2.md | head -6
cd "$OUT" && rm -f frontier.tgz && tar czf /tmp/all.tgz . && mv /tmp/all.tgz .
