#!/usr/bin/env python3
"""sass_regions.py: where a search kernel's executed instructions go, from
ncu's source counters (tests/ncu_kernel.sh SOURCE=1: vV_rR.sass.csv[.gz]).

  sass_regions.py FILE.sass.csv[.gz] [POSITIONS]

Splits the SASS into three regions: before the first VABSDIFF4 (prologue,
window load, key tables), from the first to the last VABSDIFF4 (the run
loop), and after it (the run loop's last minima, the reductions, the
stores); per region, instructions executed per warp-position by pipe
(tests/tools/sass_pipes.py's classes) and warp-state samples.  Executed
warp-positions are the VABSDIFF4s / 64 (every executed position costs 64).
POSITIONS: the positions the launch had to search (macroblocks x window
positions); then also the share executed beyond them (rows searched twice,
lanes of partial warps).  The ALU opcodes outside the loop region last.
"""
import collections
import csv
import gzip
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sass_pipes as sp  # noqa: E402


def rows(path):
    f = gzip.open(path, "rt") if path.endswith(".gz") else open(path)
    with f:
        r = list(csv.reader(f))
    head = next(i for i, x in enumerate(r) if "Address" in x and "Source" in x)
    h = r[head]
    isrc, iex = h.index("Source"), h.index("Instructions Executed")
    ism = h.index("Warp Stall Sampling (All Samples)")
    out = []
    for x in r[head + 1:]:
        if len(x) <= max(isrc, iex, ism):
            continue
        src = x[isrc].strip()
        op = sp.opcode(src) if src else ""
        out.append((op, int(float(x[iex] or 0)), int(float(x[ism] or 0))))
    return out


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    ins = rows(sys.argv[1])
    vabs = [i for i, x in enumerate(ins) if x[0].startswith("VABSDIFF4")]
    if not vabs:
        sys.exit("no VABSDIFF4 in %s" % sys.argv[1])
    lo, hi = vabs[0], vabs[-1] + 1
    pos = sum(ins[i][1] for i in vabs) / 64.0
    print("executed warp-positions (VABSDIFF4 / 64): %.0f" % pos)
    if len(sys.argv) > 2:
        need = float(sys.argv[2]) / 32.0
        print("needed warp-positions: %.0f, executed beyond them: %+.1f%%" % (need, 100.0 * (pos / need - 1)))
    allsamp = sum(x[2] for x in ins) or 1
    print("| region | all | alu | fma | lsu | other | samples |")
    print("|---|---|---|---|---|---|---|")
    for name, a, b in (("before the loop", 0, lo), ("run loop", lo, hi), ("after the loop", hi, len(ins))):
        by = collections.Counter()
        for op, n, _ in ins[a:b]:
            if op:
                by[sp.pipe(op)] += n
        s = sum(x[2] for x in ins[a:b])
        print("| %s | %.1f | %.2f | %.2f | %.2f | %.2f | %.1f%% |" % (
            name, sum(by.values()) / pos, by["alu"] / pos, by["fma"] / pos, by["lsu"] / pos,
            by["oth"] / pos, 100.0 * s / allsamp))
    c = collections.Counter()
    for i, (op, n, _) in enumerate(ins):
        if op and (i < lo or i >= hi) and sp.pipe(op) == "alu":
            c[sp.base(op)] += n
    print("ALU outside the loop region, per warp-position: " +
          ", ".join("%s %.2f" % (k, v / pos) for k, v in c.most_common(10)))


if __name__ == "__main__":
    main()
