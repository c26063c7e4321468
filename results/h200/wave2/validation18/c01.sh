#!/bin/bash
# call 1 (session 18): what 1e6e345 owes (the lowres kernel's scans as one
# helper): GPU unit case subpel (test_lowres: CUDA == C) and the GPU e2e set
# (CUDA == C; its streams come back for tests/verify_deferred.sh); then issue
# 12's medium edge: stock --mvrange-thread 64 against --gpu-me, 5 interleaved
# repeats
set -u
tar xJf build/carry18/c1.tar.xz
export CUDA_ME_COMMIT=$(cat build/carry18/commit)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
tests/device.sh data > "$OUT/device.log" 2>&1
CUDA_ME_REQUIRE_GPU=1 CK_RUN_SUITE=gpu CK_RUN_CASE=subpel timeout 120 build/tests/test_cuda_me_static > "$OUT/unit_subpel.log" 2>&1
echo "unit rc=$?" >> "$OUT/unit_subpel.log"
tail -3 "$OUT/unit_subpel.log"
timeout 280 tests/device.sh e2e > "$OUT/e2e.log" 2>&1
echo "e2e rc=$?" >> "$OUT/e2e.log"
grep -E "passed|failed|FAIL|rc=" "$OUT/e2e.log" | tail -5
T2_CLIPS=1080p T2_THREADS=16 T2_REPEATS=5 T2_PRESETS=medium T2_FRAMES_MANY=1080p:216 T2_QFRAMES_MANY=1080p:216 \
  T2_CONFIGS="stock_mvt64 gpu" TOTAL_BUDGET=170 T2_BUDGET=165 \
  results/run.sh "$OUT/i12_medium5" table2 > "$OUT/md.log" 2>&1
grep -h "at [0-9.]*x" "$OUT"/*/table2.md | tail -4
cd "$OUT" && tar czf /tmp/all.tgz . && mv /tmp/all.tgz .
