#!/usr/bin/env python3
"""Bjontegaard delta rate (VCEG-M33): cubic fit of log10(bitrate) against
PSNR for anchor and test, both integrated over the PSNR range they share;
the mean log-rate difference, as a percentage (negative: test saves bits).

    bdrate.py "kbps,psnr kbps,psnr ..." "kbps,psnr ..."      (anchor first)

Pure Python so that it runs with any python3."""
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
    """anchor, test: lists of (kbps, psnr), at least 4 points each."""
    ca, ma = _polyfit3([p for _, p in anchor], [math.log10(r) for r, _ in anchor])
    ct, mt = _polyfit3([p for _, p in test], [math.log10(r) for r, _ in test])
    lo = max(min(p for _, p in anchor), min(p for _, p in test))
    hi = min(max(p for _, p in anchor), max(p for _, p in test))
    if hi <= lo:
        return float('nan')
    d = (_integral(ct, mt, lo, hi) - _integral(ca, ma, lo, hi)) / (hi - lo)
    return (10 ** d - 1) * 100


if __name__ == '__main__':
    parse = lambda s: [tuple(float(v) for v in t.split(',')) for t in s.split()]
    print('%.2f' % bdrate(parse(sys.argv[1]), parse(sys.argv[2])))
