#!/usr/bin/python3
"""Plots from results/bench_encode.sh CSVs (Debian's python3-matplotlib):
rate-distortion curves per clip and preset, and speed against BD-rate.

    plot.py OUTDIR file.csv [...]"""
import csv
import os
import sys
from collections import defaultdict

import matplotlib
matplotlib.use('Agg')
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bdrate import bdrate  # noqa: E402

out = sys.argv[1]
rows = []
for p in sys.argv[2:]:
    with open(p) as f:
        rows += [r for r in csv.DictReader(f) if r.get('kbps')]
data = defaultdict(lambda: defaultdict(list))
for r in rows:
    data[(r['clip'].replace('.y4m', ''), r['preset'])][r['config']].append(r)

names = {'stock': 'stock x264', 'stock_mvt64': 'stock --mvrange-thread 64',
         'gpu_repl64': '--gpu-me --merange 64 (replace)', 'gpu_cand64': '--gpu-me (cand)',
         'esa64': '--me esa --merange 64'}
speed = []
for (clip, preset), cfgs in sorted(data.items()):
    fig, ax = plt.subplots(figsize=(6.4, 4.8))
    for cfg, rs in cfgs.items():
        rs = sorted(rs, key=lambda r: float(r['kbps']))
        ax.plot([float(r['kbps']) for r in rs], [float(r['psnr_y']) for r in rs], marker='o', label=names.get(cfg, cfg))
    ax.set_xscale('log')
    ax.set_xlabel('bitrate (kb/s, log scale)')
    ax.set_ylabel('PSNR-Y (dB)')
    ax.set_title('%s, --preset %s, 16 threads, QP 22-37' % (clip, preset))
    ax.grid(True, which='both', alpha=.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, 'rd_%s_%s.png' % (clip, preset)), dpi=100)
    plt.close(fig)
    anchor = cfgs.get('stock_mvt64')
    if anchor:
        fa = sum(float(r['fps']) for r in anchor) / len(anchor)
        for cfg, rs in cfgs.items():
            f = sum(float(r['fps']) for r in rs) / len(rs)
            bd = bdrate([(float(r['kbps']), float(r['psnr_y'])) for r in anchor],
                        [(float(r['kbps']), float(r['psnr_y'])) for r in rs])
            speed.append((clip, preset, cfg, f / fa, bd))

fig, ax = plt.subplots(figsize=(7.5, 5))
marks = {'medium': 'o', 'slow': 's', 'veryslow': '^'}
colors = {'stock': 'gray', 'stock_mvt64': 'black', 'gpu_repl64': 'tab:green', 'gpu_cand64': 'tab:blue', 'esa64': 'tab:red'}
TOP = 2.0
for clip, preset, cfg, fr, bd in speed:
    y = min(bd, TOP)   # stock's default thread MV limit costs ~20% on street: drawn at the top
    ax.scatter(fr, y, marker=marks.get(preset, 'x'), color=colors.get(cfg, 'purple'),
               edgecolors='k' if clip.startswith('street') else 'none', s=60)
    if bd > TOP:
        ax.annotate('%+.0f%%' % bd, (fr, y), textcoords='offset points', xytext=(4, -10), fontsize=7)
for cfg, c in colors.items():
    ax.scatter([], [], color=c, label=names[cfg])
for p, m in marks.items():
    ax.scatter([], [], marker=m, color='w', edgecolors='k', label='--preset ' + p)
ax.axhline(0, color='k', lw=.5)
ax.axvline(1, color='k', lw=.5)
ax.set_ylim(-2.5, TOP + 0.3)
ax.set_xscale('log')
ax.set_xlabel('fps relative to stock --mvrange-thread 64 (same preset, log scale)')
ax.set_ylabel('BD-rate vs stock --mvrange-thread 64 (%, PSNR-Y; lower is better)')
ax.set_title('Speed vs BD-rate, 16 threads (outlined: street 1080p, plain: flower 720p)', fontsize=9)
ax.grid(True, alpha=.3)
ax.legend(fontsize=7, loc='upper left')
fig.tight_layout()
fig.savefig(os.path.join(out, 'speed_vs_bdrate.png'), dpi=100)
print('\n'.join('%s %s %s: %.2fx %+.2f%%' % s for s in speed))
