#!/bin/bash
# call 1 (session 21): 7aeeabd (the search kernels' per-block set-up
# without signed divisions).  GPU unit tests (4 parts: every variant == C)
# and the GPU e2e set (CUDA == C; its streams come back for
# tests/verify_deferred.sh) side by side; then bench_me of 82528d7 (the
# kernels before this change, build/carry21/bench_base) against this
# build, default variants, 1080p +-16/32/64 and 720p/2160p +-16, 3 runs
# interleaved.
set -u
tar xJf build/carry21/c1.tar.xz
xz -dc build/carry21/bench_base.xz > /tmp/bench_base && chmod +x /tmp/bench_base
export CUDA_ME_COMMIT=$(cat build/carry21/commit)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
tests/device.sh data > "$OUT/device.log" 2>&1
UNIT_TIMEOUT=270 tests/device.sh unit > "$OUT/unit.log" 2>&1 &
p1=$!
timeout 300 tests/device.sh e2e > "$OUT/e2e.log" 2>&1
echo "e2e rc=$?" >> "$OUT/e2e.log"
wait $p1
grep -E "Checks|unit tests" "$OUT/unit.log" | tail -8
grep -E "passed|failed|FAIL|rc=" "$OUT/e2e.log" | tail -4
v() { [ $1 -le 8 ] && echo 6 || { [ $1 -le 16 ] && echo 12 || { [ $1 -le 32 ] && echo 6 || echo 4; }; }; }
for rep in 1 2 3; do
  for s in 1080p:16 1080p:32 1080p:64 720p:16 2160p:16; do
    size=${s%:*}; r=${s#*:}
    for b in base new; do
      bin=build/bench/bench_me; [ $b = base ] && bin=/tmp/bench_base
      $bin -s $size -r $r -v $(v $r) 2>&1 |
        awk -v rep=$rep -v b=$b -v s=$size '$4 == "total" {print rep, b, s, $0}'
    done
  done
done > "$OUT/bench.txt" 2>&1
cat "$OUT/bench.txt"
cd "$OUT" && tar czf /tmp/all.tgz . && mv /tmp/all.tgz .
