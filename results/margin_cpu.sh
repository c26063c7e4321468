#!/bin/bash
# results/margin_cpu.sh [WORKDIR]: issue 10's 2160p loss, on the CPU.  The
# developer-only X264_GPU_ME_MARGIN=N (patches/experiments/0005, built by
# ./build.sh experiment) keeps a GPU vector only where its integer cost beats
# the predictor's by more than N lambdas.  C backend (what the GPU computes,
# bit for bit), foreman and mobile CIF as they are and scaled x2 (bicubic, as
# the 2160p street clip is made), preset medium, 4 frame threads, every frame
# searched (X264_GPU_ME_WARMUP=1), --gpu-me-range 16, QP 22 27 32 37, 30
# frames.  Configurations: x264's own search with --gpu-me's choices (the
# warm-up past the end), margins 0 (the default), 4 and 16.  Prints
# BD-rates (PSNR-Y) against x264's own search, and how many searches were
# given a GPU vector; results/margin_cpu.md.  About 10 minutes on 2 cores.
set -u
# shellcheck disable=SC1091  # x264_log_stats, exp_setup
. "$(dirname "$0")/../tests/lib.sh"   # TOP, B, D
exp_setup margin_cpu "${1:-}"   # X, W
for c in foreman_cif mobile_cif; do
    [ -s "$D/$c.y4m" ] || { echo "no $D/$c.y4m: run tests/run.sh once (it decodes the clips)"; exit 1; }
    [ -s "$W/${c}_x2.y4m" ] || ffmpeg -nostdin -loglevel error -y -i "$D/$c.y4m" \
        -vf scale=iw*2:ih*2:flags=bicubic -frames:v 30 -pix_fmt yuv420p "$W/${c}_x2.y4m" || exit 1
done
CLIPS="foreman_cif foreman_cif_x2 mobile_cif mobile_cif_x2"
CFGS="own m0 m4 m16"
for c in $CLIPS; do
    in="$W/$c.y4m"; case $c in *_x2) ;; *) in="$D/$c.y4m" ;; esac
    for q in 22 27 32 37; do
        for cfg in $CFGS; do
            case $cfg in own) e="X264_GPU_ME_WARMUP=100000" ;; *) e="X264_GPU_ME_WARMUP=1 X264_GPU_ME_MARGIN=${cfg#m}" ;; esac
            echo "env $e $X --threads 4 --qp $q --frames 30 --psnr --gpu-me --gpu-me-backend c --gpu-me-range 16 --gpu-me-stats" \
                 "-o $W/${c}_${cfg}_$q.264 $in > $W/${c}_${cfg}_$q.log 2>&1"
        done
    done
done | xargs -P "$(nproc)" -I{} bash -c {}
for c in $CLIPS; do
    for cfg in $CFGS; do
        for q in 22 27 32 37; do
            g="$(sed -n 's/.*searches given a GPU vector \([0-9]*\),.*/\1/p' "$W/${c}_${cfg}_$q.log")"
            echo "$c,$cfg,$(x264_log_stats "$W/${c}_${cfg}_$q.log" kbps psnr_y),${g:-0}"
        done
    done
done > "$W/rd.csv"
python3 - "$W/rd.csv" "$TOP/results" "$CLIPS" <<'EOF'
import csv, sys
sys.path.insert(0, sys.argv[2])
from bdrate import bdrate
rd, given = {}, {}
for clip, cfg, kbps, psnr, g in csv.reader(open(sys.argv[1])):
    rd.setdefault((clip, cfg), []).append((float(kbps), float(psnr)))
    given[(clip, cfg)] = given.get((clip, cfg), 0) + int(g)
print('| clip | margin 0 (default) vs own | margin 4 vs own | margin 16 vs own | searches given a GPU vector, margins 0 / 4 / 16 |')
print('|---|---|---|---|---|')
for clip in sys.argv[3].split():
    own = rd[(clip, 'own')]
    print('| %s | %+.2f%% | %+.2f%% | %+.2f%% | %d / %d / %d |' % (
        clip, bdrate(own, rd[(clip, 'm0')]), bdrate(own, rd[(clip, 'm4')]), bdrate(own, rd[(clip, 'm16')]),
        given[(clip, 'm0')], given[(clip, 'm4')], given[(clip, 'm16')]))
EOF
