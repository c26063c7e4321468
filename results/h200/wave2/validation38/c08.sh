#!/bin/bash
# Session 38, call 8 (binaries of the commit making v31 a default at
# +-17-19, 24, 27; carry build/carry38/c8.tar.xz):
# 1. the defaults at 1080p / 720p +-17, 24, 27, 32 (bench_me marks the
#    default '*' and times its two candidates), 3 runs interleaved;
# 2. tests/device.sh data gpu: unit (every variant == C), memcheck over
#    the case gpu, e2e (x264 --gpu-me, CUDA == C, FFmpeg == x264's recon).
set -u
t00=$(date +%s)
tar xJf build/carry38/c8.tar.xz -C build
B=build/bench/bench_me
L=$OUT/logs; mkdir -p "$L"
tests/tools/bench_interleaved.sh "$B" "$OUT" 3 1080p:17:31: 1080p:24:31: 1080p:27:31: 1080p:32:24: 720p:17:31: 720p:24:31: 720p:27:31: > /dev/null
grep -h "geometry\|2 cands\| total " "$OUT/raw.txt" | sort | uniq -c | sort -k2 | head -40 >> "$OUT/times.txt"
echo "bench done $(( $(date +%s) - t00 )) s" >> "$OUT/times.txt"
OUT="$L" tests/device.sh data > "$L/data.log" 2>&1
UNIT_TIMEOUT=330 MEMCHECK_TIMEOUT=330 E2E_TIMEOUT=330 OUT="$L" timeout 420 tests/device.sh gpu > "$L/gpu.log" 2>&1
echo "device.sh gpu rc $? $(( $(date +%s) - t00 )) s" >> "$OUT/times.txt"
grep -hE "Checks|  (ok|FAIL)  |^e2e: |ERROR SUMMARY|:[FE]:" "$L/gpu.log" | head -40 >> "$OUT/times.txt"
tar cJf "$OUT/logs.tar.xz" -C "$OUT" logs raw.txt && rm -rf "$L" "$OUT/raw.txt"
cat "$OUT/machine.txt" "$OUT/times.txt"; cat "$OUT/bench.md"
