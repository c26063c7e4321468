#!/bin/bash
# call 2 (session 23): the key bases from shared-memory tables (step 1a'),
# the fixed-stride rows' loads kept in order, variant 17 (stride 272), the
# new defaults.  GPU unit tests (4 parts: every variant == C), the GPU e2e
# set (CUDA == C; streams back for tests/verify_deferred.sh) and
# compute-sanitizer memcheck over the kernels case side by side; then
# bench_me of 7b991fe (build/carry23/bench_base: the kernels before this
# session) against this build, 3 runs interleaved, and ncu pipe counts at
# +-32 of the old default (v6 in the old binary) and the new (v15).
set -u
tar xJf build/carry23/c2.tar.xz
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
tail -3 "$OUT/memcheck.log"
# old default (old binary) / runtime stride / fixed stride (new binary), per range
cfg() { case $1 in 8) echo "6 6 15";; 16) echo "12 12 14";; 32) echo "6 6 15";; 64) echo "4 4 16";; *) echo "4 4 17";; esac; }
for rep in 1 2 3; do
  for s in 1080p:8 1080p:16 1080p:32 1080p:64 1080p:128 720p:16 720p:32 720p:64 2160p:16 2160p:32 2160p:64; do
    size=${s%:*}; r=${s#*:}
    set -- $(cfg $r)
    for b in base:$1 rt:$2 fix:$3; do
      bin=build/bench/bench_me; [ ${b%:*} = base ] && bin=/tmp/bench_base
      timeout 60 $bin -s $size -r $r -v ${b#*:} 2>&1 |
        awk -v rep=$rep -v b=$b -v s=$size '$4 == "total" {print rep, b, s, $0}'
    done
  done
done > "$OUT/bench.txt" 2>&1
cat "$OUT/bench.txt" | awk '{print $1, $2, $3, $5, $8}'
OUT="$OUT/ncu" TAG=base timeout 60 tests/ncu_kernel.sh /tmp/bench_base 32 6 > "$OUT/ncu_base.txt" 2>&1
OUT="$OUT/ncu" TAG=new timeout 60 tests/ncu_kernel.sh build/bench/bench_me 32 15 > "$OUT/ncu_new.txt" 2>&1
tail -6 "$OUT/ncu_base.txt" "$OUT/ncu_new.txt"
cd "$OUT" && rm -f ncu/*.ncu-rep && tar czf /tmp/all.tgz . && mv /tmp/all.tgz .
