#!/usr/bin/env python3
"""Plots of results/run.sh (matplotlib), into OUTDIR/plots:

  speedup_vs_resolution.png   Table 1: ms per frame and speed-ups against the
                              frame size, per search range
  rd_CLIP_PRESET_Tt.png       Table 2: rate-distortion curves of every
                              configuration, per clip, preset and thread count
  fps_vs_bdrate.png           Table 2: fps against BD-rate across presets,
                              per clip and thread count; the anchor of every
                              point: stock (--mvrange-thread 64 with threads)
                              at --preset medium, same clip and threads

    plot.py OUTDIR                  (results/run.sh's OUTDIR)
    plot.py OUTDIR FILE.csv ...     (other runs' encodes; run
                                     tables.py table2 OUTDIR FILE.csv ... first)"""
import os
import sys
from collections import defaultdict

import matplotlib
matplotlib.use('Agg')
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tables import NAMES, ORDER, PIXELS, PRESETS, RES, bd, num, rd_points, rd_rows, read_csv, t2_runs  # noqa: E402

COLORS = {'stock': 'gray', 'stock_mvt64': 'black', 'auto': 'tab:orange', 'gpu': 'tab:green', 'gpu_r64': 'tab:blue',
          'esa64': 'tab:red'}
MARKS = {'medium': 'o', 'slow': 's', 'slower': 'D', 'veryslow': '^'}


def speedup(outdir, plots):
    p = os.path.join(outdir, 'table1.csv')
    if not os.path.exists(p):
        return
    rows = read_csv(p)
    if not rows:
        return
    m = rows[0]['many']
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(12, 4.8))
    styles = {16: 'tab:blue', 32: 'tab:orange', 64: 'tab:green', 128: 'tab:red'}
    for rng in sorted({int(r['range']) for r in rows}):
        rs = sorted([r for r in rows if int(r['range']) == rng], key=lambda r: RES.index(r['res']))
        x = [PIXELS[r['res']] for r in rs]
        c = styles.get(rng, 'k')

        def line(ax, key, ls, label, mk='o'):
            pts = [(xi, num(r[key])) for xi, r in zip(x, rs) if num(r[key])]
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], linestyle=ls, color=c, marker=mk,
                        label='+-%d: %s' % (rng, label))
        line(a1, 'cpu_esa_1t', '-', 'x264 ESA, 1 thread')
        line(a1, 'cpu_hex_1t', ':', 'x264 hex, 1 thread', 'x')
        line(a1, 'gpu_kernel_ms_frame', '--', 'GPU kernel', 's')
        line(a1, 'gpu_xfer_ms_frame', '-.', 'GPU with transfers', 'd')
        line(a1, 'enc_search_ms_frame_1t', (0, (1, 3)), 'GPU in encoder', 'v')
        line(a2, 'sp_esa1_kernel', '-', 'ESA 1 thr / kernel')
        line(a2, 'sp_esa1_xfer', '-.', 'ESA 1 thr / with transfers', 'd')
        line(a2, 'sp_esamany_kernel', '--', 'ESA %s thr (sum/%s) / kernel' % (m, m), 's')
        line(a2, 'sp_esa1_enc', ':', 'ESA 1 thr / in-encoder search', 'v')
    a2.axhline(50, color='k', lw=.8, ls='--')
    a2.annotate('paper: >50x (GTS450)', (PIXELS['QCIF'], 50), textcoords='offset points', xytext=(2, 4), fontsize=8)
    for ax, yl in ((a1, 'ms per frame'), (a2, 'speed-up (CPU time / GPU time)')):
        ax.set_xscale('log')
        ax.set_yscale('log')
        ax.set_xticks([PIXELS[r] for r in RES])
        ax.set_xticklabels(RES)
        ax.minorticks_off()
        ax.set_xlabel('frame size')
        ax.set_ylabel(yl)
        ax.grid(True, which='both', alpha=.3)
        ax.legend(fontsize=7)
    a1.set_title('Motion estimation per frame (%s, QP 27)' % rows[0]['preset'], fontsize=10)
    a2.set_title('Speed-up against resolution', fontsize=10)
    fig.suptitle('Table 1: %s; CPU %s' % (rows[0]['gpu'], rows[0]['cpu']), fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(plots, 'speedup_vs_resolution.png'), dpi=100)
    plt.close(fig)


def table2_plots(outdir, plots, files):
    if not files and not os.path.exists(os.path.join(outdir, 'table2_runs.csv')):
        return
    runs = [r for r in t2_runs(outdir, files) if r['rc'] == '0']
    t2 = {(r['clip'], r['preset'], r['threads'], r['config']): r for r in read_csv(os.path.join(outdir, 'table2.csv'))}
    cells = defaultdict(lambda: defaultdict(list))
    for r in runs:
        cells[(r['clip'], r['res'], r['preset'], r['threads'])][r['config']].append(r)
    order = lambda c: ORDER.index(c) if c in ORDER else 99  # noqa: E731
    for (clip, res, preset, threads), cfgs in sorted(cells.items()):
        fig, ax = plt.subplots(figsize=(6.4, 4.8))
        for c in sorted(cfgs, key=order):
            pts = sorted(rd_points(cfgs[c], 'psnr_y').values())
            if pts:
                ax.plot([k for k, _ in pts], [q for _, q in pts], marker='o', color=COLORS.get(c), label=NAMES.get(c, c))
        ax.set_xscale('log')
        ax.set_xlabel('bitrate (kb/s, log scale)')
        ax.set_ylabel('PSNR-Y (dB)')
        frames = sorted({r.get('frames') or '?' for v in cfgs.values() for r in rd_rows(v).values()})
        ax.set_title('%s, --preset %s, %s thread%s, %s frames, QP %s' % (
            clip, preset, threads, '' if threads == '1' else 's', '/'.join(frames),
            '/'.join(sorted({r['qp'] for v in cfgs.values() for r in v}, key=int))), fontsize=9)
        ax.grid(True, which='both', alpha=.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(os.path.join(plots, 'rd_%s_%s_%st.png' % (clip, preset, threads)), dpi=100)
        plt.close(fig)

    # fps against BD-rate across presets
    groups = sorted({(k[0], k[1], k[3]) for k in cells}, key=lambda g: (-int(g[2]), RES.index(g[1]) if g[1] in RES else 9))
    if not groups:
        return
    res_of = {g[0]: g[1] for g in groups}
    clips = sorted(res_of, key=lambda c: RES.index(res_of[c]) if res_of[c] in RES else 9)
    ths = sorted({g[2] for g in groups}, key=lambda t: -int(t))
    fig, axes = plt.subplots(len(ths), len(clips), figsize=(6.4 * len(clips), 4.8 * len(ths)), squeeze=False)
    ycap = 40.   # BD-rates above this (ultrafast, superfast) are drawn at the top edge, labelled with their value
    drawn = set()
    table = []   # the points, also as text: plots/fps_vs_bdrate.md
    for i, t in enumerate(ths):
        for j, clip in enumerate(clips):
            ax = axes[i][j]
            res = res_of[clip]
            presets = sorted({k[2] for k in cells if k[0] == clip and k[3] == t},
                             key=lambda p: PRESETS.index(p) if p in PRESETS else 99)
            base = cells.get((clip, res, 'medium', t), {})
            anchor = base.get('stock_mvt64') or base.get('stock')
            if not anchor:
                ax.set_axis_off()
                continue
            for c in ORDER:
                pts = []
                for p in presets:
                    rs = cells[(clip, res, p, t)].get(c)
                    row = t2.get((clip, p, t, c))
                    b = bd(anchor, rs, 'psnr_y') if rs else None
                    f = num(row['fps']) if row else None
                    if b is not None and f:
                        pts.append((f, b, p))
                        table.append('| %s | %s | %s | %s | %.1f | %+.2f%% |' % (clip, t, NAMES.get(c, c), p, f, b))
                if pts:
                    drawn.add(c)
                    ax.plot([q[0] for q in pts], [q[1] for q in pts], '-', color=COLORS.get(c), lw=1)
                    for f, b, p in pts:
                        if b > ycap:   # off the scale: at the edge, with its value
                            ax.scatter(f, ycap, marker=r'$\uparrow$', color=COLORS.get(c), s=60, zorder=3)
                            ax.annotate('%s %+.0f%%' % (p, b), (f, ycap), fontsize=6, xytext=(3, -9),
                                        textcoords='offset points', color=COLORS.get(c))
                            continue
                        ax.scatter(f, b, marker=MARKS.get(p, 'x'), color=COLORS.get(c), s=40, zorder=3)
                        if p not in MARKS:   # the other presets by name (ultrafast..fast)
                            ax.annotate(p, (f, b), fontsize=6, xytext=(3, 3), textcoords='offset points',
                                        color=COLORS.get(c))
            ax.axhline(0, color='k', lw=.5)
            if ax.get_ylim()[1] > ycap:
                ax.set_ylim(top=ycap + 2)
            ax.set_xscale('log')
            ax.set_xlabel('fps (median, log scale)')
            ax.set_ylabel('BD-rate vs %s medium (%%)' % ('stock --mvrange-thread 64' if base.get('stock_mvt64') else 'stock'))
            ax.set_title('%s, %s thread%s' % (clip, t, '' if t == '1' else 's'), fontsize=9)
            ax.grid(True, which='both', alpha=.3)
    for c in ORDER:
        if c in COLORS and c in drawn:
            axes[0][0].plot([], [], color=COLORS[c], label=NAMES[c])
    for p, mk in MARKS.items():
        axes[0][0].scatter([], [], marker=mk, color='w', edgecolors='k', label='--preset ' + p)
    axes[0][0].legend(fontsize=7)
    with open(os.path.join(plots, 'fps_vs_bdrate.md'), 'w') as fh:
        fh.write('# Speed against BD-rate across presets (the points of fps_vs_bdrate.png)\n\n'
                 'BD-rate (PSNR-Y) against the anchor at --preset medium, same clip and threads: stock '
                 '--mvrange-thread 64 where it ran, else stock.  fps: median of the speed repeats.\n\n'
                 '| clip | threads | config | preset | fps | BD-rate vs the anchor at medium |\n|---|---|---|---|---|---|\n')
        fh.write('\n'.join(table) + '\n')
    fig.suptitle('Speed against BD-rate (PSNR-Y) across presets; lower right is better', fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(plots, 'fps_vs_bdrate.png'), dpi=100)
    plt.close(fig)


if __name__ == '__main__':
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    plots = os.path.join(out, 'plots')
    os.makedirs(plots, exist_ok=True)
    speedup(out, plots)
    table2_plots(out, plots, sys.argv[2:])
