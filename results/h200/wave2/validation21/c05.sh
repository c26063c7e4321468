#!/bin/bash
# call 5 (session 21): the final build (patches/0027: --gpu-me-fallback
# auto and --gpu-me-subpel auto at --ref 9+; the kernels as 82528d7).
# The GPU e2e set (CUDA == C; its streams come back for
# tests/verify_deferred.sh), then plain --gpu-me at veryslow (the new
# defaults, as users get them) against stock --mvrange-thread 64, 2
# interleaved repeats.
set -u
tar xJf build/carry21/c5.tar.xz
export CUDA_ME_COMMIT=$(cat build/carry21/commit)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
tests/device.sh data > "$OUT/device.log" 2>&1
timeout 300 tests/device.sh e2e > "$OUT/e2e.log" 2>&1
echo "e2e rc=$?" >> "$OUT/e2e.log"
grep -E "passed|failed|FAIL|rc=" "$OUT/e2e.log" | tail -4
FRAMES=216 T2_CLIPS=1080p T2_THREADS=16 T2_REPEATS=2 T2_PRESETS=veryslow \
  T2_CONFIGS="stock_mvt64 gpu" TOTAL_BUDGET=230 T2_BUDGET=225 \
  results/run.sh "$OUT/i12_veryslow_default" table2 > "$OUT/vs.log" 2>&1
grep -E "^\| street" "$OUT"/*/table2.md | head -6
cd "$OUT" && tar czf /tmp/all.tgz . && mv /tmp/all.tgz .
