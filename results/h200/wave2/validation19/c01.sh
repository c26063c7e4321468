#!/bin/bash
# call 1 (session 19): main dcac9f6 and branch lr2 (01eb991: lr-staging on
# main, the lookahead's plane uploads through pinned staging buffers).
# 1. issue 13: per SASS instruction executed counts and stall samples of
#    the default variants (v7 +-16, v6 +-32, v4 +-64; tests/ncu_kernel.sh
#    SOURCE=1, the 5th launch: a plain search of the range)
# 2. issue 12: veryslow, stock --mvrange-thread 64, --gpu-me at main and at
#    lr2 side by side (2 repeats, THREAD_LOAD=1: the lookahead thread's CPU)
set -u
tar xJf build/carry19/main.tar.xz
mkdir -p /tmp/lr2 build/lr19 && tar xJf build/carry19/lr2.tar.xz -C /tmp/lr2 && cp /tmp/lr2/build/device/x264/x264 build/lr19/x264
export CUDA_ME_COMMIT=$(cat build/carry19/commit_main)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
ncu --version > "$OUT/ncu_version.txt" 2>&1
for rv in "16 7" "32 6" "64 4"; do
  set -- $rv
  OUT="$OUT/ncu" SOURCE=1 timeout 100 tests/ncu_kernel.sh build/bench/bench_me $1 $2 2>&1 | tee -a "$OUT/ncu.log" | tail -3
done
ls -la "$OUT/ncu" | head -30
(cd "$OUT" && tar czf /tmp/part1.tgz . && mv /tmp/part1.tgz .)
tests/device.sh data > "$OUT/device.log" 2>&1
THREAD_LOAD=1 FRAMES=216 T2_CLIPS=1080p T2_THREADS=16 T2_REPEATS=2 T2_PRESETS=veryslow \
  T2_CONFIGS="stock_mvt64 gpu gpu@build/lr19/x264" TOTAL_BUDGET=230 T2_BUDGET=225 \
  results/run.sh "$OUT/i12_lr2_veryslow" table2 > "$OUT/vs.log" 2>&1
grep -h "at [0-9.]*x" "$OUT"/*/table2.md | tail -4
cat "$OUT"/i12_lr2_veryslow/threads_table2.txt 2>/dev/null | head -40
cd "$OUT" && rm -f part1.tgz && tar czf /tmp/all.tgz . && mv /tmp/all.tgz .
