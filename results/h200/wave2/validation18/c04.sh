#!/bin/bash
# call 4 (session 18): 1bf963d, the lookahead's stream at the greatest
# priority and 512 queued pairs (call 3: at veryslow 1059 of 2147 pairs were
# asked for after the 128-entry queue had forgotten them, 1.3 ms waited per
# pair). GPU unit case subpel (test_lowres CUDA == C, the queue); veryslow,
# stock --mvrange-thread 64, --gpu-me at 1e6e345 and at 1bf963d side by side
# (2 repeats, THREAD_LOAD=1); then the GPU e2e set (CUDA == C)
set -u
tar xJf build/carry18/c4.tar.xz
export CUDA_ME_COMMIT=$(cat build/carry18/commit4)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
tests/device.sh data > "$OUT/device.log" 2>&1
CUDA_ME_REQUIRE_GPU=1 CK_RUN_SUITE=gpu CK_RUN_CASE=subpel timeout 100 build/tests/test_cuda_me_static > "$OUT/unit_subpel.log" 2>&1
echo "unit rc=$?" >> "$OUT/unit_subpel.log"
tail -3 "$OUT/unit_subpel.log"
THREAD_LOAD=1 FRAMES=216 T2_CLIPS=1080p T2_THREADS=16 T2_REPEATS=2 T2_PRESETS=veryslow \
  T2_CONFIGS="stock_mvt64 gpu@build/old18/x264 gpu" TOTAL_BUDGET=210 T2_BUDGET=205 \
  results/run.sh "$OUT/i12_lrqueue_veryslow" table2 > "$OUT/vs.log" 2>&1
grep -h "at [0-9.]*x" "$OUT"/*/table2.md | tail -4
(cd "$OUT" && tar czf /tmp/part1.tgz . && mv /tmp/part1.tgz .)
timeout 200 tests/device.sh e2e > "$OUT/e2e.log" 2>&1
echo "e2e rc=$?" >> "$OUT/e2e.log"
grep -E "passed|failed|FAIL|rc=" "$OUT/e2e.log" | tail -4
cd "$OUT" && rm -f part1.tgz && tar czf /tmp/all.tgz . && mv /tmp/all.tgz .
