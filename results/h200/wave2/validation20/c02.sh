#!/bin/bash
# call 2 (session 20): af041e4 (v12 the default up to +-16; pass 2 at half
# the range below 32).  GPU unit tests (4 parts) and the GPU e2e set (CUDA
# == C; its streams come back for tests/verify_deferred.sh) side by side;
# then bench_me's default variants at 1080p, 2 runs.
set -u
tar xJf build/carry20/c2.tar.xz
export CUDA_ME_COMMIT=$(cat build/carry20/commit)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
tests/device.sh data > "$OUT/device.log" 2>&1
UNIT_TIMEOUT=270 tests/device.sh unit > "$OUT/unit.log" 2>&1 &
p1=$!
timeout 300 tests/device.sh e2e > "$OUT/e2e.log" 2>&1
echo "e2e rc=$?" >> "$OUT/e2e.log"
wait $p1
grep -E "Checks|unit tests" "$OUT/unit.log" | tail -8
grep -E "passed|failed|FAIL|rc=" "$OUT/e2e.log" | tail -4
for rep in 1 2; do
  for r in 16 32 48 64 128; do
    build/bench/bench_me -q -s 1080p -r $r -v $([ $r -le 16 ] && echo 12 || { [ $r -le 32 ] && echo 6 || echo 4; }) 2>&1 |
      awk -v rep=$rep '$4 == "total" || $4 == "2" {print rep, $0}'
  done
done > "$OUT/bench.txt" 2>&1
cat "$OUT/bench.txt"
cd "$OUT" && tar czf /tmp/all.tgz . && mv /tmp/all.tgz .
