#!/bin/bash
# call 5 (session 27, 0577efb + bench_me -C / cme_cuda_carveout()): issue
# 13, the search kernels' preferred shared-memory carveout (the driver's
# choice, as the library leaves it, against 60, 75, 90 and 100% of the
# largest): the defaults at +-16, +-32 and +-64, 1080p, 3 runs interleaved.
set -u
tar xJf build/carry27/c5.tar.xz
date +%T > "$OUT/times.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
B=build/bench/bench_me
for rep in 1 2 3; do
  for rv in 16:12 32:15 64:16; do
    IFS=: read -r r v <<< "$rv"
    for c in -1 60 75 90 100; do
      timeout 60 $B -s 1080p -r $r -v $v -C $c 2>&1 | awk -v rep=$rep -v c=$c '$4 == "total" {print rep, "C=" c, $0}'
    done
  done
done > "$OUT/bench.txt" 2>&1
date +%T >> "$OUT/times.txt"
cat "$OUT/bench.txt"
