#!/bin/bash
# results/run.sh: regenerates results/current/ at one commit, on the GPU
# host, with the binaries ./build.sh device made: tables (CSV and
# Markdown), plots and machine.txt.
#
#   results/run.sh [OUTDIR] [SECTION...]
#
#   OUTDIR    default results/current; a section overwrites its own files,
#             timing.csv and machine.txt gain a block per invocation
#   SECTIONS  default: startup table1 table2 plots
#     startup    what CUDA's start-up adds: a 2-frame 1080p and a 100-frame
#                720p encode, stock / --gpu-me / the GPU forced
#                (--gpu-me-range 32), interleaved repeats, medians
#     table1     the paper's speed-up table: bench_me per frame size and
#                range against x264's own search inside the encoder
#     table2     the whole encoder: stock, stock --mvrange-thread 64,
#                --mvrange-thread auto, --gpu-me; BD-rate over QP
#                22/27/32/37, fps and wall clock (interleaved repeats)
#     plots      speedup_vs_resolution.png, rd_*.png, fps_vs_bdrate.png
#     corpus     Table 2 over the clips of CORPUS_DIR, several invocations
#     throughput N encodes x T threads at once (TP_NT), aggregate frames/s
#
# Every section has a time budget and the whole command one of
# TOTAL_BUDGET (555 s), so that one invocation ends within 9.5 minutes:
# past a budget the remaining encodes are skipped and listed as skipped in
# the CSVs and tables (an encode running at the deadline gets 20 s more,
# then is killed).  Each section writes its seconds to timing.csv.
#
# Dry run without a GPU (the C backend, QCIF/CIF, a few frames, 2 threads,
# no bench_me unless T1_BENCH_CSV=FILE gives a stored bench_me CSV):
#   QUICK=1 results/run.sh /tmp/out
#
# Environment (defaults in brackets):
#   X264        the patched x264 [build/device/x264/x264; QUICK: build/x264/x264]
#   STOCK       stock x264 [build/device/x264-stock/x264; QUICK:
#               build/x264-stock/x264, else X264 (without --gpu-me the
#               patched x264 writes stock's bytes)]
#   BENCH_ME    the kernel benchmark [build/bench/bench_me]
#   BACKEND     cuda, or c (the C reference: no GPU needed) [cuda; QUICK: c]
#   MANY        the thread count of the multi-threaded runs [16; QUICK: 2]
#   WORK        work folder [build/results-work]; concurrent runs need one each
#   T2_JOBS     table2's quality encodes at a time [CPUs / 4]
#   PYTHON      a python3 with numpy, cv2 (the clips) and matplotlib (plots)
#   CUDA_ME_COMMIT  the commit recorded where the host has no git
#   TOTAL_BUDGET STARTUP_BUDGET T1_BUDGET T2_BUDGET PLOTS_BUDGET  seconds
#               [555 40 170 330 15]
#   STARTUP_CLIPS "RES:FRAMES ..." [1080p:2 720p:100]   STARTUP_REPEATS [5]
#   T1_RES [1080p 2160p 720p CIF QCIF]  T1_RANGES [16 32]  T1_THREADS [1]
#   T1_FRAMES "RES:N ..." [QCIF:100 CIF:100 720p:30 1080p:24 2160p:12]
#   T2_CLIPS [1080p]  T2_PRESETS [medium slower]  T2_THREADS [MANY]
#   T2_FRAMES "RES:N ..." [1080p:216]  T2_QPS [22 27 32 37]  T2_SPEED_QP [27]
#   T2_REPEATS [3]  T2_CONFIGS [stock stock_mvt64 auto gpu]
#   TP_NT [16x1 4x4 8x2 2x8 1x16]  TP_CONFIGS [stock stock_mvt64 gpu]
#   TP_CLIPS [1080p]  TP_FRAMES [1080p:216]  TP_PRESETS [medium]
#   TP_MPS      1: the throughput section starts a CUDA MPS daemon of its
#               own (pipe and log in WORK) and stops it at the end, so that
#               the encodes' kernels share the GPU at once [0]
#   TP_APPEND   1: the throughput section adds its rows to OUTDIR's
#               (one table from several invocations, e.g. one preset or
#               N x T each; same binaries) instead of starting afresh [0]
#   Configurations: stock, stock_mvtN (stock --mvrange-thread N), auto
#   (patched --mvrange-thread auto, no GPU), gpu (patched --gpu-me), gpu_rN
#   (--gpu-me --gpu-me-range N: the GPU forced on); CONFIG%--opt=value adds
#   an x264 option, CONFIG@FILE runs CONFIG with another x264 binary.
#   Clips: QCIF (bus), CIF (foreman), 720p (flower), 1080p (street, played
#   forward and backward past its 54 frames), 2160p (street upscaled x2).
set -u
TOP="$(cd "$(dirname "$0")/.." && pwd)"
cd "$TOP" || exit 1
QUICK="${QUICK:-0}"
# shellcheck disable=SC2034  # X264_TREE: read by tests/lib.sh (X264's default)
if [ "$QUICK" = 1 ]; then X264_TREE=x264; else X264_TREE=device/x264; fi
W="${WORK:-$TOP/build/results-work}"
GIVEN_STOCK="${STOCK:-}"   # tests/lib.sh gives STOCK a default of its own
# shellcheck disable=SC1091  # enc (sets rc), x264_log_stats, B (build/), D (clips)
. "$TOP/tests/lib.sh"
export ENC_DUMP=0

RUN_CMD="results/run.sh $*"
ALL_SECTIONS="startup table1 table2 plots corpus throughput"
OUT="results/current"
if [ $# -gt 0 ] && ! echo " $ALL_SECTIONS " | grep -q " $1 "; then OUT="$1"; shift; fi
SECTIONS="${*:-startup table1 table2 plots}"
for s in $SECTIONS; do
    echo " $ALL_SECTIONS " | grep -q " $s " || { echo "results/run.sh: unknown section $s ($ALL_SECTIONS)" >&2; exit 2; }
done
mkdir -p "$OUT" "$W" || exit 1
OUT="$(cd "$OUT" && pwd)"

if [ "$QUICK" = 1 ]; then
    BACKEND="${BACKEND:-c}"; MANY="${MANY:-2}"
    STOCK="${GIVEN_STOCK:-$B/x264-stock/x264}"; [ -x "$STOCK" ] || STOCK="$X264"
else
    BACKEND="${BACKEND:-cuda}"; MANY="${MANY:-16}"
    STOCK="${GIVEN_STOCK:-$B/device/x264-stock/x264}"
fi
BENCH_ME="${BENCH_ME:-$B/bench/bench_me}"
NCPU="$(nproc 2>/dev/null || echo 2)"
TOTAL_BUDGET="${TOTAL_BUDGET:-555}"

# ------------------------------------------------------------ what runs
if [ "$QUICK" = 1 ]; then
    STARTUP_CLIPS="${STARTUP_CLIPS:-CIF:2 QCIF:8}"; STARTUP_REPEATS="${STARTUP_REPEATS:-2}"
    T1_RES="${T1_RES:-QCIF CIF}"; T1_FRAMES="${T1_FRAMES:-QCIF:8 CIF:6}"
    T2_CLIPS="${T2_CLIPS:-CIF}"; T2_PRESETS="${T2_PRESETS:-medium slower}"
    T2_FRAMES="${T2_FRAMES:-CIF:6}"; T2_REPEATS="${T2_REPEATS:-2}"
else
    STARTUP_CLIPS="${STARTUP_CLIPS:-1080p:2 720p:100}"; STARTUP_REPEATS="${STARTUP_REPEATS:-5}"
    # ordered by priority: what the budget cuts comes last
    T1_RES="${T1_RES:-1080p 2160p 720p CIF QCIF}"
    T1_FRAMES="${T1_FRAMES:-QCIF:100 CIF:100 720p:30 1080p:24 2160p:12}"
    # 216 frames of 1080p: over the 400 Mpixels below which plain --gpu-me
    # leaves an encode to x264 (CUDA's start-up would not pay)
    T2_CLIPS="${T2_CLIPS:-1080p}"; T2_PRESETS="${T2_PRESETS:-medium slower}"
    T2_FRAMES="${T2_FRAMES:-1080p:216}"; T2_REPEATS="${T2_REPEATS:-3}"
fi
T1_RANGES="${T1_RANGES:-16 32}"
T1_THREADS="${T1_THREADS:-1}"
T2_THREADS="${T2_THREADS:-$MANY}"
T2_QPS="${T2_QPS:-22 27 32 37}"
T2_SPEED_QP="${T2_SPEED_QP:-27}"
T2_CONFIGS="${T2_CONFIGS:-stock stock_mvt64 auto gpu}"
TP_NT="${TP_NT:-16x1 4x4 8x2 2x8 1x16}"; TP_CONFIGS="${TP_CONFIGS:-stock stock_mvt64 gpu}"
TP_CLIPS="${TP_CLIPS:-1080p}"; TP_PRESETS="${TP_PRESETS:-medium}"; TP_FRAMES="${TP_FRAMES:-1080p:216}"
TP_MPS="${TP_MPS:-0}"; TP_APPEND="${TP_APPEND:-0}"

# the clips: resolution -> name, source in tests/data, how it is made; any
# other name is a corpus clip, CORPUS_DIR/NAME.mp4 (corpus)
CORPUS_DIR="${CORPUS_DIR:-$TOP/.carry/corpus}"
clip_name() { case "$1" in QCIF) echo bus_qcif ;; CIF) echo foreman_cif ;; 720p) echo flower_720p ;;
              1080p) echo street_1080p ;; 2160p) echo street_2160p ;;
              *) [ -s "$CORPUS_DIR/$1.mp4" ] && echo "$1" || return 1 ;; esac; }
clip_src() { case "$1" in QCIF) echo test_qcif_cabac.264 ;; CIF) echo BA1_FT_C.264 ;;
             720p) echo VID_1280x720_cabac_temporal_direct.264 ;;
             1080p|2160p) echo VID_1920x1080_cabac_temporal_direct.264 ;; esac; }
clip_make() { [ "$1" = 2160p ] && echo --scale 2; }

frames_of() {   # "RES:N ..." RES: N (FRAMES=N overrides every count)
    local n
    if [ -n "${FRAMES:-}" ]; then echo "$FRAMES"; return; fi
    # shellcheck disable=SC2086  # the spec splits into its words
    n="$(printf '%s\n' $1 | sed -n "s/^$2://p")"
    echo "${n:-100}"
}

BE_ARG=""
[ "$BACKEND" = cuda ] || BE_ARG="--gpu-me-backend $BACKEND"
# cfg_bin CONFIG: the binary a configuration runs; cfg_args CONFIG: its options
cfg_bin() { case "$1" in stock|stock_mvt[0-9]*) echo "$STOCK" ;; *) echo "$X264" ;; esac; }
cfg_args() {
    case "$1" in
        stock)            echo "" ;;
        stock_mvt[0-9]*)  echo "--mvrange-thread ${1#stock_mvt}" ;;
        auto)             echo "--mvrange-thread auto" ;;
        gpu)              echo "--gpu-me $BE_ARG" ;;
        gpu_r[0-9]*)      echo "--gpu-me $BE_ARG --gpu-me-range ${1#gpu_r}" ;;
        *) echo "results/run.sh: unknown configuration $1" >&2; return 2 ;;
    esac
}
cfg_file() { echo "$1" | tr '@/.=%' '_____'; }   # a configuration in file names
# CONFIG[%ARG...][@FILE] into T2P_CFG, T2P_EXTRA (x264 options), T2P_BIN
t2_parse() {
    local c="$1"
    T2P_BIN=""; [ "${c#*@}" != "$c" ] && T2P_BIN="${c#*@}"
    c="${c%%@*}"
    T2P_EXTRA=""; [ "${c#*%}" != "$c" ] && T2P_EXTRA="$(echo "${c#*%}" | tr '%' ' ')"
    T2P_CFG="${c%%\%*}"
    [ -n "$T2P_BIN" ] || T2P_BIN="$(cfg_bin "$T2P_CFG")"
}

# ------------------------------------------------------------ machine
PY="${PYTHON:-}"
if [ -z "$PY" ]; then
    for p in python3 /usr/bin/python3; do
        "$p" -c 'import numpy, cv2' 2>/dev/null && { PY="$p"; break; }
    done
    PY="${PY:-python3}"
fi
csvsafe() { tr ',"\n' ';  ' | sed 's/ *$//'; }
if [ "$BACKEND" = cuda ] && command -v nvidia-smi >/dev/null 2>&1; then
    GPU_NAME="$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | csvsafe)"
    GPU_DRIVER="$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1 | csvsafe)"
    GPU_COUNT="$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')"
    CUDA_VER="$(nvidia-smi 2>/dev/null | sed -n 's/.*CUDA Version: *\([0-9.]*\).*/\1/p' | head -1)"
else
    GPU_NAME="none (backend $BACKEND)"; GPU_DRIVER="-"; GPU_COUNT=0; CUDA_VER="-"
fi
CPU_MODEL="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -1 | csvsafe) x$NCPU"
COMMIT="${CUDA_ME_COMMIT:-$(git -C "$TOP" describe --always --dirty --abbrev=7 2>/dev/null || echo unknown)}"
export CUDA_ME_COMMIT="$COMMIT"
META="$GPU_NAME,$GPU_DRIVER,$CPU_MODEL,$COMMIT"
META_HDR="gpu,driver,cpu,commit"
rel() { echo "${1#"$TOP"/}"; }

# ------------------------------------------------------------ time budget
now() { date +%s; }
T_START=$(now)
DEADLINE=$((T_START + TOTAL_BUDGET))
SEC_END=$DEADLINE
left() { echo $(( SEC_END - $(now) )); }
sec_begin() {   # NAME BUDGET
    SEC="$1"; SEC_BUDGET="$2"; SEC_T0=$(now); SKIPPED=0
    LOGS="$OUT/logs_$SEC"; rm -rf "$LOGS"
    if [ "$SEC" = throughput ] && [ "$TP_APPEND" = 1 ] && [ -s "$OUT/logs_$SEC.tgz" ]; then
        tar xzf "$OUT/logs_$SEC.tgz" -C "$OUT"   # the earlier rows' logs stay beside them
    else
        rm -f "$OUT/logs_$SEC.tgz"
    fi
    mkdir -p "$LOGS"
    SEC_END=$(( SEC_T0 + SEC_BUDGET < DEADLINE ? SEC_T0 + SEC_BUDGET : DEADLINE ))
    echo
    echo "##### $SEC: budget $SEC_BUDGET s, $(left) s usable ($(date +%T), $((SEC_T0 - T_START)) s into the run)"
}
sec_end() {
    local t=$(( $(now) - SEC_T0 ))
    echo "##### $SEC: $t s (budget $SEC_BUDGET s)$([ "$SKIPPED" -gt 0 ] && echo ", $SKIPPED encodes SKIPPED: over budget")"
    [ -s "$OUT/timing.csv" ] || echo "section,budget_s,took_s,skipped_encodes,$META_HDR,command" > "$OUT/timing.csv"
    echo "$SEC,$SEC_BUDGET,$t,$SKIPPED,$META,\"$RUN_CMD\"" >> "$OUT/timing.csv"
    if [ -n "$(ls -A "$LOGS")" ]; then (cd "$OUT" && tar czf "logs_$SEC.tgz" "logs_$SEC"); fi
    rm -rf "$LOGS"
}

# ------------------------------------------------------------ encodes
# x264_run NAME BIN INPUT ARGS...: one encode (lib.sh's enc) unless the
# section is out of time; sets R_RC (exit status, or "skipped"), R_WALL
# (s), R_CPU (CPU s, user + system, all threads), R_CMD, R_LOG.  The log
# goes into OUT/logs_SECTION.tgz, the stream is deleted.
x264_run() {
    local name="$1" bin="$2" in="$3" t0 t1; shift 3
    R_LOG="$LOGS/$name.log"
    R_CMD="$(rel "$bin") --no-progress $* -o $(rel "$W")/$name.264 $(rel "$in")"
    if [ "$(left)" -le 0 ]; then
        R_RC=skipped; R_WALL=""; R_CPU=""; echo "skipped (over budget)" > "$R_LOG"; return 1
    fi
    # shellcheck disable=SC2034  # read by enc
    ENC_TIMEOUT=$(( $(left) + 20 ))
    t0=$(date +%s.%N)
    local TIMEFORMAT='%3U %3S'
    { time enc "$bin" "$name" "$in" "$@" ; } 2> "$W/$name.time"
    # shellcheck disable=SC2154  # rc: set by enc (tests/lib.sh)
    R_RC=$rc
    t1=$(date +%s.%N)
    R_WALL=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
    R_CPU=$(tail -n 1 "$W/$name.time" | awk 'NF == 2 { printf "%.3f", $1 + $2 }')
    rm -f "$W/$name.time" "$W/$name.264"
    mv -f "$W/$name.log" "$R_LOG"
    [ "$R_RC" = 0 ] || { echo "  FAILED ($R_RC): $R_CMD"; tail -3 "$R_LOG" | sed 's/^/    /'; }
    [ "$R_RC" = 0 ]
}

# stats LOG: fps,kbps,psnr_y,ssim_db,gpu_wait_pct (empty where the log has none)
STATS_HDR="fps,kbps,psnr_y,ssim_db,gpu_wait_pct"
stats() { x264_log_stats "$1" fps kbps psnr_y ssim_db gpu_wait_pct; }

# me_stats LOG: the --gpu-me-stats numbers (its key=value lines), per
# frame where the header says so; empty where absent
ME_HDR="me_searches,me_int_ms,me_int_ms_frame,me_sub_ms,me_sub_ms_frame,gpu_frames,gpu_pairs,gpu_search_ms_pair,gpu_search_ms_frame,gpu_upload_ms_frame,gpu_download_ms_pair,gpu_wait_ms,gpu_waits,gpu_busy_ms_frame,gpu_busy_pct,gpu_backend,gpu_device"
me_stats() {
    local f
    f="$(x264_log_stats "$1" frames)"
    awk -v f="${f:-0}" -v se="$(kv "$1" searches)" -v im="$(kv "$1" search_int_ms)" -v sm="$(kv "$1" search_subpel_ms)" \
        -v gf="$(kv "$1" frames)" -v gp="$(kv "$1" pairs)" -v sp="$(kv "$1" search_ms_per_pair)" \
        -v up="$(kv "$1" upload_ms_per_frame)" -v dl="$(kv "$1" download_ms_per_pair)" -v wm="$(kv "$1" wait_ms)" \
        -v wn="$(kv "$1" waits)" -v bf="$(kv "$1" busy_ms_per_frame)" -v bp="$(kv "$1" busy_pct)" \
        -v be="$(kv "$1" backend)" -v dev="$(kv "$1" gpu | sed -n 's/.*device \([0-9]*\) of.*/\1/p')" '
        function per(x, n) { return (x == "" || n + 0 == 0) ? "" : sprintf("%.3f", x / n) }
        BEGIN { printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", se, im, per(im, f), sm, per(sm, f),
                       gf, gp, sp, (sp == "" || gf + 0 == 0) ? "" : sprintf("%.3f", sp * gp / gf), up, dl, wm, wn, bf, bp, be, dev }'
}

# ------------------------------------------------------------ clips
# clip RES FRAMES: a y4m of RES with at least FRAMES frames, made when
# missing: decoded with OpenCV (tests/tools/decode_cv2.py; the GPU host has
# no FFmpeg), played forward and backward past the clip's end, 2160p
# upscaled (results/y4m_clip.py).  Its path on stdout, messages on stderr.
DC="$D/results"
clip() {
    local res="$1" n="$2" name src dec out
    name="$(clip_name "$res")" || { echo "unknown resolution or clip $res" >&2; return 1; }
    out="$DC/$name.y4m"
    if [ -s "$out" ] && [ "$(cat "$out.frames" 2>/dev/null || echo 0)" -ge "$n" ]; then echo "$out"; return 0; fi
    mkdir -p "$DC"
    if [ -s "$CORPUS_DIR/$name.mp4" ]; then   # a corpus clip: its own frames, no more
        "$PY" "$TOP/tests/tools/decode_cv2.py" "$CORPUS_DIR/$name.mp4" "$out" "$n" >&2 || return 1
        echo "$n" > "$out.frames"
        echo "$out"
        return 0
    fi
    src="$(clip_src "$res")"
    dec="$DC/${src%.*}.y4m"
    if [ ! -s "$dec" ] || [ "$(cat "$dec.asked" 2>/dev/null || echo 0)" -lt "$n" ]; then
        "$PY" "$TOP/tests/tools/decode_cv2.py" "$TOP/tests/data/$src" "$dec" "$n" >&2 || return 1
        echo "$n" > "$dec.asked"
    fi
    # shellcheck disable=SC2046
    "$PY" "$TOP/results/y4m_clip.py" "$dec" "$out" "$n" $(clip_make "$res") >&2 || return 1
    echo "$n" > "$out.frames"
    echo "$out"
}

# ------------------------------------------------------------ startup
# What --gpu-me adds to the wall clock of a short encode: stock x264,
# plain --gpu-me (a 2-frame or 720p encode: x264 alone, the device not
# opened) and the GPU forced on (--gpu-me-range 32: CUDA opens on its own
# thread while x264 starts); the repeat loop outside the configuration
# loop; medians.
startup() {
    sec_begin startup "${STARTUP_BUDGET:-40}"
    local csv="$OUT/startup_runs.csv" spec res n rep c in bin
    echo "config,res,frames,threads,repeat,rc,wall_s,cpu_s,fps,$META_HDR,command" > "$csv"
    for spec in $STARTUP_CLIPS; do clip "${spec%%:*}" "${spec#*:}" > /dev/null || return 1; done
    for rep in $(seq 1 "$STARTUP_REPEATS"); do
        for spec in $STARTUP_CLIPS; do
            res="${spec%%:*}"; n="${spec#*:}"; in="$DC/$(clip_name "$res").y4m"
            for c in stock gpu gpu_r32; do
                bin="$(cfg_bin "$c")"
                # shellcheck disable=SC2046
                x264_run "startup_${res}_${c}_$rep" "$bin" "$in" --preset medium --threads "$MANY" --frames "$n" $(cfg_args "$c")
                [ "$R_RC" = skipped ] && SKIPPED=$((SKIPPED + 1))
                echo "$c,$res,$n,$MANY,$rep,$R_RC,$R_WALL,$R_CPU,$(stats "$R_LOG" | cut -d, -f1),$META,\"$R_CMD\"" >> "$csv"
            done
        done
    done
    "$PY" "$TOP/results/tables.py" startup "$OUT" && cat "$OUT/startup.md"
    sec_end
}

# ------------------------------------------------------------ Table 1
T1_HDR="res,clip,preset,range,method,threads,frames,rc,wall_s,$STATS_HDR,$ME_HDR,$META_HDR,command"
table1() {
    sec_begin table1 "${T1_BUDGET:-170}"
    local csv="$OUT/table1_runs.csv" res r t m f in args
    echo "$T1_HDR" > "$csv"
    # the kernels alone: bench_me, every frame size, one reference, 41
    # partitions with MV cost, per range
    rm -f "$OUT"/bench_*.csv
    if [ -n "${T1_BENCH_CSV:-}" ]; then
        cp "$T1_BENCH_CSV" "$OUT/bench_given.csv" && echo "kernel times from $T1_BENCH_CSV (not measured in this run)"
    elif [ "$BACKEND" != cuda ]; then
        echo "bench_me skipped (backend $BACKEND): the kernel columns stay empty"
    else
        for r in $T1_RANGES; do
            echo "bench_me -r $r ($(date +%T))"
            timeout 120 "$BENCH_ME" -o "$OUT/bench_r$r.csv" -r "$r" > "$LOGS/bench_r$r.txt" 2>&1 ||
                { echo "  bench_me FAILED:"; tail -3 "$LOGS/bench_r$r.txt"; }
            grep -E "^# |\*|with xfers" "$LOGS/bench_r$r.txt" | head -20
        done
    fi
    # x264's own search (esa, the preset's hex) and the GPU's, timed inside
    # the encoder by --gpu-me-stats (the patched binary: without --gpu-me
    # its encodes are stock's)
    for res in $T1_RES; do
        f=$(frames_of "$T1_FRAMES" "$res")
        in="$(clip "$res" "$f")" || continue
        for t in $T1_THREADS; do
            for r in $T1_RANGES; do
                for m in esa hex gpu; do
                    case $m in
                        esa) args="--me esa --merange $r" ;;
                        hex) args="--merange $r" ;;
                        gpu) args="--gpu-me --gpu-me-backend $BACKEND --gpu-me-range $r" ;;
                    esac
                    # shellcheck disable=SC2086
                    x264_run "t1_${res}_r${r}_${m}_${t}t" "$X264" "$in" --preset medium --qp 27 --threads "$t" --frames "$f" --gpu-me-stats $args
                    [ "$R_RC" = skipped ] && SKIPPED=$((SKIPPED + 1))
                    echo "$res,$(clip_name "$res"),medium,$r,$m,$t,$f,$R_RC,$R_WALL,$(stats "$R_LOG"),$(me_stats "$R_LOG"),$META,\"$R_CMD\"" >> "$csv"
                    [ "$R_RC" = 0 ] && printf '  %-6s +-%-3s %-3s %2s threads %4s frames: %8s ms/frame integer ME, %7s s\n' \
                        "$res" "$r" "$m" "$t" "$f" "$(me_stats "$R_LOG" | cut -d, -f3)" "$R_WALL"
                done
            done
        done
    done
    "$PY" "$TOP/results/tables.py" table1 "$OUT" && cat "$OUT/table1.md"
    sec_end
}

# ------------------------------------------------------------ Table 2
T2_HDR="clip,res,preset,threads,config,qp,frames,kind,repeat,rc,wall_s,cpu_s,$STATS_HDR,me_int_ms_frame,$META_HDR,command"
t2_one() {   # KIND REPEAT RES PRESET THREADS CONFIG QP: one encode, one row in $T2_ROWS/
    local kind="$1" rep="$2" res="$3" p="$4" t="$5" c="$6" q="$7" f in name
    f=$(frames_of "$T2_FRAMES" "$res")
    in="$DC/$(clip_name "$res").y4m"
    t2_parse "$c"
    name="t2_${res}_${p}_${t}t_$(cfg_file "$c")_q${q}_${kind}${rep}"
    # shellcheck disable=SC2046,SC2086
    x264_run "$name" "$T2P_BIN" "$in" --preset "$p" --qp "$q" --threads "$t" --frames "$f" --psnr --ssim \
        $([ "$T2P_BIN" = "$STOCK" ] || echo --gpu-me-stats) $(cfg_args "$T2P_CFG") $T2P_EXTRA
    echo "$(clip_name "$res"),$res,$p,$t,$c,$q,$f,$kind,$rep,$R_RC,$R_WALL,$R_CPU,$(stats "$R_LOG"),$(me_stats "$R_LOG" | cut -d, -f3),$META,\"$R_CMD\"" \
        > "$T2_ROWS/$name.csv"
}
t2_speed() {   # REPEAT: every clip, preset, thread count and configuration once, one at a time
    local res p t c
    echo "== speed at QP $T2_SPEED_QP, repeat $1 of $T2_REPEATS ($(date +%T), $(left) s left)"
    for res in $T2_CLIPS; do for p in $T2_PRESETS; do for t in $T2_THREADS; do for c in $T2_CONFIGS; do
        t2_one speed "$1" "$res" "$p" "$t" "$c" "$T2_SPEED_QP"
        [ "$R_RC" = 0 ] && printf '  %-6s %-8s %2s threads %-28s %7s fps %8s s\n' \
            "$res" "$p" "$t" "$c" "$(stats "$R_LOG" | cut -d, -f1)" "$R_WALL"
    done; done; done; done
}
table2() {
    local c res p t q rep jobs csv="$OUT/table2_runs.csv"
    for c in $T2_CONFIGS; do   # every configuration known before anything runs
        t2_parse "$c"
        cfg_args "$T2P_CFG" > /dev/null || exit 2
        for q in $T2P_EXTRA; do [ "${q#--}" != "$q" ] || { echo "results/run.sh: T2_CONFIGS: '$c': '$q' after % is not an x264 --option" >&2; exit 2; }; done
        [ -x "$T2P_BIN" ] || { echo "results/run.sh: T2_CONFIGS: '$c': no x264 at $T2P_BIN" >&2; exit 2; }
    done
    sec_begin table2 "${T2_BUDGET:-330}"
    T2_ROWS="$W/t2rows"; rm -rf "$T2_ROWS"; mkdir -p "$T2_ROWS"
    for res in $T2_CLIPS; do clip "$res" "$(frames_of "$T2_FRAMES" "$res")" > /dev/null || return 1; done
    # the first speed repeat (also every RD curve's point at the speed QP),
    # then the other QPs several at a time (x264 is deterministic: the
    # streams do not depend on the load), then the other speed repeats:
    # over budget, what is cut is the last repeats
    t2_speed 1
    jobs="${T2_JOBS:-$(( NCPU / 4 > 0 ? NCPU / 4 : 1 ))}"
    echo "== bitrate and PSNR at QP $T2_QPS, $jobs encodes at a time ($(date +%T), $(left) s left)"
    for res in $T2_CLIPS; do for p in $T2_PRESETS; do for t in $T2_THREADS; do for c in $T2_CONFIGS; do for q in $T2_QPS; do
        [ "$q" = "$T2_SPEED_QP" ] && continue
        while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
        t2_one quality 0 "$res" "$p" "$t" "$c" "$q" &
    done; done; done; done; done
    wait
    for rep in $(seq 2 "$T2_REPEATS"); do t2_speed "$rep"; done
    # T2_APPEND=1: the rows of earlier invocations stay, but where this one
    # ran the same encode (clip, preset, threads, configuration, QP, kind,
    # repeat)
    if [ "${T2_APPEND:-0}" = 1 ] && [ -s "$csv" ]; then
        tail -n +2 "$csv" > "$W/t2old.csv"
        cat "$T2_ROWS"/*.csv | awk -F, '{print $1","$2","$3","$4","$5","$6","$8","$9}' > "$W/t2new.keys"
        awk -F, 'NR == FNR { k[$0] = 1; next } !(($1","$2","$3","$4","$5","$6","$8","$9) in k)' \
            "$W/t2new.keys" "$W/t2old.csv" > "$W/t2keep.csv"
    else
        : > "$W/t2keep.csv"
    fi
    echo "$T2_HDR" > "$csv"
    cat "$W/t2keep.csv" "$T2_ROWS"/*.csv >> "$csv"
    SKIPPED=$(grep -c ',skipped,' "$csv")
    "$PY" "$TOP/results/tables.py" table2 "$OUT" && cat "$OUT/table2.md"
    sec_end
}

# ------------------------------------------------------------ plots
plots() {
    sec_begin plots "${PLOTS_BUDGET:-15}"
    mkdir -p "$OUT/plots"
    "$PY" "$TOP/results/tables.py" headline "$OUT"
    "$PY" "$TOP/results/plot.py" "$OUT" && ls "$OUT/plots"
    sec_end
}

# ------------------------------------------------------------ to be written
# ------------------------------------------------------------ throughput
# A full host: at each preset of TP_PRESETS, N encodes of T threads at once
# for each N x T of TP_NT, every configuration of TP_CONFIGS (stock_mvt64
# only where T > 1), the clips of TP_CLIPS at the QPs of T2_QPS spread over
# the encodes: a batch of N at a time, as many batches as cover every clip
# and QP (so BD-rate compares like with like); aggregate frames/s = frames /
# the batches' wall clock.
# nvidia-smi samples the GPU's utilisation and memory during each batch;
# each encode's --gpu-me-stats gives its CPU time by stage.
tp_batch() {   # PRESET NXT CONFIG BATCH FIRST: encodes FIRST .. FIRST+N-1 at once
    local pr="$1" nt="$2" c="$3" b="$4" first="$5" n t i k clips nc res q pids=() smi t0 t1 cn
    n="${nt%x*}"; t="${nt#*x}"
    cn="$(cfg_file "$c")"
    clips=($TP_CLIPS); nc=${#clips[@]}
    t2_parse "$c"
    nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader,nounits -lms 200 \
        > "$W/tp_smi.txt" 2>/dev/null & smi=$!
    t0=$(date +%s.%N)
    for i in $(seq 0 $((n - 1))); do
        k=$((first + i)); res="${clips[$((k % nc))]}"
        q="$(echo $T2_QPS | cut -d' ' -f$(( (k / nc) % $(echo $T2_QPS | wc -w) + 1 )))"
        (x264_run "tp_${pr}_${nt}_${cn}_${b}_$i" "$T2P_BIN" "$DC/$(clip_name "$res").y4m" --preset "$pr" --qp "$q" \
             --threads "$t" --frames "$(frames_of "$TP_FRAMES" "$res")" --psnr \
             $([ "$T2P_BIN" = "$STOCK" ] || echo --gpu-me-stats) $(cfg_args "$T2P_CFG") $T2P_EXTRA
         echo "$nt,$n,$t,$c,$b,$(clip_name "$res"),$q,$(x264_log_stats "$R_LOG" frames),$R_RC,$R_WALL,$R_CPU,$(stats "$R_LOG"),$(me_stats "$R_LOG"),$(kv "$R_LOG" device_mib_peak),$(
             kv "$R_LOG" frames_P),$(kv "$R_LOG" frame_ms_P),$(kv "$R_LOG" frames_B),$(kv "$R_LOG" frame_ms_B),$(
             kv "$R_LOG" main_wait_lookahead_ms),$(kv "$R_LOG" open_wait_ms),$META,\"$R_CMD\"" \
             > "$W/tprows/${pr}_${nt}_${cn}_${b}_$i.csv") &
        pids+=($!)
    done
    wait "${pids[@]}"
    t1=$(date +%s.%N)
    kill "$smi" 2>/dev/null; wait "$smi" 2>/dev/null
    echo "$nt,$c,$b,$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'),$(awk -F', *' \
        'NF >= 2 { u += $1; if ($2 > m) m = $2; n++ } END { if (n) printf "%.1f,%d", u / n, m; else printf "," }' "$W/tp_smi.txt"),$pr" \
        >> "$OUT/throughput_batches.csv"
}
# TP_MPS=1: an MPS daemon of this run's own (its pipe and log in WORK, so
# that it meets no other daemon); without one the processes' kernels take
# turns on the GPU.  Stopped by mps_stop, also when the run is interrupted.
mps_start() {
    command -v nvidia-cuda-mps-control > /dev/null 2>&1 || { echo "TP_MPS=1: no nvidia-cuda-mps-control here"; return 1; }
    export CUDA_MPS_PIPE_DIRECTORY="$W/mps" CUDA_MPS_LOG_DIRECTORY="$W/mps-log"
    mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
    nvidia-cuda-mps-control -d || {
        echo "TP_MPS=1: the MPS daemon did not start"
        unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
        return 1
    }
    trap mps_stop EXIT
    echo "CUDA MPS daemon started (pipe $(rel "$CUDA_MPS_PIPE_DIRECTORY"))"
}
mps_stop() {
    echo quit | nvidia-cuda-mps-control 2>/dev/null
    trap - EXIT
    unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
}
throughput() {
    local pr nt c n t b nb nc res hdr bhdr="nt,config,batch,wall_s,gpu_util_pct,gpu_mem_mib_max,preset"
    sec_begin throughput "${TP_BUDGET:-$(( DEADLINE - $(now) ))}"
    for res in $TP_CLIPS; do clip "$res" "$(frames_of "$TP_FRAMES" "$res")" > /dev/null || return 1; done
    if [ "$TP_MPS" = 1 ]; then mps_start || return 1; fi
    rm -rf "$W/tprows"; mkdir -p "$W/tprows"
    hdr="nt,n,threads,config,batch,clip,qp,frames,rc,wall_s,cpu_s,$STATS_HDR,$ME_HDR,gpu_mib,frames_P,frame_ms_P,frames_B,frame_ms_B"
    hdr="$hdr,main_wait_lookahead_ms,open_wait_ms,$META_HDR,command"
    if [ "$TP_APPEND" = 1 ] && [ -s "$OUT/throughput_runs.csv" ]; then
        # rows of another layout would be read under the wrong names
        [ "$(head -1 "$OUT/throughput_runs.csv")" = "$hdr" ] &&
            [ "$(head -1 "$OUT/throughput_batches.csv" 2>/dev/null)" = "$bhdr" ] ||
            { echo "TP_APPEND=1: $(rel "$OUT")'s throughput CSVs have another layout; give another OUTDIR"; return 1; }
    else
        echo "$hdr" > "$OUT/throughput_runs.csv"
        echo "$bhdr" > "$OUT/throughput_batches.csv"
    fi
    nc=$(echo $TP_CLIPS | wc -w)
    # the configurations interleaved within each N x T, in TP_NT's order
    for pr in $TP_PRESETS; do
        for nt in $TP_NT; do
            n="${nt%x*}"; t="${nt#*x}"
            nb=$(( (4 * nc + n - 1) / n ))
            for b in $(seq 1 "$nb"); do
                for c in $TP_CONFIGS; do
                    [ "$t" = 1 ] && [ "${c#stock_mvt}" != "$c" ] && continue
                    echo "== $pr, $nt, $c, batch $b of $nb ($(date +%T), $(left) s left)"
                    tp_batch "$pr" "$nt" "$c" "$b" $(( (b - 1) * n ))
                done
            done
        done
    done
    cat "$W/tprows"/*.csv >> "$OUT/throughput_runs.csv" 2>/dev/null
    if [ "$TP_MPS" = 1 ]; then mps_stop; fi
    "$PY" "$TOP/results/tables.py" throughput "$OUT" && cat "$OUT/throughput.md"
    sec_end
}

# ------------------------------------------------------------ corpus
# Table 2 over the corpus (CORPUS_DIR/*.mp4: ../shared/clips/synthetic and
# any other clips, copied into a folder that travels), into OUTDIR/corpus/:
# per clip and preset BD-rate and fps of every configuration, and the
# median over the clips.  Too much for one invocation: each one runs the
# CORPUS_PRESETS and CORPUS_CLIPS it is given and adds its rows to those
# already there (T2_APPEND), so that several invocations fill the table.
corpus() {
    local names
    names="${CORPUS_CLIPS:-$(cd "$CORPUS_DIR" 2>/dev/null && ls ./*.mp4 2>/dev/null | sed 's|^\./||; s|\.mp4$||' | tr '\n' ' ')}"
    [ -n "$names" ] || { echo "results/run.sh corpus: no clips in $CORPUS_DIR (CORPUS_DIR, CORPUS_CLIPS)" >&2; return 1; }
    local o="$OUT"
    OUT="$o/corpus"; mkdir -p "$OUT"
    T2_CLIPS="$names" T2_PRESETS="${CORPUS_PRESETS:-medium}" T2_APPEND=1 \
        T2_FRAMES="${CORPUS_FRAMES:-$(for n in $names; do printf '%s:%s ' "$n" "${CORPUS_N:-240}"; done)}" \
        T2_BUDGET="${CORPUS_BUDGET:-$(( DEADLINE - $(now) ))}" table2
    OUT="$o"
}

# ------------------------------------------------------------ main
{
    echo "---"
    echo "command: $RUN_CMD ($SECTIONS)"
    echo "date: $(date -u +%FT%TZ)"
    echo "gpu: $GPU_NAME x$GPU_COUNT, driver $GPU_DRIVER, CUDA $CUDA_VER (backend $BACKEND)"
    echo "cpu: $CPU_MODEL"
    echo "commit: $COMMIT"
    echo "x264: $(rel "$X264"): $("$X264" --version 2>/dev/null | head -1)"
    echo "stock x264: $(rel "$STOCK"): $("$STOCK" --version 2>/dev/null | head -1)"
    echo "bench_me: $(rel "$BENCH_ME")"
    echo "threads: $MANY; quick: $QUICK; frames override: ${FRAMES:-none}; budget $TOTAL_BUDGET s"
    echo "startup: $STARTUP_CLIPS, $STARTUP_REPEATS repeats"
    echo "table1: preset medium, QP 27, ranges $T1_RANGES, threads $T1_THREADS, frames $T1_FRAMES"
    echo "table2: clips $T2_CLIPS ($T2_FRAMES frames), presets $T2_PRESETS, threads $T2_THREADS, QPs $T2_QPS"
    echo "        (speed at $T2_SPEED_QP, $T2_REPEATS repeats), configurations $T2_CONFIGS"
    echo "throughput: N x T $TP_NT, presets $TP_PRESETS, clips $TP_CLIPS ($TP_FRAMES frames),"
    echo "        configurations $TP_CONFIGS; CUDA MPS: $([ "$TP_MPS" = 1 ] && echo on || echo off)"
} | tee -a "$OUT/machine.txt"
case " $SECTIONS " in
    *" table1 "*|*" table2 "*|*" startup "*) [ -x "$X264" ] || { echo "no x264 at $X264 (./build.sh device)"; exit 1; } ;;
esac
for s in $SECTIONS; do "$s"; done
echo
echo "##### total: $(( $(now) - T_START )) s for: $SECTIONS (budget $TOTAL_BUDGET s); results in $(rel "$OUT")"
