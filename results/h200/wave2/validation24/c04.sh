#!/bin/bash
# call 4 (session 24): the 4-byte plane only where it measured faster:
# searches up to +-16 (CME_XPLANE_RANGE_MAX: pass 1 there and pass 2 of
# two candidates); frames have one only then (cuda.c b_xplane).  GPU unit
# tests, memcheck and the GPU e2e set side by side; a smoke encode; bench_me
# of 22616cb against this build, 3 runs interleaved (with the two-candidate
# times).
set -u
tar xJf build/carry24/c4.tar.xz
xz -dc build/carry24/bench_base.xz > /tmp/bench_base && chmod +x /tmp/bench_base
export CUDA_ME_COMMIT=$(cat build/carry24/commit)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
tests/device.sh data > "$OUT/device.log" 2>&1
UNIT_TIMEOUT=280 tests/device.sh unit > "$OUT/unit.log" 2>&1 &
p1=$!
( CK_FORK=no CK_RUN_SUITE=gpu CK_RUN_CASE=gpu CUDA_ME_SANITIZE=1 CUDA_ME_REQUIRE_GPU=1 \
    timeout 280 compute-sanitizer --tool memcheck --error-exitcode 9 build/tests/test_cuda_me_static \
    > "$OUT/memcheck.log" 2>&1; echo "memcheck rc=$?" >> "$OUT/memcheck.log" ) &
p2=$!
timeout 250 tests/device.sh e2e > "$OUT/e2e.log" 2>&1
echo "e2e rc=$?" >> "$OUT/e2e.log"
wait $p1 $p2
grep -E "Checks|unit tests" "$OUT/unit.log" | tail -8
grep -E "passed|failed|FAIL|rc=" "$OUT/e2e.log" | tail -4
tail -2 "$OUT/memcheck.log"
build/device/x264/x264 --gpu-me --gpu-me-backend cuda --gpu-me-stats --preset medium --qp 27 \
  --frames 24 -o /dev/null build/data/street_1080p.y4m > "$OUT/smoke.log" 2>&1
echo "smoke rc=$?" >> "$OUT/smoke.log"
grep -iE "gpu-me: (backend|device|memory)|MiB|smoke rc" "$OUT/smoke.log" | head -8
def() { case $1 in 8) echo 6;; 16) echo 12;; 32) echo 15;; 48|64) echo 16;; *) echo 17;; esac; }
for rep in 1 2 3; do
  for s in 1080p:8 1080p:16 1080p:32 1080p:64 720p:16 720p:32 2160p:16 2160p:32; do
    size=${s%:*}; r=${s#*:}; v=$(def $r)
    timeout 60 /tmp/bench_base -s $size -r $r -v $v 2>&1 | awk -v rep=$rep '$4 == "total" || $4 == "2" {print rep, "base", $0}'
    timeout 60 build/bench/bench_me -s $size -r $r -v $v 2>&1 | awk -v rep=$rep '$4 == "total" || $4 == "2" {print rep, "new", $0}'
  done
done > "$OUT/bench.txt" 2>&1
grep -v "2 cands" "$OUT/bench.txt" | awk '{print $1, $2, $3, $4, $5, $7}'
grep "2 cands" "$OUT/bench.txt" | awk '{print $1, $2, $3, $4, $5, $8, $10}'
cd "$OUT" && tar czf /tmp/all.tgz . && mv /tmp/all.tgz .
