#!/bin/bash
# call 1 (session 28, 019c9e9 + bench_me -s WxH): issue 13, does the search
# kernel lose a partial last wave of blocks?  The defaults at +-16, +-32
# and +-64 on frames 1920 wide and 40..72 macroblock rows tall (4800..8640
# macroblocks), 2 runs interleaved: a staircase in ms against macroblocks
# with steps one wave of blocks apart would say so.
set -u
tar xJf build/carry28/c1.tar.xz
date +%T > "$OUT/times.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
B=build/bench/bench_me
for rep in 1 2; do
  for rows in $(seq 40 72); do
    for rv in 16:12 32:15 64:16; do
      IFS=: read -r r v <<< "$rv"
      timeout 60 $B -q -s 1920x$((16*rows)) -r $r -v $v 2>&1 | awk -v rep=$rep -v rows=$rows '$4 == "total" && $3 ~ /\*$/ {print rep, rows, $0}'
    done
  done
done > "$OUT/sweep.txt" 2>&1
date +%T >> "$OUT/times.txt"
cat "$OUT/times.txt"; head -5 "$OUT/sweep.txt"
