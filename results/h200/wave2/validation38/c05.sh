#!/bin/bash
# Session 38, call 5 (carry build/carry38/c5.tar.xz: main with the X_DYN
# variants reverted and bench_me -n):
# 1. what the event between the steps adds to a one-kernel search's
#    "total": the defaults with and without it (-n);
# 2. block shapes at 720p / 1080p: v24 at +-32 in 2-warp blocks (-g 64,12:
#    6 blocks an SM), v14 at +-16 in 1-warp blocks (-g 32,6), 3-warp
#    (-g 96,2) and 4-warp (-g 128,2) blocks against the defaults;
# 3 runs interleaved.
set -u
tar xJf build/carry38/c5.tar.xz -C build
B=build/bench/bench_me
tests/tools/bench_interleaved.sh "$B" "$OUT" 3 720p:32:24: "720p:32:24:-n" "720p:32:24:-g 64,12" "720p:32:24:-g 64,12 -n" \
    1080p:32:24: "1080p:32:24:-n" "1080p:32:24:-g 64,12" \
    720p:16:14: "720p:16:14:-n" "720p:16:14:-g 32,6" "720p:16:14:-g 32,6 -n" "720p:16:14:-g 96,2" "720p:16:14:-g 128,2" \
    1080p:16:14: "1080p:16:14:-n" "1080p:16:14:-g 32,6" 2160p:16:14: "2160p:16:14:-g 32,6" \
    1080p:64:26: "1080p:64:26:-n" 720p:64:26: "720p:64:26:-n" 2160p:32:24: "2160p:32:24:-n" > /dev/null
grep -h "geometry" "$OUT/raw.txt" | sort | uniq -c
cat "$OUT/machine.txt" "$OUT/bench.md"
