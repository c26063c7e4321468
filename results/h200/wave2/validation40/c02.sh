#!/bin/bash
# Session 40, call 2 (carry build/bench/bench_me as c01): 720p and 1080p
# +-32, GPU time (-b) and streamed (-P 16), 3 rounds interleaved: v24 (the
# default), v24 in 2 blocks a macroblock (-g 96,4: a launch's blocks half
# as long, its drain too, plus the reduce kernel and a second window load),
# v31 (K = 5, 5 blocks an SM).  Lines: ROUND SIZE TAG <bench_me line>.
set -u
B=build/bench/bench_me
{ date +%T; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; } > "$OUT/machine.txt" 2>&1
for rep in 1 2 3; do
  for sz in 720p 1080p; do
    for c in "24:" "24:-g 96,4" "24:-g 64,6" "31:" "31:-g 96,5"; do
      IFS=: read -r v x <<< "$c"
      # shellcheck disable=SC2086
      $B -q -b -P 16 -s $sz -r 32 -v $v $x | awk -v p="$rep $sz v$v${x// /}" '$4=="total"||$4=="streamed"||$4=="geometry"{print p, $0}'
    done
  done
done > "$OUT/bench.txt" 2>&1
tail -12 "$OUT/bench.txt"
