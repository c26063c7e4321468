#!/bin/bash
# call 2: where the threads wait: cores busy, and more lookahead threads (speed only, QP 27)
set -u
tar xJf build/carry02/main.tar.xz
export CUDA_ME_COMMIT=cdc4b9c+harness
LA="%--lookahead-threads=4"
for p in slower veryslow medium; do
  reps=2; [ $p = medium ] && reps=3
  case $p in veryslow) b=190 ;; slower) b=110 ;; *) b=80 ;; esac
  FRAMES=216 T2_QPS=27 T2_CLIPS=1080p T2_THREADS=16 T2_REPEATS=$reps T2_PRESETS=$p \
    T2_CONFIGS="stock_mvt64 gpu gpu$LA stock_mvt64$LA" TOTAL_BUDGET=$b T2_BUDGET=$b \
    results/run.sh "$OUT/i12_lat_$p" table2 > "$OUT/$p.log" 2>&1
done
cd "$OUT" && tar czf /tmp/all.tgz . && mv /tmp/all.tgz .
