#!/bin/bash
# Session 34, call 1: main after the stream kernel's revert (102c79f).
# Carry: build/carry33/c1.tar.xz (carry33/bench_me, carry33/test_cuda_me_static,
# carry33/pipe_rate; sm_90 builds of 102c79f).
# 1. the defaults at 1080p +-16/+-32/+-64 and +-32 at 720p/2160p, v19 at
#    1080p +-32, 3 runs interleaved (bench_me's totals, tests/tools/bench_runs.py);
# 2. pipe_rate: whether FMNMX issues on the ALU pipe (modes 7-11);
# 3. compute-sanitizer memcheck, racecheck, synccheck over the defaults
#    at CIF +-16, +-32, +-64;
# 4. the GPU unit case gpu/gpu alone (every variant == C) with the time
#    left, its per-test durations from Check's XML log.
# At most 8 files come back: the logs go into one archive.
set -u
t00=$(date +%s)
tar xJf build/carry33/c1.tar.xz -C build
C=build/carry33
L=$OUT/logs; mkdir -p "$L"
date +%T > "$OUT/times.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> "$OUT/times.txt"
lscpu | grep -m1 "Model name" >> "$OUT/times.txt"
git -C . rev-parse --short HEAD >> "$OUT/times.txt" 2>/dev/null
OUT="$L" tests/device.sh data > "$L/data.log" 2>&1
for rep in 1 2 3; do
  for c in 1080p:32: 1080p:32:19 1080p:16: 1080p:64: 720p:32: 2160p:32:; do
    IFS=: read -r sz r v <<< "$c"
    timeout 60 $C/bench_me -q -s $sz -r $r ${v:+-v $v} 2>&1 | tee -a "$L/raw.txt" |
      awk -v rep=$rep -v b=${v:+v$v}${v:-def} '$4 == "total" {print rep, b, $0}'
  done
done > "$OUT/bench.txt" 2>&1
python3 tests/tools/bench_runs.py "$OUT/bench.txt" > "$OUT/bench.md" 2>&1
grep "2 cands" "$L/raw.txt" > "$OUT/cands.txt"
echo "bench done $(( $(date +%s) - t00 )) s" >> "$OUT/times.txt"
timeout 60 $C/pipe_rate > "$OUT/pipe_rate.txt" 2>&1
for tool in memcheck racecheck synccheck; do
  for r in 16 32 64; do
    timeout 60 compute-sanitizer --tool $tool --print-limit 20 $C/bench_me -q -s CIF -r $r > "$L/san_${tool}_$r.log" 2>&1
    echo "$tool r$r rc $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$L/san_${tool}_$r.log" | tail -1)" >> "$OUT/times.txt"
  done
done
left=$(( 585 - ($(date +%s) - t00) ))
echo "unit gpu/gpu with ${left} s" >> "$OUT/times.txt"
t0=$(date +%s)
CK_RUN_SUITE=gpu CK_RUN_CASE=gpu CK_VERBOSITY=verbose CUDA_ME_REQUIRE_GPU=1 CUDA_ME_TEST_DATA=build/data CK_XML_LOG_FILE_NAME="$L/unit_gpu.xml" \
  timeout $left $C/test_cuda_me_static > "$L/unit_gpu.log" 2>&1
echo "unit gpu/gpu rc $? $(( $(date +%s) - t0 )) s" >> "$OUT/times.txt"
grep -E "^[0-9]+%: Checks|:[FE]:" "$L/unit_gpu.log" | head -20 >> "$OUT/times.txt"
tar czf "$OUT/logs.tgz" -C "$L" . && rm -rf "$L"
cat "$OUT/times.txt" "$OUT/bench.md" "$OUT/pipe_rate.txt"
