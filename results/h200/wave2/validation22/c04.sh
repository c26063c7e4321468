#!/bin/bash
# call 4 (session 22, 7b991fe): medium's frame rate follows its P frames'
# latency (call 2's frame-thread timers: B frames wait for the P frame
# coded just before them), so skip work in P frames only: --gpu-me-subpel
# 20 in the P loops (X264_GPU_ME_SUBPEL_SITES=3: P 16x16 and 8x8; =2: P
# 8x8), against --gpu-me and stock --mvrange-thread 64; 4 interleaved
# repeats, QP 22-37.
set -u
tar xJf build/carry22/c3.tar.xz
export CUDA_ME_COMMIT=$(cat build/carry22/commit)
tests/device.sh data > "$OUT/device.log" 2>&1
T2_CLIPS=1080p T2_THREADS=16 T2_REPEATS=4 T2_PRESETS=medium T2_FRAMES_MANY=1080p:216 T2_QFRAMES_MANY=1080p:216 \
  T2_CONFIGS="stock_mvt64 gpu gpu%--gpu-me-subpel=20+X264_GPU_ME_SUBPEL_SITES=3 gpu%--gpu-me-subpel=20+X264_GPU_ME_SUBPEL_SITES=2" \
  TOTAL_BUDGET=230 T2_BUDGET=225 results/run.sh "$OUT/i12_medium_psites" table2 > "$OUT/md.log" 2>&1
grep -E "^\| street" "$OUT"/i12_medium_psites/table2.md | head -5
cd "$OUT" && tar czf /tmp/all.tgz . && mv /tmp/all.tgz .
