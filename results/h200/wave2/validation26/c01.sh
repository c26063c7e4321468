#!/bin/bash
# call 1 (session 26, 2a459e6: patches/0030 --gpu-me-predictors shipped,
# auto 2 at medium): the session's only device call (372 s of device time
# were left): the GPU e2e set (CUDA == C byte for byte with the new glue;
# streams back for tests/verify_deferred.sh), then medium's new default
# (sub-pel pruning in the P loops + 2 of x264's predictors priced) against
# stock --mvrange-thread 64, interleaved repeats as the budget allows.
set -u
tar xJf build/carry26/c1.tar.xz
export CUDA_ME_COMMIT=$(cat build/carry26/commit)
date +%T > "$OUT/times.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
tests/device.sh data > "$OUT/device.log" 2>&1
timeout 135 tests/device.sh e2e > "$OUT/e2e.log" 2>&1
echo "e2e rc=$?" >> "$OUT/e2e.log"
date +%T >> "$OUT/times.txt"
grep -E "passed|failed|FAIL|rc=" "$OUT/e2e.log" | tail -4
T2_CLIPS=1080p T2_THREADS=16 T2_REPEATS=9 T2_PRESETS=medium T2_FRAMES_MANY=1080p:216 T2_QFRAMES_MANY=1080p:216 \
  T2_CONFIGS="stock_mvt64 gpu" TOTAL_BUDGET=62 T2_BUDGET=60 results/run.sh "$OUT/i12_medium_0030" table2 > "$OUT/md.log" 2>&1
date +%T >> "$OUT/times.txt"
grep -E "^\| street" "$OUT"/i12_medium_0030/table2.md | cut -c1-260 | head -3
cd "$OUT" && tar czf /tmp/all.tgz . && rm -rf ./* && mv /tmp/all.tgz .
