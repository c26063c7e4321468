#!/bin/bash
# results/subpel_shadow_cpu.sh [WORKDIR]: issue 12, why --gpu-me-subpel's
# skips cost more in the 16x16 loops than in the 8x8 ones, on the CPU.  C
# backend (what the GPU computes, bit for bit), the developer-only
# X264_GPU_ME_SUBPEL_SITES (which loops skip) and X264_GPU_ME_SUBPEL_SHADOW
# (patches/experiments/0005, built by ./build.sh experiment: 1 searches the
# skipped references in the shadow and counts how often one would have won,
# the encode unchanged; 2 also gives the skipped reference the shadow
# search's vector in place of the GPU's); the guard (a skip needs x264's
# cost at its predictor N% above the GPU's best too) only in configurations
# ending in g: since patches/0022 it is on by default, and the others turn
# it off with 0006's X264_GPU_ME_SUBPEL_GUARD=0.  Street 540p (30 frames) and
# foreman CIF, preset slow, 1 thread per encode, --gpu-me-range 16,
# --gpu-me-subpel 20, QP 22 27 32 37 (CLIPS, PRESET, RANGE, THREADS, CFGS and
# FRAMES change them).  Prints BD-rates (PSNR-Y) against
# --gpu-me-subpel 0 and the shadow counts at QP 27; results/subpel_prune.md.
# About 10 minutes on 2 cores.
set -u
# shellcheck disable=SC1091  # x264_log_stats, exp_setup
. "$(dirname "$0")/../tests/lib.sh"   # TOP, B, D
exp_setup subpel_shadow_cpu "${1:-}"   # X, W
CLIPS="${CLIPS:-street_540p_30 foreman_cif}"
PRESET="${PRESET:-slow}"
RANGE="${RANGE:-16}"       # --gpu-me-range (2 GPU candidates from 28)
THREADS="${THREADS:-1}"    # per encode (frame threads: their MV limit; the encodes are the same on any core count)
# street 540p: the 1080p street clip's first 30 frames scaled down; the
# bounce clip: those 30 forward, then backward (the turn repeats frame 29)
S="$TOP/tests/data/VID_1920x1080_cabac_temporal_direct.264"
[ -s "$D/street_540p_30.y4m" ] || ffmpeg -nostdin -loglevel error -y -i "$S" -vf scale=960:540 -frames:v 30 \
    -pix_fmt yuv420p "$D/street_540p_30.y4m" || exit 1
[ -s "$D/street_540p_bounce60.y4m" ] || ffmpeg -nostdin -loglevel error -y -i "$D/street_540p_30.y4m" \
    -filter_complex "[0]split[a][b];[b]reverse[r];[a][r]concat=n=2:v=1" -pix_fmt yuv420p \
    "$D/street_540p_bounce60.y4m" || exit 1
for c in $CLIPS; do
    [ -s "$D/$c.y4m" ] || { echo "no $D/$c.y4m: run tests/run.sh once (it decodes the clips)"; exit 1; }
done
# configuration: sites and shadow mode (sp0: the option off; sp0 first)
CFGS="${CFGS:-sp0 s10 s15 s15v s5 s5v}"
env_of() {
    case $1 in
        sp0) echo "X264_GPU_ME_SUBPEL_SHADOW=0" ;;
        s*v) s="${1#s}"; echo "X264_GPU_ME_SUBPEL_SITES=${s%v} X264_GPU_ME_SUBPEL_SHADOW=2 X264_GPU_ME_SUBPEL_GUARD=0" ;;
        s*g) s="${1#s}"; echo "X264_GPU_ME_SUBPEL_SITES=${s%g} X264_GPU_ME_SUBPEL_SHADOW=1" ;;
        s*)  echo "X264_GPU_ME_SUBPEL_SITES=${1#s} X264_GPU_ME_SUBPEL_SHADOW=1 X264_GPU_ME_SUBPEL_GUARD=0" ;;
    esac
}
FRAMES="${FRAMES:-30}"
encode() {   # CLIP CONFIG QP OUT (exp_grid)
    local n=20
    [ "$2" = sp0 ] && n=0
    echo "env $(env_of "$2") $X --preset $PRESET --threads $THREADS --qp $3 --frames $FRAMES --psnr --gpu-me" \
         "--gpu-me-backend c --gpu-me-range $RANGE --gpu-me-subpel $n --gpu-me-stats -o $4.264 $D/$1.y4m"
}
# shellcheck disable=SC2086
exp_grid encode $CFGS
PYTHONPATH="$TOP/results" python3 - "$W" "$CLIPS" "$CFGS" <<'PY'
import re, sys
from bdrate import bd_table, read_rd
w = sys.argv[1]
rd = read_rd(w + '/rd.csv')
names = {'sp0': 'off', 's10': '8x8 loops', 's15': 'all four', 's15v': 'all four, x264 vectors',
         's5': '16x16 loops', 's5v': '16x16 loops, x264 vectors', 's10g': '8x8 loops, guard',
         's15g': 'all four, guard', 's5g': '16x16 loops, guard'}
cfgs = sys.argv[3].split()[1:]
print(bd_table(rd, sys.argv[2].split(), 'sp0', cfgs, names.get))
print()
print('QP 27, skipped reference searches and shadow counts (loops with skips; skipped reference beat the kept best: share, mean loss)')
print()
print('| clip | config | skipped | P 16x16 | P 8x8 | B 16x16 | B 8x8 |')
print('|---|---|---|---|---|---|---|')
for clip in sys.argv[2].split():
    for c in cfgs:
        log = open('%s/%s_%s_27.log' % (w, clip, c)).read()
        sk = re.search(r'reference searches skipped (\d+) of (\d+)', log)
        cells = []
        for site in ('P 16x16', 'P 8x8', 'B 16x16', 'B 8x8'):
            m = re.search(r'gpu-me shadow: %s: loops \d+, (\d+) with skips .*?in \d+ \(([\d.]+)%%\) .*?by ([\d.]+)%%' % site, log)
            cells.append('%s: %s%%, %s%%' % m.groups() if m and m.group(1) != '0' else '-')
        print('| %s | %s | %s | %s |' % (clip, names[c], '%s of %s' % sk.groups() if sk else '-', ' | '.join(cells)))
PY
