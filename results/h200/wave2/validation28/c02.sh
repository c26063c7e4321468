#!/bin/bash
# call 2 (session 28, branch tail, uncommitted: search_tail()): issue 13,
# the launch's last macroblocks in pieces (bench_me -T PCT,N: the last PCT%
# of a wave of blocks in N pieces each; 0,0 = none, the same binary).  The
# defaults at +-16, +-32, +-48 (one block per macroblock), 720p, 1080p,
# 2160p, 3 runs interleaved; each -T run also compares its results with a
# launch without pieces.
set -u
tar xJf build/carry28/c2.tar.xz
date +%T > "$OUT/times.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
B=build/bench/bench_me
for rep in 1 2 3; do
  for sz in 1080p 720p 2160p; do
    for rv in 16:12 32:15 48:16; do
      IFS=: read -r r v <<< "$rv"
      for T in 0,0 50,2 100,2 50,4 100,4 200,4; do
        timeout 60 $B -q -s $sz -r $r -v $v -T $T 2>&1 | awk -v rep=$rep -v T=$T '($4 == "total" && $3 ~ /\*$/) || /tail/ {print rep, "T=" T, $0}'
      done
    done
  done
done > "$OUT/bench.txt" 2>&1
date +%T >> "$OUT/times.txt"
cat "$OUT/times.txt"; grep -c "0 of" "$OUT/bench.txt"; grep tail "$OUT/bench.txt" | grep -v " 0 of" | head
