#!/bin/bash
# Session 39, call 3 (carry build/carry39/c3.tar.xz: main + v33/v34
# (v24's keys in blocks of 4 warps, 3 an SM; v34 its fallback), and
# bench_me_trace (the same kernels built with -DCME_TRACE=1)):
# 1. the defaults at 720p/1080p/2160p x +-16/32/64 with and without -b,
#    v33 at +-32 (its geometry and -g 128,6) with -b; 3 runs interleaved;
# 2. the blocks' stamps of v24 and v33 at 720p +-32;
# 3. tests/device.sh data gpu: unit (every variant == C), memcheck over
#    the case gpu, e2e (x264 --gpu-me, CUDA == C, FFmpeg == x264's recon).
set -u
t00=$(date +%s)
tar xJf build/carry39/c3.tar.xz -C build
B=build/bench/bench_me
L=$OUT/logs; mkdir -p "$L"
C=()
for s in 720p 1080p 2160p; do
  C+=("$s:16:14:-b" "$s:16:14:" "$s:32:24:-b" "$s:32:24:" "$s:64:26:-b" "$s:64:26:" "$s:32:33:-b" "$s:32:33:-b -g 128,6")
done
tests/tools/bench_interleaved.sh "$B" "$OUT" 3 "${C[@]}" > /dev/null
grep -h "geometry\|2 cands" "$OUT/raw.txt" | sort | uniq -c | sort -k2 >> "$OUT/times.txt"
echo "bench done $(( $(date +%s) - t00 )) s" >> "$OUT/times.txt"
for c in 720p:32:24 720p:32:33; do
  IFS=: read -r sz r v <<< "$c"
  timeout 60 build/bench/bench_me_trace -q -b -s $sz -r $r -v $v -T "$L/tr_${sz}_${r}_v$v.bin" > "$L/tr_${sz}_${r}_v$v.log" 2>&1
  { echo "## $sz +-$r v$v: $(grep -m1 ' total ' "$L/tr_${sz}_${r}_v$v.log")"
    python3 tests/tools/trace_blocks.py "$L/tr_${sz}_${r}_v$v.bin"; echo; } >> "$OUT/trace.txt" 2>&1
done
OUT="$L" tests/device.sh data > "$L/data.log" 2>&1
left=$(( 570 - ($(date +%s) - t00) ))
UNIT_TIMEOUT=$(( left - 40 )) MEMCHECK_TIMEOUT=$(( left - 40 )) E2E_TIMEOUT=$(( left - 40 )) OUT="$L" timeout $left tests/device.sh gpu > "$L/gpu.log" 2>&1
echo "device.sh gpu rc $? $(( $(date +%s) - t00 )) s" >> "$OUT/times.txt"
grep -hE "Checks|  (ok|FAIL)  |^e2e: |ERROR SUMMARY|:[FE]:" "$L/gpu.log" | head -40 >> "$OUT/times.txt"
tar cJf "$OUT/logs.tar.xz" -C "$OUT" logs raw.txt && rm -rf "$L" "$OUT/raw.txt"
cat "$OUT/machine.txt" "$OUT/times.txt" "$OUT/trace.txt"; cat "$OUT/bench.md"
