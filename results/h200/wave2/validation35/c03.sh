#!/bin/bash
# Session 35, call 2 (c01.sh: v20 lost 4.5-16% against v15, a near
# constant +0.016-0.019 ms at every range, as from each block's start):
# search_mbs() with its prologue reordered (both tensor copies issued
# first, the 16 rows of both macroblocks at once, both key tables with
# the cost loads in flight before the stores).  Carry:
# build/carry35/c3.tar.xz (bench/bench_me, tests/test_cuda_me_static).
# 1. v15 against v20 and v21, 3 runs interleaved: 1080p +-32/24/17, 720p
#    and 2160p +-32; v20 in blocks of 4 warps (-g 128,12);
# 2. the GPU unit cases gpu/gpu and gpu/big (every variant == C);
#    racecheck over v20 and v21 at CIF +-32;
# 3. Nsight Compute with the source counters at 1080p +-32 for v15 and
#    v20 (tests/ncu_kernel.sh SOURCE=1), then tests/tools/sass_regions.py:
#    where each spends its warps' time (prologue, run loop, after it).
set -u
t00=$(date +%s)
tar xJf build/carry35/c3.tar.xz -C build
B=build/bench/bench_me
L=$OUT/logs; mkdir -p "$L"
tests/tools/bench_interleaved.sh "$B" "$OUT" 3 1080p:32:15: 1080p:32:20: 1080p:32:21: "1080p:32:20:-g 128,12" 1080p:24:15: 1080p:24:20: \
           1080p:17:15: 1080p:17:20: 720p:32:15: 720p:32:20: 720p:32:21: 2160p:32:15: 2160p:32:20: 2160p:32:21:
echo "bench done $(( $(date +%s) - t00 )) s" >> "$OUT/times.txt"
OUT="$L" tests/device.sh data > "$L/data.log" 2>&1
for part in gpu big; do
  ( CK_RUN_SUITE=gpu CK_RUN_CASE=$part CUDA_ME_REQUIRE_GPU=1 CUDA_ME_TEST_DATA=$PWD/build/data timeout 280 \
      build/tests/test_cuda_me_static > "$L/unit-$part.log" 2>&1; echo "unit gpu/$part rc $?" >> "$OUT/times.txt" ) &
done
wait
grep -h "Checks" "$L"/unit-*.log >> "$OUT/times.txt"
for v in 20 21; do
  timeout 50 compute-sanitizer --tool racecheck --print-limit 20 $B -q -s CIF -r 32 -v $v > "$L/racecheck_v$v.log" 2>&1
  echo "racecheck r32 v$v rc $? $(grep -E 'RACECHECK SUMMARY' "$L/racecheck_v$v.log" | tail -1)" >> "$OUT/times.txt"
done
echo "tests done $(( $(date +%s) - t00 )) s" >> "$OUT/times.txt"
N=$L/ncu; mkdir -p "$N"
SOURCE=1 OUT="$N" tests/ncu_kernel.sh $B 32 15 20 > "$OUT/ncu32.txt" 2>&1
for v in 15 20; do
  echo "== v$v +-32 regions"; python3 tests/tools/sass_regions.py "$N/v${v}_r32.sass.csv" 34476000
done > "$OUT/regions.txt" 2>&1
gzip -f "$N"/*.sass.csv 2>/dev/null
echo "all done $(( $(date +%s) - t00 )) s" >> "$OUT/times.txt"
mv "$OUT/raw.txt" "$L/"
tar czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$L"
cat "$OUT/machine.txt" "$OUT/times.txt" "$OUT/bench.md" "$OUT/ncu32.txt"; head -60 "$OUT/regions.txt"
