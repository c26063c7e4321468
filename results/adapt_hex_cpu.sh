#!/bin/bash
# results/adapt_hex_cpu.sh [WORKDIR]: issue 12, veryslow's integer search:
# adaptive mode's fallback (where one of x264's predictors beat the GPU's
# vectors) as a hexagon search instead of the preset's umh
# (--gpu-me-fallback hex, patches/0026; until the seventeenth session the
# experiment X264_GPU_ME_ADAPT_HEX=1), against --gpu-me's default (me).  C backend (the GPU's results
# bit for bit), street 540p, 30 frames, --gpu-me-range 16, --gpu-me-split
# 10 (auto's choice at 1080p), 1 thread per encode, QP 22 27 32 37 (CLIPS,
# PRESET, RANGE change them).  Prints BD-rates (PSNR-Y) and, at QP 27,
# x264's motion searches (count, integer + sub-pel ms: the C backend's own
# search runs on the same core, so the encode's fps says nothing here).
# Needs the clips of results/subpel_shadow_cpu.sh.  About 30 minutes on 2
# cores at veryslow (40 with a CI run beside it).
set -u
# shellcheck disable=SC1091  # x264_log_stats, exp_setup
. "$(dirname "$0")/../tests/lib.sh"   # TOP, B, D
exp_setup adapt_hex_cpu "${1:-}"   # X, W
exp_study street_540p_30 veryslow 16   # CLIPS, PRESET, RANGE
encode() {   # CLIP CONFIG QP OUT (exp_grid)
    local a=""
    [ "$2" = hex ] && a="--gpu-me-fallback hex"
    echo "$X $a --preset $PRESET --threads 1 --qp $3 --psnr --gpu-me --gpu-me-backend c --gpu-me-split 10" \
         "--gpu-me-range $RANGE --gpu-me-stats -o $4.264 $D/$1.y4m"
}
exp_grid encode off hex
PYTHONPATH="$TOP/results" python3 - "$W" "$CLIPS" <<'PY'
import re, sys
from bdrate import bd_table, read_rd
w = sys.argv[1]
rd = read_rd(w + '/rd.csv')
print(bd_table(rd, sys.argv[2].split(), 'off', ['hex'], lambda n: 'hexagon fallback'))
print()
print('QP 27: x264 motion searches, integer + sub-pel ms; searches ending within 1/2 pel of a GPU vector')
print()
print('| clip | config | searches | ms | kept GPU vector |')
print('|---|---|---|---|---|')
for clip in sys.argv[2].split():
    for n in ['off', 'hex']:
        log = open('%s/%s_%s_27.log' % (w, clip, n)).read()
        m = re.search(r'x264 motion searches (\d+), integer part ([\d.]+) ms .*sub-pel part ([\d.]+) ms', log)
        k = re.search(r'searches given a GPU vector (\d+), ended within 1/2 pel of it (\d+) \(([\d.]+)%\)', log)
        print('| %s | %s | %s | %.1f + %.1f | %s%% |' % (clip, n, m.group(1), float(m.group(2)), float(m.group(3)),
              k.group(3) if k else '-'))
PY
