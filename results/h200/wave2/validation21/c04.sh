#!/bin/bash
# call 4 (session 21): which of the two makes call 3's veryslow 1.76x:
# speed only (QP 27, 216 frames, 16 threads, 2 interleaved repeats):
# stock --mvrange-thread 64, --gpu-me-subpel 20 alone, the hexagon
# fallback alone, both.
set -u
tar xJf build/carry21/c1.tar.xz
export CUDA_ME_COMMIT=$(cat build/carry21/commit)
tests/device.sh data > "$OUT/device.log" 2>&1
FRAMES=216 T2_CLIPS=1080p T2_THREADS=16 T2_REPEATS=2 T2_PRESETS=veryslow T2_QPS=27 \
  T2_CONFIGS="stock_mvt64 gpu%--gpu-me-subpel=20 gpu%--gpu-me-fallback=hex gpu%--gpu-me-fallback=hex%--gpu-me-subpel=20" \
  TOTAL_BUDGET=200 T2_BUDGET=195 results/run.sh "$OUT/i12_veryslow_attr" table2 > "$OUT/vs.log" 2>&1
grep -E "^\| street" "$OUT"/*/table2.md | head -8
cd "$OUT" && tar czf /tmp/all.tgz . && mv /tmp/all.tgz .
