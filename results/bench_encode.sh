#!/bin/bash
# results/bench_encode.sh: whole-encoder benchmark, stock x264 against
# --gpu-me, side by side in one run (issue "x264 integration" targets).
#
#   results/bench_encode.sh OUT.csv
#
# Environment: X264 (binary, default build/device/x264/x264),
# CUDA_ME_TEST_DATA or DATA (decoded clips, default build/data), THREADS (16), PRESETS ("medium slow veryslow"), QPS ("22 27 32 37"),
# CLIPS ("street_1080p.y4m flower_720p.y4m"), CONFIGS (names below).
#
# Every configuration runs at every QP on every clip; rows: clip, preset,
# config, qp, fps, kb/s, PSNR-Y, SSIM (dB), and for --gpu-me the share of the
# encode time that analyse waited for GPU results.  BD-rates:
# results/tables.py table2 OUTDIR FILE.csv... (results/run.sh table2 runs the
# same configurations with repeats; this script stays for ad-hoc runs).

set -u
X264_TREE=device/x264
# shellcheck source=SCRIPTDIR/../tests/lib.sh
. "$(dirname "$0")/../tests/lib.sh"
D="${DATA:-$D}"
THREADS="${THREADS:-16}"
PRESETS="${PRESETS:-medium slow veryslow}"
QPS="${QPS:-22 27 32 37}"
CLIPS="${CLIPS:-street_1080p.y4m flower_720p.y4m}"
CONFIGS="${CONFIGS:-stock stock_mvt64 gpu_cand64 gpu_repl64 esa64}"
out="${1:?usage: bench_encode.sh OUT.csv}"
W="$(mktemp -d)"
ENC_TIMEOUT="${ENC_TIMEOUT:-3600}"

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

for cfg in $CONFIGS; do args_of "$cfg" > /dev/null || exit 2; done
echo "clip,preset,config,qp,threads,fps,kbps,psnr_y,ssim_db,gpu_wait_pct,command" > "$out"
for clip in $CLIPS; do
    [ -s "$D/$clip" ] || { fail "missing $D/$clip" >&2; continue; }
    for preset in $PRESETS; do
        for cfg in $CONFIGS; do
            # esa is the slow reference point: medium only
            [ "$cfg" = esa64 ] && [ "$preset" != medium ] && continue
            for qp in $QPS; do
                args="--preset $preset --qp $qp --threads $THREADS --psnr --ssim $(args_of "$cfg")"
                # shellcheck disable=SC2086
                if ! ENC_DUMP=0 enc "$X264" o "$clip" $args; then
                    { fail "x264 $args: exit $rc"; tail -3 "$W/o.log"; } >&2; continue
                fi
                npass=$((npass+1))   # the row below is the verdict's line
                echo "$clip,$preset,$cfg,$qp,$THREADS,$(x264_log_stats "$W/o.log"),x264 $args" | tee -a "$out"
            done
        done
    done
done
rm -rf "$W"
summary bench_encode "$out" >&2
