#!/bin/bash
# results/subpel_sites_cpu.sh [WORKDIR]: issue 12, which loops
# --gpu-me-subpel should prune at slow.  The frame-thread timers of
# patches/0028 show that a B frame takes as long as the P frame coded just
# before it (results/subpel_prune.md, "Twenty-second session"), so pruning
# in B frames should buy no frame rate, only cost BD-rate.  The default
# prunes the 8x8 loops of P and B (X264_GPU_ME_SUBPEL_SITES=10); 2 prunes
# the P 8x8 loops only.  --gpu-me on the C backend (what the GPU computes,
# bit for bit), range 16, 1 thread, street 540p (30 frames; made by
# results/subpel_shadow_cpu.sh), QP 22 27 32 37 (CLIPS, PRESET, RANGE
# change them).  Prints BD-rates (PSNR-Y) against the default and the
# skip counts of --gpu-me-stats at QP 27.  About 20 minutes on 2 cores.
set -u
# shellcheck disable=SC1091  # x264_log_stats, exp_setup, exp_study, exp_grid
. "$(dirname "$0")/../tests/lib.sh"   # TOP, B, D
X264_EXP="${X264_EXP:-$B/x264/x264}"   # the shipped series: the mask is read there
exp_setup subpel_sites_cpu "${1:-}"   # X, W
exp_study street_540p_30 slow 16   # CLIPS, PRESET, RANGE
W="$W/$PRESET"
mkdir -p "$W" || exit 1
encode() {   # CLIP CONFIG QP OUT (exp_grid)
    echo "env X264_GPU_ME_SUBPEL_SITES=${2#s} $X --preset $PRESET --threads 1 --qp $3 --psnr --gpu-me" \
         "--gpu-me-backend c --gpu-me-range $RANGE --gpu-me-subpel 20 --gpu-me-stats -o $4.264 $D/$1.y4m"
}
CONFIGS="s10 s2"
# shellcheck disable=SC2086  # the configurations' words
exp_grid encode $CONFIGS
PYTHONPATH="$TOP/results" python3 - "$W" "$CLIPS" "$CONFIGS" <<'PY'
import re, sys
from bdrate import bd_table, read_rd
w, clips, cfgs = sys.argv[1], sys.argv[2].split(), sys.argv[3].split()
rd = read_rd(w + '/rd.csv')
print(bd_table(rd, clips, 's10', cfgs[1:], lambda n: 'X264_GPU_ME_SUBPEL_SITES=' + n[1:]))
print()
print('QP 27, --gpu-me-stats: the sub-pel line')
print()
for clip in clips:
    for n in cfgs:
        t = open('%s/%s_%s_27.log' % (w, clip, n)).read()
        m = re.search(r'gpu-me: (sub-pel[^\n]*)', t)
        print('- %s, sites %s: %s' % (clip, n[1:], m.group(1) if m else '-'))
PY
