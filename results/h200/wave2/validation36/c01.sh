#!/bin/bash
# Session 36, call 1 (binaries of the commit that adds this line: c1/):
# v20 fma-s80-K6/5 (v15's kernel at 5 blocks of 96 threads, register cap
# 136, no spills) against v15 (128 registers, 24 bytes of stack), and the
# KEYS_CHAIN variants v22 chain-s80-K6/4 and v24 chain-s80-K6/5 (47
# IMADs a position instead of 52: row_keys_chain()); at +-64 v26
# chain-s144-K8/3 against v16.
# Carry: build/carry36/c1.tar.xz (bench/bench_me, tests/test_cuda_me_static;
# make -j2 lib tests bench build/tests/test_cuda_me_static, then
# tar cJf build/carry36/c1.tar.xz -C build bench/bench_me tests/test_cuda_me_static).
# 1. v15 against v20, 3 runs interleaved: 1080p +-32/28/24/17, 720p and
#    2160p +-32, v21 (no tensor copy) at 1080p +-32, v16 and v26 at 1080p +-64;
# 2. tests/device.sh data unit (gpu/gpu and gpu/big: every variant against C);
# 3. compute-sanitizer memcheck, racecheck over bench_me CIF +-32 with v20 and v24.
set -u
t00=$(date +%s)
tar xJf build/carry36/c1.tar.xz -C build
B=build/bench/bench_me
L=$OUT/logs; mkdir -p "$L"
tests/tools/bench_interleaved.sh "$B" "$OUT" 3 1080p:32:15: 1080p:32:20: 1080p:32:22: 1080p:32:24: 1080p:32:21: \
           1080p:28:15: 1080p:28:20: 1080p:28:24: 1080p:24:15: 1080p:24:20: 1080p:24:24: 1080p:17:15: 1080p:17:20: 1080p:17:24: \
           720p:32:15: 720p:32:20: 720p:32:24: 2160p:32:15: 2160p:32:20: 2160p:32:24: 1080p:64:16: 1080p:64:26:
echo "bench done $(( $(date +%s) - t00 )) s" >> "$OUT/times.txt"
OUT="$L" tests/device.sh data unit > "$L/unit.log" 2>&1
echo "device.sh data unit rc $? $(( $(date +%s) - t00 )) s" >> "$OUT/times.txt"
for tv in memcheck:20 racecheck:20 memcheck:24 racecheck:24; do
  IFS=: read -r tool v <<< "$tv"
  timeout 50 compute-sanitizer --tool $tool --print-limit 20 $B -q -s CIF -r 32 -v $v > "$L/${tool}_v$v.log" 2>&1
  echo "$tool r32 v$v rc $? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' "$L/${tool}_v$v.log" | tail -1)" >> "$OUT/times.txt"
done
echo "all done $(( $(date +%s) - t00 )) s" >> "$OUT/times.txt"
mv "$OUT/raw.txt" "$L/"
tar czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$L"
cat "$OUT/machine.txt" "$OUT/times.txt"; grep -hE "^[0-9]+%: Checks|PASS|FAIL" "$OUT"/unit*.log 2>/dev/null | head; cat "$OUT/bench.md"
