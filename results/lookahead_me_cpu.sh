#!/bin/bash
# results/lookahead_me_cpu.sh [WORKDIR]: issue 12, the lookahead's lowres
# search method (patches/experiments/0007, X264_LOOKAHEAD_ME=dia|hex|umh,
# built by ./build.sh experiment).  With --gpu-me the frame threads wait
# for x264's lookahead at slower and veryslow (results/subpel_prune.md,
# "Fourteenth session"); that search is 27-30% of the lookahead's time
# (this script's perf table), its sub-pel refinement 34-37%.  Stock
# x264 (no --gpu-me: the lookahead is the same code either way), street
# 1080p, 54 frames, 4 threads (one lookahead thread), QP 22 27 32 37
# (CLIPS, PRESET change them).  Prints BD-rates (PSNR-Y) against hex
# (x264's own choice at --subme 2 and above) and, at QP 27, the lookahead
# thread's share of the encode's CPU samples (perf record -e cpu-clock:u,
# per thread; the lookahead thread is the one whose samples have the most
# slicetype_mb_cost).  Needs perf and build/data/street_1080p_54.y4m (the
# clip's first 54 frames: tests/tools/decode_cv2.py).  About 10 minutes
# per preset on 2 cores.
set -u
# shellcheck disable=SC1091  # x264_log_stats, exp_setup, exp_study, exp_grid
. "$(dirname "$0")/../tests/lib.sh"   # TOP, B, D
exp_setup lookahead_me_cpu "${1:-}"   # X, W
exp_study street_1080p_54 veryslow 0   # CLIPS, PRESET (RANGE unused)
W="$W/$PRESET"
mkdir -p "$W" || exit 1
encode() {   # CLIP CONFIG QP OUT (exp_grid)
    echo "env X264_LOOKAHEAD_ME=$2 $X --preset $PRESET --threads 4 --qp $3 --psnr -o $4.264 $D/$1.y4m"
}
CONFIGS="hex dia umh"
# shellcheck disable=SC2086  # the configurations' words
exp_grid encode $CONFIGS
for c in $CLIPS; do for cfg in $CONFIGS; do
    p="$W/${c}_${cfg}_27.perf"
    [ -s "$p.txt" ] && continue
    X264_LOOKAHEAD_ME=$cfg perf record -q -e cpu-clock:u -F 1000 -o "$p.data" \
        "$X" --preset "$PRESET" --threads 4 --qp 27 -o /dev/null "$D/$c.y4m" > /dev/null 2>&1
    perf report -i "$p.data" --stdio --sort pid,sym -n 2> /dev/null | grep -E '^ +[0-9]' > "$p.txt"
    rm -f "$p.data"
done; done
PYTHONPATH="$TOP/results" python3 - "$W" "$CLIPS" "$CONFIGS" <<'PY'
import collections, re, sys
from bdrate import bd_table, read_rd
w, clips, cfgs = sys.argv[1], sys.argv[2].split(), sys.argv[3].split()
rd = read_rd(w + '/rd.csv')
print(bd_table(rd, clips, 'hex', cfgs[1:], lambda n: 'lookahead ' + n))
print()
print('QP 27: CPU samples (1 ms each, all threads), the lookahead thread\'s, and its lowres search\'s')
print('(me_search_ref and the 8x8 SADs: integer; refine_subpel, pixel_avg2, get_ref: sub-pel)')
print()
print('| clip | lookahead method | all | lookahead thread | of which integer search | sub-pel |')
print('|---|---|---|---|---|---|')
for clip in clips:
    for n in cfgs:
        per = collections.defaultdict(collections.Counter)
        for line in open('%s/%s_%s_27.perf.txt' % (w, clip, n)):
            f = line.split()
            per[f[2]][f[-1]] += int(f[1])
        tid = max(per, key=lambda t: per[t]['slicetype_mb_cost'])
        la = per[tid]
        integer = sum(v for s, v in la.items() if re.search(r'me_search_ref|pixel_sad', s))
        sub = sum(v for s, v in la.items() if re.search(r'refine_subpel|pixel_avg2|get_ref', s))
        print('| %s | %s | %d | %d | %d | %d |' % (clip, n, sum(sum(c.values()) for c in per.values()),
              sum(la.values()), integer, sub))
PY
