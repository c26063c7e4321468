#!/bin/bash
# call 1 (session 24, 22616cb + an uncommitted experiment macro in
# me_cuda.cu, CME_EXP_WINDOW, bench binaries only):
# issue 13: where the +-16/32/64 kernels lose time outside the run loop
#   (session 19's ncu source counters: the window's load loop 8.7/10.6/23%
#   of the warp stall samples at +-32/16/64): bench_me of this build
#   against bench_e1 (the window stored but not loaded from global memory)
#   and bench_e2 (no window phase at all), 3 runs interleaved; ncu source
#   counters and stall reasons of the current defaults (v12 +-16, v15
#   +-32, v16 +-64).
# issue 12: medium, 7 interleaved repeats: shipped --gpu-me against
#   X264_GPU_ME_MVC=2 / 1 (x264 prices only 2 / 1 of its predictors beside
#   the GPU's vectors: developer experiment 0008), P-only sub-pel pruning
#   (X264_GPU_ME_SUBPEL_SITES=3, --gpu-me-subpel 20) and both.
# The macro (in me_cuda.cu at 22616cb, step 1a; bench_e1/e2 were
# me_cuda.cu compiled for sm_90 with -DCME_EXP_WINDOW=1/2 and linked into
# bench_me; never committed):
#   CME_EXP_WINDOW == 1: lo[m] = (uint32_t)(uintptr_t)src; hi[m] = lo[m] ^ 0x5a5a5a5a
#                        in place of the two __ldg()s of a quad's group
#   CME_EXP_WINDOW == 2: n = 0 (the quad loop does not run)
set -u
tar xJf build/carry24/c1.tar.xz
export CUDA_ME_COMMIT=$(cat build/carry24/commit)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
tests/device.sh data > "$OUT/device.log" 2>&1
for rep in 1 2 3; do
  for s in 16:12 32:15 64:16; do
    r=${s%:*}; v=${s#*:}
    for b in base:build/bench/bench_me e1:build/carry24/bench_e1 e2:build/carry24/bench_e2; do
      timeout 60 ${b#*:} -s 1080p -r $r -v $v 2>&1 | awk -v rep=$rep -v b=${b%%:*} '$4 == "total" {print rep, b, $0}'
    done
  done
done > "$OUT/bench.txt" 2>&1
awk '{print $1, $2, $3, $5, $6, $8}' "$OUT/bench.txt"
for s in 16:12 32:15 64:16; do
  OUT="$OUT/ncu" SOURCE=1 STALLS=1 timeout 120 tests/ncu_kernel.sh build/bench/bench_me ${s%:*} ${s#*:} > "$OUT/ncu_${s%:*}.txt" 2>&1
done
gzip -f "$OUT"/ncu/*.sass.csv 2>/dev/null; rm -f "$OUT"/ncu/*.ncu-rep
X=build/device/x264-exp/x264
T2_CLIPS=1080p T2_THREADS=16 T2_REPEATS=7 T2_PRESETS=medium T2_FRAMES_MANY=1080p:216 T2_QFRAMES_MANY=1080p:216 \
  T2_CONFIGS="stock_mvt64 gpu gpu+X264_GPU_ME_MVC=2@$X gpu+X264_GPU_ME_MVC=1@$X gpu%--gpu-me-subpel=20+X264_GPU_ME_SUBPEL_SITES=3 gpu%--gpu-me-subpel=20+X264_GPU_ME_SUBPEL_SITES=3+X264_GPU_ME_MVC=2@$X" \
  TOTAL_BUDGET=330 T2_BUDGET=325 results/run.sh "$OUT/i12_medium_mvc" table2 > "$OUT/md.log" 2>&1
grep -E "^\| street" "$OUT"/i12_medium_mvc/table2.md | head -8
cd "$OUT" && tar czf /tmp/all.tgz . && mv /tmp/all.tgz .
