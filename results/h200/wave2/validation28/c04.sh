#!/bin/bash
# call 4 (session 28, 244080f): issue 13, which variant at +-8 and +-16
# now that the windows up to +-16 come from the 4-byte plane (session 24):
# every variant, 720p, 1080p, 2160p, 3 runs interleaved (bench_me's
# default 25 launches each).
set -u
tar xJf build/carry28/c4.tar.xz
date +%T > "$OUT/times.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
B=build/bench/bench_me
for rep in 1 2 3; do
  for sz in 1080p 720p 2160p; do
    for r in 16 8; do
      timeout 120 $B -s $sz -r $r 2>&1 | awk -v rep=$rep '$4 == "total" && $3 != "paper" {print rep, $0}'
    done
  done
done > "$OUT/bench.txt" 2>&1
date +%T >> "$OUT/times.txt"
cat "$OUT/times.txt"; wc -l "$OUT/bench.txt"
