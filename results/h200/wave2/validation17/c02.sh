#!/bin/bash
# call 2 (session 17): --gpu-me-fallback (patch 0026; auto = hex at --ref >= 9
# with --me umh/esa/tesa): veryslow 3 repeats with me, hex (auto) and hex +
# --gpu-me-subpel 20; slow with me (auto there) and hex
set -u
tar xJf build/carry17/c2.tar.xz
export CUDA_ME_COMMIT=$(cat build/carry17/commit)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
tests/device.sh data > "$OUT/device.log" 2>&1
FRAMES=216 T2_CLIPS=1080p T2_THREADS=16 T2_REPEATS=3 T2_PRESETS=veryslow \
  T2_CONFIGS="stock_mvt64 gpu%--gpu-me-fallback=me gpu gpu%--gpu-me-subpel=20" TOTAL_BUDGET=365 T2_BUDGET=360 \
  results/run.sh "$OUT/i12_fallback_veryslow" table2 > "$OUT/vs.log" 2>&1
T2_CLIPS=1080p T2_THREADS=16 T2_REPEATS=3 T2_PRESETS=slow T2_FRAMES_MANY=1080p:216 T2_QFRAMES_MANY=1080p:216 \
  T2_CONFIGS="stock_mvt64 gpu gpu%--gpu-me-fallback=hex" TOTAL_BUDGET=150 T2_BUDGET=145 \
  results/run.sh "$OUT/i12_fallback_slow" table2 > "$OUT/sl.log" 2>&1
grep -h "at [0-9.]*x" "$OUT"/*/table2.md | tail -4
cd "$OUT" && tar czf /tmp/all.tgz . && mv /tmp/all.tgz .
