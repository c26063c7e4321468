#!/bin/bash
# Session 39, call 2 (carry build/carry39/c2.tar.xz: bench_me with the
# blocks' stamps (cme_cuda_trace(), bench_me -T) and call 1's bench_me
# (bench_me_c1, without them; X_SPLIT and v33 reverted in between)):
# 1. the stamps' cost when off: both binaries, -b, 3 runs interleaved;
# 2. where a launch's fixed GPU time goes: the blocks' stamps of one
#    launch (behind an untimed one) at 720p/1080p/2160p +-32 (v24),
#    720p/1080p +-16 (v14), 720p +-32 (v31), 720p/1080p +-64 (v26), read
#    by tests/tools/trace_blocks.py.
set -u
t00=$(date +%s)
tar xJf build/carry39/c2.tar.xz -C build
L=$OUT/logs; mkdir -p "$L"
{ date +%T; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; } > "$OUT/machine.txt"
for rep in 1 2 3; do
  for c in 720p:32:24 1080p:32:24 720p:16:14 1080p:17:31 720p:64:26; do
    IFS=: read -r sz r v <<< "$c"
    for b in bench_me_c1 bench_me; do
      timeout 60 build/bench/$b -q -b -s $sz -r $r -v $v 2>&1 | tee -a "$L/raw.txt" |
        awk -v rep=$rep -v b=$b '$4 == "total" {print rep, b, $0}'
    done
  done
done > "$OUT/bench.txt"
python3 - "$OUT/bench.txt" > "$OUT/bench.md" <<'PY'
import sys, statistics as st
d = {}
for l in open(sys.argv[1]):
    f = l.split()
    d.setdefault((f[2], f[3], f[4]), {}).setdefault(f[1], []).append(float(f[6]))
print("| size range variant | bench_me_c1 (no stamps) | bench_me (stamps off) |\n|---|---|---|")
for k, v in d.items():
    a, b = st.median(v.get("bench_me_c1", [0])), st.median(v.get("bench_me", [0]))
    print(f"| {' '.join(k)} | {a:.4f} | {b:.4f} ({100 * (b / a - 1):+.1f}%) |")
PY
echo "bench done $(( $(date +%s) - t00 )) s" >> "$OUT/times.txt"
for c in 720p:32:24 1080p:32:24 2160p:32:24 720p:16:14 1080p:16:14 720p:32:31 720p:64:26 1080p:64:26; do
  IFS=: read -r sz r v <<< "$c"
  timeout 60 build/bench/bench_me -q -b -s $sz -r $r -v $v -T "$L/tr_${sz}_${r}_v$v.bin" > "$L/tr_${sz}_${r}_v$v.log" 2>&1
  { echo "## $sz +-$r v$v: $(grep -m1 ' total ' "$L/tr_${sz}_${r}_v$v.log")"
    python3 tests/tools/trace_blocks.py "$L/tr_${sz}_${r}_v$v.bin"; echo; } >> "$OUT/trace.txt" 2>&1
done
echo "traces done $(( $(date +%s) - t00 )) s" >> "$OUT/times.txt"
tar cJf "$OUT/logs.tar.xz" -C "$OUT" logs && rm -rf "$L"
cat "$OUT/machine.txt" "$OUT/times.txt" "$OUT/bench.md" "$OUT/trace.txt"
