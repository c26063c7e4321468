#!/usr/bin/env python3
"""Tables of results/run.sh (pure Python, any python3).

    tables.py startup OUTDIR    startup_runs.csv -> startup.csv, startup.md
    tables.py table1 OUTDIR     table1_runs.csv, bench_*.csv -> table1.csv, table1.md
    tables.py table2 OUTDIR [FILE.csv ...]
                                table2_runs.csv (or the files named) -> table2.csv, table2.md
    tables.py headline OUTDIR   table1.csv, table2.csv -> headline.md
    tables.py concurrency OUTDIR  concurrency_runs.csv -> concurrency.csv, capacity.csv, concurrency.md
    tables.py multigpu OUTDIR   multigpu_runs.csv -> multigpu.csv, multigpu.md

concurrency and multigpu read the CSVs of many encodes at once (columns in
results/README.md), for run.sh's throughput section to come.
What every number covers: results/README.md."""
import csv
import glob
import math
import os
import re
import statistics
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bdrate import bdrate  # noqa: E402

RES = ['QCIF', 'CIF', '720p', '1080p', '2160c', '2160p']
PIXELS = {'QCIF': 176 * 144, 'CIF': 352 * 288, '720p': 1280 * 720, '1080p': 1920 * 1080, '2160c': 1920 * 1080,
          '2160p': 3840 * 2160}
SIZE = {'QCIF': '176x144', 'CIF': '352x288', '720p': '1280x720', '1080p': '1920x1080', '2160c': '1920x1080',
        '2160p': '3840x2160'}
META = ['gpu', 'driver', 'cpu', 'commit']
UNCUT = 200


def num(v):
    try:
        x = float(v)
        return x if math.isfinite(x) else None
    except (TypeError, ValueError):
        return None


def div(a, b):
    return a / b if a is not None and b else None


def mul(a, b):
    return a * b if a is not None and b is not None else None


def fmt(x, unit=''):
    if x is None:
        return '-'
    s = '%.3g' % x          # 3 significant digits, never an exponent
    return ('%.0f' % x if 'e' in s else s) + unit


def ratio(x):
    return '-' if x is None else '%.2fx' % x


def pct(x):
    return '-' if x is None else '%+.2f%%' % x


def read_csv(path):
    with open(path) as f:
        return list(csv.DictReader(line for line in f if not line.startswith('#')))


def write_csv(path, rows, fields):
    with open(path, 'w', newline='') as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction='ignore')
        w.writeheader()
        for r in rows:
            w.writerow({k: ('' if r.get(k) is None else ('%.6g' % r[k] if isinstance(r[k], float) else r[k])) for k in fields})


def meta_of(rows):
    """The machine and commit columns: the value when all rows agree, else all values joined."""
    out = {}
    for k in META:
        vals = sorted({r.get(k, '') for r in rows if r.get(k)})
        out[k] = ' / '.join(vals)
    return out


# ---------------------------------------------------------------- start-up

ST_FIELDS = ['res', 'frames', 'threads', 'config', 'runs', 'wall_s', 'wall_min', 'wall_max', 'added_s', 'cpu_s',
             'missing'] + META + ['commands']
ST_NAMES = {'stock': 'stock x264', 'gpu': '--gpu-me', 'gpu_r32': '--gpu-me --gpu-me-range 32 (the GPU forced on)'}


def startup(outdir):
    """Per clip and configuration: the median wall clock of the repeats, and
    what it adds to stock's median."""
    runs = read_csv(os.path.join(outdir, 'startup_runs.csv'))
    cells = defaultdict(lambda: defaultdict(list))
    for r in runs:
        cells[(r['res'], r['frames'], r['threads'])][r['config']].append(r)
    rows = []
    for key in sorted(cells, key=lambda k: (RES.index(k[0]) if k[0] in RES else 9, int(k[1]))):
        ok = {c: [r for r in rs if r['rc'] == '0' and num(r['wall_s'])] for c, rs in cells[key].items()}
        st = median([num(r['wall_s']) for r in ok.get('stock', [])])
        for c in sorted(cells[key], key=lambda c: list(ST_NAMES).index(c) if c in ST_NAMES else 9):
            w = [num(r['wall_s']) for r in ok[c]]
            x = {'res': key[0], 'frames': key[1], 'threads': key[2], 'config': c, 'runs': len(w),
                 'wall_s': median(w), 'wall_min': min(w, default=None), 'wall_max': max(w, default=None),
                 'cpu_s': median([num(r['cpu_s']) for r in ok[c] if num(r.get('cpu_s'))]),
                 'missing': ' '.join('%s:%s' % (r['repeat'], r['rc']) for r in cells[key][c] if r['rc'] != '0')}
            x['added_s'] = x['wall_s'] - st if x['wall_s'] is not None and st is not None else None
            x.update(meta_of(cells[key][c]))
            x['commands'] = ' | '.join(sorted({r['command'] for r in ok[c]}))
            rows.append(x)
    write_csv(os.path.join(outdir, 'startup.csv'), rows, ST_FIELDS)
    out = ['## Start-up: what --gpu-me adds to a short encode\n',
           'Preset medium; the configurations of a clip ran one after another in each repeat; wall clock: '
           'seconds per encode from outside (process start, CUDA start-up and exit included), median (min-max) '
           'of the repeats; added: the median minus stock\'s. Plain `--gpu-me` leaves frames under 1.5 Mpixels '
           'and encodes under 400 Mpixels to x264 (the GPU is not opened); `--gpu-me-range 32` forces it on.\n',
           '| clip | frames | threads | configuration | runs | wall clock, s | added to stock, s | CPU s |',
           '|---|---|---|---|---|---|---|---|']
    for x in rows:
        out.append('| %s | %s | %s | %s | %d | %s | %s | %s |' % (
            x['res'], x['frames'], x['threads'], ST_NAMES.get(x['config'], x['config']), x['runs'],
            '-' if x['wall_s'] is None else '%.3f (%.3f-%.3f)' % (x['wall_s'], x['wall_min'], x['wall_max']),
            '-' if x['added_s'] is None else '%+.3f' % x['added_s'], fmt(x['cpu_s'])))
    miss = [x for x in rows if x['missing']]
    if miss:
        out.append('\n- Not done (exit status, or skipped over the time budget): ' + '; '.join(
            '%s %s: %s' % (x['res'], x['config'], x['missing']) for x in miss) + '.')
    if rows:
        out.append('\n- Machine: GPU %s (driver %s), CPU %s; commit %s. Exact commands: startup.csv.' % tuple(
            rows[0][k] or '-' for k in META))
    with open(os.path.join(outdir, 'startup.md'), 'w') as f:
        f.write('\n'.join(out) + '\n')
    return rows


# ---------------------------------------------------------------- Table 1

def bench_times(outdir):
    """(size, range) -> kernel, with-transfers and paper's kernels ms per pair,
    from bench_me CSVs: the library's default variant (marked '*' by bench_me;
    older CSVs: the variant whose 'total+transfers' row is there)."""
    out, heads = {}, []
    for path in sorted(glob.glob(os.path.join(outdir, 'bench_*.csv'))):
        with open(path) as f:
            heads += [line[1:].strip() for line in f if line.startswith('#')]
        rows = read_csv(path)
        by = defaultdict(dict)
        for r in rows:
            by[(r['size'], int(r['range']))][(r['variant'], r['kernel'])] = num(r['ms_median'])
        for key, t in by.items():
            star = [v for v, k in t if v.endswith('*') and k == 'total']
            xfer = [v for v, k in t if k == 'total+transfers']
            var = (star or xfer or [None])[0]
            out[key] = {'bench_variant': var, 'bench_kernel_ms_pair': t.get((var, 'total')),
                        'bench_xfer_ms_pair': t.get((var, 'total+transfers')),
                        'bench_paper_ms_pair': t.get(('paper', 'total')), 'bench_file': os.path.basename(path)}
    return out, sorted(set(heads))


T1_FIELDS = ['res', 'size', 'pixels', 'range', 'preset', 'frames_1t', 'frames_many', 'many',
             'cpu_esa_1t', 'cpu_hex_1t', 'cpu_esa_many_sum', 'cpu_esa_many_wall', 'cpu_hex_many_sum', 'cpu_hex_many_wall',
             'cpu_esa_1t_subpel', 'cpu_left_gpu_1t',
             'pairs_per_frame_1t', 'pairs_per_frame_many', 'bench_variant', 'bench_kernel_ms_pair', 'bench_xfer_ms_pair',
             'bench_paper_ms_pair', 'gpu_kernel_ms_frame', 'gpu_xfer_ms_frame', 'gpu_paper_ms_frame',
             'enc_search_ms_frame_1t', 'enc_search_ms_frame_many', 'enc_upload_ms_frame_1t',
             'wait_ms_frame_1t', 'wait_ms_frame_many', 'wait_pct_1t', 'wait_pct_many',
             'sp_esa1_kernel', 'sp_esa1_xfer', 'sp_esamany_kernel', 'sp_hex1_kernel', 'sp_esa1_enc', 'sp_esa1_paper',
             'sp_esa1_wait', 'sp_esamany_wait', 'missing'] + META + ['commands']


def table1(outdir):
    runs = read_csv(os.path.join(outdir, 'table1_runs.csv'))
    bench, bench_heads = bench_times(outdir)
    ok = {}
    for r in runs:
        if r['rc'] == '0':
            ok[(r['res'], int(r['range']), r['method'], int(r['threads']))] = r
    manys = sorted({int(r['threads']) for r in runs if r['threads'] != '1'})
    many = manys[-1] if manys else 16
    rows = []
    for res in RES:
        for rng in sorted({int(r['range']) for r in runs}):
            got = [r for r in runs if r['res'] == res and int(r['range']) == rng]
            if not got:
                continue

            def g(method, threads, field):
                r = ok.get((res, rng, method, threads))
                return num(r.get(field)) if r else None

            def frames(threads):
                return sorted({r['frames'] for r in got if int(r['threads']) == threads}) or ['-']
            x = {'res': res, 'size': SIZE[res], 'pixels': PIXELS[res], 'range': rng, 'preset': got[0]['preset'],
                 'frames_1t': '/'.join(frames(1)), 'frames_many': '/'.join(frames(many)), 'many': many}
            x['cpu_esa_1t'] = g('esa', 1, 'me_int_ms_frame')
            x['cpu_hex_1t'] = g('hex', 1, 'me_int_ms_frame')
            x['cpu_esa_many_sum'] = g('esa', many, 'me_int_ms_frame')
            x['cpu_esa_many_wall'] = div(x['cpu_esa_many_sum'], many)
            x['cpu_hex_many_sum'] = g('hex', many, 'me_int_ms_frame')
            x['cpu_hex_many_wall'] = div(x['cpu_hex_many_sum'], many)
            x['cpu_esa_1t_subpel'] = g('esa', 1, 'me_sub_ms_frame')
            x['cpu_left_gpu_1t'] = g('gpu', 1, 'me_int_ms_frame')
            x['pairs_per_frame_1t'] = div(g('gpu', 1, 'gpu_pairs'), g('gpu', 1, 'gpu_frames'))
            x['pairs_per_frame_many'] = div(g('gpu', many, 'gpu_pairs'), g('gpu', many, 'gpu_frames'))
            x.update(bench.get((res, rng), {}))
            k, ppf1 = x.get('bench_kernel_ms_pair'), x['pairs_per_frame_1t']
            x['gpu_kernel_ms_frame'] = mul(k, ppf1)
            x['gpu_xfer_ms_frame'] = mul(x.get('bench_xfer_ms_pair'), ppf1)
            x['gpu_paper_ms_frame'] = mul(x.get('bench_paper_ms_pair'), ppf1)
            x['enc_search_ms_frame_1t'] = g('gpu', 1, 'gpu_search_ms_frame')
            x['enc_search_ms_frame_many'] = g('gpu', many, 'gpu_search_ms_frame')
            x['enc_upload_ms_frame_1t'] = g('gpu', 1, 'gpu_upload_ms_frame')
            x['wait_ms_frame_1t'] = div(g('gpu', 1, 'gpu_wait_ms'), g('gpu', 1, 'gpu_frames'))
            x['wait_ms_frame_many'] = div(g('gpu', many, 'gpu_wait_ms'), g('gpu', many, 'gpu_frames'))
            x['wait_pct_1t'] = g('gpu', 1, 'gpu_wait_pct')
            x['wait_pct_many'] = g('gpu', many, 'gpu_wait_pct')
            x['sp_esa1_kernel'] = div(x['cpu_esa_1t'], x['gpu_kernel_ms_frame'])
            x['sp_esa1_xfer'] = div(x['cpu_esa_1t'], x['gpu_xfer_ms_frame'])
            x['sp_esamany_kernel'] = div(x['cpu_esa_many_wall'], mul(k, x['pairs_per_frame_many']))
            x['sp_hex1_kernel'] = div(x['cpu_hex_1t'], x['gpu_kernel_ms_frame'])
            x['sp_esa1_enc'] = div(x['cpu_esa_1t'], x['enc_search_ms_frame_1t'])
            x['sp_esa1_paper'] = div(x['cpu_esa_1t'], x['gpu_paper_ms_frame'])
            x['sp_esa1_wait'] = div(x['cpu_esa_1t'], x['wait_ms_frame_1t'])
            x['sp_esamany_wait'] = div(x['cpu_esa_many_sum'], x['wait_ms_frame_many'])
            x['missing'] = ' '.join('%s/%st:%s' % (r['method'], r['threads'], r['rc']) for r in got if r['rc'] != '0')
            x.update(meta_of(got))
            x['commands'] = ' | '.join(r['command'] for r in got if r['rc'] == '0') + (
                ' | bench_me -r %d (%s)' % (rng, x['bench_file']) if x.get('bench_file') else '')
            rows.append(x)
    write_csv(os.path.join(outdir, 'table1.csv'), rows, T1_FIELDS)
    with open(os.path.join(outdir, 'table1.md'), 'w') as f:
        f.write(table1_md(rows, many, bench_heads))
    return rows


def growth(rows, rng, key):
    """'grows'/'does not grow' with resolution, and the values in order."""
    v = [(r['res'], r[key]) for r in rows if r['range'] == rng and r.get(key) is not None]
    if len(v) < 2:
        return None, v
    return all(b[1] >= a[1] for a, b in zip(v, v[1:])), v


def table1_md(rows, many, bench_heads):
    """Table 1 in Markdown; the columns of the many-thread runs only where they ran."""
    m = many
    has_many = any(r['frames_many'] != '-' for r in rows)
    x = lambda v: fmt(v, 'x')  # noqa: E731
    out = ['## Table 1: motion-estimation time per frame, x264 on the CPU against the GPU\n',
           'Preset %s, QP 27, one run per cell; ms per frame of the clip (I frame included). '
           'CPU: x264\'s integer motion search inside the encoder (`--gpu-me-stats`: time in '
           'x264_me_search_ref for analyse\'s searches, predictors and the method; sub-pel '
           'refinement and the lookahead\'s own search excluded).%s\n' % (
               rows[0]['preset'] if rows else 'medium',
               ' %d-thread columns: CPU time **summed over the %d threads**, and that sum / %d (the wall-clock '
               'equivalent if the threads shared the work perfectly).' % (m, m, m) if has_many else '')]

    def table(cols):
        cols = [c for c in cols if c[2] or has_many]
        out.append('| ' + ' | '.join(c[0] for c in cols) + ' |')
        out.append('|' + '---|' * len(cols))
        for r in rows:
            out.append('| ' + ' | '.join(c[1](r) for c in cols) + ' |')
    out.append('\n### CPU (x264\'s own search), ms/frame\n')
    table([('resolution', lambda r: r['res'], 1), ('range', lambda r: '+-%d' % r['range'], 1),
           ('frames (1 / %d thr)' % m if has_many else 'frames', lambda r: '%s / %s' % (r['frames_1t'], r['frames_many'])
            if has_many else r['frames_1t'], 1),
           ('ESA 1 thr', lambda r: fmt(r['cpu_esa_1t']), 1), ('hex 1 thr', lambda r: fmt(r['cpu_hex_1t']), 1),
           ('ESA %d thr: sum (/%d)' % (m, m), lambda r: '%s (%s)' % (fmt(r['cpu_esa_many_sum']), fmt(r['cpu_esa_many_wall'])), 0),
           ('hex %d thr: sum (/%d)' % (m, m), lambda r: '%s (%s)' % (fmt(r['cpu_hex_many_sum']), fmt(r['cpu_hex_many_wall'])), 0),
           ('ESA 1 thr sub-pel', lambda r: fmt(r['cpu_esa_1t_subpel']), 1)])
    out.append('\n### GPU, same frames\n')
    out.append('Kernel and with-transfers: `bench_me -r RANGE` (one reference, 41 partitions with MV cost, the '
               'default kernel variant, median of 25 runs; with transfers: the frame uploaded and padded, '
               'searched, the results downloaded) ms per (frame, reference) pair, times the pairs the '
               'encoder searched per frame (from the `--gpu-me` run, 1 thread). In-encoder: CUDA-event '
               'time of the searches in that run (partitions of the preset). Waited: time analyse '
               'waited for GPU results per frame%s.\n' % (' (%d threads: summed over threads)' % m if has_many else ''))
    table([('resolution', lambda r: r['res'], 1), ('range', lambda r: '+-%d' % r['range'], 1),
           ('pairs/frame', lambda r: fmt(r['pairs_per_frame_1t']), 1),
           ('kernel ms/pair', lambda r: fmt(r.get('bench_kernel_ms_pair')), 1),
           ('with xfers ms/pair', lambda r: fmt(r.get('bench_xfer_ms_pair')), 1),
           ('kernel ms/frame', lambda r: fmt(r['gpu_kernel_ms_frame']), 1),
           ('with xfers ms/frame', lambda r: fmt(r['gpu_xfer_ms_frame']), 1),
           ('in-encoder search ms/frame', lambda r: fmt(r['enc_search_ms_frame_1t']), 1),
           ('waited 1 thr', lambda r: fmt(r['wait_ms_frame_1t']), 1),
           ('waited %d thr (sum)' % m, lambda r: fmt(r['wait_ms_frame_many']), 0),
           ('x264 integer ME left, 1 thr', lambda r: fmt(r['cpu_left_gpu_1t']), 1),
           ('paper\'s kernels ms/frame', lambda r: fmt(r['gpu_paper_ms_frame']), 1)])
    out.append('\n### Speed-ups (each: the CPU time / the GPU time named)\n')
    table([('resolution', lambda r: r['res'], 1), ('range', lambda r: '+-%d' % r['range'], 1),
           ('ESA 1 thr / kernel', lambda r: x(r['sp_esa1_kernel']), 1),
           ('ESA 1 thr / with xfers', lambda r: x(r['sp_esa1_xfer']), 1),
           ('ESA %d thr sum/%d / kernel' % (m, m), lambda r: x(r['sp_esamany_kernel']), 0),
           ('hex 1 thr / kernel', lambda r: x(r['sp_hex1_kernel']), 1),
           ('ESA 1 thr / in-encoder search', lambda r: x(r['sp_esa1_enc']), 1),
           ('ESA 1 thr / paper\'s kernels', lambda r: x(r['sp_esa1_paper']), 1),
           ('ESA 1 thr / waited 1 thr', lambda r: x(r['sp_esa1_wait']), 1),
           ('ESA %d thr sum / waited %d thr sum' % (m, m), lambda r: x(r['sp_esamany_wait']), 0)])
    out.append('')
    for rng in sorted({r['range'] for r in rows}):
        for key, what in (('sp_esa1_kernel', 'ESA 1 thread / GPU kernel'), ('sp_esa1_xfer', 'ESA 1 thread / GPU with transfers'),
                          ('sp_esa1_enc', 'ESA 1 thread / in-encoder GPU search')):
            g, v = growth(rows, rng, key)
            if g is None:
                continue
            out.append('- +-%d, %s: %s with resolution (%s).' % (
                rng, what, 'grows' if g else 'does **not** grow monotonically',
                ', '.join('%s %s' % (res, fmt(s, 'x')) for res, s in v)))
    miss = [r for r in rows if r['missing']]
    if miss:
        out.append('- Not measured (failed or skipped over the time budget): ' +
                   '; '.join('%s +-%d: %s' % (r['res'], r['range'], r['missing']) for r in miss) + '.')
    if bench_heads:
        out.append('- Kernel benchmark: ' + '; '.join(bench_heads) + '.')
    if rows:
        out.append('- Machine: GPU %s (driver %s), CPU %s; commit %s. Exact commands: table1.csv, column commands.' % tuple(
            rows[0][k] or '-' for k in META))
    return '\n'.join(out) + '\n'


# ---------------------------------------------------------------- Table 2

T2_FIELDS = ['clip', 'res', 'preset', 'threads', 'config', 'frames_rd', 'frames_fps', 'qps', 'repeats', 'fps', 'fps_min', 'fps_max',
             'wall_s', 'fps_vs_stock', 'fps_vs_mvt64', 'fps_vs_mvt64_paired', 'fps_vs_mvt64_paired_min',
             'fps_vs_mvt64_paired_max', 'wall_vs_stock_paired', 'wall_vs_stock_paired_min',
             'wall_vs_stock_paired_max', 'bd_psnr_vs_stock', 'bd_psnr_vs_mvt64', 'bd_ssim_vs_mvt64',
             'kbps_speed_qp', 'psnr_speed_qp', 'gpu_wait_pct', 'me_int_ms_frame', 'cores_busy', 'deterministic', 'anchor_mvt64',
             'missing'] + META + ['commands']
NAMES = {'stock': 'stock', 'stock_mvt64': 'stock --mvrange-thread 64', 'auto': '--mvrange-thread auto',
         'gpu': '--gpu-me', 'gpu_r64': '--gpu-me --gpu-me-range 64', 'esa64': '--me esa --merange 64'}
ORDER = ['stock', 'stock_mvt64', 'auto', 'gpu', 'gpu_r64', 'esa64']
PRESETS = ['ultrafast', 'superfast', 'veryfast', 'faster', 'fast', 'medium', 'slow', 'slower', 'veryslow', 'placebo']


def median(v):
    return statistics.median(v) if v else None


def rd_rows(rs):
    """qp -> the run of the RD curve: a quality run, else the first speed repeat."""
    out = {}
    for r in sorted(rs, key=lambda r: (r.get('kind') != 'quality', int(r.get('repeat') or 0))):
        if num(r.get('kbps')):
            out.setdefault(r['qp'], r)
    return out


def rd_points(rs, metric):
    """qp -> (kbps, metric) of the RD curve."""
    return {q: (num(r['kbps']), num(r[metric])) for q, r in rd_rows(rs).items() if num(r.get(metric)) is not None}


def bd(anchor, test, metric):
    a, t = rd_points(anchor, metric), rd_points(test, metric)
    if len(a) < 4 or len(t) < 4:
        return None
    return num(bdrate(list(a.values()), list(t.values())))


def sort_key(key):
    clip, res, preset, threads = key
    return (RES.index(res) if res in RES else 9, clip, -int(threads),
            PRESETS.index(preset) if preset in PRESETS else 99)


def t2_runs(outdir, files=()):
    """The encodes of Table 2: OUTDIR/table2_runs.csv, or the CSVs named (older
    ones may lack the res, rc, kind, repeat columns: every run then counts for
    speed too)."""
    runs = []
    for p in files or [os.path.join(outdir, 'table2_runs.csv')]:
        for r in read_csv(p):
            r['clip'] = r['clip'].replace('.y4m', '')
            r['res'] = r.get('res') or r['clip'].split('_')[-1]
            r['rc'] = r.get('rc') or ('0' if r.get('kbps') else 'failed')
            r['kind'] = r.get('kind') or 'quality+speed'
            r['repeat'] = r.get('repeat') or '1'
            runs.append(r)
    return runs


def table2(outdir, files=()):
    runs = t2_runs(outdir, files)
    cells = defaultdict(lambda: defaultdict(list))
    for r in runs:
        cells[(r['clip'], r['res'], r['preset'], r['threads'])][r['config']].append(r)
    rows = []
    for key in sorted(cells, key=sort_key):
        cfgs = cells[key]
        okc = {c: [r for r in rs if r['rc'] == '0'] for c, rs in cfgs.items()}
        speed = {c: [r for r in rs if 'speed' in r['kind'] and num(r.get('fps'))] for c, rs in okc.items()}
        fps = {c: median([num(r['fps']) for r in v]) for c, v in speed.items()}
        stock, anchor_name = okc.get('stock'), 'stock_mvt64'
        mvt = okc.get('stock_mvt64')
        if not mvt and key[3] == '1':
            mvt, anchor_name = stock, 'stock (1 thread: --mvrange-thread has no effect)'
        fstock = fps.get('stock')
        # wall clock against stock per repeat (the configurations of a repeat
        # ran one after another: slow drifts of the machine cancel), stock's
        # wall over the configuration's: >1 is faster
        swall = {(r['qp'], r['repeat']): num(r['wall_s']) for r in speed.get('stock', []) if num(r.get('wall_s'))}
        fmvt = fps.get('stock_mvt64') or (fstock if key[3] == '1' else None)
        # fps against the anchor's in the same repeat (its run and the
        # configuration's a few encodes apart: the machine's drifts over a
        # table, up to 20% between two runs of the same encode on the H200, cancel)
        smvt = {(r['qp'], r['repeat']): num(r['fps'])
                for r in speed.get('stock_mvt64') or (speed.get('stock', []) if key[3] == '1' else [])}
        for c in sorted(cfgs, key=lambda c: ORDER.index(c) if c in ORDER else 99):
            rs, sp = okc[c], speed[c]
            x = {'clip': key[0], 'res': key[1], 'preset': key[2], 'threads': key[3], 'config': c,
                 'frames_rd': '/'.join(sorted({r.get('frames') or '?' for r in rd_rows(rs).values()})),
                 'frames_fps': '/'.join(sorted({r.get('frames') or '?' for r in sp})),
                 'qps': ' '.join(sorted({r['qp'] for r in rs}, key=int)), 'repeats': len(sp),
                 'fps': fps[c], 'fps_min': min((num(r['fps']) for r in sp), default=None),
                 'fps_max': max((num(r['fps']) for r in sp), default=None),
                 'wall_s': median([num(r['wall_s']) for r in sp if num(r.get('wall_s'))]),
                 'fps_vs_stock': div(fps[c], fstock), 'fps_vs_mvt64': div(fps[c], fmvt),
                 'bd_psnr_vs_stock': bd(stock, rs, 'psnr_y') if stock else None,
                 'bd_psnr_vs_mvt64': bd(mvt, rs, 'psnr_y') if mvt else None,
                 'bd_ssim_vs_mvt64': bd(mvt, rs, 'ssim_db') if mvt else None,
                 'anchor_mvt64': anchor_name if mvt else ''}
            paired = [div(swall[(r['qp'], r['repeat'])], num(r['wall_s'])) for r in sp
                      if (r['qp'], r['repeat']) in swall and num(r.get('wall_s'))]
            pf = [div(num(r['fps']), smvt[(r['qp'], r['repeat'])]) for r in sp if smvt.get((r['qp'], r['repeat']))]
            x['fps_vs_mvt64_paired'] = median(pf) if pf else None
            x['fps_vs_mvt64_paired_min'] = min(pf, default=None)
            x['fps_vs_mvt64_paired_max'] = max(pf, default=None)
            x['wall_vs_stock_paired'] = median(paired) if paired else None
            x['wall_vs_stock_paired_min'] = min(paired, default=None)
            x['wall_vs_stock_paired_max'] = max(paired, default=None)
            if sp:
                x['kbps_speed_qp'], x['psnr_speed_qp'] = num(sp[0]['kbps']), num(sp[0]['psnr_y'])
                same = all(len({(r['kbps'], r['psnr_y']) for r in sp if r['qp'] == q}) == 1 for q in {r['qp'] for r in sp})
                x['deterministic'] = 'yes' if same else 'NO: repeats differ'
            # the speed runs' (the quality runs share the machine, several
            # encodes at a time, and wait for each other's GPU work)
            waits = [num(r.get('gpu_wait_pct')) for r in sp if num(r.get('gpu_wait_pct')) is not None]
            x['gpu_wait_pct'] = median(waits) if waits else None
            x['me_int_ms_frame'] = median([num(r['me_int_ms_frame']) for r in sp if num(r.get('me_int_ms_frame'))])
            # CPU seconds over wall seconds of the speed runs (runs before
            # the cpu_s column have none): below the thread count, threads
            # waited (on each other, the lookahead, the GPU, or start-up)
            busy = [div(num(r.get('cpu_s')), num(r['wall_s'])) for r in sp if num(r.get('cpu_s')) and num(r.get('wall_s'))]
            x['cores_busy'] = median(busy) if busy else None
            x['missing'] = ' '.join(sorted('qp%s/%s%s:%s' % (r['qp'], r['kind'], r.get('repeat', ''), r['rc'])
                                           for r in cfgs[c] if r['rc'] != '0'))
            x.update(meta_of(cfgs[c]))
            x['commands'] = ' | '.join(sorted({r['command'] for r in rs if r.get('command')}))
            rows.append(x)
    write_csv(os.path.join(outdir, 'table2.csv'), rows, T2_FIELDS)
    with open(os.path.join(outdir, 'table2.md'), 'w') as f:
        f.write(table2_md(rows, runs))
    return rows


def table2_md(rows, runs):
    out = ['## Table 2: whole encoder, fps and BD-rate (PSNR-Y)\n',
           'Per clip, preset and thread count; BD-rate over QPs %s (negative: fewer bits at equal PSNR-Y); '
           'fps: x264\'s own figure at the speed QP, median of the repeats (min-max), each repeat running '
           'every configuration once; fps vs mvt64, paired: per repeat the configuration\'s fps over the '
           'anchor\'s in the same repeat, median (min-max); wall: seconds per encode, process start (and CUDA start-up) included; '
           'cores busy: CPU seconds (user + system) over wall seconds of the speed runs, median. '
           'Anchors: stock x264, and stock `--mvrange-thread 64` (the same vertical MV range between frame '
           'threads as the GPU search; at 1 thread the option does nothing and the anchor is stock).\n'
           % (rows[0]['qps'] if rows else '')]
    for threads in sorted({r['threads'] for r in rows}, key=lambda t: -int(t)):
        out.append('\n### %s thread%s\n' % (threads, '' if threads == '1' else 's'))
        pinned = sorted({r['command'].split()[2] for r in runs
                         if r.get('threads') == threads and r.get('kind') == 'speed'
                         and r.get('command', '').startswith('taskset -c ')})
        if pinned:
            out.append('Speed runs several at a time, each pinned to its own CPU (`taskset -c`, CPUs %s): '
                       'the configurations of a row ran side by side, under the same load.\n'
                       % ', '.join(sorted(pinned, key=int)))
        out.append('| clip | preset | config | frames RD / fps | fps (min-max) | wall s | fps vs stock | fps vs mvt64 | fps vs mvt64, paired (min-max) | wall vs stock, paired (min-max) | BD vs stock | BD vs mvt64 | BD-SSIM vs mvt64 | GPU wait (speed runs) | x264 int. ME ms/frame | cores busy |')
        out.append('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|')
        for r in rows:
            if r['threads'] != threads:
                continue
            rng = '' if r['fps_min'] is None else ' (%s-%s)' % (fmt(r['fps_min']), fmt(r['fps_max']))
            pw = ratio(r['wall_vs_stock_paired'])
            if r['wall_vs_stock_paired'] is not None and r['config'] != 'stock':
                pw = '%.3fx (%.3f-%.3f)' % (r['wall_vs_stock_paired'], r['wall_vs_stock_paired_min'],
                                            r['wall_vs_stock_paired_max'])
            pf = ratio(r['fps_vs_mvt64_paired'])
            if r['fps_vs_mvt64_paired'] is not None and r['config'] != 'stock_mvt64':
                pf = '%.3fx (%.3f-%.3f)' % (r['fps_vs_mvt64_paired'], r['fps_vs_mvt64_paired_min'],
                                            r['fps_vs_mvt64_paired_max'])
            out.append('| %s | %s | %s | %s | %s%s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |' % (
                r['clip'], r['preset'], cname(r['config']), '%s / %s' % (r['frames_rd'], r['frames_fps']),
                fmt(r['fps']), rng,
                fmt(r['wall_s']), ratio(r['fps_vs_stock']), ratio(r['fps_vs_mvt64']), pf, pw, pct(r['bd_psnr_vs_stock']),
                pct(r['bd_psnr_vs_mvt64']), pct(r['bd_ssim_vs_mvt64']),
                '-' if r['gpu_wait_pct'] is None else '%.2f%%' % r['gpu_wait_pct'], fmt(r['me_int_ms_frame']),
                '-' if r['cores_busy'] is None else '%.1f' % r['cores_busy']))
    out.append('\n### Summary: against stock `--mvrange-thread 64` (1 thread: stock), BD-rate at fps ratio '
               '(of the medians; paired: the median of the repeats\' ratios)\n')
    keys = sorted({(r['clip'], r['res'], r['preset']) for r in rows},
                  key=lambda k: sort_key((k[0], k[1], k[2], '0')))
    ths = sorted({r['threads'] for r in rows}, key=lambda t: -int(t))
    # every configuration but the anchors, in ORDER, then the others (gpu_rN, CONFIG@BINARY) as named
    present = {r['config'] for r in rows} - {'stock', 'stock_mvt64'}
    cfg = sorted(present, key=lambda c: (ORDER.index(c) if c in ORDER else len(ORDER), c))
    out.append('| clip | preset | ' + ' | '.join('%s, %s thr' % (cname(c), t) for t in ths for c in cfg) + ' |')
    out.append('|---|---|' + '---|' * (len(ths) * len(cfg)))
    for k in keys:
        cells = []
        for t in ths:
            for c in cfg:
                r = [r for r in rows if (r['clip'], r['res'], r['preset'], r['threads'], r['config']) == k + (t, c)]
                paired = ' (paired %s)' % ratio(r[0]['fps_vs_mvt64_paired']) if r and r[0]['fps_vs_mvt64_paired'] else ''
                cells.append('%s at %s%s' % (pct(r[0]['bd_psnr_vs_mvt64']), ratio(r[0]['fps_vs_mvt64']), paired) if r else '')
        out.append('| %s | %s | %s |' % (k[0], k[2], ' | '.join(cells)))
    # over several clips: per preset the median of the clips' BD-rates and
    # paired fps ratios (a rule that helps one clip and hurts another shows
    # in the rows above, not here)
    for preset in sorted({k[2] for k in keys}, key=lambda p: sort_key(('', '', p, '0'))):
        clips = {k[0] for k in keys if k[2] == preset}
        if len(clips) < 2:
            continue
        cells = []
        for t in ths:
            for c in cfg:
                rs = [r for r in rows if r['preset'] == preset and r['threads'] == t and r['config'] == c]
                bdv = [r['bd_psnr_vs_mvt64'] for r in rs if r['bd_psnr_vs_mvt64'] is not None]
                fv = [r['fps_vs_mvt64_paired'] or r['fps_vs_mvt64'] for r in rs
                      if (r['fps_vs_mvt64_paired'] or r['fps_vs_mvt64']) is not None]
                cells.append('%s at %s' % (pct(median(bdv)), ratio(median(fv))))
        out.append('| **median of %d clips** | %s | %s |' % (len(clips), preset, ' | '.join(cells)))
    notes = ['']
    most = max((r['repeats'] for r in rows), default=0)
    short = [r for r in rows if r['repeats'] < most]
    if short:
        notes.append('- Fewer speed repeats than the other rows\' %d (time budget): ' % most + ', '.join(
            '%s %s %st %s (%d)' % (r['clip'], r['preset'], r['threads'], r['config'], r['repeats']) for r in short) + '.')
    miss = [r for r in rows if r['missing']]
    if miss:
        notes.append('- Encodes not done (exit status, or skipped over the time budget): ' + '; '.join(
            '%s %s %st %s: %s' % (r['clip'], r['preset'], r['threads'], r['config'], r['missing']) for r in miss) + '.')
    nondet = [r for r in rows if str(r.get('deterministic', '')).startswith('NO')]
    if nondet:
        notes.append('- Repeats gave different streams: ' + ', '.join(
            '%s %s %st %s' % (r['clip'], r['preset'], r['threads'], r['config']) for r in nondet) + '.')
    if rows:
        notes.append('- Machine: GPU %s (driver %s), CPU %s; commit %s. Exact commands: table2.csv, column commands.' % tuple(
            rows[0][k] or '-' for k in META))
    return '\n'.join(out + notes) + '\n'


# ---------------------------------------------------------------- headline

def headline(outdir):
    out = ['# Headline numbers (results/run.sh, %s)\n' % os.path.basename(os.path.abspath(outdir))]
    p1, p2 = os.path.join(outdir, 'table1.csv'), os.path.join(outdir, 'table2.csv')
    if os.path.exists(p1):
        rows = read_csv(p1)
        for r in rows:
            for k in T1_FIELDS:
                if k not in ('res', 'size', 'preset', 'frames_1t', 'frames_many', 'bench_variant', 'missing', 'commands') + tuple(META):
                    r[k] = num(r.get(k))
        m = int(rows[0]['many']) if rows else 16
        out.append('Table 1, 1080p (%s, ms per frame; x264\'s integer motion search inside the encoder against '
                   'the GPU search of the same frames):\n' % (rows[0]['preset'] if rows else 'medium'))
        for r in rows:
            if r['res'] != '1080p':
                continue
            out.append('- +-%d: x264 ESA %s ms/frame on 1 thread (hex %s); %d threads: %s ms/frame CPU time summed '
                       'over threads (%s wall-equivalent). GPU: %s pairs/frame, kernel %s ms/frame (%s ms/pair), '
                       '%s with transfers; analyse waited %s ms/frame. Speed-up ESA 1 thread / kernel %s, / with '
                       'transfers %s, ESA %d threads (sum/%d) / kernel %s; the paper\'s unfused kernels %s.' % (
                           r['range'], fmt(r['cpu_esa_1t']), fmt(r['cpu_hex_1t']), m, fmt(r['cpu_esa_many_sum']),
                           fmt(r['cpu_esa_many_wall']), fmt(r['pairs_per_frame_1t']), fmt(r['gpu_kernel_ms_frame']),
                           fmt(r['bench_kernel_ms_pair']), fmt(r['gpu_xfer_ms_frame']), fmt(r['wait_ms_frame_1t']),
                           fmt(r['sp_esa1_kernel'], 'x'), fmt(r['sp_esa1_xfer'], 'x'), m, m,
                           fmt(r['sp_esamany_kernel'], 'x'), fmt(r['sp_esa1_paper'], 'x')))
        for rng in sorted({r['range'] for r in rows}):
            g, v = growth(rows, rng, 'sp_esa1_kernel')
            if g is not None:
                out.append('- Speed-up (ESA 1 thread / kernel) at +-%d %s with resolution: %s.' % (
                    rng, 'grows' if g else 'does not grow monotonically', ', '.join('%s %s' % (a, fmt(b, 'x')) for a, b in v)))
        if rows:
            out.append('- Machine: %s, driver %s; CPU %s; commit %s.' % tuple(rows[0][k] or '-' for k in META))
    if os.path.exists(p2):
        rows = read_csv(p2)
        sel = [r for r in rows if r['res'] == '1080p' and r['config'] not in ('stock', 'stock_mvt64')]
        if sel:
            out.append('\nTable 2, 1080p, `--gpu-me` against stock `--mvrange-thread 64` (BD-rate PSNR-Y, fps ratio):\n')
            for r in sel:
                out.append('- %s, %s thread%s, %s: %s at %s fps (%s fps, %s/%s frames for BD-rate/fps, %s repeats).' % (
                    r['preset'], r['threads'], '' if r['threads'] == '1' else 's', NAMES.get(r['config'], r['config']),
                    pct(num(r['bd_psnr_vs_mvt64'])), ratio(num(r['fps_vs_mvt64'])), fmt(num(r['fps'])),
                    r['frames_rd'], r['frames_fps'], r['repeats']))
    with open(os.path.join(outdir, 'headline.md'), 'w') as f:
        f.write('\n'.join(out) + '\n')


# ---------------------------------------------------------------- many encodes at once

def cname(c):
    return '--gpu-me-range %s' % c[len('gpu_r'):] if re.fullmatch(r'gpu_r\d+', c) else NAMES.get(c, c)


def conc_rows(path):
    rows = read_csv(path)
    for r in rows:
        for k in ('n', 'threads', 'frames'):
            r[k] = int(r[k]) if (r.get(k) or '').isdigit() else None
        for k in ('wall_s', 'batch_wall_s', 'fps', 'gpu_wait_pct', 'gpu_frames', 'gpu_pairs', 'gpu_search_ms_pair',
                  'gpu_busy_ms_frame', 'gpu_busy_pct'):
            r[k] = num(r.get(k))
        r['variant'] = r['tag'].rsplit('_', 1)[1] if r['kind'] != 'capacity' else ''
    return rows


def mean(v):
    v = [x for x in v if x is not None]
    return sum(v) / len(v) if v else None


def identity(rs, ref):
    """'yes (k/k)' when every stream of rs has the md5 of ref (a serial row,
    or the first of rs), else 'NO (k/n)'; '-' without streams."""
    want = ref['md5'] if ref else (rs[0]['md5'] if rs else '')
    if not want:
        return '-'
    k = sum(r['md5'] == want for r in rs)
    return '%s (%d/%d%s)' % ('yes' if k == len(rs) else 'NO', k, len(rs), ', serial' if ref else '')


def batch_summary(rs, serial):
    """One batch (N encodes started together) in numbers."""
    r0 = rs[0]
    ok = [r for r in rs if r['rc'] == '0']
    bw = r0['batch_wall_s']
    gpu_ms = [mul(r['gpu_busy_ms_frame'], r['gpu_frames']) for r in ok]
    devs = defaultdict(int)
    for r in ok:
        devs[r.get('gpu_device') or '-'] += 1
    return {
        'preset': r0['preset'], 'config': r0['config'], 'variant': r0['variant'], 'n': r0['n'], 'threads': r0['threads'],
        'frames': r0['frames'], 'ok': len(ok), 'batch_wall_s': bw,
        'agg_fps': div(len(ok) * r0['frames'], bw) if ok else None,
        'fps_each': mean(r['fps'] for r in ok),
        'fps_each_min': min((r['fps'] for r in ok if r['fps'] is not None), default=None),
        'gpu_busy_pct_each': mean(r['gpu_busy_pct'] for r in ok),
        'gpu_busy_pct_all': div(100 * sum(gpu_ms) / 1000, bw) if ok and None not in gpu_ms else None,
        'wait_pct': mean(r['gpu_wait_pct'] for r in ok),
        'smi_util': r0.get('smi_util') or '',
        'backend': '/'.join(sorted({r.get('gpu_backend') or 'x264' for r in ok})),
        'devices': ' '.join('%s:%d' % kv for kv in sorted(devs.items())),
        'identical': identity(ok, serial),
        'env': r0.get('env', ''),
        'commands': ' | '.join(sorted({r['command'] for r in rs if r.get('command')})),
    }


def batches(rows, kinds=('batch',)):
    groups = defaultdict(list)
    for r in rows:
        if r['kind'] in kinds and r['rc'] != 'skipped':
            groups[(r['preset'], r['config'], r['n'], r['variant'])].append(r)
    serial = {(r['preset'], r['config'], r['threads']): r for r in rows if r['kind'] == 'serial' and r['rc'] == '0'}
    out = []
    for key, rs in groups.items():
        ref = serial.get((key[0], key[1], rs[0]['threads']))   # none: N=1 (its own) or stock
        out.append(batch_summary(rs, ref))
    return out


CONC_FIELDS = ['preset', 'config', 'variant', 'n', 'threads', 'frames', 'ok', 'batch_wall_s', 'agg_fps', 'stock_agg_fps',
               'vs_stock', 'fps_each', 'fps_each_min', 'gpu_busy_pct_each', 'gpu_busy_pct_all', 'wait_pct', 'smi_util',
               'backend', 'devices', 'identical', 'env'] + META + ['commands']
CAP_FIELDS = ['preset', 'range', 'frames', 'pairs_per_frame', 'kernel_ms_frame', 'busy_ms_frame', 'capacity_kernel_fps',
              'capacity_busy_fps', 'check'] + META + ['commands']


def capacity(rows, summ):
    out = []
    for r in rows:
        if r['kind'] != 'capacity' or r['rc'] != '0' or not r['frames']:
            continue
        rng = int(r['config'][len('gpu_r'):])
        k = div(mul(r['gpu_search_ms_pair'], r['gpu_pairs']), r['frames'])
        b = div(mul(r['gpu_busy_ms_frame'], r['gpu_frames']), r['frames'])
        c = {'preset': r['preset'], 'range': rng, 'frames': r['frames'], 'pairs_per_frame': div(r['gpu_pairs'], r['frames']),
             'kernel_ms_frame': k, 'busy_ms_frame': b, 'capacity_kernel_fps': div(1000, k),
             'capacity_busy_fps': div(1000, b), 'commands': r['command']}
        c.update({m: r.get(m, '') for m in META})
        # the largest batch of the same preset and range, against it
        bs = [s for s in summ if s['preset'] == r['preset'] and s['config'] == 'gpu_r%d' % rng and s['agg_fps']]
        if bs:
            s = max(bs, key=lambda s: s['n'])
            c['check'] = 'N=%d at once: %s fps aggregate = %s of the kernel capacity, %s of the busy capacity' % (
                s['n'], fmt(s['agg_fps']), fmt(100 * div(s['agg_fps'], c['capacity_kernel_fps']) if c['capacity_kernel_fps'] else None, '%'),
                fmt(100 * div(s['agg_fps'], c['capacity_busy_fps']) if c['capacity_busy_fps'] else None, '%'))
        out.append(c)
    return sorted(out, key=lambda c: (c['preset'], c['range']))


def concurrency(outdir):
    rows = conc_rows(os.path.join(outdir, 'concurrency_runs.csv'))
    summ = sorted(batches(rows), key=lambda s: (s['config'].startswith('stock'), s['preset'], s['config'], s['n']))
    for s in summ:
        st = [t for t in summ if t['preset'] == s['preset'] and t['n'] == s['n'] and t['config'] == 'stock']
        if st and not s['config'].startswith('stock'):
            s['stock_agg_fps'] = st[0]['agg_fps']
            s['vs_stock'] = div(s['agg_fps'], st[0]['agg_fps'])
    for s in summ:
        s.update(meta_of(rows))
    caps = capacity(rows, summ)
    write_csv(os.path.join(outdir, 'concurrency.csv'), summ, CONC_FIELDS)
    write_csv(os.path.join(outdir, 'capacity.csv'), caps, CAP_FIELDS)
    m = meta_of(rows)
    res = rows[0]['command'].split()[-1] if rows else ''
    md = ['# Many encodes on one GPU (results/run.sh concurrency)\n',
          'N encodes of the same clip started together, %s frames each, --threads %s/N, QP 27, `--gpu-me-stats`. '
          '%s; %s; commit %s. Clip: `%s`.\n' % (summ[0]['frames'] if summ else '-', (summ[0]['threads'] * summ[0]['n']) if summ else '-',
                                                m['gpu'], m['cpu'], m['commit'], os.path.basename(res)),
          '- **aggregate**: N x frames / the wall clock from the first start to the last end (process and CUDA '
          'start-up included); **each**: x264\'s own fps, mean (min) over the N encodes.',
          '- **GPU busy**: search + upload + download time from `--gpu-me-stats`; *each*: share of its own encode\'s '
          'wall clock, mean; *all*: summed over the N encodes, share of the batch\'s wall clock (over 100%: the encodes\' '
          'CUDA-event times overlap while the GPU time-slices between processes). **nvidia-smi**: mean utilisation '
          'sampled every 100 ms.',
          '- **analyse waited**: share of the encoding threads\' time analyse waited for GPU results, mean over the N.',
          '- **identical**: every stream md5-equal to the serial run of the same command (same threads); N=1 is its '
          'own; stock: to the first of its batch.\n',
          '| preset | config | N | threads | aggregate fps | stock fps | vs stock | each fps (min) | GPU busy each | '
          'GPU busy all | nvidia-smi | analyse waited | backend | identical |',
          '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|']
    for s in summ:
        md.append('| %s | %s | %s | %s | %s | %s | %s | %s (%s) | %s | %s | %s | %s | %s | %s |' % (
            s['preset'], cname(s['config']), s['n'], s['threads'], fmt(s['agg_fps']),
            fmt(s.get('stock_agg_fps')), ratio(s.get('vs_stock')), fmt(s['fps_each']), fmt(s['fps_each_min']),
            fmt(s['gpu_busy_pct_each'], '%'), fmt(s['gpu_busy_pct_all'], '%'), s['smi_util'] or '-',
            fmt(s['wait_pct'], '%'), s['backend'], s['identical']))
    if caps:
        md += ['\n## Capacity: encoded frames per second one GPU can serve\n',
               'One encode (%s threads) per preset and range; GPU time per encoded frame from `--gpu-me-stats` '
               '(kernel: the searches\' CUDA-event time; busy: with uploads and downloads); capacity = 1000 / ms per '
               'frame, the GPU alone (the CPUs that feed it are not counted).\n' % (many_of(rows)),
               '| preset | range | pairs/frame | kernel ms/frame | busy ms/frame | capacity (kernel) fps | '
               'capacity (busy) fps | against N encodes at once |', '|---|---|---|---|---|---|---|---|']
        for c in caps:
            md.append('| %s | +-%d | %s | %s | %s | %s | %s | %s |' % (
                c['preset'], c['range'], fmt(c['pairs_per_frame']), fmt(c['kernel_ms_frame']), fmt(c['busy_ms_frame']),
                fmt(c['capacity_kernel_fps']), fmt(c['capacity_busy_fps']), c.get('check', '-')))
    skipped = sum(r['rc'] == 'skipped' for r in rows)
    if skipped:
        md.append('\n%d encodes SKIPPED (over the time budget).' % skipped)
    with open(os.path.join(outdir, 'concurrency.md'), 'w') as f:
        f.write('\n'.join(md) + '\n')


def many_of(rows):
    t = [r['threads'] for r in rows if r['kind'] == 'capacity' and r['threads']]
    return t[0] if t else '-'


def multigpu(outdir):
    rows = conc_rows(os.path.join(outdir, 'multigpu_runs.csv'))
    summ = batches(rows, ('batch', 'serial'))
    order = {'serial': 0, '1gpu': 1, 'auto': 2, 'nopicks': 3}
    summ.sort(key=lambda s: (s['preset'], s['config'], s['n'], order.get(s['variant'], 9)))
    for s in summ:
        one = [t for t in summ if (t['preset'], t['config'], t['n'], t['variant']) == (s['preset'], s['config'], s['n'], '1gpu')]
        if one and s['variant'] in ('auto', 'nopicks'):
            s['vs_1gpu'] = div(s['agg_fps'], one[0]['agg_fps'])
        ndev = len([d for d in s['devices'].split() if not d.startswith('-')])
        s['spread'] = ''
        if s['variant'] in ('auto', 'nopicks') and s['n'] > 1:
            s['spread'] = '%d GPUs' % ndev if ndev > 1 else 'one GPU' if ndev else 'no GPU'
        s.update(meta_of(rows))
    write_csv(os.path.join(outdir, 'multigpu.csv'), summ, CONC_FIELDS[:-len(META) - 1] + ['vs_1gpu', 'spread'] + META + ['commands'])
    m = meta_of(rows)
    md = ['# Many encodes on a multi-GPU host (results/run.sh multigpu)\n',
          'N encodes started together, --threads CORES/N each; `auto`: --gpu-me-device auto (the default) with the '
          'library\'s recent-picks file; `nopicks`: the same with CUDA_ME_PICKS=off (NVML\'s loads alone); `1gpu`: '
          'CUDA_VISIBLE_DEVICES=0; `serial`: one encode alone on GPU 0, the reference of the bytes. %s; %s; commit %s.\n'
          % (m['gpu'], m['cpu'], m['commit']),
          '| preset | config | N | threads | run | aggregate fps | vs 1 GPU | each fps | devices (CUDA ordinal: encodes) '
          '| nvidia-smi | analyse waited | identical to serial |', '|---|---|---|---|---|---|---|---|---|---|---|---|']
    for s in summ:
        md.append('| %s | %s | %s | %s | %s | %s | %s | %s | %s%s | %s | %s | %s |' % (
            s['preset'], cname(s['config']), s['n'], s['threads'], s['variant'], fmt(s['agg_fps']),
            ratio(s.get('vs_1gpu')), fmt(s['fps_each']), s['devices'], ' (%s)' % s['spread'] if s['spread'] else '',
            s['smi_util'] or '-', fmt(s['wait_pct'], '%'), s['identical'] if s['variant'] != 'serial' else '-'))
    with open(os.path.join(outdir, 'multigpu.md'), 'w') as f:
        f.write('\n'.join(md) + '\n')


def throughput(outdir):
    """A full host (results/run.sh throughput): per N x T and configuration,
    the aggregate frames/s (frames over the batches' wall clock), against
    stock's and stock --mvrange-thread 64's; BD-rate (PSNR-Y) against them
    over the clips' QPs (median over clips); the GPU's mean utilisation and
    memory; the CPU time per frame and its parts; the share of the encodes'
    thread time spent waiting for the GPU, and for it, the lookahead and the
    device's open together.  Per preset where the runs have several (each
    run's preset is its command's; the batches name theirs, medium where
    they do not)."""
    runs = [r for r in read_csv(os.path.join(outdir, 'throughput_runs.csv')) if r['rc'] == '0']
    batches = read_csv(os.path.join(outdir, 'throughput_batches.csv'))

    def preset_of(r):
        m = re.search(r'--preset (\S+)', r.get('command') or '')
        return m.group(1) if m else 'medium'
    by = defaultdict(list)
    for r in runs:
        by[(preset_of(r), r['nt'], r['config'])].append(r)
    wall = defaultdict(float)
    util = defaultdict(list)
    for b in batches:
        k = (b.get('preset') or 'medium', b['nt'], b['config'])
        wall[k] += num(b['wall_s']) or 0
        util[k].append(num(b['gpu_util_pct']))
    rows = []
    presets = list(dict.fromkeys(k[0] for k in sorted(by, key=lambda k: PRESETS.index(k[0]) if k[0] in PRESETS else 99)))
    many = len(presets) > 1
    keys = [(pr, nt) for pr in presets
            for nt in sorted({k[1] for k in by if k[0] == pr}, key=lambda nt: -int(nt.split('x')[0]))]
    for pr, nt in keys:
        agg = {}
        for (p2, n2, c), rs in by.items():
            if (p2, n2) == (pr, nt) and wall[(pr, nt, c)]:
                agg[c] = sum(num(r['frames'] if r.get('frames') else 0) or 0 for r in rs) / wall[(pr, nt, c)]
        for c in sorted(agg, key=lambda c: ORDER.index(c) if c in ORDER else 99):
            rs = by[(pr, nt, c)]

            def bd_vs(anchor):
                if anchor not in agg:
                    return None
                v = []
                for clip in sorted({r['clip'] for r in rs}):
                    a = [r for r in by[(pr, nt, anchor)] if r['clip'] == clip]
                    t = [r for r in rs if r['clip'] == clip]
                    v.append(bd(a, t, 'psnr_y'))
                v = [x for x in v if x is not None]
                return median(v)
            frames = sum(num(r.get('frames')) or 0 for r in rs) or 1
            def total(key):   # None where no encode reports the key (stock)
                v = [num(r.get(key)) for r in rs if num(r.get(key)) is not None]
                return sum(v) if v else None
            per = lambda key: div(total(key), frames)
            thread_ms = 1000 * sum((num(r.get('wall_s')) or 0) * (num(r.get('threads')) or 1) for r in rs)
            waits = [total(k) for k in ('gpu_wait_ms', 'main_wait_lookahead_ms', 'open_wait_ms')]
            rows.append({'preset': pr, 'nt': nt, 'config': c, 'encodes': len(rs), 'fps': agg[c],
                         'vs_stock': div(agg[c], agg.get('stock')), 'vs_mvt64': div(agg[c], agg.get('stock_mvt64')),
                         'bd_vs_stock': bd_vs('stock'), 'bd_vs_mvt64': bd_vs('stock_mvt64'),
                         'gpu_util_pct': median([u for u in util[(pr, nt, c)] if u is not None]),
                         'gpu_mib': median([num(r['gpu_mib']) for r in rs if num(r.get('gpu_mib'))]),
                         'cpu_ms_frame': mul(per('cpu_s'), 1000), 'me_int_ms_frame': per('me_int_ms'),
                         'me_sub_ms_frame': per('me_sub_ms'),
                         'wait_ms_frame': per('gpu_wait_ms'),
                         'wait_share': div(total('gpu_wait_ms'), thread_ms),
                         'all_wait_share': div(sum(waits), thread_ms) if None not in waits else None})
    fields = ['preset', 'nt', 'config', 'encodes', 'fps', 'vs_stock', 'vs_mvt64', 'bd_vs_stock', 'bd_vs_mvt64', 'gpu_util_pct',
              'gpu_mib', 'cpu_ms_frame', 'me_int_ms_frame', 'me_sub_ms_frame', 'wait_ms_frame', 'wait_share',
              'all_wait_share']
    write_csv(os.path.join(outdir, 'throughput.csv'), rows, fields)
    md = ['## A full host: N encodes x T threads at once\n',
          'Aggregate frames/s = frames of all encodes / the batches\' wall clock; BD-rate (PSNR-Y) over the QPs, '
          'median over clips; GPU: mean utilisation during the batches (nvidia-smi), memory per encode '
          '(--gpu-me-stats); CPU ms per frame: user + system of all threads; x264\'s integer and sub-pel search '
          'and the waits for GPU results, summed over threads, per frame; waiting: those waits over the encodes\' '
          'thread time (wall clock x threads); all waits: with the main thread\'s waits for the lookahead and the '
          'waits for the device\'s open (- where the runs did not record them).\n',
          '| %sN x T | config | encodes | frames/s | vs stock | vs mvt64 | BD vs stock | BD vs mvt64 | GPU busy | GPU MiB/encode | CPU ms/frame | int. ME ms/frame | sub-pel ms/frame | GPU wait ms/frame | waiting | all waits |'
          % ('preset | ' if many else ''),
          '|%s---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|' % ('---|' if many else '')]
    for r in rows:
        md.append('| %s%s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |' % (
            r['preset'] + ' | ' if many else '', r['nt'], cname(r['config']), r['encodes'], fmt(r['fps']), ratio(r['vs_stock']), ratio(r['vs_mvt64']),
            pct(r['bd_vs_stock']), pct(r['bd_vs_mvt64']),
            '-' if r['gpu_util_pct'] is None else '%.0f%%' % r['gpu_util_pct'], fmt(r['gpu_mib']),
            fmt(r['cpu_ms_frame']), fmt(r['me_int_ms_frame']), fmt(r['me_sub_ms_frame']), fmt(r['wait_ms_frame']),
            '-' if r['wait_share'] is None else '%.1f%%' % (100 * r['wait_share']),
            '-' if r['all_wait_share'] is None else '%.1f%%' % (100 * r['all_wait_share'])))
    if runs:
        meta = meta_of(runs)
        md.append('\n- Machine: GPU %s (driver %s), CPU %s; commit %s.' % tuple(meta[k] or '-' for k in META))
    mps = None   # results/run.sh records TP_MPS in machine.txt; the last run's counts
    if os.path.exists(os.path.join(outdir, 'machine.txt')):
        with open(os.path.join(outdir, 'machine.txt')) as f:
            for line in f:
                if 'CUDA MPS: ' in line:
                    mps = line.rsplit('CUDA MPS: ', 1)[1].strip()
    if mps:
        md.append('- CUDA MPS: %s.' % ('on (results/run.sh TP_MPS=1: the encodes\' kernels share the GPU at once)'
                                          if mps == 'on' else mps))
    with open(os.path.join(outdir, 'throughput.md'), 'w') as f:
        f.write('\n'.join(md) + '\n')


if __name__ == '__main__':
    if len(sys.argv) < 3 or sys.argv[1] not in ('startup', 'table1', 'table2', 'headline', 'concurrency', 'multigpu',
                                                 'throughput'):
        sys.exit(__doc__)
    what, outdir = sys.argv[1], sys.argv[2]
    if what == 'startup':
        startup(outdir)
    elif what == 'table1':
        table1(outdir)
    elif what == 'table2':
        table2(outdir, sys.argv[3:])
    elif what in ('concurrency', 'multigpu', 'throughput'):
        globals()[what](outdir)
    else:
        headline(outdir)
