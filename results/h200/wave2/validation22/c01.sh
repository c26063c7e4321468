#!/bin/bash
# call 1 (session 22): where the CUDA open's time goes (debug log of the
# phases, 3 opens with --gpu-me-backend cuda: synchronous), then issue 12's
# medium edge: (a) the warm-up (x264 waited 86 ms for the open in session
# 21's medium encodes: warm-up 20 frames, X264_GPU_ME_WARMUP=28/40 against
# it) and --gpu-me-split 20, speed only at QP 27, 5 interleaved repeats,
# 216 frames; (b) 648 frames (the palindrome three times), 3 repeats: how
# much of medium's ratio is start-up; (c) slower with the hexagon fallback
# (auto leaves umh there), 3 repeats, QP 22-37.
set -u
tar xJf build/carry22/c1.tar.xz
export CUDA_ME_COMMIT=$(cat build/carry22/commit)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,persistence_mode --format=csv > "$OUT/gpu.txt" 2>&1
tests/device.sh data > "$OUT/device.log" 2>&1
for i in 1 2 3; do
  t0=$(date +%s%N)
  build/device/x264/x264 --gpu-me --gpu-me-backend cuda --log-level debug --preset medium \
    --qp 27 --frames 8 -o /dev/null build/data/street_1080p_8.y4m 2>&1 | grep -E "gpu-me: (open|using)"
  echo "wall $(( ($(date +%s%N) - t0) / 1000000 )) ms"
done > "$OUT/open.txt" 2>&1
cat "$OUT/open.txt"
T2_CLIPS=1080p T2_THREADS=16 T2_REPEATS=5 T2_PRESETS=medium T2_FRAMES_MANY=1080p:216 T2_QFRAMES_MANY=1080p:216 T2_QPS=27 \
  T2_CONFIGS="stock_mvt64 gpu gpu+X264_GPU_ME_WARMUP=28 gpu+X264_GPU_ME_WARMUP=40 gpu%--gpu-me-split=20" \
  TOTAL_BUDGET=140 T2_BUDGET=135 results/run.sh "$OUT/i12_medium_warm" table2 > "$OUT/md.log" 2>&1
grep -E "^\| street" "$OUT"/i12_medium_warm/table2.md | head -6
FRAMES=648 T2_CLIPS=1080p T2_THREADS=16 T2_REPEATS=3 T2_PRESETS=medium T2_QPS=27 T2_CONFIGS="stock_mvt64 gpu" \
  TOTAL_BUDGET=100 T2_BUDGET=95 results/run.sh "$OUT/i12_medium_648" table2 > "$OUT/md648.log" 2>&1
grep -E "^\| street" "$OUT"/i12_medium_648/table2.md | head -3
FRAMES=216 T2_CLIPS=1080p T2_THREADS=16 T2_REPEATS=3 T2_PRESETS=slower THREAD_LOAD=1 \
  T2_CONFIGS="stock_mvt64 gpu gpu%--gpu-me-fallback=hex" TOTAL_BUDGET=250 T2_BUDGET=245 \
  results/run.sh "$OUT/i12_slower_hex" table2 > "$OUT/slower.log" 2>&1
grep -E "^\| street" "$OUT"/i12_slower_hex/table2.md | head -4
cd "$OUT" && tar czf /tmp/all.tgz . && mv /tmp/all.tgz .
