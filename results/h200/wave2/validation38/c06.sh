#!/bin/bash
# Session 38, call 6 (carry build/carry38/c6.tar.xz: main + v31 (v32 its fallback)
# chain-s80-K5/5: 125 registers, 5 blocks an SM, +-32's 845 runs in 27
# chunks of 32, 9 a warp):
# 1. v31 against v24 at +-32 (720p, 1080p, 2160p) and +-17..28 (1080p),
#    3 runs interleaved;
# 2. ncu (pipes, stalls) of v31 at 720p +-32;
# 3. compute-sanitizer memcheck over bench_me CIF +-32 v31;
# 4. tests/device.sh data unit (every variant == C, v31 too).
set -u
t00=$(date +%s)
tar xJf build/carry38/c6.tar.xz -C build
B=build/bench/bench_me
L=$OUT/logs; mkdir -p "$L"
tests/tools/bench_interleaved.sh "$B" "$OUT" 3 720p:32:24: 720p:32:31: 1080p:32:24: 1080p:32:31: 2160p:32:24: 2160p:32:31: \
    1080p:28:24: 1080p:28:31: 1080p:24:24: 1080p:24:31: 1080p:20:24: 1080p:20:31: 1080p:17:24: 1080p:17:31: \
    720p:28:24: 720p:28:31: 720p:24:24: 720p:24:31: > /dev/null
echo "bench done $(( $(date +%s) - t00 )) s" >> "$OUT/times.txt"
grep -h "geometry" "$OUT/raw.txt" | sort | uniq -c >> "$OUT/times.txt"
SIZE=720p OUT=$L/ncu STALLS=1 tests/ncu_kernel.sh $B 32 31 24 2>&1 | grep -v "^v[0-9]* stalls:" >> "$OUT/times.txt"
rm -f $L/ncu/*.ncu-rep
timeout 60 compute-sanitizer --tool memcheck --print-limit 20 $B -q -s CIF -r 32 -v 31 > "$L/memcheck_v31.log" 2>&1
echo "memcheck CIF r32 v31 rc $? $(grep -E 'ERROR SUMMARY' "$L/memcheck_v31.log" | tail -1)" >> "$OUT/times.txt"
OUT="$L" tests/device.sh data > "$L/data.log" 2>&1
UNIT_TIMEOUT=300 OUT="$L" timeout 330 tests/device.sh unit > "$L/unit_part.log" 2>&1
echo "device.sh unit rc $? $(( $(date +%s) - t00 )) s" >> "$OUT/times.txt"
grep -hE "Checks|  (ok|FAIL)  |:[FE]:" "$L/unit_part.log" 2>/dev/null | head -30 >> "$OUT/times.txt"
tar cJf "$OUT/logs.tar.xz" -C "$OUT" logs raw.txt && rm -rf "$L" "$OUT/raw.txt"
cat "$OUT/machine.txt" "$OUT/times.txt"; cat "$OUT/bench.md"
