#!/bin/bash
# Session 39, call 1 (carry build/carry39/c1.tar.xz: main + v33 (v31 with
# X_DYN, ed23db3) + X_SPLIT (v34-v37: v24's, v31's, v14's, v26's kernels
# with the window in two tensor copies, the upper half's runs begun while
# the lower half lands) + bench_me -b (each timed launch behind an
# untimed one: the GPU's time without the host's launch latency)):
# 1. v33, v34, v35 against v24/v31 at +-32 (720p, 1080p, 2160p), v36
#    against v14 at +-16, v37 against v26 at +-64, v35 against v31 at
#    +-17/24/27; the defaults with -b; 3 runs interleaved;
# 2. compute-sanitizer memcheck (v34, v36) and racecheck (v34) over
#    bench_me CIF;
# 3. tests/device.sh data unit (every variant == C, the new ones too;
#    10fd07a's restored scratch assertion).
set -u
t00=$(date +%s)
tar xJf build/carry39/c1.tar.xz -C build
B=build/bench/bench_me
L=$OUT/logs; mkdir -p "$L"
tests/tools/bench_interleaved.sh "$B" "$OUT" 3 \
    720p:32:24: 720p:32:31: 720p:32:33: 720p:32:34: 720p:32:35: 720p:32:24:-b \
    1080p:32:24: 1080p:32:31: 1080p:32:33: 1080p:32:34: 1080p:32:35: 1080p:32:24:-b \
    2160p:32:24: 2160p:32:34: 2160p:32:24:-b \
    720p:16:14: 720p:16:36: 720p:16:14:-b 1080p:16:14: 1080p:16:36: 1080p:16:14:-b 2160p:16:14: 2160p:16:36: \
    720p:64:26: 720p:64:37: 720p:64:26:-b 1080p:64:26: 1080p:64:37: 1080p:64:26:-b \
    1080p:17:31: 1080p:17:35: 1080p:24:31: 1080p:24:35: 1080p:27:31: 1080p:27:35: > /dev/null
echo "bench done $(( $(date +%s) - t00 )) s" >> "$OUT/times.txt"
grep -h "geometry" "$OUT/raw.txt" | sort | uniq -c >> "$OUT/times.txt"
for tv in memcheck:34 memcheck:36 racecheck:34; do
  tool=${tv%:*} v=${tv#*:} r=32; [ "$v" = 36 ] && r=16
  timeout 45 compute-sanitizer --tool $tool --print-limit 20 $B -q -s CIF -r $r -v $v > "$L/${tool}_v$v.log" 2>&1
  echo "$tool CIF r$r v$v rc $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$L/${tool}_v$v.log" | tail -1)" >> "$OUT/times.txt"
done
echo "sanitizers done $(( $(date +%s) - t00 )) s" >> "$OUT/times.txt"
OUT="$L" tests/device.sh data > "$L/data.log" 2>&1
left=$(( 560 - ($(date +%s) - t00) ))
UNIT_TIMEOUT=$(( left - 20 )) OUT="$L" timeout $left tests/device.sh unit > "$L/unit_part.log" 2>&1
echo "device.sh unit rc $? $(( $(date +%s) - t00 )) s" >> "$OUT/times.txt"
grep -hE "Checks|  (ok|FAIL)  |:[FE]:" "$L/unit_part.log" 2>/dev/null | head -30 >> "$OUT/times.txt"
tar cJf "$OUT/logs.tar.xz" -C "$OUT" logs raw.txt && rm -rf "$L" "$OUT/raw.txt"
cat "$OUT/machine.txt" "$OUT/times.txt"; cat "$OUT/bench.md"
