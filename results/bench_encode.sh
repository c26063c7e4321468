#!/bin/bash
# results/bench_encode.sh: whole-encoder benchmark, stock x264 against
# --gpu-me, side by side in one run (issue "x264 integration" targets).
#
#   results/bench_encode.sh OUT.csv
#
# Environment: X264 (binary, default build/device/x264/x264), DATA (decoded
# clips), THREADS (16), PRESETS ("medium slow veryslow"), QPS ("22 27 32 37"),
# CLIPS ("street_1080p.y4m flower_720p.y4m"), CONFIGS (names below).
#
# Every configuration runs at every QP on every clip; rows: clip, preset,
# config, qp, fps, kb/s, PSNR-Y, SSIM (dB), and for --gpu-me the share of the
# encode time that analyse waited for GPU results.  BD-rates:
# results/encode_table.py.

set -u
TOP="$(cd "$(dirname "$0")/.." && pwd)"
X264="${X264:-$TOP/build/device/x264/x264}"
DATA="${DATA:-$TOP/build/data}"
THREADS="${THREADS:-16}"
PRESETS="${PRESETS:-medium slow veryslow}"
QPS="${QPS:-22 27 32 37}"
CLIPS="${CLIPS:-street_1080p.y4m flower_720p.y4m}"
CONFIGS="${CONFIGS:-stock stock_mvt64 gpu_cand64 gpu_repl64 esa64}"
out="${1:?usage: bench_encode.sh OUT.csv}"
tmp="$(mktemp -d)"

args_of() {
    case "$1" in
        stock)        echo "" ;;
        stock_mvt64)  echo "--mvrange-thread 64" ;;
        esa64)        echo "--me esa --merange 64" ;;
        umh32)        echo "--me umh --merange 32" ;;
        gpu_cand64)   echo "--gpu-me --gpu-me-backend cuda --gpu-me-range 64 --gpu-me-mode cand --gpu-me-stats" ;;
        gpu_repl64)   echo "--gpu-me --gpu-me-backend cuda --merange 64 --gpu-me-mode replace --gpu-me-stats" ;;
        gpu_cand32)   echo "--gpu-me --gpu-me-backend cuda --gpu-me-range 32 --gpu-me-mode cand --gpu-me-stats" ;;
        gpu_repl32)   echo "--gpu-me --gpu-me-backend cuda --merange 32 --gpu-me-mode replace --gpu-me-stats" ;;
        gpu_repl16)   echo "--gpu-me --gpu-me-backend cuda --merange 16 --gpu-me-mode replace --gpu-me-stats" ;;
        *) echo "unknown config $1" >&2; exit 2 ;;
    esac
}

echo "clip,preset,config,qp,threads,fps,kbps,psnr_y,ssim_db,gpu_wait_pct,command" > "$out"
for clip in $CLIPS; do
    [ -s "$DATA/$clip" ] || { echo "missing $DATA/$clip" >&2; continue; }
    for preset in $PRESETS; do
        for cfg in $CONFIGS; do
            # esa is the slow reference point: medium only
            [ "$cfg" = esa64 ] && [ "$preset" != medium ] && continue
            for qp in $QPS; do
                cmd="x264 --preset $preset --qp $qp --threads $THREADS --psnr --ssim $(args_of "$cfg")"
                # shellcheck disable=SC2046
                "$X264" --preset "$preset" --qp "$qp" --threads "$THREADS" --psnr --ssim $(args_of "$cfg") \
                    --no-progress -o "$tmp/o.264" "$DATA/$clip" > "$tmp/log" 2>&1 || { echo "FAILED: $cmd" >&2; tail -3 "$tmp/log" >&2; continue; }
                fps=$(sed -n 's/^encoded [0-9]* frames, \([0-9.]*\) fps.*/\1/p' "$tmp/log")
                kbps=$(sed -n 's/^encoded [0-9]* frames, [0-9.]* fps, \([0-9.]*\) kb\/s.*/\1/p' "$tmp/log")
                psnr=$(sed -n 's/.*PSNR Mean Y:\([0-9.]*\) .*/\1/p' "$tmp/log" | tail -1)
                ssim=$(sed -n 's/.*SSIM Mean Y:[0-9.]* (\([0-9.]*\)db).*/\1/p' "$tmp/log" | tail -1)
                wait=$(sed -n 's/.*gpu-me: analyse waited .*(\([0-9.]*\)% of .*/\1/p' "$tmp/log")
                echo "$clip,$preset,$cfg,$qp,$THREADS,$fps,$kbps,$psnr,$ssim,${wait},$cmd" | tee -a "$out"
            done
        done
    done
done
rm -rf "$tmp"
