#!/bin/bash
# Session 32, call 1: the persistent stream kernels (v20 stream-s80-K6/4, v22 K8/3,
# v21 K6/3) against v15 (the +-32 default) and v19, then the GPU unit case
# gpu/gpu alone (3 runs interleaved: the device time left after a day of refusals) (every variant == C, the stream kernels included).
# Carry: build/carry32/c1.tar.xz (carry32/bench_s1, tests/test_cuda_me_static).
set -u
tar xJf build/carry32/c1.tar.xz -C build
date +%T > "$OUT/times.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> "$OUT/times.txt"
B=build/carry32/bench_s1
$B -q -s 1080p -r 32 -v 20 2>&1 | tail -n 5 > "$OUT/first.txt"
for rep in 1 2 3; do
  for c in 1080p:32:15: 1080p:32:20: 1080p:32:21: 1080p:32:22: \
           1080p:32:20:64,1 1080p:32:21:64,1 \
           720p:32:15: 720p:32:20: 720p:32:21: 720p:32:22: 2160p:32:15: 2160p:32:20: 2160p:32:21: 2160p:32:22: \
           1080p:24:15: 1080p:24:20: 1080p:24:21: 1080p:17:15: 1080p:17:21:; do
    IFS=: read -r sz r v g <<< "$c"
    timeout 60 $B -q -s $sz -r $r -v $v ${g:+-g $g} 2>&1 | tee -a "$OUT/raw.txt" | awk -v rep=$rep -v b=v$v${g:+g$g} '$4 == "total" {print rep, b, $0}'
  done
done > "$OUT/bench.txt" 2>&1
date +%T >> "$OUT/times.txt"
OUT="$OUT/gpu" tests/device.sh data > "$OUT/data.log" 2>&1
t0=$(date +%s)
CK_RUN_SUITE=gpu CK_RUN_CASE=gpu CUDA_ME_REQUIRE_GPU=1 CUDA_ME_TEST_DATA=build/data timeout 300 build/tests/test_cuda_me_static > "$OUT/unit_gpu.log" 2>&1
echo "unit gpu/gpu rc $? $(( $(date +%s) - t0 )) s" >> "$OUT/times.txt"
for tool in memcheck racecheck synccheck; do
  timeout 40 compute-sanitizer --tool $tool --print-limit 20 $B -q -s CIF -r 32 -v 20 > "$OUT/san_$tool.log" 2>&1
  echo "$tool rc $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/san_$tool.log" | tail -1)" >> "$OUT/times.txt"
done
cat "$OUT/times.txt"; cat "$OUT/first.txt"
grep -E "^[0-9]+%: Checks|:[FE]:" "$OUT/unit_gpu.log" | head -20
python3 tests/tools/bench_runs.py "$OUT/bench.txt" > "$OUT/bench.md"; cat "$OUT/bench.md"
grep "2 cands" "$OUT/raw.txt" | head -20
