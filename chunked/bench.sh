#!/bin/bash
# chunked/bench.sh: what chunking buys and costs on a GPU host.
#
#   chunked/bench.sh [OUTDIR]          (default build/chunked-bench)
#
# One clip (CLIP: a y4m of at least 1,000 frames of 1080p), at every QP of
# QPS, encoded as:
#   single_gpu      one patched x264 $GPU_ARGS over the whole clip, MANY threads
#   single_stock    one stock x264 over the whole clip, MANY threads
#   chunked_gpu_L   the driver, chunks of L (LENGTHS: 2s 5s 10s), WORKERS
#                   chunks at once of THREADS threads each, patched x264
#                   $GPU_ARGS, fixed cuts (the clip has no scene cuts to find)
#   chunked_stock_L the same with stock x264
# then REPEATS - 1 more times at SPEED_QP, the configurations interleaved,
# for the speed (each repeat's streams must equal the first's, byte for byte).
# Results: OUTDIR/rd.csv (config, qp, repeat, kb/s, PSNR-Y, wall clock, frames, fps,
# the encodes' wall clock without the driver's planning and joining, and
# CUDA's start-up and exit that the encodes waited for: x264's open_wait_ms
# + close_ms, summed over the chunks)
# and OUTDIR/table.md: per configuration the aggregate fps at SPEED_QP
# (frames over the wall clock, planning and joining included; medians over
# the repeats, as the other times) and BD-rate
# against single_gpu and against single_stock over the QPs: the BD-rate cost
# of chunking is chunked_gpu_L against single_gpu, and chunked_stock_L
# against single_stock.
#
# GPU_ARGS defaults to --gpu-me --gpu-me-backend cuda: plain --gpu-me
# leaves encodes under 400 Mpixels to x264's own search (a 5 s chunk of
# 1080p at 25 fps is 259 Mpixels), which is a result in itself: run
# GPU_ARGS=--gpu-me once to see it (the summary lists such chunks).
#
# Tested in its QUICK form (C backend, CIF, a few frames; tests/chunked.sh),
# with the stock configurations on a 1,080-frame 1080p clip, and on a GPU
# host at QP 27 with a given CLIP (chunked/README.md):
#   QUICK=1 chunked/bench.sh /tmp/bench
#   CLIP=long.y4m CONFIGS="single_stock chunked_stock" MANY=2 WORKERS=2 chunked/bench.sh /tmp/bench
# On the GPU host Dask comes from carried wheels (it reaches no package
# registry; wheels for its python, 3.12 on the H100 hosts): here,
#   build/chunked-venv/bin/pip download -d build/chunked-wheels --only-binary=:all: \
#       --python-version 3.12 -r chunked/requirements.txt
# then carry build/chunked-wheels and set WHEELS=build/chunked-wheels there.
# UNTESTED there: making the clip without CLIP (numpy and cv2, as
# results/run.sh).
#
# Environment (defaults in brackets): X264 [build/device/x264/x264], STOCK
# [build/device/x264-stock/x264], CLIP [made: street 1080p played forward and
# backward, FRAMES frames], FRAMES [1080], PRESET [medium], QPS [22 27 32
# 37], SPEED_QP [27], REPEATS [3; QUICK 2], LENGTHS [2s 5s 10s], WORKERS [4], THREADS [MANY /
# WORKERS], MANY [nproc], CONFIGS [single_gpu single_stock chunked_gpu
# chunked_stock], GPU_ARGS, PY [build/chunked-venv/bin/python], WHEELS,
# MPS [0; 1: a CUDA MPS daemon of the bench's own, its pipe and log in
# OUTDIR, for the whole run, so that the workers' encodes share the GPU at
# once (README, "Many encodes"); the table says so].

set -u
TOP="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$(mkdir -p "${1:-$TOP/build/chunked-bench}" && cd "${1:-$TOP/build/chunked-bench}" && pwd)" || exit 1
if [ "${QUICK:-0}" = 1 ]; then
    X264="${X264:-$TOP/build/x264/x264}"; STOCK="${STOCK:-$TOP/build/x264-stock/x264}"
    FRAMES="${FRAMES:-60}"; LENGTHS="${LENGTHS:-20 30}"; PRESET="${PRESET:-veryfast}"
    WORKERS="${WORKERS:-2}"; THREADS="${THREADS:-1}"; REPEATS="${REPEATS:-2}"
    GPU_ARGS="${GPU_ARGS:---gpu-me --gpu-me-backend c --gpu-me-range 8}"
else
    X264="${X264:-$TOP/build/device/x264/x264}"; STOCK="${STOCK:-$TOP/build/device/x264-stock/x264}"
    FRAMES="${FRAMES:-1080}"; LENGTHS="${LENGTHS:-2s 5s 10s}"; PRESET="${PRESET:-medium}"
    GPU_ARGS="${GPU_ARGS:---gpu-me --gpu-me-backend cuda}"
fi
MANY="${MANY:-$(nproc)}"
WORKERS="${WORKERS:-4}"
THREADS="${THREADS:-$(( MANY / WORKERS > 0 ? MANY / WORKERS : 1 ))}"
QPS="${QPS:-22 27 32 37}"
SPEED_QP="${SPEED_QP:-27}"
REPEATS="${REPEATS:-3}"
CONFIGS="${CONFIGS:-single_gpu single_stock chunked_gpu chunked_stock}"
PY="${PY:-$TOP/build/chunked-venv/bin/python}"
export PYTHONPATH="$TOP"
# shellcheck source=../tests/lib.sh
. "$TOP/tests/lib.sh"   # x264_log_stats

die() { echo "bench: $*" >&2; exit 1; }
for b in "$X264" "$STOCK"; do [ -x "$b" ] || die "no x264 at $b"; done

# Dask: present, or installed from carried wheels (UNTESTED on the GPU host)
if ! "$PY" -c "import distributed" 2>/dev/null; then
    [ -n "${WHEELS:-}" ] || die "$PY has no Dask: give WHEELS=DIR of wheels (see the header)"
    python3 -m venv "$TOP/build/chunked-venv" && PY="$TOP/build/chunked-venv/bin/python" &&
        "$PY" -m pip install -q --no-index -f "$WHEELS" -r "$TOP/chunked/requirements.txt" || die "installing Dask failed"
fi

# MPS=1: the daemon for the whole run (workers inherit its pipe), stopped
# at exit, also when the bench fails
if [ "${MPS:-0}" = 1 ]; then
    command -v nvidia-cuda-mps-control > /dev/null 2>&1 || die "MPS=1: no nvidia-cuda-mps-control here (the NVIDIA driver's utilities)"
    export CUDA_MPS_PIPE_DIRECTORY="$OUT/mps" CUDA_MPS_LOG_DIRECTORY="$OUT/mps-log"
    mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY" || die "MPS=1: cannot make $OUT/mps"
    nvidia-cuda-mps-control -d || die "MPS=1: the MPS daemon did not start (log: $CUDA_MPS_LOG_DIRECTORY)"
    trap 'echo quit | nvidia-cuda-mps-control' EXIT
    echo "bench: CUDA MPS daemon started (pipe $CUDA_MPS_PIPE_DIRECTORY)"
fi

# the clip (UNTESTED on the GPU host: results/run.sh's way, numpy and cv2)
if [ -z "${CLIP:-}" ]; then
    if [ "${QUICK:-0}" = 1 ]; then
        CLIP="$OUT/foreman_cif.y4m"
        [ -s "$CLIP" ] || ffmpeg -nostdin -loglevel error -y -i "$TOP/tests/data/BA1_FT_C.264" \
            -frames:v "$FRAMES" -pix_fmt yuv420p "$CLIP" || die "could not make $CLIP"
    else
        CLIP="$OUT/street_1080p_$FRAMES.y4m"
        if [ ! -s "$CLIP" ]; then
            python3 "$TOP/tests/tools/decode_cv2.py" "$TOP/tests/data/VID_1920x1080_cabac_temporal_direct.264" \
                "$OUT/street_src.y4m" 60 && python3 "$TOP/results/y4m_clip.py" "$OUT/street_src.y4m" "$CLIP" "$FRAMES" ||
                die "could not make $CLIP (give CLIP=a 1080p y4m of $FRAMES frames or more)"
        fi
    fi
fi
[ -s "$CLIP" ] || die "no clip $CLIP"

echo "config,qp,repeat,kbps,psnr_y,wall_s,frames,fps,encode_s,startup_s" > "$OUT/rd.csv"
R=1   # the repeat under way
run_file() {   # CONFIG QP: OUT/CONFIG_QP in the first run, OUT/CONFIG_QP_rR in repeat R
    echo "$OUT/$1_$2$([ "$R" = 1 ] || echo "_r$R")"
}
row() {   # CONFIG QP KBPS PSNR WALL FRAMES ENCODE_S STARTUP_S
    echo "$1,$2,$R,$3,$4,$5,$6,$(awk -v f="$6" -v w="$5" 'BEGIN { printf "%.2f", (w > 0 ? f / w : 0) }'),$7,$8" >> "$OUT/rd.csv"
    # a repeat writes the first run's bytes, or the bench says so
    if [ "$R" -gt 1 ] && ! cmp -s "$OUT/$1_$2.264" "$(run_file "$1" "$2").264"; then
        echo "  $1 qp $2: repeat $R wrote other bytes than the first run"; echo "$1,$2,$R" >> "$OUT/differ.csv"
    fi
}

single() {   # NAME BIN QP ARGS...
    local name="$1" bin="$2" qp="$3" t0 t1 stats wall f
    shift 3
    f="$(run_file "$name" "$qp")"
    t0=$(date +%s.%N)
    "$bin" --preset "$PRESET" --qp "$qp" --threads "$MANY" --psnr --no-progress "$@" \
        -o "$f.264" "$CLIP" > "$f.log" 2>&1 || { echo "  $name qp $qp failed"; return; }
    t1=$(date +%s.%N)
    stats=$(x264_log_stats "$f.log" frames kbps psnr_y)
    wall="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')"
    row "$name" "$qp" "$(cut -d, -f2 <<< "$stats")" "$(cut -d, -f3 <<< "$stats")" "$wall" "$(cut -d, -f1 <<< "$stats")" \
        "$wall" "$(awk -v o="$(kvn "$f.log" open_wait_ms)" -v c="$(kvn "$f.log" close_ms)" \
                   'BEGIN { printf "%.3f", (o + c) / 1000 }')"
}

chunked() {   # NAME BIN LENGTH QP ARGS...
    local name="$1" bin="$2" len="$3" qp="$4" work s f
    shift 4
    f="$(run_file "$name" "$qp")"
    work="$OUT/work/${f##*/}"
    rm -rf "$work"   # a fresh run each time: reused chunks would flatter the wall clock
    # shellcheck disable=SC2086
    "$PY" -m chunked --x264 "$bin" --workers "$WORKERS" --threads "$THREADS" --preset "$PRESET" --qp "$qp" \
        --chunk "$len" --cuts fixed --no-progress --workdir "$work" -o "$f.264" "$CLIP" \
        -- --psnr "$@" > "$f.log" 2>&1 || { echo "  $name qp $qp failed"; tail -3 "$f.log"; return; }
    s="$work/summary.json"
    # shellcheck disable=SC2046  # six numbers, six arguments
    row "$name" "$qp" $("$PY" -c "import json,sys; s=json.load(open(sys.argv[1])); w=s['workers'].values()
print(s['kbps'], s['psnr_y'], s['wall_s'], s['frames'], s['encode_wall_s'],
      '%.3f' % (sum(x['open_wait_ms'] + x['close_ms'] for x in w) / 1000))" "$s")
}

run() {   # CONFIG QP
    local c="$1" qp="$2" l
    echo "--- $c, qp $qp$([ "$R" = 1 ] || echo ", repeat $R")"
    # shellcheck disable=SC2086  # GPU_ARGS splits into options
    case "$c" in
        single_gpu)    single single_gpu "$X264" "$qp" $GPU_ARGS --gpu-me-stats ;;
        single_stock)  single single_stock "$STOCK" "$qp" ;;
        chunked_gpu)   for l in $LENGTHS; do chunked "chunked_gpu_$l" "$X264" "$l" "$qp" $GPU_ARGS; done ;;
        chunked_stock) for l in $LENGTHS; do chunked "chunked_stock_$l" "$STOCK" "$l" "$qp"; done ;;
        *) die "unknown configuration $c" ;;
    esac
}
rm -f "$OUT/differ.csv"
for qp in $QPS; do
    for c in $CONFIGS; do run "$c" "$qp"; done
done
case " $QPS " in *" $SPEED_QP "*) ;; *) [ "$REPEATS" -le 1 ] || die "SPEED_QP $SPEED_QP is not among QPS ($QPS)" ;; esac
for R in $(seq 2 "$REPEATS"); do
    for c in $CONFIGS; do run "$c" "$SPEED_QP"; done
done

"$PY" - "$OUT/rd.csv" "$SPEED_QP" "$TOP/results" "${MPS:-0}" > "$OUT/table.md" <<'EOF'
import csv, sys
sys.path.insert(0, sys.argv[3])
from bdrate import bdrate
import statistics
rows = list(csv.DictReader(open(sys.argv[1])))
configs = list(dict.fromkeys(r["config"] for r in rows))
rd = {c: [(float(r["kbps"]), float(r["psnr_y"])) for r in rows if r["config"] == c and r["repeat"] == "1"] for c in configs}
reps = max(int(r["repeat"]) for r in rows) if rows else 1
def bd(anchor, c):
    if anchor not in rd or len(rd[anchor]) < 4 or len(rd[c]) < 4:
        return "-"
    return "%+.2f%%" % bdrate(sorted(rd[anchor]), sorted(rd[c]))
print("| configuration | fps at QP %s | wall clock (s) | encoding (s) | CUDA start-up and exit waited (s, all chunks) "
      "| BD-rate vs single_gpu | BD-rate vs single_stock |" % sys.argv[2])
print("|---|---|---|---|---|---|---|")
def med(speed, k):
    return "%.2f" % statistics.median(float(r[k]) for r in speed) if speed else "-"
for c in configs:
    speed = [r for r in rows if r["config"] == c and r["qp"] == sys.argv[2]]
    print("| %s | %s | %s | %s | %s | %s | %s |" % (c, med(speed, "fps"), med(speed, "wall_s"), med(speed, "encode_s"),
                                                     med(speed, "startup_s"), bd("single_gpu", c), bd("single_stock", c)))
if reps > 1:
    print("\nTimes: medians of %d runs at QP %s, the configurations interleaved." % (reps, sys.argv[2]))
if sys.argv[4] == "1":
    print("\nCUDA MPS: on (MPS=1: the encodes' kernels share the GPU at once).")
EOF
cat "$OUT/table.md"
[ ! -s "$OUT/differ.csv" ] || die "$(wc -l < "$OUT/differ.csv") repeat(s) wrote other bytes than the first run: $OUT/differ.csv"
