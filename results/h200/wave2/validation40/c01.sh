#!/bin/bash
# Session 40, call 1 (carry build/bench/bench_me of the working tree,
# sm_90): the defaults at 720p / 1080p / 2160p +-16 / 32 / 64 in three
# timings (events as before; -b GPU time; -P 16: per search of 16 queued
# over the library's two job streams), and the kernels of before issue 13
# (classic v3 at +-16, v2 beyond: the defaults then) the same way, 3 rounds
# interleaved.  Lines: ROUND SIZE RANGE TAG <bench_me line>.
set -u
B=build/bench/bench_me
{ date +%T; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  lscpu | grep -m1 "Model name"; } > "$OUT/machine.txt" 2>&1
for rep in 1 2 3; do
  for sz in 720p 1080p 2160p; do
    for rv in 16:14:3 32:24:2 64:26:2; do
      IFS=: read -r r vd vo <<< "$rv"
      $B -q -b -P 16 -s $sz -r $r -v $vd | awk -v p="$rep $sz $r new-b" '$4=="total"||$4=="streamed"||$4=="2"{print p, $0}'
      $B -q -s $sz -r $r -v $vd | awk -v p="$rep $sz $r new-ev" '$4=="total"{print p, $0}'
      $B -q -b -s $sz -r $r -v $vo | awk -v p="$rep $sz $r old-b" '$4=="total"{print p, $0}'
      $B -q -s $sz -r $r -v $vo | awk -v p="$rep $sz $r old-ev" '$4=="total"{print p, $0}'
    done
  done
done > "$OUT/bench.txt" 2>&1
tail -5 "$OUT/bench.txt"
