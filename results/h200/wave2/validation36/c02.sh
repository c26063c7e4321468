#!/bin/bash
# Session 36, call 2 (binaries of the defaults commit: v24 from +-17 to
# +-32, v26 from +-33 to +-64).  Carry: build/carry36/c2.tar.xz
# (device/x264/x264, tests/test_cuda_me_static, bench/bench_me; ./build.sh
# device, then tar cJf build/carry36/c2.tar.xz -C build device/x264/x264
# tests/test_cuda_me_static bench/bench_me).
# 1. v26 against v16 at 1080p +-48, 720p and 2160p +-64; v27 against v4 at
#    1080p +-96; the defaults (-v -1 is not a bench option: the default
#    variants by number) at 720p/1080p/2160p +-16, +-32, +-64; 3 runs
#    interleaved;
# 2. tests/device.sh data gpu: unit (5 parts), memcheck over gpu/gpu, e2e
#    CUDA == C with the new defaults.
set -u
t00=$(date +%s)
tar xJf build/carry36/c2.tar.xz -C build
B=build/bench/bench_me
tests/tools/bench_interleaved.sh "$B" "$OUT" 3 1080p:48:16: 1080p:48:26: 720p:64:16: 720p:64:26: 2160p:64:16: 2160p:64:26: \
           1080p:96:4: 1080p:96:27: 720p:16:14: 1080p:16:14: 2160p:16:14: 720p:32:24: 1080p:32:24: 2160p:32:24: \
           720p:32:15: 1080p:32:15: 2160p:32:15: 1080p:64:26: 1080p:64:16:
echo "bench done $(( $(date +%s) - t00 )) s" >> "$OUT/times.txt"
OUT="$OUT/gpu" tests/device.sh data > "$OUT/data.log" 2>&1
OUT="$OUT/gpu" tests/device.sh data gpu > "$OUT/gpu.log" 2>&1
echo "device.sh gpu rc $? $(( $(date +%s) - t00 )) s" >> "$OUT/times.txt"
grep -h "two candidates\|2 cands\|cand" "$OUT/raw.txt" | head -3 >> "$OUT/times.txt"
tar czf "$OUT/logs.tgz" -C "$OUT" gpu raw.txt data.log gpu.log && rm -rf "$OUT/gpu" "$OUT/raw.txt" "$OUT/data.log"
cat "$OUT/machine.txt" "$OUT/times.txt"; grep -E "Checks|ok  |FAIL" "$OUT/gpu.log" | tail -12; cat "$OUT/bench.md"
