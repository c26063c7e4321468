#!/bin/bash
# Session 35, call 1 (run 21:28 with the binaries of 26ef8d3: c1/; its
# bench loop is tests/tools/bench_interleaved.sh since; v20
# and v21 were reverted after c03.sh, they exist in f3ac2ec):
# v20 and v21 (mb2-fma-s80-K6/3 and K6/2: v15's runs for two macroblocks a
# block, their runs one sequence over the warps, search_mbs()) against v15,
# and every variant against C after window_load() was factored out.
# Carry: build/carry35/c1.tar.xz (bench/bench_me, tests/test_cuda_me_static;
# sm_90 builds of the working tree: make -j2 lib tests bench
# build/tests/test_cuda_me_static, then
# tar cJf build/carry35/c1.tar.xz -C build bench/bench_me tests/test_cuda_me_static).
# 1. v15 against v20 (and v21 at +-32), 3 runs interleaved: 1080p
#    +-32/28/24/17, 720p and 2160p +-32, 1080p +-32 without tensor copies (-X),
#    and v20 at 1080p +-32 in blocks of 3 and 4 warps (-g: 15 and 12 iterations);
# 2. tests/device.sh data unit (five parts side by side; gpu/gpu and
#    gpu/big run every variant against C);
# 3. compute-sanitizer memcheck, racecheck, synccheck over bench_me CIF
#    +-32 with v20, racecheck with v21.
set -u
t00=$(date +%s)
tar xJf build/carry35/c1.tar.xz -C build
B=build/bench/bench_me
L=$OUT/logs; mkdir -p "$L"
tests/tools/bench_interleaved.sh "$B" "$OUT" 3 1080p:32:15: 1080p:32:20: 1080p:32:21: 1080p:28:15: 1080p:28:20: 1080p:24:15: 1080p:24:20: \
           1080p:17:15: 1080p:17:20: 720p:32:15: 720p:32:20: 720p:32:21: 2160p:32:15: 2160p:32:20: 2160p:32:21: \
           1080p:32:15:-X 1080p:32:20:-X "1080p:32:20:-g 96,15" "1080p:32:20:-g 128,12"
echo "bench done $(( $(date +%s) - t00 )) s" >> "$OUT/times.txt"
OUT="$L" tests/device.sh data unit > "$L/unit.log" 2>&1
echo "device.sh data unit rc $? $(( $(date +%s) - t00 )) s" >> "$OUT/times.txt"
for tv in memcheck:20 racecheck:20 synccheck:20 racecheck:21; do
  IFS=: read -r tool v <<< "$tv"
  timeout 50 compute-sanitizer --tool $tool --print-limit 20 $B -q -s CIF -r 32 -v $v > "$L/${tool}_v$v.log" 2>&1
  echo "$tool r32 v$v rc $? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' "$L/${tool}_v$v.log" | tail -1)" >> "$OUT/times.txt"
done
echo "all done $(( $(date +%s) - t00 )) s" >> "$OUT/times.txt"
mv "$OUT/raw.txt" "$L/"
tar czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$L"
cat "$OUT/machine.txt" "$OUT/times.txt"; grep -hE "^[0-9]+%: Checks|PASS|FAIL" "$OUT"/unit*.log 2>/dev/null | head; cat "$OUT/bench.md"
