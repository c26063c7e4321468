#!/bin/bash
# Session 34, call 2: v19 (fma-s80-K6/3: v15 at 3 blocks an SM, no spills)
# as the default from range 17 to 32, and the GPU unit case split
# (gpu/big: the 1080p frames).
# Carry: build/carry33/c2.tar.xz (device/x264/x264, tests/test_cuda_me_static,
# bench/bench_me; sm_90, v19 the default for 17..32).
# 1. v15 against v19, 3 runs interleaved: 1080p +-17/24/28/32, 720p and
#    2160p +-24/32, 1080p +-32 without tensor copies (-X, the load path of
#    GPUs before sm_90);
# 2. compute-sanitizer racecheck over the defaults (v14 +-16, v19 +-32,
#    v16 +-64, and v15 +-32) on CIF, one variant each;
# 3. tests/device.sh data gpu: unit (5 parts side by side), memcheck over
#    gpu/gpu, e2e CUDA == C with the new default.
set -u
t00=$(date +%s)
tar xJf build/carry33/c2.tar.xz -C build
B=build/bench/bench_me
date +%T > "$OUT/times.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> "$OUT/times.txt"
for rep in 1 2 3; do
  for c in 1080p:32:15: 1080p:32:19: 1080p:28:15: 1080p:28:19: 1080p:24:15: 1080p:24:19: 1080p:17:15: 1080p:17:19: \
           720p:32:15: 720p:32:19: 720p:24:15: 720p:24:19: 2160p:32:15: 2160p:32:19: 2160p:24:15: 2160p:24:19: \
           1080p:32:15:-X 1080p:32:19:-X; do
    IFS=: read -r sz r v x <<< "$c"
    timeout 60 $B -q -s $sz -r $r -v $v $x 2>&1 | tee -a "$OUT/raw.txt" |
      awk -v rep=$rep -v b=v$v$x '$4 == "total" {print rep, b, $0}'
  done
done > "$OUT/bench.txt" 2>&1
python3 tests/tools/bench_runs.py "$OUT/bench.txt" > "$OUT/bench.md" 2>&1
echo "bench done $(( $(date +%s) - t00 )) s" >> "$OUT/times.txt"
mkdir -p "$OUT/san"
tests/device.sh data > "$OUT/san/data.log" 2>&1
for rv in 16:14 32:19 64:16 32:15; do
  IFS=: read -r r v <<< "$rv"
  timeout 40 compute-sanitizer --tool racecheck --print-limit 20 $B -q -s CIF -r $r -v $v > "$OUT/san/racecheck_${r}_${v}.log" 2>&1
  echo "racecheck r$r v$v rc $? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' "$OUT/san/racecheck_${r}_${v}.log" | tail -1)" >> "$OUT/times.txt"
done
echo "sanitizers done $(( $(date +%s) - t00 )) s" >> "$OUT/times.txt"
OUT="$OUT/gpu" tests/device.sh gpu > "$OUT/gpu.log" 2>&1
echo "device.sh gpu rc $? $(( $(date +%s) - t00 )) s" >> "$OUT/times.txt"
tar czf "$OUT/logs.tgz" -C "$OUT" gpu san raw.txt && rm -rf "$OUT/gpu" "$OUT/san" "$OUT/raw.txt"
cat "$OUT/times.txt"; tail -n 14 "$OUT/gpu.log"; cat "$OUT/bench.md"
