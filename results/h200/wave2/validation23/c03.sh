#!/bin/bash
# call 3 (session 23): the key tables sized per launch after the window (a
# fixed 2 KB cost +-64 its 4th block per SM in call 2).  GPU unit tests,
# the GPU e2e set and compute-sanitizer memcheck over the kernels case side
# by side; then bench_me of 7b991fe (build/carry23/bench_base) against this
# build's defaults (and the runtime-stride variant at +-16/+-32/+-64),
# 3 runs interleaved, with the two-candidate times; ncu at +-32.
set -u
tar xJf build/carry23/c3.tar.xz
xz -dc build/carry23/bench_base.xz > /tmp/bench_base && chmod +x /tmp/bench_base
export CUDA_ME_COMMIT=$(cat build/carry23/commit)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
tests/device.sh data > "$OUT/device.log" 2>&1
UNIT_TIMEOUT=280 tests/device.sh unit > "$OUT/unit.log" 2>&1 &
p1=$!
( CK_FORK=no CK_RUN_SUITE=gpu CK_RUN_CASE=gpu CUDA_ME_SANITIZE=1 CUDA_ME_REQUIRE_GPU=1 \
    timeout 280 compute-sanitizer --tool memcheck --error-exitcode 9 build/tests/test_cuda_me_static \
    > "$OUT/memcheck.log" 2>&1; echo "memcheck rc=$?" >> "$OUT/memcheck.log" ) &
p2=$!
timeout 200 tests/device.sh e2e > "$OUT/e2e.log" 2>&1
echo "e2e rc=$?" >> "$OUT/e2e.log"
wait $p1 $p2
grep -E "Checks|unit tests" "$OUT/unit.log" | tail -8
grep -E "passed|failed|FAIL|rc=" "$OUT/e2e.log" | tail -4
tail -2 "$OUT/memcheck.log"
rt() { case $1 in 16) echo 12;; 32) echo 6;; 64) echo 4;; *) echo "";; esac; }
for rep in 1 2 3; do
  for s in 1080p:8 1080p:16 1080p:32 1080p:64 1080p:128 720p:16 720p:32 720p:64 2160p:16 2160p:32 2160p:64; do
    size=${s%:*}; r=${s#*:}
    for b in base new $( [ $size = 1080p ] && [ -n "$(rt $r)" ] && echo rt ); do
      bin=build/bench/bench_me; [ $b = base ] && bin=/tmp/bench_base
      v=""; [ $b = rt ] && v="-v $(rt $r)"
      timeout 60 $bin -s $size -r $r $v 2>&1 |
        awk -v rep=$rep -v b=$b -v s=$size '$4 == "total" || $4 == "2" {print rep, b, s, $0}'
    done
  done
done > "$OUT/bench.txt" 2>&1
awk '{print $1, $2, $3, $5, $6, $7, $8}' "$OUT/bench.txt"
mkdir -p "$OUT/ncu"
OUT="$OUT/ncu" TAG=base timeout 60 tests/ncu_kernel.sh /tmp/bench_base 32 6 > "$OUT/ncu_base.txt" 2>&1
OUT="$OUT/ncu" TAG=new timeout 60 tests/ncu_kernel.sh build/bench/bench_me 32 15 > "$OUT/ncu_new.txt" 2>&1
tail -n 6 "$OUT/ncu_base.txt" "$OUT/ncu_new.txt"
cd "$OUT" && rm -f ncu/*.ncu-rep && tar czf /tmp/all.tgz . && mv /tmp/all.tgz .
