#!/bin/bash
# call 4 (session 23): the key tables only in the variants of KEY_TABLES()
# (strides 80, 144, 272: the defaults at +-17..64 and +-121..128); the other
# variants as in call 1.  GPU unit tests, the GPU e2e set and
# compute-sanitizer memcheck over the kernels case side by side; then
# bench_me of 7b991fe (build/carry23/bench_base) against this build's
# defaults, 3 runs interleaved (with the two-candidate times).
set -u
tar xJf build/carry23/c4.tar.xz
xz -dc build/carry23/bench_base.xz > /tmp/bench_base && chmod +x /tmp/bench_base
export CUDA_ME_COMMIT=$(cat build/carry23/commit)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
tests/device.sh data > "$OUT/device.log" 2>&1
UNIT_TIMEOUT=260 tests/device.sh unit > "$OUT/unit.log" 2>&1 &
p1=$!
( CK_FORK=no CK_RUN_SUITE=gpu CK_RUN_CASE=gpu CUDA_ME_SANITIZE=1 CUDA_ME_REQUIRE_GPU=1 \
    timeout 260 compute-sanitizer --tool memcheck --error-exitcode 9 build/tests/test_cuda_me_static \
    > "$OUT/memcheck.log" 2>&1; echo "memcheck rc=$?" >> "$OUT/memcheck.log" ) &
p2=$!
timeout 200 tests/device.sh e2e > "$OUT/e2e.log" 2>&1
echo "e2e rc=$?" >> "$OUT/e2e.log"
wait $p1 $p2
grep -E "Checks|unit tests" "$OUT/unit.log" | tail -8
grep -E "passed|failed|FAIL|rc=" "$OUT/e2e.log" | tail -4
tail -2 "$OUT/memcheck.log"
old() { case $1 in 8) echo 6;; 16) echo 12;; 32) echo 6;; *) echo 4;; esac; }
new() { case $1 in 8) echo 6;; 16) echo 12;; 32) echo 15;; 48|64) echo 16;; *) echo 17;; esac; }
for rep in 1 2 3; do
  for s in 1080p:8 1080p:16 1080p:32 1080p:48 1080p:64 1080p:128 720p:16 720p:32 720p:64 2160p:16 2160p:32 2160p:64; do
    size=${s%:*}; r=${s#*:}
    timeout 60 /tmp/bench_base -s $size -r $r -v $(old $r) 2>&1 |
      awk -v rep=$rep -v s=$size '$4 == "total" || $4 == "2" {print rep, "base", s, $0}'
    timeout 60 build/bench/bench_me -s $size -r $r -v $(new $r) 2>&1 |
      awk -v rep=$rep -v s=$size '$4 == "total" || $4 == "2" {print rep, "new", s, $0}'
  done
done > "$OUT/bench.txt" 2>&1
grep -v "2 cands" "$OUT/bench.txt" | awk '{print $1, $2, $3, $5, $6, $8}'
grep "2 cands" "$OUT/bench.txt" | awk '{print $1, $2, $3, $5, $6, $9, $11}'
cd "$OUT" && tar czf /tmp/all.tgz . && mv /tmp/all.tgz .
