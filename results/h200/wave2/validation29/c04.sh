#!/bin/bash
# Prepared in session 29 for the next device call (no device was lent for
# it after call 2): branch lean, bb8cb5e.  build/carry29/c4.tar.xz holds
# (built here from bb8cb5e's tree): bench_me_l29 and test_l29 = the fat
# build with LEAN=29 (the proposed set-up: loads without the index walk,
# run_row()'s bounds and the plane's copies without divisions, key tables
# without remainders; no IMAD funnel shifts, no float division in the run
# loop), bench_fA/fB/fC = sm_90 builds with LEAN=29 and FMIN_MASK 0x1fe06
# (8x4 and 16x8: 10 partitions), 0x1fffe000000 (the 16 4x4) and 0x3f
# (16x16, 16x8, 8x16, the first 8x8), pipe_rate (tests/tools/pipe_rate.cu,
# modes 7-11 new: which pipe takes FMNMX).  Rebuild if build/carry29 is
# gone: see results/kernel_steps.md, twenty-ninth session.
# 1. pipe_rate; 2. the GPU unit case gpu/gpu with LEAN=29 (every variant
# == C); 3. bench, 5 runs interleaved: base (ae99324), y0 (LEAN=0, sm_90),
# l29 (fat), y61, fA, fB, fC at the defaults of 1080p +-16/32/64, 720p
# and 2160p +-16/32.
set -u
tar xJf build/carry29/c1.tar.xz
tar xJf build/carry29/c3.tar.xz
tar xJf build/carry29/c4.tar.xz
C=build/carry29/c4
date +%T > "$OUT/times.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
$C/pipe_rate > "$OUT/pipe_rate.txt" 2>&1
date +%T >> "$OUT/times.txt"
for rep in 1 2 3 4 5; do
  for srv in 1080p:16:12 1080p:32:15 1080p:64:16 720p:16:12 720p:32:15 2160p:16:12 2160p:32:15; do
    IFS=: read -r sz r v <<< "$srv"
    for b in base y0 l29 y61 fA fB fC; do
      case $b in base) B=build/carry29/base_bench_me;; y*) B=build/carry29/$b/bench_me;; l29) B=$C/bench_me_l29;; *) B=$C/bench_$b;; esac
      timeout 60 $B -q -s $sz -r $r -v $v 2>&1 | awk -v rep=$rep -v b=$b '$4 == "total" {print rep, b, $0}'
    done
  done
done > "$OUT/bench.txt" 2>&1
date +%T >> "$OUT/times.txt"
[ -s build/data/foreman_cif.y4m ] || tests/device.sh data > "$OUT/data.log" 2>&1
CUDA_ME_REQUIRE_GPU=1 CK_RUN_SUITE=gpu CK_RUN_CASE=gpu timeout 250 $C/test_l29 > "$OUT/unit_gpu.log" 2>&1
echo "unit rc $?" >> "$OUT/times.txt"
date +%T >> "$OUT/times.txt"
cat "$OUT/times.txt"; grep -E "FMNMX|HMNMX|FFMA" "$OUT/pipe_rate.txt"; grep -E "^[0-9]+%|:[FE]:" "$OUT/unit_gpu.log" | head; wc -l "$OUT/bench.txt"
