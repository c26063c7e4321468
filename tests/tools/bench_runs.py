#!/usr/bin/env python3
"""bench_runs.py: medians of interleaved bench_me runs, one table.

  bench_runs.py [-V] FILE [BASE]

FILE holds the lines the device scripts write (bench_interleaved.sh and
results/' scripts): "REP BUILD " followed by a bench_me "total" line
(size, range, variant, "total", median ms, min ms, ...).  Prints a
markdown table: one row per size, range and variant, one column per
build in the order first seen, each cell the median over the REPs of
bench_me's medians, its change against BASE's (default: the first
build) in per cent, the number of REPs and half their spread ((max -
min) / 2) in per cent of the median.  A build without runs for a row
leaves its cell empty.  E.g. bench_runs.py DIR/bench.txt gives the
tables of results/kernel_steps.md.
-V: rows by size and range only, for runs of several variants labelled
by variant as their BUILD: the variants side by side.
"""
import statistics
import sys
from collections import OrderedDict, defaultdict


def main():
    args = sys.argv[1:]
    by_size = bool(args) and args[0] == "-V"
    if by_size:
        args = args[1:]
    if len(args) not in (1, 2):
        sys.exit(__doc__)
    runs = defaultdict(list)
    builds, rows = OrderedDict(), OrderedDict()
    with open(args[0]) as f:
        for line in f:
            x = line.split()
            if len(x) < 8 or x[5] != "total":
                continue
            build, key = x[1], (x[2], int(x[3]), "" if by_size else x[4].rstrip("*"))
            builds[build] = None
            rows[key] = None
            runs[key, build].append(float(x[6]))
    if not rows:
        sys.exit("bench_runs.py: no total lines in " + args[0])
    builds = list(builds)
    base = args[1] if len(args) == 2 else builds[0]
    if base not in builds:
        sys.exit("bench_runs.py: no build %s (%s)" % (base, " ".join(builds)))
    print("| size, range%s | " % ("" if by_size else ", variant") + " | ".join(builds) + " |")
    print("|---" * (len(builds) + 1) + "|")
    for key in rows:
        ref = runs.get((key, base))
        ref = statistics.median(ref) if ref else None
        cells = []
        for b in builds:
            r = runs.get((key, b))
            if not r:
                cells.append("")
                continue
            m = statistics.median(r)
            cell = "%.4f" % m
            if ref and b != base:
                cell += " (%+.1f%%)" % (100 * (m / ref - 1))
            cell += " n%d +-%.1f%%" % (len(r), 100 * (max(r) - min(r)) / m / 2)
            cells.append(cell)
        print("| %s | " % " ".join(str(k) for k in key if k != "") + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
