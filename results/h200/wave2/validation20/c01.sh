#!/bin/bash
# call 1 (session 20): d31dfff (pass 2 at half the range below 32; KEYS_PAIR variants 10-13; blocks of one
# warp store every partition).
# 1. GPU unit case gpu (every variant == C, the new ones too, and the
#    default variant forced to 32 threads x 3 runs and 64 x 1) and
#    compute-sanitizer memcheck over it, beside the clip decoding;
# 2. issue 13: the pair variants against the defaults at 1080p; one-warp
#    blocks (bench_me -g 32,U); the nineteenth session's geometry rule at
#    720p and 2160p (dcac9f6's bench_me against this one); interleaved;
# 3. issue 12: medium, 5 interleaved repeats: stock --mvrange-thread 64,
#    --gpu-me, sub-pel skips in all four loops, one lookahead thread, and
#    --gpu-me with a frame-thread MV limit of 32 for every frame.
set -u
tar xJf build/carry20/c1.tar.xz
xz -dkf build/carry20/bench_old.xz
export CUDA_ME_COMMIT=$(cat build/carry20/commit)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
(CUDA_ME_REQUIRE_GPU=1 CK_RUN_SUITE=gpu CK_RUN_CASE=gpu timeout 200 build/tests/test_cuda_me_static > "$OUT/unit_gpu.log" 2>&1
 echo "unit rc=$?" >> "$OUT/unit_gpu.log"
 CUDA_ME_REQUIRE_GPU=1 CK_RUN_SUITE=gpu CK_RUN_CASE=pass2 timeout 60 build/tests/test_cuda_me_static >> "$OUT/unit_gpu.log" 2>&1
 echo "unit pass2 rc=$?" >> "$OUT/unit_gpu.log") &
(CK_FORK=no CK_RUN_SUITE=gpu CK_RUN_CASE=gpu CUDA_ME_SANITIZE=1 CUDA_ME_REQUIRE_GPU=1 \
  timeout 240 compute-sanitizer --tool memcheck --error-exitcode 9 build/tests/test_cuda_me_static > "$OUT/memcheck.log" 2>&1
 echo "memcheck rc=$?" >> "$OUT/memcheck.log") &
tests/device.sh data > "$OUT/device.log" 2>&1
wait
grep -E "Checks|rc=" "$OUT/unit_gpu.log"; grep -E "^[0-9]+%|ERROR SUMMARY|rc=" "$OUT/memcheck.log" | tail -3
grep -m5 -E "FAIL|differ|mismatch" "$OUT/unit_gpu.log"
dv() { [ $1 -le 16 ] && echo 7 || { [ $1 -le 32 ] && echo 6 || echo 4; }; }   # the default variants
b() { build/bench/bench_me -q "$@" 2>&1 | awk -v a="$*" '$4 == "total" || $4 == "2" {print a, "|", $0}'; }
bo() { build/carry20/bench_old -q "$@" 2>&1 | awk -v a="old $*" '$4 == "total" {print a, "|", $0}'; }
for rep in 1 2; do
  for r in 16 32 64 128; do
    for v in $(dv $r) 10 12 13; do b -s 1080p -r $r -v $v; done
  done
  b -s 1080p -r 48 -v 13
  b -s 1080p -r 16 -v 7 -g 32,5; b -s 1080p -r 16 -v 7 -g 32,10; b -s 1080p -r 16 -v 13 -g 32,6; b -s 1080p -r 16 -v 12 -g 32,6
done > "$OUT/bench.txt"
cat "$OUT/bench.txt"
for rep in 1 2; do
  for s in 720p 2160p; do
    for r in 16 32 64; do bo -s $s -r $r -v $(dv $r); b -s $s -r $r -v $(dv $r); b -s $s -r $r -v 13; done
  done
done > "$OUT/sizes.txt"
cat "$OUT/sizes.txt"
T2_CLIPS=1080p T2_THREADS=16 T2_REPEATS=5 T2_PRESETS=medium T2_FRAMES_MANY=1080p:216 T2_QFRAMES_MANY=1080p:216 \
  T2_CONFIGS="stock_mvt64 gpu gpu%--gpu-me-subpel=20+X264_GPU_ME_SUBPEL_SITES=15 gpu%--lookahead-threads=1 gpu%--gpu-me-subpel=20%--lookahead-threads=1+X264_GPU_ME_SUBPEL_SITES=15 gpu%--mvrange-thread=32" \
  TOTAL_BUDGET=280 T2_BUDGET=275 results/run.sh "$OUT/i12_medium5" table2 > "$OUT/md.log" 2>&1
grep -h "at [0-9.]*x" "$OUT"/*/table2.md | tail -4
cd "$OUT" && tar czf /tmp/all.tgz . && mv /tmp/all.tgz .
