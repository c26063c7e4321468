#!/bin/bash
# call 2 (session 22): the open's phases (call 1 named a clip that is not
# there), then with patches/0028's frame-thread timers in --gpu-me-stats:
# medium speed only (3 repeats, QP 27), and slow with the hexagon fallback
# (auto leaves umh there; slower gained 1.53x -> 1.70x with it in call 1),
# 3 repeats, QP 22-37.
set -u
tar xJf build/carry22/c2.tar.xz
export CUDA_ME_COMMIT=$(cat build/carry22/commit)
tests/device.sh data > "$OUT/device.log" 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,persistence_mode --format=csv > "$OUT/gpu.txt" 2>&1
for i in 1 2 3; do
  t0=$(date +%s%N)
  build/device/x264/x264 --gpu-me --gpu-me-backend cuda --log-level debug --preset medium \
    --qp 27 --frames 8 -o /dev/null build/data/street_1080p.y4m 2>&1 | grep -E "gpu-me: (open|using)"
  echo "wall $(( ($(date +%s%N) - t0) / 1000000 )) ms"
done > "$OUT/open.txt" 2>&1
cat "$OUT/open.txt"
T2_CLIPS=1080p T2_THREADS=16 T2_REPEATS=3 T2_PRESETS=medium T2_FRAMES_MANY=1080p:216 T2_QFRAMES_MANY=1080p:216 T2_QPS=27 \
  T2_CONFIGS="stock_mvt64 gpu" TOTAL_BUDGET=60 T2_BUDGET=55 results/run.sh "$OUT/i12_medium_frames" table2 > "$OUT/md.log" 2>&1
grep -E "^\| street" "$OUT"/i12_medium_frames/table2.md | head -3
FRAMES=216 T2_CLIPS=1080p T2_THREADS=16 T2_REPEATS=3 T2_PRESETS=slow \
  T2_CONFIGS="stock_mvt64 gpu gpu%--gpu-me-fallback=hex" TOTAL_BUDGET=200 T2_BUDGET=195 \
  results/run.sh "$OUT/i12_slow_hex" table2 > "$OUT/slow.log" 2>&1
grep -E "^\| street" "$OUT"/i12_slow_hex/table2.md | head -4
cd "$OUT" && tar czf /tmp/all.tgz . && mv /tmp/all.tgz .
