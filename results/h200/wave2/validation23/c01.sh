#!/bin/bash
# call 1 (session 23): variants 14-16 (the window row's stride fixed at
# compile time; the defaults at +-9..64).  GPU unit tests (4 parts: every
# variant == C, the new ones and their runtime-stride fallback on wider
# windows) and the GPU e2e set (CUDA == C; its streams come back for
# tests/verify_deferred.sh) side by side, also the smoke run of session 22's
# last glue changes (patches/0028's summed timers); then bench_me of
# 7b991fe (kernels unchanged since 3a7b88c: build/carry23/bench_base)
# against this build, 3 runs interleaved: the old defaults in the old
# binary, the runtime-stride twins and the new variants in the new one.
set -u
tar xJf build/carry23/c1.tar.xz
xz -dc build/carry23/bench_base.xz > /tmp/bench_base && chmod +x /tmp/bench_base
export CUDA_ME_COMMIT=$(cat build/carry23/commit)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
tests/device.sh data > "$OUT/device.log" 2>&1
UNIT_TIMEOUT=280 tests/device.sh unit > "$OUT/unit.log" 2>&1 &
p1=$!
timeout 200 tests/device.sh e2e > "$OUT/e2e.log" 2>&1
echo "e2e rc=$?" >> "$OUT/e2e.log"
wait $p1
grep -E "Checks|unit tests" "$OUT/unit.log" | tail -8
grep -E "passed|failed|FAIL|rc=" "$OUT/e2e.log" | tail -4
build/device/x264/x264 --gpu-me --gpu-me-backend cuda --gpu-me-stats --log-level debug --preset medium --qp 27 \
  --frames 8 -o /dev/null build/data/street_1080p.y4m > "$OUT/smoke.log" 2>&1
echo "smoke rc=$?" >> "$OUT/smoke.log"
grep -E "gpu-me: (open|backend|frame threads)|smoke rc" "$OUT/smoke.log"
# old default / runtime twin / fixed stride, per range
cfg() { case $1 in 8) echo "6 6 15";; 16) echo "12 12 14";; 32) echo "6 6 15";; *) echo "4 4 16";; esac; }
for rep in 1 2 3; do
  for s in 1080p:8 1080p:16 1080p:32 1080p:64 1080p:128 720p:16 720p:32 720p:64 2160p:16 2160p:32 2160p:64; do
    size=${s%:*}; r=${s#*:}
    set -- $(cfg $r)
    for b in base:$1 twin:$2 new:$3; do
      bin=build/bench/bench_me; [ ${b%:*} = base ] && bin=/tmp/bench_base
      [ $r = 128 ] && [ ${b%:*} = new ] && continue
      timeout 60 $bin -s $size -r $r -v ${b#*:} 2>&1 |
        awk -v rep=$rep -v b=$b -v s=$size '$4 == "total" {print rep, b, s, $0}'
    done
  done
done > "$OUT/bench.txt" 2>&1
cat "$OUT/bench.txt"
cd "$OUT" && tar czf /tmp/all.tgz . && mv /tmp/all.tgz .
