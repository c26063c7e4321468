#!/bin/bash
# Session 38, call 3 (binaries of the X_DYN commit; carry build/carry38/c3.tar.xz):
# 1. the X_DYN variants (31 v24, 32 v28, 33 v14, 34 v30, 35 v26 with the
#    runs handed out as the warps come for them) against their kernels,
#    3 runs interleaved;
# 2. ncu stall reasons and per-SASS samples of v31 and v32 at 720p +-32;
# 3. compute-sanitizer memcheck / racecheck over bench_me CIF +-32 v31 and
#    v32 in 7 blocks;
# 4. tests/device.sh data unit (every variant == C, the new ones too).
set -u
t00=$(date +%s)
tar xJf build/carry38/c3.tar.xz -C build
B=build/bench/bench_me
L=$OUT/logs; mkdir -p "$L"
tests/tools/bench_interleaved.sh "$B" "$OUT" 3 720p:32:24: 720p:32:31: 720p:32:28: 720p:32:32: \
    720p:16:14: 720p:16:33: 720p:16:30: 720p:16:34: 1080p:32:24: 1080p:32:31: 1080p:16:14: 1080p:16:33: \
    1080p:64:26: 1080p:64:35: 2160p:32:24: 2160p:32:31: 720p:64:26: 720p:64:35: 1080p:32:32: > /dev/null
echo "bench done $(( $(date +%s) - t00 )) s" >> "$OUT/times.txt"
SIZE=720p OUT=$L/ncu STALLS=1 SOURCE=1 tests/ncu_kernel.sh $B 32 31 32 2>&1 | grep -v "^v[0-9]* stalls:" >> "$OUT/times.txt"
rm -f $L/ncu/*.ncu-rep
echo "ncu done $(( $(date +%s) - t00 )) s" >> "$OUT/times.txt"
for v in 31 32; do for tool in memcheck racecheck; do
  timeout 40 compute-sanitizer --tool $tool --print-limit 20 $B -q -s CIF -r 32 -v $v -k 7 > "$L/${tool}_v$v.log" 2>&1
  echo "$tool CIF r32 v$v -k 7 rc $? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' "$L/${tool}_v$v.log" | tail -1)" >> "$OUT/times.txt"
done; done
OUT="$L" tests/device.sh data > "$L/data.log" 2>&1
UNIT_TIMEOUT=300 OUT="$L" timeout 330 tests/device.sh unit > "$L/unit_part.log" 2>&1
echo "device.sh unit rc $? $(( $(date +%s) - t00 )) s" >> "$OUT/times.txt"
grep -hE "Checks|  (ok|FAIL)  |:[FE]:" "$L/unit_part.log" 2>/dev/null | head -30 >> "$OUT/times.txt"
tar cJf "$OUT/logs.tar.xz" -C "$OUT" logs raw.txt && rm -rf "$L" "$OUT/raw.txt"
cat "$OUT/machine.txt" "$OUT/times.txt"; cat "$OUT/bench.md"
