#!/bin/bash
# call 3 (session 21; call 2 had the configuration as gpu%A+B, which runs B through env: it failed): issue 12's veryslow edge, 3 interleaved repeats,
# street 1080p 216 frames, 16 threads: stock --mvrange-thread 64, --gpu-me
# (the defaults), and --gpu-me with adaptive mode's hexagon fallback and
# --gpu-me-subpel 20 (seventeenth session: +0.10% at 1.52x against +0.06%
# at 1.50x) - is it the better default at veryslow?
set -u
tar xJf build/carry21/c1.tar.xz
export CUDA_ME_COMMIT=$(cat build/carry21/commit)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
tests/device.sh data > "$OUT/device.log" 2>&1
FRAMES=216 T2_CLIPS=1080p T2_THREADS=16 T2_REPEATS=3 T2_PRESETS=veryslow THREAD_LOAD=1 \
  T2_CONFIGS="stock_mvt64 gpu gpu%--gpu-me-fallback=hex%--gpu-me-subpel=20" TOTAL_BUDGET=540 T2_BUDGET=530 \
  results/run.sh "$OUT/i12_veryslow_hexsp2" table2 > "$OUT/vs.log" 2>&1
grep -h "at [0-9.]*x" "$OUT"/*/table2.md | tail -8
cat "$OUT"/*/table2.md | tail -12
cd "$OUT" && tar czf /tmp/all.tgz . && mv /tmp/all.tgz .
