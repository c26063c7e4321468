#!/bin/bash
# call 3 (session 22, 7b991fe: --gpu-me-fallback auto is hex with --me umh,
# patches/0028's frame-thread timers): the GPU e2e set (CUDA == C; its
# streams come back for tests/verify_deferred.sh), the frontier with the
# shipped defaults (stock --mvrange-thread 64 and --gpu-me at every preset,
# one repeat, QP 22-37), then medium speed only (3 repeats, QP 27) with
# --sync-lookahead 16 for both (the main thread waited 0.5 s of 3.6 for the
# lookahead in call 2's --gpu-me encodes).
set -u
tar xJf build/carry22/c3.tar.xz
export CUDA_ME_COMMIT=$(cat build/carry22/commit)
tests/device.sh data > "$OUT/device.log" 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,persistence_mode --format=csv > "$OUT/gpu.txt" 2>&1
timeout 170 tests/device.sh e2e > "$OUT/e2e.log" 2>&1
echo "e2e rc=$?" >> "$OUT/e2e.log"
grep -E "passed|failed|FAIL|rc=" "$OUT/e2e.log" | tail -4
FRAMES=216 T2_CLIPS=1080p T2_PRESETS="ultrafast superfast veryfast faster fast medium slow slower veryslow" \
  T2_THREADS=16 T2_REPEATS=1 T2_CONFIGS="stock_mvt64 gpu" TOTAL_BUDGET=300 T2_BUDGET=290 PLOTS_BUDGET=8 \
  results/run.sh "$OUT/i12_frontier5" table2 plots > "$OUT/frontier.log" 2>&1
grep -h "at [0-9.]*x" "$OUT"/i12_frontier5/table2.md | tail -9
T2_CLIPS=1080p T2_THREADS=16 T2_REPEATS=3 T2_PRESETS=medium T2_FRAMES_MANY=1080p:216 T2_QFRAMES_MANY=1080p:216 T2_QPS=27 \
  T2_CONFIGS="stock_mvt64 gpu stock_mvt64%--sync-lookahead=16 gpu%--sync-lookahead=16" TOTAL_BUDGET=70 T2_BUDGET=65 \
  results/run.sh "$OUT/i12_medium_sync" table2 > "$OUT/md.log" 2>&1
grep -E "^\| street" "$OUT"/i12_medium_sync/table2.md | head -5
cd "$OUT" && tar czf /tmp/all.tgz . && mv /tmp/all.tgz .
