#!/bin/bash
# call 2 (session 25): patches/0029 (--gpu-me-subpel auto from --ref 3, in
# the P loops below --ref 5) and the launch geometry memo (7a92ace, never
# run on a GPU): GPU unit tests, memcheck over the kernels case and the GPU
# e2e set (CUDA == C; streams back for tests/verify_deferred.sh) side by
# side; then medium, 9 interleaved repeats: the new default against
# --gpu-me-subpel 0 (the old default at medium) and stock --mvrange-thread 64.
set -u
tar xJf build/carry25/c2.tar.xz
export CUDA_ME_COMMIT=$(cat build/carry25/commit)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
tests/device.sh data > "$OUT/device.log" 2>&1
UNIT_TIMEOUT=280 tests/device.sh unit > "$OUT/unit.log" 2>&1 &
p1=$!
( CK_FORK=no CK_RUN_SUITE=gpu CK_RUN_CASE=gpu CUDA_ME_SANITIZE=1 CUDA_ME_REQUIRE_GPU=1 \
    timeout 280 compute-sanitizer --tool memcheck --error-exitcode 9 build/tests/test_cuda_me_static \
    > "$OUT/memcheck.log" 2>&1; echo "memcheck rc=$?" >> "$OUT/memcheck.log" ) &
p2=$!
timeout 290 tests/device.sh e2e > "$OUT/e2e.log" 2>&1
echo "e2e rc=$?" >> "$OUT/e2e.log"
wait $p1 $p2
grep -E "Checks|unit tests" "$OUT/unit.log" | tail -8
grep -E "passed|failed|FAIL|rc=" "$OUT/e2e.log" | tail -4
tail -2 "$OUT/memcheck.log"
T2_CLIPS=1080p T2_THREADS=16 T2_REPEATS=9 T2_PRESETS=medium T2_FRAMES_MANY=1080p:216 T2_QFRAMES_MANY=1080p:216 \
  T2_CONFIGS="stock_mvt64 gpu gpu%--gpu-me-subpel=0" \
  TOTAL_BUDGET=200 T2_BUDGET=195 results/run.sh "$OUT/i12_medium_0029" table2 > "$OUT/md.log" 2>&1
grep -E "^\| street" "$OUT"/i12_medium_0029/table2.md | head -4
cd "$OUT" && tar czf /tmp/all.tgz . && mv /tmp/all.tgz .
