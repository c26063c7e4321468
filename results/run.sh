#!/bin/bash
# results/run.sh: the paper's Table 1 (motion-estimation time, CPU against
# GPU, per resolution), Table 2 (whole-encoder fps and BD-rate) and the
# plots, on the GPU machine, with the binaries ./build.sh device built.
#
#   results/run.sh [OUTDIR] [table1] [table2] [plots] [startup] [concurrency] [multigpu]
#                       (default OUTDIR results/h200; default sections: startup table1 table2 plots)
#
# On the H200 machine the default (startup table1 table2 plots) took 482 s:
# startup 19 s, table1 185 s, table2 272 s, plots 6 s (results/README.md).
# Every section has a time budget; past it the
# remaining encodes are skipped (listed as such in the CSVs and tables), so
# one command never runs much past TOTAL_BUDGET (555 s) whatever the machine
# (an encode running at the deadline gets 20 s more, then is killed).
#
# Environment (defaults in brackets):
#   X264      the patched x264 [build/device/x264/x264]
#   BENCH_ME  the kernel benchmark [build/bench/bench_me]; T1_BENCH_CSV=FILE
#             uses a stored bench_me CSV instead of running it
#   BACKEND   --gpu-me-backend [cuda]; c: the C reference (no GPU needed)
#   QUICK=1   a CPU dry run of the whole pipeline: QCIF/CIF, a few frames,
#             2 threads instead of 16, bench_me skipped unless T1_BENCH_CSV
#   MANY      the "many threads" count [16]
#   WORK=DIR  the work folder [build/results-work]; runs at the same time
#             need one each (a table section empties its rows folder there)
#   FRAMES=N  every encode N frames (the un-cut measurement: N=200; hours)
#   TOTAL_BUDGET, T1_BUDGET, T2_BUDGET, PLOTS_BUDGET  seconds [555 300 540 60]
#   T1_RES T1_RANGES T1_THREADS T1_METHODS T1_FRAMES_1 T1_FRAMES_MANY, T2_CLIPS T2_PRESETS
#   T2_THREADS T2_QPS T2_SPEED_QP T2_REPEATS T2_CONFIGS T2_FRAMES_1 T2_FRAMES_MANY
#   T2_QFRAMES_1 T2_QFRAMES_MANY (frames of the quality runs), T2_ESA_ALL=1 (esa64 at
#   every preset, not medium only), CONC_RES.  Clips (T1_RES, T2_CLIPS): QCIF
#   CIF 720p 1080p 2160p (street x2) 2160c (2160p's centre 1920x1080)
#   CONC_N CONC_FRAMES CONC_CONFIGS CAP_PRESETS CAP_RANGES CAP_FRAMES, MG_N
#   MG_FRAMES MG_CONFIGS:
#             what runs (see the defaults below)
#   CONC_BUDGET MG_BUDGET  seconds of the concurrency and multigpu sections [300 110]
#   PYTHON    a python3 with numpy, cv2 and matplotlib [python3]
#   CUDA_ME_COMMIT  the commit recorded [git describe --always --dirty]
#   THREAD_LOAD=1  each table 2 speed run's per-thread CPU time
#             (results/thread_load.py) in its logs as NAME.threads, summed up
#             in OUT/threads_SECTION.txt
set -u
TOP="$(cd "$(dirname "$0")/.." && pwd)"
cd "$TOP" || exit 1
QUICK="${QUICK:-0}"
# shellcheck disable=SC2034  # X264_TREE: read by tests/lib.sh
if [ "$QUICK" = 1 ]; then X264_TREE=x264; BACKEND="${BACKEND:-c}"; else X264_TREE=device/x264; fi
W="${WORK:-$TOP/build/results-work}"
# shellcheck disable=SC1091  # enc (sets rc; ENC_TIMEOUT, ENC_DUMP) and x264_log_stats
. "$TOP/tests/lib.sh"
export ENC_DUMP=0

RUN_CMD="results/run.sh $*"
OUT="results/h200"
case "${1:-}" in table1|table2|plots|startup|concurrency|multigpu|"") ;; *) OUT="$1"; shift ;; esac
SECTIONS="${*:-startup table1 table2 plots}"
mkdir -p "$OUT" "$W" || exit 1
OUT="$(cd "$OUT" && pwd)"

BACKEND="${BACKEND:-cuda}"
BENCH_ME="${BENCH_ME:-$B/bench/bench_me}"
if [ "$QUICK" = 1 ]; then MANY="${MANY:-2}"; else MANY="${MANY:-16}"; fi
NCPU="$(nproc 2>/dev/null || echo 2)"
TOTAL_BUDGET="${TOTAL_BUDGET:-555}"

# ------------------------------------------------------------ what runs
# Frame counts: "RES:N ..." per resolution.  The un-cut measurement is 200
# frames everywhere (FRAMES=200); these are cut to fit the time budget.
if [ "$QUICK" = 1 ]; then
    T1_RES="${T1_RES:-QCIF CIF}"; T1_FRAMES_1="${T1_FRAMES_1:-QCIF:8 CIF:6}"
    T1_FRAMES_MANY="${T1_FRAMES_MANY:-QCIF:8 CIF:6}"
    T2_CLIPS="${T2_CLIPS:-QCIF CIF}"; T2_PRESETS="${T2_PRESETS:-medium slow}"
    T2_FRAMES_1="${T2_FRAMES_1:-QCIF:6 CIF:4}"; T2_FRAMES_MANY="${T2_FRAMES_MANY:-QCIF:6 CIF:4}"
    T2_QFRAMES_1="${T2_QFRAMES_1:-QCIF:8 CIF:5}"
else
    # ordered by priority: what is cut by the budget comes last
    T1_RES="${T1_RES:-1080p 2160p 720p CIF QCIF}"
    T1_FRAMES_1="${T1_FRAMES_1:-QCIF:100 CIF:100 720p:30 1080p:24 2160p:12}"
    T1_FRAMES_MANY="${T1_FRAMES_MANY:-QCIF:200 CIF:200 720p:100 1080p:100 2160p:40}"
    T2_CLIPS="${T2_CLIPS:-1080p 720p CIF}"; T2_PRESETS="${T2_PRESETS:-medium slow veryslow}"
    # speed runs (also the speed QP's point of the RD curves when the
    # frames are the same); 1 thread: fewer frames for speed than for quality
    T2_FRAMES_1="${T2_FRAMES_1:-CIF:40 720p:16 1080p:10}"
    T2_FRAMES_MANY="${T2_FRAMES_MANY:-CIF:100 720p:50 1080p:40}"
    T2_QFRAMES_1="${T2_QFRAMES_1:-CIF:80 720p:32 1080p:24}"
fi
T1_RANGES="${T1_RANGES:-16 32}"
T1_PRESET="${T1_PRESET:-medium}"
T1_THREADS="${T1_THREADS:-1 $MANY}"
T1_METHODS="${T1_METHODS:-esa hex gpu}"
T2_THREADS="${T2_THREADS:-$MANY 1}"
T2_QFRAMES_MANY="${T2_QFRAMES_MANY:-$T2_FRAMES_MANY}"
T2_QPS="${T2_QPS:-22 27 32 37}"
T2_SPEED_QP="${T2_SPEED_QP:-27}"
T2_REPEATS="${T2_REPEATS:-3}"
# 1-thread speed runs at a time, each pinned to its own CPU (1: one at a
# time, unpinned; also without taskset)
T2_PIN_JOBS="${T2_PIN_JOBS:-$(( NCPU / 2 ))}"
command -v taskset >/dev/null 2>&1 || T2_PIN_JOBS=1
T2_CONFIGS="${T2_CONFIGS:-stock stock_mvt64 gpu gpu_r64 esa64}"
FULL_FRAMES=200
# concurrency and multigpu (issue 16): 1080p, N encodes at once
if [ "$QUICK" = 1 ]; then
    CONC_RES="${CONC_RES:-CIF}"; CONC_N="${CONC_N:-1 2}"; CONC_FRAMES="${CONC_FRAMES:-6}"
    CONC_CONFIGS="${CONC_CONFIGS:-medium:gpu superfast:gpu_r8 medium:stock capacity superfast:stock}"
    CAP_RANGES="${CAP_RANGES:-4 8}"; CAP_FRAMES="${CAP_FRAMES:-6}"
    MG_FRAMES="${MG_FRAMES:-6}"; MG_N="${MG_N:-2}"; MG_CONFIGS="${MG_CONFIGS:-superfast:gpu_r8}"
else
    CONC_RES="${CONC_RES:-1080p}"; CONC_N="${CONC_N:-1 2 4 8}"; CONC_FRAMES="${CONC_FRAMES:-200}"
    CONC_CONFIGS="${CONC_CONFIGS:-medium:gpu superfast:gpu_r64 medium:stock capacity superfast:stock}"
    CAP_RANGES="${CAP_RANGES:-16 32 64}"; CAP_FRAMES="${CAP_FRAMES:-100}"
    MG_FRAMES="${MG_FRAMES:-200}"; MG_N="${MG_N:-2 4}"; MG_CONFIGS="${MG_CONFIGS:-superfast:gpu_r64 superfast:gpu_r128}"
fi
CAP_PRESETS="${CAP_PRESETS:-medium veryfast superfast}"

# the clips: resolution -> source in tests/data (2160p: the 1080p clip x2;
# 2160c: the 2160p clip's centre 1920x1080, upscaled content at 1080p's size)
clip_name() { case "$1" in QCIF) echo bus_qcif ;; CIF) echo foreman_cif ;; 720p) echo flower_720p ;;
              1080p) echo street_1080p ;; 2160p) echo street_2160p ;; 2160c) echo street_2160c ;;
              *) return 1 ;; esac; }
clip_src() { case "$1" in QCIF) echo test_qcif_cabac.264 ;; CIF) echo BA1_FT_C.264 ;;
             720p) echo VID_1280x720_cabac_temporal_direct.264 ;;
             1080p|2160p|2160c) echo VID_1920x1080_cabac_temporal_direct.264 ;; esac; }
clip_make() { case "$1" in 2160p) echo --scale 2 ;; 2160c) echo --scale 2 --crop 1920x1080 ;; esac; }

# frames_of "RES:N ..." RES [veryslow]: N (halved for veryslow; FRAMES=N overrides)
frames_of() {
    local n
    if [ -n "${FRAMES:-}" ]; then echo "$FRAMES"; return; fi
    # shellcheck disable=SC2086  # the spec splits into its words
    n="$(printf '%s\n' $1 | sed -n "s/^$2://p")"
    n="${n:-$FULL_FRAMES}"
    [ "${3:-}" = veryslow ] && n=$(( (n + 1) / 2 ))
    echo "$n"
}

BE_ARG=""
[ "$BACKEND" = cuda ] || BE_ARG="--gpu-me-backend $BACKEND"
cfg_args() {
    case "$1" in
        stock)       echo "" ;;
        # stock_mvtN: stock with the frame-thread MV limit N (the anchor: 64)
        stock_mvt[0-9]*) echo "--mvrange-thread ${1#stock_mvt}" ;;
        # plain --gpu-me with the thread MV limit fixed at N (not per frame)
        gpu_mvt[0-9]*) echo "--gpu-me $BE_ARG --mvrange-thread ${1#gpu_mvt}" ;;
        # plain --gpu-me as users type it (auto backend: CUDA on the GPU
        # machine; it may decide not to use the GPU: see its info line)
        gpu)         echo "--gpu-me $BE_ARG" ;;
        gpu_adapt)   echo "--gpu-me $BE_ARG --gpu-me-mode adaptive" ;;
        gpu_cand)    echo "--gpu-me $BE_ARG --gpu-me-mode cand" ;;
        gpu_replace) echo "--gpu-me $BE_ARG --gpu-me-mode replace" ;;
        # gpu_rN: the GPU forced on at range N (gpu_r64: whatever the frame size)
        gpu_r[0-9]*) echo "--gpu-me $BE_ARG --gpu-me-range ${1#gpu_r}" ;;
        gpu_adapt64) echo "--gpu-me $BE_ARG --gpu-me-range 64 --gpu-me-mode adaptive" ;;
        # gpu_spN: plain --gpu-me with GPU sub-pel pruning at N per cent
        # (gpu_sp0: without; plain gpu has --gpu-me-subpel auto since 4408a99:
        # 20 at --ref 5..8, i.e. slow and slower; since patches/0027 at --ref
        # 5 or more with --me dia/hex/umh, veryslow too)
        gpu_sp[0-9]*) echo "--gpu-me $BE_ARG --gpu-me-subpel ${1#gpu_sp}" ;;
        # gpu_splitN: plain --gpu-me with --gpu-me-split N (gpu_split0:
        # without; plain gpu has --gpu-me-split auto since patches/0024: 10
        # on frames of 1.5 Mpixels or more)
        gpu_split[0-9]*) echo "--gpu-me $BE_ARG --gpu-me-split ${1#gpu_split}" ;;
        esa64)       echo "--me esa --merange 64" ;;
        *) echo "unknown config $1" >&2; exit 2 ;;
    esac
}

# ------------------------------------------------------------ machine
PY="${PYTHON:-}"
if [ -z "$PY" ]; then
    for p in python3 /usr/bin/python3; do
        "$p" -c 'import numpy, cv2, matplotlib' 2>/dev/null && { PY="$p"; break; }
    done
    PY="${PY:-python3}"
fi
csvsafe() { tr ',"\n' ';  ' | sed 's/ *$//'; }
if [ "$BACKEND" = cuda ] && command -v nvidia-smi >/dev/null 2>&1; then
    GPU_NAME="$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | csvsafe)"
    GPU_DRIVER="$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1 | csvsafe)"
else
    GPU_NAME="none (backend $BACKEND)"; GPU_DRIVER="-"
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
    LOGS="$OUT/logs_$SEC"; rm -rf "$LOGS"; mkdir -p "$LOGS"
    SEC_END=$(( SEC_T0 + SEC_BUDGET < DEADLINE ? SEC_T0 + SEC_BUDGET : DEADLINE ))
    echo
    echo "##### $SEC: budget $SEC_BUDGET s, $(left) s usable ($(date +%T), $((SEC_T0 - T_START)) s into the run)"
}
sec_end() {
    local t=$(( $(now) - SEC_T0 ))
    echo "##### $SEC: $t s (budget $SEC_BUDGET s)$([ "$SKIPPED" -gt 0 ] && echo ", $SKIPPED encodes SKIPPED: over budget")"
    [ -s "$OUT/timing.csv" ] || echo "section,budget_s,took_s,skipped_encodes,many_threads,$META_HDR,command" > "$OUT/timing.csv"
    echo "$SEC,$SEC_BUDGET,$t,$SKIPPED,$MANY,$META,\"$RUN_CMD\"" >> "$OUT/timing.csv"
    if ls "$LOGS"/*.threads > /dev/null 2>&1; then
        "$PY" "$TOP/results/thread_load.py" summary "$LOGS"/*.threads > "$OUT/threads_$SEC.txt" 2>&1
    fi
    if [ -n "$(ls -A "$LOGS")" ]; then (cd "$OUT" && tar czf "logs_$SEC.tgz" "logs_$SEC"); fi
    rm -rf "$LOGS"
}

# ------------------------------------------------------------ encodes
# x264_run NAME INPUT ARGS...: one encode (lib.sh's enc) unless the section
# is out of time; sets R_RC (exit status, or "skipped"), R_WALL (s), R_CPU
# (s of CPU, user + system: over R_WALL, how many cores the encode kept busy), R_CMD,
# R_LOG.  The log is kept (OUT/logs_SECTION.tgz), the stream deleted
# (kept with KEEP_264=1).
x264_run() {
    local name="$1" in="$2" t0 t1; shift 2
    R_LOG="$LOGS/$name.log"
    R_CMD="${ENC_PIN:+taskset -c $ENC_PIN }${ENC_ENV:+$ENC_ENV }$(rel "$X264") --no-progress $* -o $(rel "$W")/$name.264 $(rel "$in")"
    if [ "$(left)" -le 0 ]; then
        R_RC=skipped; R_WALL=""; R_CPU=""; echo "skipped (over budget)" > "$R_LOG"; return 1
    fi
    # shellcheck disable=SC2034
    ENC_TIMEOUT=$(( $(left) + 20 ))
    t0=$(date +%s.%N)
    # the encode's CPU time (user + system, x264's threads summed): bash's
    # time keyword, on stderr of the group (enc sends x264's own to its log)
    local TIMEFORMAT='%3U %3S'
    # THREAD_LOAD=1: each thread's CPU time too (results/thread_load.py), kept
    # next to the log as NAME.threads
    local tl=""
    if [ "${THREAD_LOAD:-0}" = 1 ]; then
        "$PY" "$TOP/results/thread_load.py" watch "/$name.264" "$LOGS/$name.threads" & tl=$!
    fi
    { time enc "$X264" "$name" "$in" "$@" ; } 2> "$W/$name.time"
    [ -n "$tl" ] && wait "$tl"
    # shellcheck disable=SC2154
    R_RC=$rc
    t1=$(date +%s.%N)
    R_WALL=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
    R_CPU=$(tail -n 1 "$W/$name.time" | awk 'NF == 2 { printf "%.3f", $1 + $2 }')
    rm -f "$W/$name.time"
    mv -f "$W/$name.log" "$R_LOG"
    [ "${KEEP_264:-0}" = 1 ] || rm -f "$W/$name.264"
    [ "$R_RC" = 0 ] || { echo "  FAILED ($R_RC): $R_CMD"; tail -3 "$R_LOG" | sed 's/^/    /'; }
    [ "$R_RC" = 0 ]
}

# stats LOG: fps,kbps,psnr_y,ssim_db,gpu_wait_pct (lib.sh's x264_log_stats;
# empty where the log has none)
STATS_HDR="fps,kbps,psnr_y,ssim_db,gpu_wait_pct"
stats() {
    local s
    s="$(x264_log_stats "$1" fps kbps psnr_y ssim_db gpu_wait_pct)"
    case "$s" in *,*) ;; *) s="$(echo "$s" | tr -s ' \t' ',,')" ;; esac
    echo "$s" | sed 's/^-,/,/; s/,-$/,/; :a; s/,-,/,,/; ta'
}

# me_stats LOG: the --gpu-me-stats numbers (empty where absent)
ME_HDR="me_searches,me_int_ms,me_int_ms_frame,me_sub_ms,me_sub_ms_frame,gpu_frames,gpu_pairs,gpu_search_ms_pair,gpu_search_ms_frame,gpu_upload_ms_frame,gpu_download_ms_pair,gpu_wait_ms,gpu_waits,gpu_busy_ms_frame,gpu_busy_pct,gpu_backend,gpu_device"
me_stats() {
    local l n='[0-9.]*'
    l="$(tr '\r' '\n' < "$1")"
    pick() { local v; v="$(echo "$l" | sed -n "$1" | tail -1)"; echo "${v:-$2}"; }
    echo "$(pick "s/.*x264 motion searches \($n\), integer part \($n\) ms (\($n\) ms\/frame), sub-pel part \($n\) ms (\($n\) ms\/frame).*/\1,\2,\3,\4,\5/p" ,,,,)$(
        ),$(pick "s/.*gpu-me: frames \($n\), pairs searched \($n\).*/\1,\2/p" ,)$(
        ),$(pick "s/.*gpu-me: search \($n\) ms\/pair, \($n\) ms\/frame; upload \($n\) ms\/frame; download \($n\) ms\/pair.*/\1,\2,\3,\4/p" ,,,)$(
        ),$(pick "s/.*gpu-me: analyse waited \($n\) ms in \($n\) waits.*/\1,\2/p" ,)$(
        ),$(pick "s/.*gpu-me: GPU busy \($n\) ms\/frame, \($n\)% of.*/\1,\2/p" ,)$(
        ),$(pick "s/.*gpu-me: backend \([a-zA-Z]*\): .*/\1/p" "")$(
        ),$(pick "s/.*gpu-me: backend cuda: .*device \([0-9]*\) of [0-9]*.*/\1/p" "")"
}

# ------------------------------------------------------------ clips
# clip RES FRAMES: path of a y4m of RES with at least FRAMES frames, made
# when missing: decoded with OpenCV (tests/tools/decode_cv2.py), looped
# forward and backward past the clip's end, 2160p upscaled
# (results/y4m_clip.py).  Printed on stdout; messages on stderr.
DC="$D/results"
clip() {
    local res="$1" n="$2" name src dec out
    name="$(clip_name "$res")" || { echo "unknown resolution $res" >&2; return 1; }
    out="$DC/$name.y4m"
    if [ -s "$out" ] && [ "$(cat "$out.frames" 2>/dev/null || echo 0)" -ge "$n" ]; then echo "$out"; return 0; fi
    mkdir -p "$DC"
    src="$(clip_src "$res")"
    dec="$DC/${src%.*}.y4m"
    # decoded: the first n frames (all when the clip has fewer)
    if [ ! -s "$dec" ] || [ "$(cat "$dec.asked" 2>/dev/null || echo 0)" -lt "$n" ]; then
        "$PY" "$TOP/tests/tools/decode_cv2.py" "$TOP/tests/data/$src" "$dec" "$n" >&2 || return 1
        echo "$n" > "$dec.asked"
    fi
    # shellcheck disable=SC2046
    "$PY" "$TOP/results/y4m_clip.py" "$dec" "$out" "$n" $(clip_make "$res") >&2 || return 1
    echo "$n" > "$out.frames"
    echo "$out"
}

max_frames() {   # RES "SPEC"...: the most frames any of the specs asks of RES
    local res="$1" m=0 f s; shift
    for s in "$@"; do f=$(frames_of "$s" "$res"); [ "$f" -gt "$m" ] && m=$f; done
    echo "$m"
}

# ------------------------------------------------------------ Table 1
T1_HDR="res,clip,preset,range,method,threads,frames,rc,wall_s,$STATS_HDR,$ME_HDR,$META_HDR,command"
table1() {
    sec_begin table1 "${T1_BUDGET:-300}"
    local csv="$OUT/table1_runs.csv" res r t m f in name args
    echo "$T1_HDR" > "$csv"
    # the kernels alone: bench_me, one reference, 41 partitions, per range
    rm -f "$OUT"/bench_r*.csv
    if [ -n "${T1_BENCH_CSV:-}" ]; then
        cp "$T1_BENCH_CSV" "$OUT/bench_given.csv" && echo "kernel times from $T1_BENCH_CSV (not measured in this run)"
    elif [ "$QUICK" = 1 ] || [ "$BACKEND" != cuda ]; then
        echo "bench_me skipped (QUICK=1 or BACKEND=$BACKEND): the kernel-only columns stay empty"
    else
        for r in $T1_RANGES; do
            echo "bench_me -r $r ($(date +%T))"
            timeout 120 "$BENCH_ME" -o "$OUT/bench_r$r.csv" -r "$r" > "$LOGS/bench_r$r.txt" 2>&1 ||
                { echo "  bench_me FAILED:"; tail -3 "$LOGS/bench_r$r.txt"; }
            grep -E "^# |\*|with xfers" "$LOGS/bench_r$r.txt" | head -20
        done
    fi
    for res in $T1_RES; do
        in="$(clip "$res" "$(max_frames "$res" "$T1_FRAMES_1" "$T1_FRAMES_MANY")")" || continue
        for t in $T1_THREADS; do
            if [ "$t" = 1 ]; then f=$(frames_of "$T1_FRAMES_1" "$res"); else f=$(frames_of "$T1_FRAMES_MANY" "$res"); fi
            for r in $T1_RANGES; do
                for m in $T1_METHODS; do
                    case $m in
                        esa) args="--me esa --merange $r" ;;
                        hex) args="--merange $r" ;;
                        gpu) args="--gpu-me --gpu-me-backend $BACKEND --gpu-me-range $r" ;;
                    esac
                    name="t1_${res}_r${r}_${m}_${t}t"
                    # shellcheck disable=SC2086
                    x264_run "$name" "$in" --preset "$T1_PRESET" --qp 27 --threads "$t" --frames "$f" --gpu-me-stats $args
                    echo "$res,$(clip_name "$res"),$T1_PRESET,$r,$m,$t,$f,$R_RC,$R_WALL,$(stats "$R_LOG"),$(me_stats "$R_LOG"),$META,\"$R_CMD\"" >> "$csv"
                    [ "$R_RC" = skipped ] && SKIPPED=$((SKIPPED + 1))
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
t2_frames() {   # KIND THREADS RES PRESET: frames of a quality or speed run
    local spec
    case "$1.$2" in
        speed.1)   spec="$T2_FRAMES_1" ;;
        quality.1) spec="$T2_QFRAMES_1" ;;
        speed.*)   spec="$T2_FRAMES_MANY" ;;
        *)         spec="$T2_QFRAMES_MANY" ;;
    esac
    frames_of "$spec" "$3" "$4"
}

# A configuration CONFIG@FILE runs CONFIG with the x264 binary FILE (a
# build with other compiled-in choices, side by side with the others);
# CONFIG+VAR=VALUE (before any @FILE; several +s allowed) runs it with the
# environment variable set (developer switches such as X264_GPU_ME_CANDS=1
# or, with the experiment build, X264_LOOKAHEAD_MERANGE=16); CONFIG%ARG
# (before any +; several %s allowed) adds ARG to x264's command line, in
# the --name=value form (gpu%--lookahead-threads=4: an x264 option a
# configuration does not set, A/B against the same configuration without).
# CONFIG[%ARG...][+VAR=VALUE...][@FILE] into its parts: T2P_CFG (the name),
# T2P_EXTRA (x264 arguments), T2P_ENVS (environment words), T2P_BIN.
t2_parse() {
    local c="$1" cfg
    T2P_BIN="$X264"; [ "${c#*@}" != "$c" ] && T2P_BIN="${c#*@}"
    cfg="${c%%@*}"
    T2P_ENVS=""; [ "${cfg#*+}" != "$cfg" ] && T2P_ENVS="$(echo "${cfg#*+}" | tr '+' ' ')"
    cfg="${cfg%%+*}"
    T2P_EXTRA=""; [ "${cfg#*%}" != "$cfg" ] && T2P_EXTRA="$(echo "${cfg#*%}" | tr '%' ' ')"
    T2P_CFG="${cfg%%\%*}"
}

t2_one() {   # KIND REPEAT RES PRESET THREADS CONFIG QP: one encode, one row in $T2_ROWS/
    local kind="$1" rep="$2" res="$3" p="$4" t="$5" c="$6" q="$7" f in name bin cfg envs extra
    f=$(t2_frames "$kind" "$t" "$res" "$p")
    in="$DC/$(clip_name "$res").y4m"
    t2_parse "$c"
    bin="$T2P_BIN"; cfg="$T2P_CFG"; envs="$T2P_ENVS"; extra="$T2P_EXTRA"
    name="t2_${res}_${p}_${t}t_$(echo "$c" | tr '@/.+=%' '______')_q${q}_${kind}${rep}"
    # shellcheck disable=SC2046,SC2086  # the configuration's words
    # THREAD_LOAD: the speed runs only (the quality runs share the machine)
    THREAD_LOAD="$([ "$kind" = speed ] && echo "${THREAD_LOAD:-0}")" \
    ENC_ENV="$envs" X264="$bin" x264_run "$name" "$in" --preset "$p" --qp "$q" --threads "$t" --frames "$f" --psnr --ssim --gpu-me-stats $(cfg_args "$cfg") $extra
    echo "$(clip_name "$res"),$res,$p,$t,$c,$q,$f,$kind,$rep,$R_RC,$R_WALL,$R_CPU,$(stats "$R_LOG"),$(me_stats "$R_LOG" | cut -d, -f3),$META,\"$R_CMD\"" \
        > "$T2_ROWS/$name.csv"
}

t2_speed() {   # REPEAT RES PRESET THREADS CONFIG: a speed run, printed
    t2_one speed "$1" "$2" "$3" "$4" "$5" "$T2_SPEED_QP"
    [ "$R_RC" = 0 ] && printf '  %-6s %-8s %2s threads %-12s %7s fps %8s s%s\n' \
        "$2" "$3" "$4" "$5" "$(stats "$R_LOG" | cut -d, -f1)" "$R_WALL" "${ENC_PIN:+ (CPU $ENC_PIN)}"
    return 0
}

# pin_slot N: waits until one of N slots is free, sets PIN_SLOT to it
# (slot k runs on CPU k * NCPU / N: every other CPU at N = NCPU / 2)
PIN_PID=()
pin_slot() {
    local k
    while :; do
        for k in $(seq 0 $(( $1 - 1 ))); do
            if [ -z "${PIN_PID[k]:-}" ] || ! kill -0 "${PIN_PID[k]}" 2>/dev/null; then
                PIN_SLOT=$k; return
            fi
        done
        wait -n
    done
}

t2_configs() {   # PRESET THREADS: the configurations run (ESA: medium only;
                 # --mvrange-thread 64 only with frame threads, at 1 thread it is stock)
    local c
    for c in $T2_CONFIGS; do
        [ "$c" = esa64 ] && [ "$1" != medium ] && [ "${T2_ESA_ALL:-0}" != 1 ] && continue
        [ "$c" = stock_mvt64 ] && [ "$2" = 1 ] && continue
        echo "$c"
    done
}

# A configuration's parts (t2_parse) checked before anything runs: a
# known name, VAR=VALUE words after each +, --options after each %.  (An
# x264 option after a + is run as a command by env and every encode of the
# configuration fails: session 21, validation21/c02.sh.)
t2_check_configs() {
    local c w
    for c in $T2_CONFIGS; do
        t2_parse "$c"
        for w in $T2P_ENVS; do
            echo "$w" | grep -q '^[A-Za-z_][A-Za-z0-9_]*=' ||
                { echo "results/run.sh: T2_CONFIGS: '$c': '$w' after + is not VAR=VALUE (x264 options go after %)" >&2; exit 2; }
        done
        for w in $T2P_EXTRA; do
            [ "${w#--}" != "$w" ] ||
                { echo "results/run.sh: T2_CONFIGS: '$c': '$w' after % is not an x264 --option" >&2; exit 2; }
        done
        ( cfg_args "$T2P_CFG" > /dev/null ) || exit 2
    done
}

table2() {
    t2_check_configs
    sec_begin table2 "${T2_BUDGET:-540}"
    local csv="$OUT/table2_runs.csv" res p t c q rep jobs pj
    T2_ROWS="$W/t2rows"; rm -rf "$T2_ROWS"; mkdir -p "$T2_ROWS"
    for res in $T2_CLIPS; do
        clip "$res" "$(max_frames "$res" "$T2_FRAMES_1" "$T2_FRAMES_MANY" "$T2_QFRAMES_1" "$T2_QFRAMES_MANY")" > /dev/null || return 1
    done
    for t in $T2_THREADS; do
        # quality: every QP (but the speed runs' one when those have the
        # same frames), several at a time (x264 is deterministic: the
        # streams do not depend on the load)
        if [ "$t" = 1 ]; then jobs=$NCPU; else jobs=$(( NCPU / 4 > 0 ? NCPU / 4 : 1 )); fi
        echo "== $t thread(s): bitrate/PSNR at QP $T2_QPS (QP $T2_SPEED_QP from the speed runs when theirs are the same frames), $jobs encodes at a time ($(date +%T))"
        for res in $T2_CLIPS; do for p in $T2_PRESETS; do for c in $(t2_configs "$p" "$t"); do for q in $T2_QPS; do
            [ "$q" = "$T2_SPEED_QP" ] && [ "$(t2_frames quality "$t" "$res" "$p")" = "$(t2_frames speed "$t" "$res" "$p")" ] && continue
            while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
            t2_one quality 0 "$res" "$p" "$t" "$c" "$q" &
        done; done; done; done
        wait
        # speed: the repeat loop outside the configuration loop; with many
        # threads one encode at a time; at 1 thread T2_PIN_JOBS encodes at a
        # time, each pinned to its own CPU (the configurations of a row run
        # side by side, under the same load)
        pj=1; [ "$t" = 1 ] && [ "$T2_PIN_JOBS" -gt 1 ] && pj=$T2_PIN_JOBS
        for rep in $(seq 1 "$T2_REPEATS"); do
            echo "== $t thread(s): speed at QP $T2_SPEED_QP, repeat $rep of $T2_REPEATS, $pj at a time ($(date +%T), $(left) s left)"
            for res in $T2_CLIPS; do for p in $T2_PRESETS; do for c in $(t2_configs "$p" "$t"); do
                if [ "$pj" = 1 ]; then t2_speed "$rep" "$res" "$p" "$t" "$c"; continue; fi
                pin_slot "$pj"
                ENC_PIN=$(( PIN_SLOT * NCPU / pj )) t2_speed "$rep" "$res" "$p" "$t" "$c" &
                PIN_PID[PIN_SLOT]=$!
            done; done; done
            wait
        done
    done
    echo "$T2_HDR" > "$csv"
    cat "$T2_ROWS"/*.csv >> "$csv"
    SKIPPED=$(grep -c ',skipped,' "$csv")
    "$PY" "$TOP/results/tables.py" table2 "$OUT" && cat "$OUT/table2.md"
    sec_end
}

# ------------------------------------------------------------ start-up
# What --gpu-me adds to the wall clock of a short encode (issue: "start-up
# adds <= 0.1 s to a 100-frame 720p encode"): stock x264, plain --gpu-me
# (which leaves 720p to x264), and the GPU forced on (--gpu-me-range 32: CUDA
# opens on its own thread while x264 starts); interleaved repeats, medians.
startup() {
    sec_begin startup "${STARTUP_BUDGET:-60}"
    local res="${STARTUP_RES:-720p}" n="${STARTUP_FRAMES:-100}" rep c in csv="$OUT/startup_runs.csv"
    in="$(clip "$res" "$n")" || return 1
    echo "config,res,frames,threads,repeat,rc,wall_s,fps,$META_HDR,command" > "$csv"
    for rep in $(seq 1 "${STARTUP_REPEATS:-5}"); do
        for c in stock gpu gpu_forced; do
            case "$c" in stock) a="" ;; gpu) a="--gpu-me $BE_ARG" ;; gpu_forced) a="--gpu-me $BE_ARG --gpu-me-range 32" ;; esac
            # shellcheck disable=SC2086
            x264_run "startup_${c}_$rep" "$in" --preset medium --threads "$MANY" --frames "$n" $a
            echo "$c,$res,$n,$MANY,$rep,$R_RC,$R_WALL,$(stats "$R_LOG" | cut -d, -f1),$META,\"$R_CMD\"" >> "$csv"
        done
    done
    "$PY" - "$csv" "$OUT/startup.md" <<'PYEOF'
import csv, statistics, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["rc"] == "0"]
med = {c: statistics.median(float(r["wall_s"]) for r in rows if r["config"] == c)
       for c in ("stock", "gpu", "gpu_forced") if any(r["config"] == c for r in rows)}
n = {c: sum(r["config"] == c for r in rows) for c in med}
with open(sys.argv[2], "w") as f:
    f.write("| config | median wall clock (s) | added to stock (s) | runs |\n|---|---|---|---|\n")
    for c, w in med.items():
        f.write("| %s | %.3f | %+.3f | %d |\n" % (c, w, w - med.get("stock", w), n[c]))
print(open(sys.argv[2]).read())
PYEOF
    sec_end
}

# ------------------------------------------------------------ many encodes at once
# Issue 16: several encodes share one GPU (concurrency), and several GPUs
# share the encodes of a host (multigpu).  Each batch starts N identical
# encodes at once (--threads CORES/N each) and waits for all of them; every
# stream's md5 is kept so the table can say whether concurrent outputs equal
# the serial run of the same command (the same threads: x264's output depends
# on its thread count).  nvidia-smi samples each GPU's utilisation meanwhile.
CONC_HDR="section,kind,tag,preset,config,n,threads,instance,frames,rc,wall_s,batch_wall_s,smi_util,env,md5,$STATS_HDR,$ME_HDR,$META_HDR,command"

# smi_start FILE / smi_stop: nvidia-smi's utilisation per GPU every 100 ms
# (nothing without nvidia-smi or with another backend)
SMI_PID=""
smi_start() {
    SMI_PID=""
    [ "$BACKEND" = cuda ] && command -v nvidia-smi >/dev/null 2>&1 || return 0
    nvidia-smi --query-gpu=index,utilization.gpu --format=csv,noheader,nounits -lms 100 > "$1" 2>/dev/null &
    SMI_PID=$!
}
smi_stop() {   # FILE: "gpu0:mean%;gpu1:mean%" over the samples taken
    [ -n "$SMI_PID" ] && { kill "$SMI_PID" 2>/dev/null; wait "$SMI_PID" 2>/dev/null; }
    [ -s "$1" ] || return 0
    awk -F', *' 'NF == 2 && $2 ~ /^[0-9]+$/ { s[$1] += $2; n[$1]++ }
                 END { for (g in s) printf "%sgpu%s:%.0f%%", (k++ ? ";" : ""), g, s[g] / n[g] }' "$1"
}

# batch KIND TAG PRESET CONFIG N THREADS IN FRAMES [ENV...]: N encodes at
# once, one row each into $CONC_CSV.  ENV: VAR=VALUE exported to them
# (CUDA_VISIBLE_DEVICES=0, CUDA_ME_PICKS=off).  KIND serial with N=1: the
# reference run.
batch() {
    local kind="$1" tag="$2" p="$3" c="$4" n="$5" t="$6" in="$7" f="$8" i t0 t1 bw util name rcw env
    shift 8
    env="$*"
    [ "$(left)" -le 0 ] && { SKIPPED=$((SKIPPED + n)); echo "  $tag: skipped (over budget)"
        echo "$SEC,$kind,$tag,$p,$c,$n,$t,,$f,skipped,,,,$env,,$(stats /dev/null),$(me_stats /dev/null),$META," >> "$CONC_CSV"; return 1; }
    smi_start "$W/$tag.smi"
    t0=$(date +%s.%N)
    local pids=""
    for i in $(seq 1 "$n"); do
        (
            for e in "$@"; do export "${e?}"; done
            # shellcheck disable=SC2046
            KEEP_264=1 x264_run "${tag}_$i" "$in" --preset "$p" --qp 27 --threads "$t" --frames "$f" --gpu-me-stats $(cfg_args "$c") > /dev/null
            echo "$R_RC,$R_WALL,\"$R_CMD\"" > "$W/${tag}_$i.rcw"
        ) &
        pids="$pids $!"
    done
    # the encodes only: a bare wait would also wait for the nvidia-smi sampler
    # shellcheck disable=SC2086
    wait $pids
    t1=$(date +%s.%N)
    bw=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
    util="$(smi_stop "$W/$tag.smi")"
    rm -f "$W/$tag.smi"
    for i in $(seq 1 "$n"); do
        name="${tag}_$i"
        rcw="$(cat "$W/$name.rcw" 2>/dev/null || echo "lost,,")"
        echo "$SEC,$kind,$tag,$p,$c,$n,$t,$i,$f,${rcw%%,*},$(echo "$rcw" | cut -d, -f2),$bw,$util,$env,$(
            [ -s "$W/$name.264" ] && md5sum < "$W/$name.264" | cut -c1-32),$(stats "$LOGS/$name.log"),$(
            me_stats "$LOGS/$name.log"),$META,$(echo "$rcw" | cut -d, -f3-)" >> "$CONC_CSV"
        rm -f "$W/$name.264" "$W/$name.rcw"
    done
    printf '  %-28s %2s x %2s threads: %7s s, %5s fps aggregate%s; devices: %s\n' "$tag${env:+ ($env)}" "$n" "$t" "$bw" \
        "$(awk -v n="$n" -v f="$f" -v w="$bw" 'BEGIN { printf "%.1f", n * f / w }')" "${util:+, GPU $util}" \
        "$(grep ",$tag," "$CONC_CSV" | awk -F, -v col="$CONC_DEV_COL" '{ d[$col == "" ? "-" : $col]++ } END { for (k in d) printf "%s%s:%d", (i++ ? " " : ""), k, d[k] }')"
}
CONC_DEV_COL=$(echo "$CONC_HDR" | tr , '\n' | grep -nx gpu_device | cut -d: -f1)

# concurrency: on one GPU, N = CONC_N encodes at once of each CONC_CONFIGS
# ("PRESET:CONFIG"), MANY/N threads each, CONC_FRAMES frames of CONC_RES;
# the serial run of each GPU configuration at each thread count; then the
# capacity runs: one encode of CAP_FRAMES frames per CAP_PRESETS and
# CAP_RANGES (GPU time per encoded frame -> frames per second one GPU serves).
concurrency() {
    sec_begin concurrency "${CONC_BUDGET:-300}"
    CONC_CSV="$OUT/concurrency_runs.csv"
    echo "$CONC_HDR" > "$CONC_CSV"
    local spec p c n t in r
    in="$(clip "$CONC_RES" "$(( CONC_FRAMES > CAP_FRAMES ? CONC_FRAMES : CAP_FRAMES ))")" || return 1
    echo "== $CONC_RES, $CONC_FRAMES frames, N = $CONC_N at once with $MANY/N threads each: $CONC_CONFIGS ($(date +%T))"
    for spec in $CONC_CONFIGS; do
        p="${spec%%:*}"; c="${spec#*:}"
        [ "$spec" = capacity ] && { conc_capacity "$in"; continue; }
        for n in $CONC_N; do
            t=$(( MANY / n > 0 ? MANY / n : 1 ))
            batch batch "c_${p}_${c}_n$n" "$p" "$c" "$n" "$t" "$in" "$CONC_FRAMES"
            # the serial reference (N=1 is its own); stock x264 needs none
            case "$c" in stock*) ;; *) [ "$n" -gt 1 ] && batch serial "c_${p}_${c}_n${n}_serial" "$p" "$c" 1 "$t" "$in" "$CONC_FRAMES" ;; esac
        done
    done
    case " $CONC_CONFIGS " in *" capacity "*) ;; *) conc_capacity "$in" ;; esac
    "$PY" "$TOP/results/tables.py" concurrency "$OUT" && cat "$OUT/concurrency.md"
    sec_end
}
conc_capacity() {   # IN
    local p r
    echo "== capacity: $CAP_FRAMES frames, $MANY threads, presets $CAP_PRESETS, ranges $CAP_RANGES ($(date +%T))"
    for p in $CAP_PRESETS; do for r in $CAP_RANGES; do
        batch capacity "cap_${p}_r$r" "$p" "gpu_r$r" 1 "$MANY" "$1" "$CAP_FRAMES"
    done; done
}

# multigpu: on a host of several GPUs, N = MG_N encodes at once of each
# MG_CONFIGS with --gpu-me-device auto (the default), NCPU/N threads each:
# with the library's recent-picks file (how auto spreads encodes that start
# together) and without it (CUDA_ME_PICKS=off: NVML's loads alone), against
# the same on one GPU (CUDA_VISIBLE_DEVICES=0); the serial run on one GPU is
# the reference of the bytes.
multigpu() {
    sec_begin multigpu "${MG_BUDGET:-110}"
    CONC_CSV="$OUT/multigpu_runs.csv"
    echo "$CONC_HDR" > "$CONC_CSV"
    local spec p c n t in ngpu
    ngpu=0
    [ "$BACKEND" = cuda ] && ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
    echo "== $ngpu GPU(s); $CONC_RES, $MG_FRAMES frames, N = $MG_N at once with $NCPU/N threads each: $MG_CONFIGS ($(date +%T))"
    in="$(clip "$CONC_RES" "$MG_FRAMES")" || return 1
    for spec in $MG_CONFIGS; do
        p="${spec%%:*}"; c="${spec#*:}"
        for n in $MG_N; do
            t=$(( NCPU / n > 0 ? NCPU / n : 1 ))
            batch serial "m_${p}_${c}_n${n}_serial" "$p" "$c" 1 "$t" "$in" "$MG_FRAMES" CUDA_VISIBLE_DEVICES=0
            batch batch "m_${p}_${c}_n${n}_1gpu" "$p" "$c" "$n" "$t" "$in" "$MG_FRAMES" CUDA_VISIBLE_DEVICES=0
            batch batch "m_${p}_${c}_n${n}_auto" "$p" "$c" "$n" "$t" "$in" "$MG_FRAMES"
            batch batch "m_${p}_${c}_n${n}_nopicks" "$p" "$c" "$n" "$t" "$in" "$MG_FRAMES" CUDA_ME_PICKS=off
        done
    done
    "$PY" "$TOP/results/tables.py" multigpu "$OUT" && cat "$OUT/multigpu.md"
    sec_end
}

# ------------------------------------------------------------ plots
plots() {
    sec_begin plots "${PLOTS_BUDGET:-60}"
    mkdir -p "$OUT/plots"
    "$PY" "$TOP/results/tables.py" headline "$OUT"
    "$PY" "$TOP/results/plot.py" "$OUT" && ls "$OUT/plots"
    sec_end
}

# ------------------------------------------------------------ main
{
    echo "# results/run.sh $OUT $SECTIONS"
    echo "date: $(date -u +%FT%TZ)"
    echo "gpu: $GPU_NAME, driver $GPU_DRIVER"
    echo "cpu: $CPU_MODEL"
    echo "commit: $COMMIT"
    echo "x264: $(rel "$X264"): $("$X264" --version 2>/dev/null | head -1)"
    echo "backend: $BACKEND; many threads: $MANY; quick: $QUICK; frames override: ${FRAMES:-none}"
    echo "table1: preset $T1_PRESET, QP 27, ranges $T1_RANGES; frames at 1 thread: $T1_FRAMES_1; at $MANY: $T1_FRAMES_MANY"
    echo "table2: clips $T2_CLIPS; presets $T2_PRESETS; threads $T2_THREADS; QPs $T2_QPS (speed at $T2_SPEED_QP, $T2_REPEATS repeats);"
    echo "        frames, speed runs at 1 thread: $T2_FRAMES_1; at $MANY: $T2_FRAMES_MANY"
    echo "        frames, quality runs at 1 thread: $T2_QFRAMES_1; at $MANY: $T2_QFRAMES_MANY; veryslow: half; un-cut: $FULL_FRAMES"
    echo "concurrency: $CONC_RES, $CONC_FRAMES frames, N = $CONC_N at once, $MANY/N threads each; configs $CONC_CONFIGS;"
    echo "        capacity: $CAP_FRAMES frames, $MANY threads, presets $CAP_PRESETS, ranges $CAP_RANGES"
    echo "multigpu: $CONC_RES, $MG_FRAMES frames, N = $MG_N at once, $NCPU/N threads each; configs $MG_CONFIGS"
} | tee -a "$OUT/run_info.txt"
case " $SECTIONS " in
    *" table1 "*|*" table2 "*|*" startup "*|*" concurrency "*|*" multigpu "*) [ -x "$X264" ] || { echo "no x264 at $X264 (./build.sh device)"; exit 1; } ;;
esac
for s in $SECTIONS; do
    case "$s" in
        table1|table2|plots|startup|concurrency|multigpu) "$s" ;;
        *) echo "unknown section $s (table1 table2 startup concurrency multigpu plots)"; exit 2 ;;
    esac
done
echo
echo "##### total: $(( $(now) - T_START )) s for: $SECTIONS (budget $TOTAL_BUDGET s); results in $(rel "$OUT")"
