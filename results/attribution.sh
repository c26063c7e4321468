#!/usr/bin/env bash
# results/attribution.sh: where the gap between the GPU's candidate and
# x264's exhaustive search comes from (issue 10, first step).  CPU only.
#
# The patched x264's developer-only switch X264_GPU_ME_EXPERIMENT (see
# patches/experiments, built by ./build.sh experiment into build/x264-exp)
# replaces the module's candidate by
# candidates computed on the CPU; each variant below is one set of them, in
# --gpu-me-mode cand (x264's own hex search still runs), at --threads 1 (no
# frame-thread MV limit), --merange 64 / --gpu-me-range 64, preset medium,
# QPs 22 27 32 37.  Anchors: stock x264 hex and esa at --merange 64.
#
#   results/attribution.sh            encodes, then results/attribution.{csv,md}
#   results/attribution.sh --tables   only the tables, from the CSV
#
# Knobs (environment):
#   ATTR_CLIPS     "NAME:FILE:FRAMES[:SEEK] ..." (SEEK: first frame; FILE under build/data, made by
#                  FFmpeg from ../shared/clips when missing: see PROVENANCE.md)
#                  [foreman_cif:foreman_cif.y4m:40 street_1080p:street_1080p.y4m:16]
#   ATTR_VARIANTS  variants to run on every clip [all of them, see variant()]
#   ATTR_VARIANTS_<NAME>  the same for one clip (overrides ATTR_VARIANTS)
#
# What results/attribution.csv holds was run piecewise on a shared 2-core
# machine (rows accumulate in build/attribution/rows; the CSV is all of them):
#   foreman_cif:foreman_cif.y4m:40            every variant but e_gpu_med16
#   street_1080p:street_1080p.y4m:30          stock_hex stock_esa stock_hex_t16 stock_esa_t16
#                                             a_recon b_src c_gpu d_sad e_gpu_med e_gpu_med16
#   street_1080p_s24:street_1080p.y4m:30:24   stock_hex stock_esa a_recon a_recon_bp c_gpu e_gpu_med
#   ATTR_QPS       [22 27 32 37]
#   ATTR_JOBS      encodes at a time [2]
#
# Variants (the letters of issue 10):
#   stock_hex  stock x264 --merange 64 (the anchor)
#   stock_esa  stock x264 --me esa --merange 64
#   stock_hex_t16, stock_esa_t16  the same at --threads 16 --mvrange-thread 64 (the
#              condition of the 16-thread numbers of issue 10; their own anchor is stock_hex_t16)
#   a_recon    full search +-64 around x264's predictor, reconstructed reference, x264's MV cost
#   a_recon_bp (a) with the window centred on the best of x264's predictors, as --me esa centres it
#   b_src      the same on the source frames
#   c_gpu      source, window and MV cost centred on the lookahead's vector: today's GPU candidate
#              (bit-identical to the module: checked by the 'check' kind at range 8)
#   c_gpu_replace  the same in --gpu-me-mode replace (plain --gpu-me's default)
#   d_sad      source, the GPU's window, pure SAD
#   e_gpu_sad  c + d
#   e_gpu_med  c + a second pass centred on the median of the neighbours' 16x16 c winners
#   e_gpu_med16  the same with a +-16 second window
#   e_gpu_top3 c + the best two positions of c outside +-2 of the better ones
#   e_gpu_med_sad  c + med + d
set -u
# shellcheck disable=SC1091  # enc (sets rc; ENC_TIMEOUT, ENC_DUMP) and x264_log_stats
# the experiment switch is in build/x264-exp/x264 (./build.sh experiment),
# not in the shipped series
X264_TREE="${X264_TREE:-x264-exp}"
. "$(dirname "$0")/../tests/lib.sh"
PY="${PYTHON:-python3}"
OUTDIR="$TOP/results"
CSV="$OUTDIR/attribution.csv"
MD="$OUTDIR/attribution.md"
W="$B/attribution"
ATTR_CLIPS="${ATTR_CLIPS:-foreman_cif:foreman_cif.y4m:40 street_1080p:street_1080p.y4m:16}"
ATTR_VARIANTS="${ATTR_VARIANTS:-stock_hex stock_esa a_recon b_src c_gpu c_gpu_replace d_sad e_gpu_sad e_gpu_med e_gpu_med16 e_gpu_top3 e_gpu_med_sad}"
ATTR_QPS="${ATTR_QPS:-22 27 32 37}"
ATTR_JOBS="${ATTR_JOBS:-2}"
HDR="clip,frames,variant,qp,rc,kbps,psnr_y,fps,given,kept,keep_pct,per_candidate,command"

# variant NAME: sets BIN, ARGS (beyond the common ones) and EXP
variant() {
    local gpu=(--gpu-me --gpu-me-backend c --gpu-me-range 64 --gpu-me-mode cand --gpu-me-stats)
    BIN="$X264"; EXP=""; ARGS=("${gpu[@]}")
    case "$1" in
    stock_hex)  BIN="$STOCK"; ARGS=() ;;
    stock_esa)  BIN="$STOCK"; ARGS=(--me esa) ;;
    stock_hex_t16) BIN="$STOCK"; ARGS=(--threads 16 --mvrange-thread 64) ;;
    stock_esa_t16) BIN="$STOCK"; ARGS=(--me esa --threads 16 --mvrange-thread 64) ;;
    a_recon)    EXP=recon ;;
    a_recon_bp) EXP=reconbp ;;
    b_src)      EXP=src ;;
    c_gpu)      EXP=gpu ;;
    c_gpu_replace) EXP=gpu; ARGS=(--gpu-me --gpu-me-backend c --gpu-me-range 64 --gpu-me-mode replace --gpu-me-stats) ;;
    d_sad)      EXP=sad ;;
    e_gpu_sad)  EXP=gpu+sad ;;
    e_gpu_med)  EXP=gpu+med ;;
    e_gpu_med16) EXP=gpu+med16 ;;
    e_gpu_top3) EXP=gpu+top3 ;;
    e_gpu_med_sad) EXP=gpu+med+sad ;;
    *) echo "attribution.sh: unknown variant $1" >&2; return 1 ;;
    esac
}

clip_file() {   # NAME FILE: decode the clip when missing
    [ -s "$D/$2" ] && return 0
    local src
    case "$1" in
    street_1080p*) src=VID_1920x1080_cabac_temporal_direct.264 ;;
    flower_720p)  src=VID_1280x720_cabac_temporal_direct.264 ;;
    foreman_cif)  src=BA1_FT_C.264 ;;
    mobile_cif)   src=CVPCMNL1_SVA_C.264 ;;
    *) echo "attribution.sh: no source known for $1" >&2; return 1 ;;
    esac
    mkdir -p "$D"
    ffmpeg -nostdin -loglevel error -y -i "$TOP/../shared/clips/$src" -pix_fmt yuv420p "$D/$2"
}

# one CLIP FILE FRAMES SEEK VARIANT QP: one encode, one row in $W/rows/
one() {
    local clip="$1" file="$2" n="$3" seek="$4" v="$5" q="$6" name="$1.$5.$6" s given="" kept="" pct="" per=""
    variant "$v" || return 1
    local common=(--preset medium --threads 1 --merange 64 --qp "$q" --seek "$seek" --frames "$n" --psnr)
    local cmd="${EXP:+X264_GPU_ME_EXPERIMENT=$EXP }$(basename "$(dirname "$BIN")")/x264 ${common[*]} ${ARGS[*]} $file"
    ENC_DUMP=0 X264_GPU_ME_EXPERIMENT="$EXP" enc "$BIN" "$name" "$file" "${common[@]}" "${ARGS[@]}"
    s="$(x264_log_stats "$W/$name.log" kbps psnr_y fps)"
    if grep -q "searches given a GPU vector" "$W/$name.log"; then
        read -r given kept pct < <(sed -n 's/.*searches given a GPU vector \([0-9]*\), ended within 1\/2 pel of it \([0-9]*\) (\([0-9.]*\)%).*/\1 \2 \3/p' "$W/$name.log")
        per="$(sed -n 's/.*experiment [^ ]*: candidate [0-9]* (\([a-z0-9]*\)) given .*(\([0-9.]*\)%).*/\1 \2%/p' "$W/$name.log" | paste -sd';' -)"
    fi
    echo "$clip,$n,$v,$q,$rc,$s,$given,$kept,$pct,$per,\"$cmd\"" > "$W/rows/$name.csv"
    echo "  $name: rc $rc, $s, kept $pct% ($(date +%T))"
}

tables() {
    "$PY" - "$CSV" "$MD" <<'EOF'
import csv, math, os, sys
sys.path.insert(0, os.path.join(os.path.dirname(sys.argv[1])))
from bdrate import bdrate
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r['rc'] == '0' and r['kbps']]
order = ['stock_hex_t16', 'stock_esa_t16', 'stock_hex', 'stock_esa', 'a_recon', 'a_recon_bp', 'b_src', 'c_gpu', 'c_gpu_replace', 'd_sad',
         'e_gpu_sad', 'e_gpu_med', 'e_gpu_med16', 'e_gpu_top3', 'e_gpu_med_sad']
what = {'stock_hex': 'stock x264, hex (anchor)', 'stock_esa': 'stock x264, --me esa',
        'stock_hex_t16': 'stock hex, --threads 16 --mvrange-thread 64 (its own anchor)',
        'stock_esa_t16': 'stock esa, --threads 16 --mvrange-thread 64, vs stock_hex_t16',
        'a_recon': '(a) full search, recon ref, true predictor + cost',
        'a_recon_bp': '(a) with the window on the best predictor (as esa)',
        'b_src': '(b) full search, source ref, true predictor + cost',
        'c_gpu': '(c) source, window + cost on lookahead centre = today\'s GPU',
        'c_gpu_replace': '(c) in --gpu-me-mode replace', 'd_sad': '(d) source, GPU window, pure SAD',
        'e_gpu_sad': '(e) c + d', 'e_gpu_med': '(e) c + median-centred 2nd pass',
        'e_gpu_med16': '(e) c + median-centred 2nd pass, +-16 window',
        'e_gpu_top3': '(e) c + top-2/3 of c (outside +-2)', 'e_gpu_med_sad': '(e) c + median pass + d'}
clips = []
for r in rows:
    if r['clip'] not in clips:
        clips.append(r['clip'])
def curve(c, v):
    pts = sorted((float(r['kbps']), float(r['psnr_y'])) for r in rows if r['clip'] == c and r['variant'] == v)
    return pts if len(pts) >= 4 else None
def mean(xs):
    xs = [float(x) for x in xs if x != '']
    return sum(xs) / len(xs) if xs else float('nan')
out = ['# Attribution of the GPU candidate\'s gap to x264\'s exhaustive search (issue 10)', '',
       'Produced by `results/attribution.sh` (raw rows: `attribution.csv`).  Preset medium, `--threads 1`, '
       '`--merange 64`, `--gpu-me-range 64`, `--gpu-me-mode cand` unless said, QPs 22 27 32 37, constant QP.  '
       'Candidates of the non-stock rows are computed on the CPU by the developer-only switch '
       '`X264_GPU_ME_EXPERIMENT` (encoder/gpu_me.c); row (c) is bit-identical to the module\'s candidate '
       '(checked against the C backend at range 8: byte-identical streams, 0 of 38970 partitions differ).  '
       'BD-rate: PSNR-Y, `results/bdrate.py`; negative = fewer bits.  Keep rate: searches that ended within '
       '1/2 pel of an extra candidate (any of them; per candidate in brackets), mean over the QPs.  '
       'fps: of the CPU emulation on a shared 2-core machine, 2 to 6 encodes at a time: not GPU speed.  '
       'A clip name ending in _sN starts at frame N (`--seek N`); street_1080p has 54 frames.  '
       'Share of the esa gap: BD vs hex / BD of esa vs hex.', '']
gap = {}
for c in clips:
    frames = sorted({r['frames'] for r in rows if r['clip'] == c})
    a, e = curve(c, 'stock_hex'), curve(c, 'stock_esa')
    out += ['## %s, %s frames' % (c, '/'.join(frames)), '',
            '| variant | what | BD-rate vs stock hex | BD-rate vs stock esa | share of the esa gap | keep rate | fps |',
            '|---|---|---|---|---|---|---|']
    esa = bdrate(a, e) if a and e else float('nan')
    for v in order:
        t = curve(c, v)
        if not t:
            continue
        if v.endswith('_t16'):
            a16, e16 = curve(c, 'stock_hex_t16'), curve(c, 'stock_esa_t16')
            bh = bdrate(a16, t) if a16 else float('nan')
            be = bdrate(e16, t) if e16 else float('nan')
            share = float('nan')
        else:
            bh = bdrate(a, t) if a else float('nan')
            be = bdrate(e, t) if e else float('nan')
            share = bh / esa * 100 if esa and not math.isnan(esa) and v != 'stock_hex' else float('nan')
        rs = [r for r in rows if r['clip'] == c and r['variant'] == v]
        keep = mean(r['keep_pct'] for r in rs)
        per = {}
        for r in rs:
            for item in filter(None, r['per_candidate'].split(';')):
                k, p = item.split()
                per.setdefault(k, []).append(float(p.rstrip('%')))
        ks = '' if math.isnan(keep) else '%.1f%%' % keep
        if len(per) > 1:
            ks += ' (' + ', '.join('%s %.1f' % (k, sum(p) / len(p)) for k, p in per.items()) + ')'
        f = lambda x: '' if math.isnan(x) else '%+.2f%%' % x
        out.append('| %s | %s | %s | %s | %s | %s | %.2f |' % (v, what.get(v, v), f(bh), f(be),
                   '' if math.isnan(share) else '%.0f%%' % share, ks, mean(r['fps'] for r in rs)))
    out.append('')
open(sys.argv[2], 'w').write('\n'.join(out) + '\n')
print('\n'.join(out))
EOF
}

if [ "${1:-}" != --tables ]; then
    [ -x "$X264" ] && [ -x "$STOCK" ] || { echo "attribution.sh: needs $X264 and $STOCK (./build.sh experiment; stock: ./build.sh test)" >&2; exit 1; }
    mkdir -p "$W/rows"
    echo "attribution.sh: $(date +%F\ %T), $(nproc) cores, clips: $ATTR_CLIPS; QPs $ATTR_QPS; $ATTR_JOBS at a time"
    for spec in $ATTR_CLIPS; do
        IFS=: read -r clip file n seek <<< "$spec"
        clip_file "$clip" "$file" || exit 1
        var="ATTR_VARIANTS_$clip"
        for v in ${!var:-$ATTR_VARIANTS}; do
            for q in $ATTR_QPS; do
                while [ "$(jobs -rp | wc -l)" -ge "$ATTR_JOBS" ]; do wait -n; done
                one "$clip" "$file" "$n" "${seek:-0}" "$v" "$q" &
            done
        done
    done
    wait
    { echo "$HDR"; cat "$W"/rows/*.csv; } > "$CSV"
fi
tables
