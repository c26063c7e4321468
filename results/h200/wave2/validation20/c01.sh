#!/bin/bash
# call 1 (session 20): 0f8e69c (blocks of one warp store every partition).
# 1. GPU unit case gpu (every variant == C, now also the default variant
#    forced to 32 threads x 3 runs and 64 x 1), beside the clip decoding;
# 2. issue 13: one-warp blocks (bench_me -g 32,U) against the library's
#    geometry at 1080p; what the nineteenth session's geometry rule does at
#    720p and 2160p (dcac9f6's bench_me against this one, interleaved);
# 3. issue 12: medium, 5 interleaved repeats: stock --mvrange-thread 64,
#    --gpu-me, sub-pel skips in all four loops, one lookahead thread.
set -u
tar xJf build/carry20/c1.tar.xz
xz -dkf build/carry20/bench_old.xz
export CUDA_ME_COMMIT=$(cat build/carry20/commit)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
(CUDA_ME_REQUIRE_GPU=1 CK_RUN_SUITE=gpu CK_RUN_CASE=gpu timeout 200 build/tests/test_cuda_me_static > "$OUT/unit_gpu.log" 2>&1
 echo "unit rc=$?" >> "$OUT/unit_gpu.log") &
tests/device.sh data > "$OUT/device.log" 2>&1
wait
tail -4 "$OUT/unit_gpu.log"
b() { build/bench/bench_me -q "$@" 2>&1 | awk -v a="$*" '$4 == "total" {print a, "|", $0}'; }
bo() { build/carry20/bench_old -q "$@" 2>&1 | awk -v a="old $*" '$4 == "total" {print a, "|", $0}'; }
for rep in 1 2; do
  b -s 1080p -r 16 -v 7; for u in 4 5 6 10; do b -s 1080p -r 16 -v 7 -g 32,$u; done
  b -s 1080p -r 32 -v 6; for u in 8 12 16; do b -s 1080p -r 32 -v 6 -g 32,$u; done
  b -s 1080p -r 64 -v 4; for u in 12 18; do b -s 1080p -r 64 -v 4 -g 32,$u; done
done > "$OUT/nt32.txt"
cat "$OUT/nt32.txt"
for rep in 1 2; do
  for s in 720p 2160p; do
    for rv in 16:7 32:6 48:4 64:4 128:4; do
      r=${rv%%:*}; v=${rv##*:}
      bo -s $s -r $r -v $v; b -s $s -r $r -v $v
    done
  done
done > "$OUT/sizes.txt"
cat "$OUT/sizes.txt"
T2_CLIPS=1080p T2_THREADS=16 T2_REPEATS=5 T2_PRESETS=medium T2_FRAMES_MANY=1080p:216 T2_QFRAMES_MANY=1080p:216 \
  T2_CONFIGS="stock_mvt64 gpu gpu%--gpu-me-subpel=20+X264_GPU_ME_SUBPEL_SITES=15 gpu%--lookahead-threads=1 gpu%--gpu-me-subpel=20%--lookahead-threads=1+X264_GPU_ME_SUBPEL_SITES=15" \
  TOTAL_BUDGET=290 T2_BUDGET=285 results/run.sh "$OUT/i12_medium5" table2 > "$OUT/md.log" 2>&1
grep -h "at [0-9.]*x" "$OUT"/*/table2.md | tail -4
cd "$OUT" && tar czf /tmp/all.tgz . && mv /tmp/all.tgz .
