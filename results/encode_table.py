#!/usr/bin/env python3
"""Summarise results/bench_encode.sh CSVs: per clip and preset, each
configuration's speed and BD-rate (PSNR-Y, Bjontegaard) against stock x264
and against stock with --mvrange-thread 64 (the fair anchor at 16 threads).

    encode_table.py encode.csv [...] > table.md"""
import csv
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bdrate import bdrate  # noqa: E402

rows = []
for path in sys.argv[1:]:
    with open(path) as f:
        rows += [r for r in csv.DictReader(f) if r.get('kbps')]

data = defaultdict(dict)  # (clip, preset) -> config -> list of rows
for r in rows:
    data[(r['clip'], r['preset'])].setdefault(r['config'], []).append(r)


def pts(rs, metric='psnr_y'):
    return [(float(r['kbps']), float(r[metric])) for r in rs]


def fps(rs):
    return sum(float(r['fps']) for r in rs) / len(rs)


for (clip, preset), cfgs in sorted(data.items()):
    print('\n### %s, --preset %s, %s threads, QP %s\n' % (
        clip, preset, next(iter(cfgs.values()))[0]['threads'],
        '/'.join(r['qp'] for r in next(iter(cfgs.values())))))
    print('| config | fps | fps vs stock | fps vs mvt64 | BD-rate vs stock | BD-rate vs stock --mvrange-thread 64 | BD-rate (SSIM) vs mvt64 | GPU wait |')
    print('|---|---|---|---|---|---|---|---|')
    base = cfgs.get('stock')
    fair = cfgs.get('stock_mvt64')
    for name, rs in cfgs.items():
        if len(rs) < 4:
            continue
        f = fps(rs)
        cells = [name, '%.1f' % f]
        cells.append('%.2fx' % (f / fps(base)) if base else '-')
        cells.append('%.2fx' % (f / fps(fair)) if fair else '-')
        cells.append('%+.2f%%' % bdrate(pts(base), pts(rs)) if base else '-')
        cells.append('%+.2f%%' % bdrate(pts(fair), pts(rs)) if fair else '-')
        cells.append('%+.2f%%' % bdrate(pts(fair, 'ssim_db'), pts(rs, 'ssim_db')) if fair else '-')
        waits = [float(r['gpu_wait_pct']) for r in rs if r.get('gpu_wait_pct')]
        cells.append('%.2f%%' % (sum(waits) / len(waits)) if waits else '-')
        print('| ' + ' | '.join(cells) + ' |')
