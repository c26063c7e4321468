#!/bin/bash
# call 2 (session 19): issue 13, the search geometry.  ncu (call 1) put 20-40%
# of the warps' time outside the run loop (set-up, window load, reduction),
# so fewer warps feed the ALU pipe than are resident; sweep threads per
# block x runs per thread for the default variants and two others
# (bench_me -g, cme_cuda_geom_force), 1080p, one reference, 41 partitions.
set -u
tar xJf build/carry19/geom.tar.xz
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
timeout 520 results/h200/wave2/validation19/geom_sweep.sh build/bench/bench_me "16:7 32:6 64:4 32:4 64:6" \
  "32 64 96 128" "1 2 3 4 5 6 7 8 10 12 14 16" > "$OUT/geom.txt" 2>&1
awk '$5 != "fail"' "$OUT/geom.txt" | sort -k1,1n -k2,2n -k5,5n | awk '{k=$1" "$2; if (n[k]++ < 4 || $3 == "auto") print}'
