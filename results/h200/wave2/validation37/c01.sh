#!/bin/bash
# Session 37, call 1 (binaries of the stream-K commit; carry
# build/carry37/c1.tar.xz: ./build.sh device, then tar cJf
# build/carry37/c1.tar.xz -C build device/x264/x264 tests/test_cuda_me_static
# bench/bench_me).
# 1. stream-K (v28 = v24's kernel, v29 = v26's, v30 = v14's, each
#    launched as search_kernel_sk in as many blocks as the device holds)
#    against the defaults at 720p/1080p/2160p x +-16/32/64, 3 runs
#    interleaved; with them session 36's call 2 (never lent a machine): v26
#    against v16 at 1080p +-48, 720p and 2160p +-64, v15 at +-32;
# 2. compute-sanitizer memcheck and racecheck over bench_me CIF +-32 v28
#    in 7 blocks (-k 7: split macroblocks);
# 3. tests/device.sh data gpu: unit (every variant == C, the SK variants
#    also in 3..7 blocks and in one block fewer than the macroblocks),
#    memcheck over the case gpu, e2e CUDA == C (the defaults v24 / v26).
set -u
t00=$(date +%s)
tar xJf build/carry37/c1.tar.xz -C build
B=build/bench/bench_me
L=$OUT/logs; mkdir -p "$L"
tests/tools/bench_interleaved.sh "$B" "$OUT" 3 720p:32:24: 720p:32:28: 1080p:32:24: 1080p:32:28: 2160p:32:24: 2160p:32:28: \
           720p:64:26: 720p:64:29: 1080p:64:26: 1080p:64:29: 2160p:64:26: 2160p:64:29: \
           720p:16:14: 720p:16:30: 1080p:16:14: 1080p:16:30: 2160p:16:14: 2160p:16:30: \
           1080p:48:16: 1080p:48:26: 1080p:48:29: 720p:64:16: 2160p:64:16: 1080p:64:16: \
           720p:32:15: 1080p:32:15:
echo "bench done $(( $(date +%s) - t00 )) s" >> "$OUT/times.txt"
for tool in memcheck racecheck; do
  timeout 40 compute-sanitizer --tool $tool --print-limit 20 $B -q -s CIF -r 32 -v 28 -k 7 > "$L/${tool}_v28.log" 2>&1
  echo "$tool CIF r32 v28 -k 7 rc $? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' "$L/${tool}_v28.log" | tail -1)" >> "$OUT/times.txt"
done
OUT="$L" tests/device.sh data > "$L/data.log" 2>&1
UNIT_TIMEOUT=350 MEMCHECK_TIMEOUT=350 E2E_TIMEOUT=300 OUT="$L" tests/device.sh gpu > "$L/gpu.log" 2>&1
echo "device.sh gpu rc $? $(( $(date +%s) - t00 )) s" >> "$OUT/times.txt"
grep -hE "Checks|  (ok|FAIL)  |^e2e: |ERROR SUMMARY" "$L/gpu.log" "$L/unit.log" >> "$OUT/times.txt"
grep -h "2 cands" "$OUT/raw.txt" | head -12 >> "$OUT/times.txt"
tar czf "$OUT/logs.tgz" -C "$OUT" logs raw.txt && rm -rf "$L" "$OUT/raw.txt"
cat "$OUT/machine.txt" "$OUT/times.txt"; cat "$OUT/bench.md"
