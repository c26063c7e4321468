#!/bin/bash
# Session 31, call 2: the one-row runs (HROW, v16/v17) and the leaner
# set-up (unsigned divisions, key tables not unrolled) on top of the tensor
# copy, then the GPU checks of the merged library (tests/device.sh data gpu:
# unit, memcheck over gpu/gpu, e2e CUDA == C with deferred decodes).
# Carry: build/carry31/c1.tar.xz (bench_tma: 20c8ce6's kernels, the tensor
# copy alone), build/carry31/c2.tar.xz (bench_hrow: + HROW; bench_lean:
# c861e8b, + the set-up), build/carry31/c2dev.tar.xz (build/device/x264/x264,
# build/tests/test_cuda_me_static)
# (x264 and the unit tests at 0e491c1: variants 18, 19, tma_map_t), bench_lean2 (the same with variants 18 and 19).
set -u
tar xJf build/carry31/c1.tar.xz -C build/carry31
tar xJf build/carry31/c2.tar.xz -C build/carry31
tar xJf build/carry31/c2dev.tar.xz -C build   # device/x264/x264, tests/test_cuda_me_static
date +%T > "$OUT/times.txt"
for rep in 1 2 3 4 5; do
  for c in 1080p:32:tma:15 1080p:32:hrow:15 1080p:32:lean:15 \
           1080p:48:tma:16 1080p:48:hrow:16 1080p:48:lean:16 \
           1080p:64:tma:16 1080p:64:hrow:16 1080p:64:lean:16 \
           1080p:128:tma:17 1080p:128:hrow:17 1080p:128:lean:17 \
           720p:32:tma:15 720p:32:hrow:15 720p:32:lean:15 \
           720p:64:tma:16 720p:64:hrow:16 720p:64:lean:16 \
           2160p:32:tma:15 2160p:32:hrow:15 2160p:32:lean:15 \
           2160p:64:tma:16 2160p:64:hrow:16 2160p:64:lean:16 \
           1080p:16:tma:14 1080p:16:hrow:14 1080p:16:lean:14 \
           720p:16:tma:14 720p:16:lean:14 2160p:16:tma:14 2160p:16:lean:14 \
           1080p:8:tma:14 1080p:8:lean:14 \
           1080p:4:lean:6 1080p:4:lean:14 720p:4:lean:6 720p:4:lean:14 \
           1080p:6:lean:6 1080p:6:lean:14 \
           1080p:32:lean2:15 1080p:32:lean2:16 1080p:32:lean2:18 1080p:32:lean2:19 \
           720p:32:lean2:15 720p:32:lean2:18 720p:32:lean2:19 2160p:32:lean2:15 2160p:32:lean2:18 2160p:32:lean2:19; do
    IFS=: read -r sz r b v <<< "$c"
    case $b in tma) B=build/carry31/c1/bench_tma;; *) B=build/carry31/c2/bench_$b;; esac
    timeout 60 $B -q -s $sz -r $r -v $v 2>&1 | awk -v rep=$rep -v b=$b '$4 == "total" {print rep, b, $0}'
  done
done > "$OUT/bench.txt" 2>&1
date +%T >> "$OUT/times.txt"
# launch geometries with the copy (bench_me -g NT,U; the library's first):
# the cost model of search_geom() charges each block its window's loads,
# which the copy took out
for rep in 1 2 3; do
  for c in 1080p:32:15:96,8 1080p:32:15:128,6 1080p:32:15:64,12 1080p:32:15:96,4 1080p:32:15:128,3 \
           1080p:64:16:96,12 1080p:64:16:128,9 1080p:64:16:128,6 1080p:64:16:96,8 1080p:64:16:64,12 \
           1080p:48:16:128,11 1080p:48:16:96,8 1080p:48:16:128,6; do
    IFS=: read -r sz r v g <<< "$c"
    timeout 60 build/carry31/c2/bench_lean -q -s $sz -r $r -v $v -g $g 2>&1 |
      awk -v rep=$rep -v b=g$g '$4 == "total" {print rep, b, $0}'
  done
done > "$OUT/geom.txt" 2>&1
build/carry31/c2/bench_lean -q -s 1080p -r 64 -v 16 | grep geometry >> "$OUT/geom.txt"
date +%T >> "$OUT/times.txt"
OUT="$OUT/gpu" tests/device.sh data gpu > "$OUT/gpu.log" 2>&1
echo "device.sh rc $?" >> "$OUT/times.txt"
date +%T >> "$OUT/times.txt"
tar czf "$OUT/gpu.tgz" -C "$OUT" gpu && rm -rf "$OUT/gpu"
cat "$OUT/times.txt"; tail -n 12 "$OUT/gpu.log"
python3 tests/tools/bench_runs.py "$OUT/bench.txt" > "$OUT/bench.md" && cat "$OUT/bench.md"
python3 tests/tools/bench_runs.py "$OUT/geom.txt" > "$OUT/geom.md"; cat "$OUT/geom.md"; grep geometry "$OUT/geom.txt"
