#!/bin/bash
# call 2 (session 24, same binaries as call 1): issue 12, whether
# --gpu-me-subpel 20 in the P loops only (X264_GPU_ME_SUBPEL_SITES=3) is
# medium's default, and whether fast (--ref 2, mixed refs) gains too;
# with X264_GPU_ME_MVC=3 (developer experiment 0008) beside it.  9
# interleaved repeats, street 1080p 216 frames, 16 threads.
set -u
tar xJf build/carry24/c1.tar.xz
export CUDA_ME_COMMIT=$(cat build/carry24/commit)
tests/device.sh data > "$OUT/device.log" 2>&1
X=build/device/x264-exp/x264
T2_CLIPS=1080p T2_THREADS=16 T2_REPEATS=9 T2_PRESETS="medium fast" T2_FRAMES_MANY=1080p:216 T2_QFRAMES_MANY=1080p:216 \
  T2_CONFIGS="stock_mvt64 gpu gpu%--gpu-me-subpel=20+X264_GPU_ME_SUBPEL_SITES=3 gpu%--gpu-me-subpel=20+X264_GPU_ME_SUBPEL_SITES=3+X264_GPU_ME_MVC=3@$X" \
  TOTAL_BUDGET=450 T2_BUDGET=445 results/run.sh "$OUT/i12_psites" table2 > "$OUT/md.log" 2>&1
grep -E "^\| street|#####" "$OUT"/md.log "$OUT"/i12_psites/table2.md | head -14
cd "$OUT" && tar czf /tmp/all.tgz . && mv /tmp/all.tgz .
