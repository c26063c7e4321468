#!/bin/bash
# results/split_cpu.sh [WORKDIR]: issue 12, the partitions: what skipping
# x264's 8x8 analysis where the GPU's integer costs put the four 8x8s N%
# above 16x16 costs (--gpu-me-split N, patches/0024; an experiment,
# X264_GPU_ME_SPLIT=N, when these studies ran; built by ./build.sh
# experiment).  C backend (the GPU's results bit for bit), street
# 540p played forward (30 frames) and forward then backward (60),
# --gpu-me-range 16, 1 thread per encode, QP 22 27 32 37 (CLIPS, PRESET,
# RANGE, NS change them).  Prints BD-rates (PSNR-Y) against --gpu-me without
# it, and at QP 27 the share of 8x8 analyses skipped and x264's motion
# searches (count, integer + sub-pel ms: the C backend's own search runs on
# the same core, so the encode's fps says nothing here).  Needs the clips of
# results/subpel_shadow_cpu.sh.  About 10 minutes on 2 cores.
set -u
# shellcheck disable=SC1091  # x264_log_stats, exp_setup
. "$(dirname "$0")/../tests/lib.sh"   # TOP, B, D
exp_setup split_cpu "${1:-}"   # X, W
exp_study "street_540p_30 street_540p_bounce60" medium 16   # CLIPS, PRESET, RANGE
NS="${NS:-0 20}"
encode() {   # CLIP CONFIG QP OUT (exp_grid)
    local n=0
    [ "$2" = off ] || n="$2"
    echo "$X --preset $PRESET --threads 1 --qp $3 --psnr --gpu-me --gpu-me-backend c --gpu-me-split $n" \
         "--gpu-me-range $RANGE --gpu-me-stats -o $4.264 $D/$1.y4m"
}
# shellcheck disable=SC2086
exp_grid encode off $NS
PYTHONPATH="$TOP/results" python3 - "$W" "$CLIPS" "$NS" <<'PY'
import re, sys
from bdrate import bd_table, read_rd
w = sys.argv[1]
rd = read_rd(w + '/rd.csv')
ns = sys.argv[3].split()
print(bd_table(rd, sys.argv[2].split(), 'off', ns, lambda n: 'N = %s' % n))
print()
print('QP 27: 8x8 analyses skipped (P, B), x264 motion searches, integer + sub-pel ms')
print()
print('| clip | N | P skipped | B skipped | searches | ms |')
print('|---|---|---|---|---|---|')
for clip in sys.argv[2].split():
    for n in ['off'] + ns:
        log = open('%s/%s_%s_27.log' % (w, clip, n)).read()
        s = re.search(r'above 16x16\): P (\d+) of (\d+) \(.*\), B (\d+) of (\d+)', log)
        m = re.search(r'x264 motion searches (\d+), integer part ([\d.]+) ms .*sub-pel part ([\d.]+) ms', log)
        pct = lambda a, b: '%.1f%%' % (100. * int(a) / max(int(b), 1))
        print('| %s | %s | %s | %s | %s | %.1f + %.1f |' % (clip, n, pct(s.group(1), s.group(2)) if s else '-',
              pct(s.group(3), s.group(4)) if s else '-', m.group(1), float(m.group(2)), float(m.group(3))))
PY
