#!/bin/bash
# call 2 (session 27, 770e7aa + two new kernel variants, 18 fma-s144-K6/4
# and 19 fma-s80-K6/3): issue 13, the new variants against the defaults
# (v15 at +-32, v16 at +-48/64), 3 runs interleaved, 1080p, 720p and 2160p
# at +-64; then the GPU checks on the final glue of issue 12 and the new
# variants (tests/device.sh gpu: unit with every variant == C, memcheck
# over the GPU case gpu, the e2e set with its streams for FFmpeg here).
set -u
tar xJf build/carry27/c2.tar.xz
export CUDA_ME_COMMIT=$(head -1 build/carry27/commit)
date +%T > "$OUT/times.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
tests/device.sh data > "$OUT/device.log" 2>&1
B=build/bench/bench_me
for rep in 1 2 3; do
  for sr in 1080p:32:15 1080p:32:19 1080p:48:16 1080p:48:18 1080p:64:16 1080p:64:18 720p:64:16 720p:64:18 2160p:64:16 2160p:64:18; do
    IFS=: read -r s r v <<< "$sr"
    timeout 60 $B -s $s -r $r -v $v 2>&1 | awk -v rep=$rep '$4 == "total" || $4 == "2" {print rep, $0}'
  done
done > "$OUT/bench.txt" 2>&1
date +%T >> "$OUT/times.txt"
grep total "$OUT/bench.txt"
UNIT_TIMEOUT=340 MEMCHECK_TIMEOUT=340 E2E_TIMEOUT=320 tests/device.sh gpu > "$OUT/gpu.log" 2>&1
date +%T >> "$OUT/times.txt"
tail -12 "$OUT/gpu.log"
cd "$OUT" && tar czf /tmp/all.tgz . && rm -rf ./* && mv /tmp/all.tgz .
