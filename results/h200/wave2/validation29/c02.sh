#!/bin/bash
# call 2 (session 29, branch lean, uncommitted): which part of the lean
# set-up moves which variant.  Binaries: base = ae99324's bench_me (call
# 1's), lean = all parts (LEAN=31, call 1's), xN = LEAN=N built for sm_90
# only (bit 1 window loads without the index walk, 2 funnel shifts as
# IMADs, 4 divisions in floating point, 8 key tables, 16 the 4-byte
# plane's copies; 4 then also covered the run loop's division, bit 32
# since: these builds are 1, 3, 44 and 61 in me_cuda.cu's numbering now,
# and lean is 63).  The defaults at 1080p +-16 (v12), +-32 (v15), +-64
# (v16), v16 at +-32, 2160p +-32, 5 runs interleaved.
set -u
tar xJf build/carry29/c1.tar.xz
tar xJf build/carry29/c2.tar.xz
date +%T > "$OUT/times.txt"
for rep in 1 2 3 4 5; do
  for srv in 1080p:16:12 1080p:32:15 1080p:64:16 1080p:32:16 2160p:32:15; do
    IFS=: read -r sz r v <<< "$srv"
    for b in base lean x1 x3 x12 x29; do
      case $b in base) B=build/carry29/base_bench_me;; lean) B=build/bench/bench_me;; *) B=build/carry29/$b/bench_me;; esac
      timeout 60 $B -q -s $sz -r $r -v $v 2>&1 | awk -v rep=$rep -v b=$b '$4 == "total" {print rep, b, $0}'
    done
  done
done > "$OUT/bench.txt" 2>&1
date +%T >> "$OUT/times.txt"
cat "$OUT/times.txt"; wc -l "$OUT/bench.txt"
