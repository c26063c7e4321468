#!/usr/bin/env python3
"""trace_blocks.py: where a search launch's time goes, from its blocks' stamps.

    tests/tools/trace_blocks.py TRACE.bin [BLOCKS_PER_SM]

TRACE.bin: bench_me -T's file (cme_cuda_trace(): per block 5 uint64, the
global timer (ns) and its SM's clock at the block's start, the same at its
end, its SM).  Prints the launch's span (first start to last end), the
blocks' durations by the order they started in, and the span against a
launch whose blocks all took the middle's duration (blocks started
between 20% and 70% of the span) on every block slot (SMs x occupancy)
without a gap: span x slots = n x d_mid + the blocks' time beyond d_mid +
the slots' idle time, before the last block's start (gaps between
blocks, a slow start) and after it (the drain).  Also how many blocks each
SM held over time (mean during the middle, during the last block's
drain) and when the SMs fell idle at the end.  BLOCKS_PER_SM: the
occupancy (default: the most an SM held at once).
"""

import struct
import sys
from statistics import median


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    raw = open(sys.argv[1], "rb").read()
    n = len(raw) // 40
    recs = [struct.unpack_from("<5Q", raw, 40 * i) for i in range(n)]
    recs = [r for r in recs if r[2] > r[0] > 0]
    if len(recs) != n:
        print(f"{n - len(recs)} of {n} blocks without stamps (not a search_kernel launch?)")
    n = len(recs)
    if not n:
        sys.exit("no stamps")
    t0 = min(r[0] for r in recs)
    starts = sorted((r[0] - t0, r[2] - t0, r[4]) for r in recs)
    ends = sorted(r[2] - t0 for r in recs)
    span = ends[-1]
    # the global timer's step (its resolution) and the SMs' clock rate
    steps = sorted({s for s, _, _ in starts})
    res = min((b - a for a, b in zip(steps, steps[1:])), default=0)
    rates = [(r[3] - r[1]) / (r[2] - r[0]) for r in recs if r[2] - r[0] > 2000]
    ghz = median(rates) if rates else 0
    sms = sorted({r[4] for r in recs})
    print(f"{n} blocks on {len(sms)} SMs; span {span / 1000:.2f} us (global timer step {res} ns, "
          f"SM clock {ghz:.3f} GHz)")
    # durations from the SM clock (exact within an SM), by start order
    dur = sorted(((r[0] - t0, (r[3] - r[1]) / ghz if ghz else r[2] - r[0]) for r in recs))
    k = 5
    print("block duration (us) by start order, %d groups: " % k +
          "  ".join(f"{median(d for _, d in dur[i * n // k:(i + 1) * n // k]) / 1000:.2f}" for i in range(k)))
    # resident blocks per SM over time
    ev = sorted([(r[0] - t0, 1, r[4]) for r in recs] + [(r[2] - t0, -1, r[4]) for r in recs])
    res_sm = {s: 0 for s in sms}
    most = 0
    for t, d, s in ev:
        res_sm[s] += d
        most = max(most, res_sm[s])
    occ = int(sys.argv[2]) if len(sys.argv) > 2 else most
    def busy(a, b):
        """the blocks' time between times a and b, summed"""
        return sum(max(0, min(rr[2] - t0, b) - max(rr[0] - t0, a)) for rr in recs)

    # the span against a launch of blocks that all take the middle's
    # duration on every slot (SMs x occ) from start to end:
    # span x slots = n x d_mid + sum(d - d_mid) + idle slot time
    slots = len(sms) * occ
    mid = [d for t, d in dur if 0.2 * span <= t <= 0.7 * span] or [d for _, d in dur]
    d_mid = median(mid)
    extra = sum(d for _, d in dur) - n * d_mid
    last_start = starts[-1][0]
    idle_after = (span - last_start) * slots - busy(last_start, span)
    idle_before = span * slots - sum(rr[2] - rr[0] for rr in recs) - idle_after
    print(f"middle block {d_mid / 1000:.2f} us; n x that / slots {n * d_mid / slots / 1000:.2f} us; the rest "
          f"{(span - n * d_mid / slots) / 1000:.2f} us = blocks longer than the middle's "
          f"{extra / slots / 1000:.2f} + idle slots up to the last start {idle_before / slots / 1000:.2f} "
          f"+ after it {idle_after / slots / 1000:.2f} (us of the span)")

    def mean_resident(a, b):
        """mean blocks resident an SM between times a and b"""
        return busy(a, b) / ((b - a) * len(sms)) if b > a else 0

    print(f"resident an SM (of {occ}): first 5% of the span {mean_resident(0, 0.05 * span):.2f}, "
          f"middle {mean_resident(0.2 * span, 0.7 * span):.2f}, after the last start ({(span - last_start) / 1000:.2f} us) "
          f"{mean_resident(last_start, span):.2f}")
    # when the SMs started and fell idle
    first = sorted(min(r[0] - t0 for r in recs if r[4] == s) for s in sms)
    last = sorted(max(r[2] - t0 for r in recs if r[4] == s) for s in sms)
    print(f"SMs' first block start: median {median(first) / 1000:.2f} us, last {first[-1] / 1000:.2f} us; "
          f"SMs idle from (us): first {last[0] / 1000:.2f}, 10% {last[len(last) // 10] / 1000:.2f}, "
          f"median {median(last) / 1000:.2f}, last {last[-1] / 1000:.2f}")
    # the first round's ends and the second's starts: in step or spread
    firsts = sorted(r[2] - t0 for r in recs if r[0] - t0 <= first[-1] + 500)
    if firsts:
        print(f"blocks started in the first {first[-1] / 1000 + 0.5:.2f} us: {len(firsts)}, their ends (us) "
              f"10% {firsts[len(firsts) // 10] / 1000:.2f} median {median(firsts) / 1000:.2f} "
              f"90% {firsts[9 * len(firsts) // 10] / 1000:.2f}")
    # completions per tenth of the span
    bins = [0] * 10
    for e in ends:
        bins[min(9, int(10 * e / span))] += 1
    print("blocks ended per tenth of the span: " + " ".join(str(b) for b in bins))


if __name__ == "__main__":
    main()
