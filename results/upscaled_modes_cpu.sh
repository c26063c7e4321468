#!/bin/bash
# results/upscaled_modes_cpu.sh [WORKDIR]: --gpu-me-mode replace and adaptive
# against stock x264 on upscaled content, on the C backend (what the GPU
# computes, bit for bit), so on any machine: foreman CIF as it is, foreman
# and mobile CIF scaled x2 (bicubic, as the 2160p street clip is made),
# preset medium, 1 thread, --gpu-me-range 16, QP 22 27 32 37, 30 frames
# (mobile has 20).  Prints BD-rates (PSNR-Y); results/upscaled_modes_cpu.md.
# About 10 minutes on 2 cores.  THREADS=N: x264 --threads N [1] (frame
# threads, so x264's frame-thread MV limit, as at 2160p with 16).
set -u
# shellcheck disable=SC1091  # x264_log_stats
. "$(dirname "$0")/../tests/lib.sh"   # TOP, D, X264 (build/x264/x264), x264_log_stats
W="${1:-$B/upscaled_modes}"
THREADS="${THREADS:-1}"
mkdir -p "$W" || exit 1
for c in foreman_cif mobile_cif; do
    [ -s "$W/${c}_x2.y4m" ] || ffmpeg -nostdin -loglevel error -y -i "$D/$c.y4m" \
        -vf scale=iw*2:ih*2:flags=bicubic -frames:v 30 -pix_fmt yuv420p "$W/${c}_x2.y4m" || exit 1
done
CLIPS="foreman_cif_x2 mobile_cif_x2 foreman_cif"
for c in $CLIPS; do
    in="$W/$c.y4m"; [ "$c" = foreman_cif ] && in="$D/foreman_cif.y4m"
    for q in 22 27 32 37; do
        for cfg in stock replace adaptive; do
            a=""; [ "$cfg" != stock ] && a="--gpu-me --gpu-me-backend c --gpu-me-range 16 --gpu-me-mode $cfg"
            echo "$X264 --threads $THREADS --qp $q --frames 30 --psnr $a -o $W/${c}_${cfg}_$q.264 $in > $W/${c}_${cfg}_$q.log 2>&1"
        done
    done
done | xargs -P "$(nproc)" -I{} bash -c {}
# kbps and PSNR-Y of each encode from x264's summary line (x264_log_stats;
# the per-frame-type lines before it carry a "PSNR Mean Y:" of their own)
for c in $CLIPS; do
    for cfg in stock replace adaptive; do
        for q in 22 27 32 37; do
            echo "$c,$cfg,$(x264_log_stats "$W/${c}_${cfg}_$q.log" kbps psnr_y)"
        done
    done
done > "$W/rd.csv"
python3 - "$W/rd.csv" "$TOP/results" <<'EOF'
import csv, sys
sys.path.insert(0, sys.argv[2])
from bdrate import bdrate
rd = {}
for clip, cfg, kbps, psnr in csv.reader(open(sys.argv[1])):
    rd.setdefault((clip, cfg), []).append((float(kbps), float(psnr)))
print('| clip | replace vs stock | adaptive vs stock | adaptive vs replace |')
print('|---|---|---|---|')
for clip in ('foreman_cif', 'foreman_cif_x2', 'mobile_cif_x2'):
    st, rp, ad = rd[(clip, 'stock')], rd[(clip, 'replace')], rd[(clip, 'adaptive')]
    print('| %s | %+.2f%% | %+.2f%% | %+.2f%% |' % (clip, bdrate(st, rp), bdrate(st, ad), bdrate(rp, ad)))
EOF
