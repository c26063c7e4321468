#!/bin/bash
# call 6 (session 19): eb13664 (fused results where a macroblock is one
# block; the geometry rule with window loads).  GPU unit tests (4 parts),
# compute-sanitizer memcheck over the kernels case, the GPU e2e set (CUDA ==
# C, decoded here), all side by side; then bench_me at dcac9f6 (main before
# this session) and eb13664 interleaved, default variants, 1080p.
set -u
tar xJf build/carry19/c06.tar.xz
xz -dkf build/carry19/bench_old.xz
export CUDA_ME_COMMIT=$(cat build/carry19/commit_c06)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
tests/device.sh data > "$OUT/device.log" 2>&1
UNIT_TIMEOUT=300 tests/device.sh unit > "$OUT/unit.log" 2>&1 &
p1=$!
(CK_FORK=no CK_RUN_SUITE=gpu CK_RUN_CASE=gpu CUDA_ME_SANITIZE=1 CUDA_ME_REQUIRE_GPU=1 \
  timeout 300 compute-sanitizer --tool memcheck --error-exitcode 9 build/tests/test_cuda_me_static > "$OUT/memcheck.log" 2>&1
 echo "memcheck rc=$?" >> "$OUT/memcheck.log") &
p2=$!
timeout 320 tests/device.sh e2e > "$OUT/e2e.log" 2>&1
echo "e2e rc=$?" >> "$OUT/e2e.log"
wait $p1 $p2
grep -E "Checks|unit tests" "$OUT/unit.log" | tail -8
tail -3 "$OUT/memcheck.log"
grep -E "passed|failed|FAIL|rc=" "$OUT/e2e.log" | tail -4
for rep in 1 2; do
  for rv in 16:7 32:6 48:4 64:4 128:4; do
    r=${rv%%:*}; v=${rv##*:}
    for b in old new; do
      bin=build/bench/bench_me; [ $b = old ] && bin=build/carry19/bench_old
      $bin -q -s 1080p -r $r -v $v 2>&1 | awk -v b=$b -v rep=$rep '$4 == "total" || $4 == "2" {print rep, b, $0}'
    done
  done
done > "$OUT/bench.txt" 2>&1
cat "$OUT/bench.txt"
cd "$OUT" && tar czf /tmp/all.tgz . && mv /tmp/all.tgz .
