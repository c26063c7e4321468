#!/usr/bin/env python3
"""Bjontegaard delta rate (VCEG-M33): cubic fit of log10(bitrate) against
PSNR for anchor and test, both integrated over the PSNR range they share;
the mean log-rate difference, as a percentage (negative: test saves bits).

    bdrate.py "kbps,psnr kbps,psnr ..." "kbps,psnr ..."      (anchor first)
    bdrate.py --test                                         (self-check)

The one BD-rate of the project (results/tables.py, results/plot.py and
tests import it).  Pure Python so that it runs with any python3; it agrees
with numpy.polyfit/polyint to 1e-9."""
import math
import sys


def _polyfit3(xs, ys):
    """Least-squares cubic y = c0 + c1 x + c2 x^2 + c3 x^3 (normal equations,
    x centred for conditioning); returns (coefficients, centre)."""
    m = sum(xs) / len(xs)
    xs = [x - m for x in xs]
    a = [[sum(x ** (i + j) for x in xs) for j in range(4)] for i in range(4)]
    b = [sum(y * x ** i for x, y in zip(xs, ys)) for i in range(4)]
    # Gaussian elimination with partial pivoting
    for c in range(4):
        p = max(range(c, 4), key=lambda r: abs(a[r][c]))
        a[c], a[p], b[c], b[p] = a[p], a[c], b[p], b[c]
        for r in range(4):
            if r != c and a[c][c]:
                f = a[r][c] / a[c][c]
                a[r] = [u - f * v for u, v in zip(a[r], a[c])]
                b[r] -= f * b[c]
    return [b[i] / a[i][i] for i in range(4)], m


def _integral(coef, m, lo, hi):
    prim = lambda x: sum(coef[i] * (x - m) ** (i + 1) / (i + 1) for i in range(4))
    return prim(hi) - prim(lo)


def bdrate(anchor, test):
    """anchor, test: lists of (kbps, psnr), at least 4 points each; nan when
    the two PSNR ranges do not overlap."""
    if len(anchor) < 4 or len(test) < 4:
        raise ValueError('bdrate: 4 or more points per curve, got %d and %d' % (len(anchor), len(test)))
    ca, ma = _polyfit3([p for _, p in anchor], [math.log10(r) for r, _ in anchor])
    ct, mt = _polyfit3([p for _, p in test], [math.log10(r) for r, _ in test])
    lo = max(min(p for _, p in anchor), min(p for _, p in test))
    hi = min(max(p for _, p in anchor), max(p for _, p in test))
    if hi <= lo:
        return float('nan')
    d = (_integral(ct, mt, lo, hi) - _integral(ca, ma, lo, hi)) / (hi - lo)
    return (10 ** d - 1) * 100


def read_rd(path):
    """An rd.csv as tests/lib.sh's exp_grid writes it (clip, config, QP,
    kb/s, PSNR-Y per line) as {(clip, config): [(kbps, psnr), ...]}."""
    rd = {}
    with open(path) as f:
        for line in f:
            clip, cfg, _qp, kbps, psnr = line.strip().split(',')
            rd.setdefault((clip, cfg), []).append((float(kbps), float(psnr)))
    return rd


def bd_table(rd, clips, anchor, cfgs, name=str):
    """A markdown table of read_rd()'s BD-rates: a row per clip, a column per
    configuration of cfgs against the anchor configuration."""
    rows = ['| clip | ' + ' | '.join(name(c) for c in cfgs) + ' |', '|---|' + '---|' * len(cfgs)]
    for clip in clips:
        rows.append('| %s | ' % clip + ' | '.join('%+.2f%%' % bdrate(rd[(clip, anchor)], rd[(clip, c)])
                                                 for c in cfgs) + ' |')
    return '\n'.join(rows)


def selftest():
    a = [(7000, 40.1), (3500, 37.4), (1700, 34.6), (850, 31.5)]
    assert abs(bdrate(a, a)) < 1e-9
    assert abs(bdrate(a, [(r * 0.9, p) for r, p in a]) + 10) < 1e-9     # 10% fewer bits everywhere
    assert abs(bdrate(a, [(6800, 40.2), (3400, 37.5), (1690, 34.5), (860, 31.4)]) + 1.33450449) < 1e-6  # numpy
    assert math.isnan(bdrate(a, [(r, p + 20) for r, p in a]))
    print('bdrate: self-test ok')


if __name__ == '__main__':
    if sys.argv[1:] == ['--test']:
        selftest()
        sys.exit(0)
    parse = lambda s: [tuple(float(v) for v in t.split(',')) for t in s.split()]
    print('%.2f' % bdrate(parse(sys.argv[1]), parse(sys.argv[2])))
