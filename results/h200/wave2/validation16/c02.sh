#!/bin/bash
# call 2 (session 16): the lowres kernel rewritten (a warp per block row,
# rows waiting on each other, batched costs; frames kept on the device):
# unit (CUDA == C, time per pair), then table2 medium and slower with
# --gpu-me-lookahead 1 and 0, md5 A/B of the medium runs; now with the
# searches queued ahead (lowres_prefetch, the pairs of a frame in one launch)
set -u
tar xJf build/carry16/c2.tar.xz
export CUDA_ME_COMMIT=7f56047
tests/device.sh data > "$OUT/device.log" 2>&1
CUDA_ME_REQUIRE_GPU=1 CK_RUN_SUITE=gpu CK_RUN_CASE=subpel timeout 150 build/tests/test_cuda_me_static > "$OUT/unit_subpel.log" 2>&1
rc=$?
echo "unit rc=$rc" >> "$OUT/unit_subpel.log"
grep -E "^---.*lowres|lowres.*differ|queued|CUDA .* ms per pair" "$OUT/unit_subpel.log" | tail -20
if [ $rc = 0 ]; then
KEEP_264=1 T2_CLIPS=1080p T2_THREADS=16 T2_REPEATS=3 T2_PRESETS=medium T2_FRAMES_MANY=1080p:216 T2_QFRAMES_MANY=1080p:216 \
  T2_CONFIGS="stock_mvt64 gpu gpu%--gpu-me-lookahead=1" TOTAL_BUDGET=170 T2_BUDGET=165 \
  results/run.sh "$OUT/i12_la_medium" table2 > "$OUT/md.log" 2>&1
( cd build/results-work && md5sum t2_*gpu*.264; rm -f t2_*.264 ) > "$OUT/ab_md5.txt" 2>&1
# the lookahead's own numbers (pairs, ms per pair with the uploads)
for p in medium slower; do
  build/device/x264/x264 --preset $p --threads 16 --gpu-me --gpu-me-lookahead 1 --gpu-me-stats --no-progress --crf 23 --frames 216 \
    -o /tmp/s.264 build/data/results/street_1080p.y4m 2>&1 | grep -E "lookahead:|encoded" > "$OUT/stats_$p.txt"
done
T2_CLIPS=1080p T2_THREADS=16 T2_REPEATS=3 T2_PRESETS=slower T2_FRAMES_MANY=1080p:216 T2_QFRAMES_MANY=1080p:216 \
  T2_CONFIGS="stock_mvt64 gpu gpu%--gpu-me-lookahead=1" TOTAL_BUDGET=200 T2_BUDGET=195 \
  results/run.sh "$OUT/i12_la_slower" table2 > "$OUT/sl.log" 2>&1
fi
cd "$OUT" && tar czf /tmp/all.tgz . && mv /tmp/all.tgz .
