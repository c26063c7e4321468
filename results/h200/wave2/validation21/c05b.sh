#!/bin/bash
# call 5b (session 21, on the machine still warm after call 5; run as one
# command line): medium speed only, 5 interleaved repeats, QP 27: stock
# --mvrange-thread 64, --gpu-me, replace mode (call 5's 1.33x for replace
# against 1.22x: noise or not?)
tar xJf build/carry21/c5.tar.xz && tests/device.sh data > /dev/null 2>&1
T2_CLIPS=1080p T2_THREADS=16 T2_REPEATS=5 T2_PRESETS=medium T2_FRAMES_MANY=1080p:216 T2_QFRAMES_MANY=1080p:216 T2_QPS=27 \
  T2_CONFIGS="stock_mvt64 gpu gpu%--gpu-me-mode=replace" TOTAL_BUDGET=120 T2_BUDGET=115 \
  CUDA_ME_COMMIT=$(cat build/carry21/commit) results/run.sh "$OUT/i12_medium_replace5" table2 > "$OUT/md.log" 2>&1
grep -E "^\| street" "$OUT"/*/table2.md | head -5
cd "$OUT" && tar czf /tmp/all.tgz . && mv /tmp/all.tgz .
