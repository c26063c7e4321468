#!/bin/bash
# Session 39, call 4 (carry build/carry39/c4.tar.xz: bench_me whose -b
# also queues the two candidates' pair behind an untimed search): the
# defaults at 720p/1080p/2160p x +-16/28/32/48/64 with -b, 3 runs
# interleaved: the single search and the pair (pass 1 + pass 2) in GPU
# time, and their ratio (issue 13's limit 1.5x).
set -u
tar xJf build/carry39/c4.tar.xz -C build
C=()
for s in 720p 1080p 2160p; do for rv in 16:14 28:24 32:24 48:26 64:26; do C+=("$s:$rv:-b"); done; done
tests/tools/bench_interleaved.sh build/bench/bench_me "$OUT" 3 "${C[@]}" > /dev/null
grep -h "2 cands" "$OUT/raw.txt" | sort -k1,1 -k2,2n > "$OUT/cands.txt"
python3 - "$OUT/cands.txt" > "$OUT/cands.md" <<'PY'
import sys, statistics as st
d = {}
for l in open(sys.argv[1]):
    f = l.split()
    d.setdefault((f[0], int(f[1]), f[2]), []).append((float(f[5]), float(f[7].rstrip("x"))))
print("| size | range | variant | pair ms (median) | ratio to the single search (each run; median) |\n|---|---|---|---|---|")
for k in sorted(d, key=lambda k: ({"720p": 0, "1080p": 1, "2160p": 2}.get(k[0], 3), k[1])):
    v = d[k]
    print(f"| {k[0]} | {k[1]} | {k[2]} | {st.median(x for x, _ in v):.4f} | "
          f"{' '.join(f'{y:.2f}' for _, y in v)}; {st.median(y for _, y in v):.2f}x |")
PY
rm -f "$OUT/raw.txt"
cat "$OUT/machine.txt" "$OUT/cands.md" "$OUT/bench.md"
