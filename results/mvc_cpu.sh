#!/bin/bash
# results/mvc_cpu.sh [WORKDIR]: issue 12, medium's frame work
# (--gpu-me-predictors K, patches/0030; until then developer experiment
# 0008, X264_GPU_ME_MVC=K).  At medium the GPU leaves x264's integer search time where
# it was (31-42 ms per 1080p frame summed over threads, stock or not:
# results/subpel_prune.md, "Twenty-second session"): beside the GPU's
# vectors x264 still prices its predictors (mvp, the lookahead's vector,
# the neighbours', the temporal ones) before searching.  K keeps only the
# first K of them.  --gpu-me on the C backend (what the GPU computes, bit
# for bit), range 16, 1 thread, street 540p (30 frames; made by
# results/subpel_shadow_cpu.sh), QP 22 27 32 37 (CLIPS, PRESET, RANGE
# change them).  Prints BD-rates (PSNR-Y) against the first of CONFIGS
# (default "all k0 k2": all, the first 0 and 2 predictors) and x264's own
# search time per frame from --gpu-me-stats (integer part, sub-pel part;
# 1 thread, so not the GPU's).  A configuration: all (16), kN (the first
# N), default (the option left out: auto), or one of these with "_sp0"
# after it (--gpu-me-subpel 0 too: medium before patches/0029).  About 15
# minutes on 2 cores (the C backend's full search is most of it).
set -u
# shellcheck disable=SC1091  # x264_log_stats, exp_setup, exp_study, exp_grid
. "$(dirname "$0")/../tests/lib.sh"   # TOP, B, D
exp_setup mvc_cpu "${1:-}"   # X, W
exp_study street_540p_30 medium 16   # CLIPS, PRESET, RANGE
W="$W/$PRESET"
mkdir -p "$W" || exit 1
encode() {   # CLIP CONFIG QP OUT (exp_grid)
    local k="${2%_sp0}" opt=""
    case "$k" in
        all) opt="--gpu-me-predictors 16" ;;
        k*) opt="--gpu-me-predictors ${k#k}" ;;
    esac
    [ "$k" != "$2" ] && opt="$opt --gpu-me-subpel 0"
    echo "$X --preset $PRESET --threads 1 --qp $3 --psnr --gpu-me --gpu-me-backend c $opt" \
         "--gpu-me-range $RANGE --gpu-me-stats -o $4.264 $D/$1.y4m"
}
CONFIGS="${CONFIGS:-all k0 k2}"
# shellcheck disable=SC2086  # the configurations' words
exp_grid encode $CONFIGS
PYTHONPATH="$TOP/results" python3 - "$W" "$CLIPS" "$CONFIGS" <<'PY'
import re, sys
from bdrate import bd_table, read_rd
w, clips, cfgs = sys.argv[1], sys.argv[2].split(), sys.argv[3].split()
rd = read_rd(w + '/rd.csv')
def preds(n):   # a configuration's --gpu-me-predictors value (and --gpu-me-subpel 0)
    k = n[:-4] if n.endswith('_sp0') else n
    return {'all': '16', 'default': 'auto'}.get(k, k[1:]) + (' --gpu-me-subpel 0' if k != n else '')
def label(n):
    return '--gpu-me-predictors ' + preds(n)
print('against ' + label(cfgs[0]))
print()
print(bd_table(rd, clips, cfgs[0], cfgs[1:], label))
print()
print('x264\'s own search, ms per frame (1 thread), at each QP: integer part / sub-pel part')
print()
print('| clip | --gpu-me-predictors | ' + ' | '.join('QP %s' % q for q in (22, 27, 32, 37)) + ' |')
print('|---|---|' + '---|' * 4)
for clip in clips:
    for n in cfgs:
        cells = []
        for q in (22, 27, 32, 37):
            t = open('%s/%s_%s_%d.log' % (w, clip, n, q)).read()
            m = re.search(r'integer part [0-9.]+ ms \(([0-9.]+) ms/frame\), sub-pel part [0-9.]+ ms \(([0-9.]+) ms/frame\)', t)
            cells.append('%s / %s' % m.groups() if m else '-')
        print('| %s | %s | %s |' % (clip, preds(n), ' | '.join(cells)))
PY
