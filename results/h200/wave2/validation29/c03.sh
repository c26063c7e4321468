#!/bin/bash
# call 3 (session 29, branch lean, uncommitted): the lean set-up without
# the funnel shifts as IMADs (call 2: they cost what the walk-free loads
# save) and with the run loop's division by per as before (in floating
# point it changed v15's and v12's register allocation: 4 more bytes of
# spill).  base = ae99324 (fat), y0 = LEAN=0 (ae99324's kernels, sm_90
# only: the build's own baseline), y29 = loads + row divisions + key
# tables + the plane's copies, y61 = y29 + the run loop's division.
# 1080p +-16/32/64, 720p and 2160p +-16/32, 5 runs interleaved.
set -u
tar xJf build/carry29/c1.tar.xz
tar xJf build/carry29/c3.tar.xz
date +%T > "$OUT/times.txt"
for rep in 1 2 3 4 5; do
  for srv in 1080p:16:12 1080p:32:15 1080p:64:16 720p:16:12 720p:32:15 2160p:16:12 2160p:32:15 720p:64:16; do
    IFS=: read -r sz r v <<< "$srv"
    for b in base y0 y29 y61; do
      case $b in base) B=build/carry29/base_bench_me;; *) B=build/carry29/$b/bench_me;; esac
      timeout 60 $B -q -s $sz -r $r -v $v 2>&1 | awk -v rep=$rep -v b=$b '$4 == "total" {print rep, b, $0}'
    done
  done
done > "$OUT/bench.txt" 2>&1
date +%T >> "$OUT/times.txt"
cat "$OUT/times.txt"; wc -l "$OUT/bench.txt"
