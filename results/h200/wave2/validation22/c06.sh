#!/bin/bash
# call 6 (session 22, e5d6e70, the final build; 196 s of device time
# left): a smoke run of what changed after call 3 (the open's debug line,
# 0028's statistics summed in one loop): one --gpu-me encode on the CUDA
# backend with --gpu-me-stats and --log-level debug, medium, 8 frames.
set -u
tar xJf build/carry22/c6.tar.xz
tests/device.sh data > "$OUT/device.log" 2>&1
build/device/x264/x264 --gpu-me --gpu-me-backend cuda --gpu-me-stats --log-level debug --preset medium --qp 27 \
  --threads 4 --frames 8 -o "$OUT/smoke.264" build/data/street_1080p.y4m > "$OUT/smoke.log" 2>&1
echo "rc=$?" >> "$OUT/smoke.log"
grep -E "gpu-me: (open|frame threads|frames [0-9]|x264 motion)|^encoded|^rc=" "$OUT/smoke.log"
