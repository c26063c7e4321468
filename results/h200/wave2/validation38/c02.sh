#!/bin/bash
# Session 38, call 2 (the c1 binaries, e42447e; carry build/carry38/c1.tar.xz):
# where stream-K's warps wait: ncu's stall reasons (WarpStateStats,
# SchedulerStats) and per-SASS stall samples (SourceCounters) of v24, v28
# (528 blocks) and v28 -k 3600 (the SK kernel, a block a macroblock) at
# 720p +-32.
set -u
tar xJf build/carry38/c1.tar.xz -C build
B=build/bench/bench_me
SIZE=720p OUT=$OUT/ncu STALLS=1 SOURCE=1 tests/ncu_kernel.sh $B 32 24 28 2>&1 | grep -v "^v[0-9]* stalls:"
SIZE=720p OUT=$OUT/ncu ARGS="-k 3600" TAG=_k3600 STALLS=1 SOURCE=1 tests/ncu_kernel.sh $B 32 28 2>&1 | grep -v "^v[0-9]* stalls:"
rm -f $OUT/ncu/*.ncu-rep
for f in $OUT/ncu/*.sass.csv; do xz -9 "$f"; done
ls -la $OUT/ncu
