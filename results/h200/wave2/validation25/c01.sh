#!/bin/bash
# call 1 (session 25, c605ed8): issue 13, what remembering the launch
# geometry (7a92ace, host code only) buys bench_me's total against d915ca0's
# binary (the same kernels), 3 runs interleaved at the defaults of +-8..64;
# issue 12, medium's candidates for 1.3x, 11 interleaved repeats, street
# 1080p 216 frames, 16 threads: x264 pricing only 2 of its predictors beside
# the GPU's (experiment 0008, X264_GPU_ME_MVC=2) in P and B slices or in P
# slices only (X264_GPU_ME_MVC_SLICES=1: a B frame takes as long as the P
# frame before it, session 22), sub-pel pruning in the P loops only
# (--gpu-me-subpel 20, X264_GPU_ME_SUBPEL_SITES=3), and both.
set -u
tar xJf build/carry25/c1.tar.xz
xz -dc build/carry25/bench_prev.xz > /tmp/bench_prev && chmod +x /tmp/bench_prev
export CUDA_ME_COMMIT=$(cat build/carry25/commit)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
tests/device.sh data > "$OUT/device.log" 2>&1
def() { case $1 in 8) echo 6;; 16) echo 12;; 32) echo 15;; 48|64) echo 16;; *) echo 17;; esac; }
for rep in 1 2 3; do
  for r in 8 16 32 64; do
    v=$(def $r)
    timeout 60 /tmp/bench_prev -s 1080p -r $r -v $v 2>&1 | awk -v rep=$rep '$4 == "total" || $4 == "2" {print rep, "prev", $0}'
    timeout 60 build/bench/bench_me -s 1080p -r $r -v $v 2>&1 | awk -v rep=$rep '$4 == "total" || $4 == "2" {print rep, "memo", $0}'
  done
done > "$OUT/bench.txt" 2>&1
awk '{print $1, $2, $4, $6, $7, $8, $10}' "$OUT/bench.txt"
X=build/device/x264-exp/x264
P="--gpu-me-subpel=20+X264_GPU_ME_SUBPEL_SITES=3"
T2_CLIPS=1080p T2_THREADS=16 T2_REPEATS=11 T2_PRESETS=medium T2_FRAMES_MANY=1080p:216 T2_QFRAMES_MANY=1080p:216 \
  T2_CONFIGS="stock_mvt64 gpu gpu+X264_GPU_ME_MVC=2@$X gpu+X264_GPU_ME_MVC=2+X264_GPU_ME_MVC_SLICES=1@$X gpu%$P gpu%$P+X264_GPU_ME_MVC=2+X264_GPU_ME_MVC_SLICES=1@$X gpu%$P+X264_GPU_ME_MVC=2@$X" \
  TOTAL_BUDGET=440 T2_BUDGET=435 results/run.sh "$OUT/i12_medium_mvcp" table2 > "$OUT/md.log" 2>&1
grep -E "^\| street" "$OUT"/i12_medium_mvcp/table2.md | head -8
cd "$OUT" && tar czf /tmp/all.tgz . && mv /tmp/all.tgz .
