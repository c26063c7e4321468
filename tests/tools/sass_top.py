#!/usr/bin/env python3
"""sass_top.py: where a kernel's warps wait, from ncu's per-SASS source
counters (tests/ncu_kernel.sh with SOURCE=1 writes OUT/vV_rR.sass.csv).

    tests/tools/sass_top.py FILE.sass.csv [N]

Prints the total warp-state samples and the share of barrier stalls, the N
(default 12) instructions with the most samples (a stall is counted on
the instruction waiting to issue: the one after a BAR.SYNC holds the
warps waiting at that barrier), and every barrier / mbarrier instruction.
E.g. v28 (stream-K) spent 18.3% at the barrier after the runs
(results/kernel_steps.md)."""
import csv
import sys

rows = list(csv.reader(open(sys.argv[1])))
head = rows[1]
data = rows[2:]
ix = {k: i for i, k in enumerate(head)}


def col(r, name):
    return int(r[ix[name]] or 0)


ALL = "Warp Stall Sampling (All Samples)"
tot = sum(col(r, ALL) for r in data) or 1
bar = sum(col(r, "stall_barrier") for r in data)
print(f"{sys.argv[1]}: {tot} samples, barrier {bar} ({100 * bar / tot:.1f}%)")
lines = [(col(r, ALL), n, r[ix["Source"]].strip(), col(r, "stall_barrier"), col(r, "stall_wait"),
          col(r, "Instructions Executed")) for n, r in enumerate(data)]
for s, n, src, b, w, ie in sorted(lines, reverse=True)[:int(sys.argv[2]) if len(sys.argv) > 2 else 12]:
    print(f"{n:5d} {s:6d} {100 * s / tot:5.2f}%  barrier {b:6d} wait {w:6d} executed {ie:8d}  {src[:60]}")
for s, n, src, b, w, ie in lines:
    if "BAR.SYNC" in src or "SYNCS" in src:
        print(f"  barrier line {n:5d}: {s:6d} samples ({100 * s / tot:.2f}%), executed {ie:8d}  {src[:70]}")
