#!/bin/bash
# call 3 (session 19): issue 13, warp-instruction throughput of the run
# loop's instructions (tests/tools/pipe_rate.cu, sm_90 build), twice
set -u
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
build/carry19/pipe_rate > "$OUT/pipe_rate.txt" 2>&1
build/carry19/pipe_rate >> "$OUT/pipe_rate.txt" 2>&1
nvidia-smi --query-gpu=clocks.sm --format=csv >> "$OUT/gpu.txt" 2>&1
cat "$OUT/pipe_rate.txt"
tar xJf build/carry19/geom.tar.xz
# v4 at +-64: the library's geometry (64 threads, 7 runs) against 96 x 12 (call 2's best)
OUT="$OUT/ncu" TAG=_auto timeout 60 tests/ncu_kernel.sh build/bench/bench_me 64 4 2>&1 | tail -1
OUT="$OUT/ncu" TAG=_g96x12 ARGS="-g 96,12" timeout 60 tests/ncu_kernel.sh build/bench/bench_me 64 4 2>&1 | tail -1
OUT="$OUT/ncu" TAG=_g128x6 ARGS="-g 128,6" timeout 60 tests/ncu_kernel.sh build/bench/bench_me 32 6 2>&1 | tail -1
rm -f "$OUT"/ncu/*.ncu-rep
