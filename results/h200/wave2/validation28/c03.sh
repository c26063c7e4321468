#!/bin/bash
# call 3 (session 28, 909b4ea): bench_me's -s as shipped: a frame size
# given as WxH, an explicit 2160p with -q (skipped before b44fc55), the
# sub-pel bench at a WxH size, and the messages of a bad -s.
set -u
tar xJf build/carry28/c3.tar.xz
date +%T > "$OUT/times.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
B=build/bench/bench_me
{
  cat build/carry28/commit
  for rep in 1 2 3; do
    for sz in 1920x1088 1080p 2160p 1280x720 720p; do
      timeout 60 $B -q -s $sz -r 16 -v 12 2>&1 | awk -v rep=$rep '$4 == "total" {print rep, $0}'
      timeout 60 $B -q -s $sz -r 32 -v 15 2>&1 | awk -v rep=$rep '$4 == "total" {print rep, $0}'
    done
  done
  timeout 120 $B -S -q -s 1920x1088 2>&1 | tail -12
  for bad in foo 1920x1081 100x; do timeout 10 $B -s $bad; echo "rc=$?"; done
} > "$OUT/bench.txt" 2>&1
date +%T >> "$OUT/times.txt"
cat "$OUT/bench.txt"
