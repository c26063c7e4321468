#!/bin/bash
# Session 38, call 7 (the c6 binaries; carry build/carry38/c6.tar.xz):
# v31 (K = 5) against v24 (K = 6) at every range 17..31, 1080p and 720p,
# 3 runs interleaved: which is faster where (call 6: -10.4% at 1080p
# +-17, -2.8% at +-24, +3.8% at +-28, level at +-32).
set -u
tar xJf build/carry38/c6.tar.xz -C build
B=build/bench/bench_me
C=()
for r in $(seq 17 31); do C+=(1080p:$r:24: 1080p:$r:31:); done
for r in 17 18 19 20 21 22 23 24 25 26 27; do C+=(720p:$r:24: 720p:$r:31:); done
tests/tools/bench_interleaved.sh "$B" "$OUT" 3 "${C[@]}" > /dev/null
grep -h "geometry" "$OUT/raw.txt" | sort | uniq -c
cat "$OUT/machine.txt" "$OUT/bench.md"
