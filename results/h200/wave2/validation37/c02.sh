#!/bin/bash
# Session 37, call 2 (the c1 binaries and bench_me printing the SK blocks; carry build/carry37/c2.tar.xz):
# why stream-K lost 30% at +-32 (c1): v28 at 720p +-32 in n blocks
# (bench_me -k n: 132 SMs x 1..6, and 3600 = one block a macroblock, the
# SK kernel with the classic schedule), against v24; v30 at 720p +-16 and
# v29 at 1080p +-48 in 8 / 3 blocks an SM and one a macroblock; 3 runs
# interleaved.
set -u
tar xJf build/carry37/c2.tar.xz -C build
B=build/bench/bench_me
tests/tools/bench_interleaved.sh "$B" "$OUT" 3 720p:32:24: "720p:32:28:-k 3600" "720p:32:28:-k 3599" "720p:32:28:-k 660" \
    "720p:32:28:-k 528" "720p:32:28:-k 396" "720p:32:28:-k 792" "720p:32:28:-k 1320" "720p:32:28:-k 0" \
    720p:16:14: 720p:16:30: "720p:16:30:-k 1056" "720p:16:30:-k 3600" 1080p:48:26: 1080p:48:29: "1080p:48:29:-k 396" "1080p:48:29:-k 8160" > /dev/null
cat "$OUT/machine.txt" "$OUT/bench.md"
grep -h "stream-K in" "$OUT/raw.txt" | sort | uniq -c | head -20
