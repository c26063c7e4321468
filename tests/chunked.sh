#!/bin/bash
# tests/chunked.sh: the chunked driver (chunked/) on a local Dask cluster (a
# scheduler and two workers, each its own process, started here from a folder
# where the chunked package cannot be imported: the tasks carry its code),
# with the patched x264 on its C backend (no GPU needed).
#
#   1  the joined stream decodes (FFmpeg) to the chunks' reconstructions
#      joined, as many frames as the input; cuts at the clip's scene cuts
#   2  byte-identical to the serial run of the same chunks
#   3  kill -9 of a worker while its x264 runs: the job completes, same bytes
#   4  kill -9 of the driver mid-job: no output; a rerun reuses the finished
#      chunks and writes the same bytes
#   5  missing input, truncated or unreadable input, missing x264, a chunk
#      whose x264 fails: non-zero exit, a message naming it, no output
#   6  joins where a chunk ends with an IDR picture (idr_pic_id rewritten;
#      CABAC, and CAVLC with slices); chunks that ask for a GPU resource go
#      to the worker that declares one; a non-y4m input cut at its keyframes
#
# Environment: X264 (default build/x264/x264), CHUNKED_DIR (work folder,
# default build/chunked-test), CHUNKED_VENV (default build/chunked-venv).

set -u
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"
W="${CHUNKED_DIR:-$B/chunked-test}"
V="${CHUNKED_VENV:-$B/chunked-venv}"
PY="$V/bin/python"
rm -rf "$W" && mkdir -p "$W/clips" "$W/cluster" || exit 1

if ! "$PY" -c "import dask, distributed, tqdm" 2>/dev/null; then
    echo "--- installing chunked/requirements.txt into $V"
    { python3 -m venv "$V" && "$V/bin/pip" install -q --disable-pip-version-check -r "$TOP/chunked/requirements.txt"; } ||
        { echo "chunked: could not install the Python packages"; echo "chunked: 0 passed, 1 failed"; exit 1; }
fi
[ -x "$X264" ] || { echo "no patched x264 at $X264 (./build.sh builds it)"; echo "chunked: 0 passed, 1 failed"; exit 1; }

pids=()
cleanup() {   # the cluster: workers first, then the scheduler; what ignores SIGTERM for 5 s gets SIGKILL
    local p i
    for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
        p=${pids[i]}
        kill "$p" 2>/dev/null || continue
        for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$p" 2>/dev/null
    done
    wait 2>/dev/null
}
trap cleanup EXIT

# --- clips: foreman (CIF); a clip with two scene cuts (foreman, mobile,
# foreman again), cuts at frames 40 and 70; an mpeg4 file with a keyframe
# every 12 frames and B-frames (display order differs from decoding order)
dec() { ffmpeg -nostdin -loglevel error -y "$@"; }
C="$W/clips"
dec -i "$TOP/tests/data/BA1_FT_C.264" -frames:v 63 -pix_fmt yuv420p "$C/foreman.y4m"
dec -i "$TOP/tests/data/BA1_FT_C.264" -i "$TOP/tests/data/CVPCMNL1_SVA_C.264" -filter_complex \
    "[0:v]split[f1][f2];[f1]trim=end_frame=40,setpts=PTS-STARTPTS[a];[1:v]trim=end_frame=30,setpts=PTS-STARTPTS[b];[f2]trim=start_frame=150:end_frame=190,setpts=PTS-STARTPTS[c];[a][b][c]concat=n=3:v=1,format=yuv420p" \
    "$C/cuts.y4m"
dec -i "$C/foreman.y4m" -frames:v 48 -c:v mpeg4 -g 12 -bf 2 -q:v 4 "$C/keys.mp4"
head -c 1000000 "$C/cuts.y4m" > "$C/truncated.y4m"
yes "not a video" | head -c 100000 > "$C/garbage.mp4"
for f in foreman.y4m cuts.y4m keys.mp4; do [ -s "$C/$f" ] || { echo "could not make $C/$f"; exit 1; }; done
FRAME=$((352 * 288 * 3 / 2))

# --- the cluster: processes of their own, started away from the checkout
start() {   # LOGNAME ARGS...: a process in $W/cluster; its pid in $last
    local name="$1"; shift
    (cd "$W/cluster" && exec env -u PYTHONPATH "$@" > "$W/cluster/$name.log" 2>&1) &
    last=$!; pids+=("$last")
}
# idle and death timeouts: a cluster whose test was killed goes away by itself
start scheduler "$V/bin/dask" scheduler --host 127.0.0.1 --port 0 --no-dashboard --idle-timeout 600 \
    --scheduler-file "$W/cluster/scheduler.json"
for _ in $(seq 100); do [ -s "$W/cluster/scheduler.json" ] && break; sleep 0.2; done
worker() {   # NAME [ARGS]: one worker, one chunk at a time, no nanny (killing it kills it)
    start "$1" "$V/bin/dask" worker --scheduler-file "$W/cluster/scheduler.json" --name "$1" \
        --nthreads 1 --no-nanny --no-dashboard --death-timeout 60 --local-directory "$W/cluster/$1" "${@:2}"
    eval "pid_$1=$last"
}
worker w1
worker w2

# the driver, from the checkout
export PYTHONPATH="$TOP"
GPU=(--gpu-me --gpu-me-backend c --gpu-me-range 8)
COMMON=(--x264 "$X264" --preset medium --threads 2 --no-progress)
drive() {   # NAME ARGS...: the driver; output $W/NAME.264, log $W/NAME.log, status in $rc
    local name="$1"; shift
    timeout 300 "$PY" -m chunked -o "$W/$name.264" "$@" > "$W/$name.log" 2>&1
    rc=$?
}
dist=(--scheduler "$W/cluster/scheduler.json" --workers 2 --wait-workers 30)
j() { "$PY" -c "import json,sys; print(eval(sys.argv[2], {}, json.load(open(sys.argv[1]))))" "$@"; }
decodes() {   # NAME FRAMES: NAME.264 decodes to NAME.yuv exactly, FRAMES frames
    local n="$W/$1"
    ffmpeg -nostdin -loglevel error -y -i "$n.264" -f rawvideo "$n.dec.yuv" && cmp -s "$n.dec.yuv" "$n.yuv" &&
        [ "$(stat -c %s "$n.yuv")" = $(($2 * FRAME)) ]
}

echo "--- 1, 2: the clip with scene cuts, on the cluster and serially"
drive dist "${COMMON[@]}" "${dist[@]}" --chunk 20 --dump-yuv "$W/dist.yuv" --workdir "$W/dist.work" "$C/cuts.y4m" -- "${GPU[@]}"
if [ "$rc" = 0 ] && decodes dist 110; then
    pass "cluster: exit 0; FFmpeg decodes the joined stream to the chunks' reconstructions, 110 frames"
else
    fail "cluster: exit $rc, or the decode differs (log $W/dist.log)"; tail -5 "$W/dist.log"
fi
starts=$(j "$W/dist.work/summary.json" "[r['start'] for r in chunk_records]" 2>/dev/null)
case "$starts" in
    *" 40,"*" 70,"*) pass "chunks start at the scene cuts 40 and 70 (starts $starts)" ;;
    *) fail "chunks do not start at the scene cuts 40 and 70 (starts $starts)" ;;
esac
nw=$(j "$W/dist.work/summary.json" "len(workers)" 2>/dev/null)
[ "$nw" = 2 ] && pass "both workers encoded chunks" || fail "workers that encoded chunks: $nw, 2 expected"
grep -q "open_ms" "$W/dist.work/summary.json" && pass "summary records x264's open_ms per chunk" ||
    fail "no open_ms in the summary"

drive serial "${COMMON[@]}" --serial --chunk 20 --dump-yuv "$W/serial.yuv" --workdir "$W/serial.work" "$C/cuts.y4m" -- "${GPU[@]}"
[ "$rc" = 0 ] && cmp -s "$W/serial.264" "$W/dist.264" &&
    pass "serial run: the same bytes as the cluster's" || fail "serial run: exit $rc, or other bytes than the cluster's"

echo "--- 3: a worker killed while its x264 runs"
child_x264() {   # PID: chunk encodes (x264 --seek) whose parent is PID
    local x
    for x in $(awk -v p="$1" '$2 == "(x264)" && $4 == p { print $1 }' /proc/[0-9]*/stat 2>/dev/null); do
        tr '\0' ' ' < "/proc/$x/cmdline" 2>/dev/null | grep -q -- "--seek" && echo "$x"
    done
}
alive() {   # PID: running (a zombie waiting to be reaped is dead)
    [ -r "/proc/$1/stat" ] && [ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" != Z ]
}
timeout 300 "$PY" -m chunked "${COMMON[@]}" "${dist[@]}" --chunk 20 --workdir "$W/kill.work" \
    "$C/cuts.y4m" -o "$W/kill.264" -- "${GPU[@]}" > "$W/kill.log" 2>&1 &
dpid=$!
# shellcheck disable=SC2154  # set by worker()
victim=$pid_w1 xpid=""
for _ in $(seq 1200); do
    xpid=$(child_x264 "$victim" | head -1)
    [ -n "$xpid" ] && break
    sleep 0.05
done
if [ -n "$xpid" ]; then
    kill -9 "$victim"
    wait "$victim" 2>/dev/null   # quietly: bash would report the kill
    sleep 1
    if alive "$xpid"; then fail "the killed worker's x264 ($xpid) lives on"; else pass "the killed worker's x264 died with it"; fi
fi
wait "$dpid"; rc=$?
if [ -z "$xpid" ]; then
    fail "worker w1 never ran an x264 to kill"
elif [ "$rc" = 0 ] && cmp -s "$W/kill.264" "$W/dist.264"; then
    pass "worker w1 killed mid-chunk: the job completed on w2, the same bytes ($(j "$W/kill.work/summary.json" "{k: v['chunks'] for k, v in workers.items()}") chunks per worker)"
else
    fail "worker killed: exit $rc, or other bytes (log $W/kill.log)"; tail -5 "$W/kill.log"
fi
# the new worker declares a GPU (an abstract resource to Dask: the C backend
# runs all the same), so chunks that ask for one go to it alone
worker w3 --resources GPU=1

echo "--- 4: the driver killed mid-job, then rerun"
# no timeout(1) in between: the kill must reach the driver itself
"$PY" -m chunked "${COMMON[@]}" "${dist[@]}" --chunk 20 --workdir "$W/resume.work" \
    "$C/cuts.y4m" -o "$W/resume.264" -- "${GPU[@]}" > "$W/resume1.log" 2>&1 &
dpid=$!
for _ in $(seq 600); do
    ls "$W/resume.work/chunks/"*.json > /dev/null 2>&1 && break
    sleep 0.1
done
kill -9 "$dpid" 2>/dev/null; wait "$dpid" 2>/dev/null
done1=$(ls "$W/resume.work/chunks/"*.json 2>/dev/null | wc -l)
if [ -e "$W/resume.264" ]; then
    fail "the driver finished before it could be killed, or left an output ($done1 chunks done)"
else
    pass "driver killed with $done1 of 5 chunks done: no output file"
fi
drive resume "${COMMON[@]}" "${dist[@]}" --chunk 20 --workdir "$W/resume.work" "$C/cuts.y4m" -- "${GPU[@]}"
reused=$(j "$W/resume.work/summary.json" "reused" 2>/dev/null)
if [ "$rc" = 0 ] && [ "${reused:-0}" -ge 1 ] && [ "$reused" -lt 5 ] && cmp -s "$W/resume.264" "$W/dist.264"; then
    pass "rerun: reused $reused finished chunks, the same bytes"
else
    fail "rerun: exit $rc, reused ${reused:-?}, or other bytes"; tail -3 "$W/resume.log"
fi


echo "--- 5: errors"
error_case() {   # WHAT REGEX NAME ARGS...: the driver fails, says REGEX, writes no NAME.264
    local what="$1" re="$2"; shift 2
    drive "$@"
    if [ "$rc" != 0 ] && grep -qE "$re" "$W/$1.log" && [ ! -e "$W/$1.264" ]; then
        pass "$what: exit $rc, $(grep -E "$re" "$W/$1.log" | head -1 | cut -c1-150)"
    else
        fail "$what: exit $rc, message /$re/ $(grep -cE "$re" "$W/$1.log") times, output $( [ -e "$W/$1.264" ] && echo present || echo absent)"
        tail -3 "$W/$1.log"
    fi
}
error_case "missing input" "input not found: .*/nothing.y4m" e_missing "${COMMON[@]}" --serial "$C/nothing.y4m"
error_case "truncated y4m" "truncated.y4m: corrupt or truncated y4m" e_trunc "${COMMON[@]}" --serial "$C/truncated.y4m"
error_case "unreadable input" "cannot read the input .*garbage.mp4" e_garbage "${COMMON[@]}" --serial "$C/garbage.mp4"
error_case "missing x264 (serial)" "x264 not found or not executable: /nonexistent/x264" e_x264s \
    "${COMMON[@]}" --serial --x264 /nonexistent/x264 "$C/foreman.y4m"
error_case "missing x264 (cluster)" "worker w[23] .*x264 not found or not executable: /nonexistent/x264" e_x264d \
    "${COMMON[@]}" "${dist[@]}" --x264 /nonexistent/x264 "$C/foreman.y4m"
# an x264 that fails on one chunk only, like a bad encode would
mkdir -p "$W/bin"
cat > "$W/bin/x264" <<EOF
#!/bin/sh
case " \$* " in *" --seek 40 "*) echo "x264 [error]: simulated failure at frame 40" >&2; exit 3 ;; esac
exec "$X264" "\$@"
EOF
chmod +x "$W/bin/x264"
error_case "a chunk's x264 fails" "chunk 2 \(frames 40\.\.69\) failed on worker w[23] .*status 3" e_chunk \
    "${COMMON[@]}" "${dist[@]}" --x264 "$W/bin/x264" --chunk 20 --workdir "$W/e_chunk.work" "$C/cuts.y4m" -- "${GPU[@]}"
grep -q "simulated failure at frame 40" "$W/e_chunk.log" && pass "... and the message quotes x264's last lines" ||
    fail "the message does not quote x264's last lines"

echo "--- 6: joins at an IDR picture; GPU resources; keyframe cuts of a non-y4m input"
for v in cabac:"" cavlc:"--no-cabac --slices 2"; do
    # shellcheck disable=SC2086  # the options split
    drive "idr_${v%%:*}" "${COMMON[@]}" "${dist[@]}" --preset veryfast --cuts fixed --chunk 21 \
        --dump-yuv "$W/idr_${v%%:*}.yuv" "$C/foreman.y4m" -- "${GPU[@]}" --keyint 10 --no-scenecut ${v#*:}
    n=$(j "$W/idr_${v%%:*}.264.work/summary.json" "idr_pic_id_rewrites" 2>/dev/null)
    if [ "$rc" = 0 ] && [ "$n" = 2 ] && decodes "idr_${v%%:*}" 63 && "$PY" -m chunked.h264 "$W/idr_${v%%:*}.264" > "$W/idr_${v%%:*}.ids"; then
        pass "${v%%:*}: 3 chunks ending in IDR pictures: idr_pic_id changed at 2 joins, consecutive IDRs differ, decodes to the reconstructions ($(cat "$W/idr_${v%%:*}.ids"))"
    else
        fail "${v%%:*}: exit $rc, $n rewrites, or a bad stream"; cat "$W/idr_${v%%:*}.ids" 2>/dev/null
    fi
done
drive gpu "${COMMON[@]}" "${dist[@]}" --preset veryfast --cuts fixed --chunk 21 --gpu-per-chunk 0.5 "$C/foreman.y4m" -- "${GPU[@]}"
placed=$(j "$W/gpu.264.work/summary.json" "{k: v['chunks'] for k, v in workers.items()}" 2>/dev/null)
if [ "$rc" = 0 ] && [ "$placed" = "{'w3': 3}" ] && grep -q "GPU 0.5 per chunk" "$W/gpu.log"; then
    pass "--gpu-per-chunk 0.5: every chunk ran on w3, the worker that declares GPU=1 ($placed)"
else
    fail "--gpu-per-chunk 0.5: exit $rc, chunks per worker $placed, w3 (GPU=1) alone expected"
fi
drive keys "${COMMON[@]}" "${dist[@]}" --preset veryfast --cuts keyframes --chunk 10 --dump-yuv "$W/keys.yuv" "$C/keys.mp4" -- "${GPU[@]}"
starts=$(j "$W/keys.264.work/summary.json" "[r['start'] for r in chunk_records]" 2>/dev/null)
if [ "$rc" = 0 ] && [ "$starts" = "[0, 12, 24, 36]" ] && decodes keys 48; then
    pass "mpeg4 input: decoded to y4m, cut at its keyframes $starts, 48 frames decode to the reconstructions"
else
    fail "mpeg4 input: exit $rc, starts $starts (keyframes every 12 expected), or a bad stream"; tail -3 "$W/keys.log"
fi

# chunked/bench.sh in its QUICK form (C backend, CIF, 60 frames, two runs
# at QP 27): every configuration's row, BD-rates against both anchors, the
# encoding time
QUICK=1 PY="$PY" MANY=2 "$TOP/chunked/bench.sh" "$W/bench" > "$W/bench.log" 2>&1
brc=$?
rows=$(grep -cE "^\| (single|chunked)_(gpu|stock)[_0-9]* \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [+-][0-9.]+% \| [+-][0-9.]+% \|$" \
       "$W/bench/table.md" 2>/dev/null)
if [ "$brc" = 0 ] && [ "$rows" = 6 ]; then
    pass "chunked/bench.sh QUICK=1: 6 configurations with fps, encoding time, start-up and BD-rates"
else
    fail "chunked/bench.sh QUICK=1: exit $brc, $rows of 6 complete rows"; tail -12 "$W/bench.log"
fi

# bench_fails NAME MESSAGE WHAT [VAR=VALUE...]: chunked/bench.sh QUICK=1 with
# those variables, into W/NAME, fails saying MESSAGE
bench_fails() {
    local name="$1" msg="$2" what="$3" brc
    shift 3
    env "$@" QUICK=1 PY="$PY" MANY=2 "$TOP/chunked/bench.sh" "$W/$name" > "$W/$name.log" 2>&1
    brc=$?
    if [ "$brc" != 0 ] && grep -q "$msg" "$W/$name.log"; then
        pass "chunked/bench.sh: $what"
    else
        fail "chunked/bench.sh: $what: exit $brc"; tail -5 "$W/$name.log"
    fi
}

# a repeat that writes other bytes than the first run fails the bench: a
# stock x264 whose B-frames change with every call
printf '#!/bin/sh\nn=$(cat "$0.n" 2>/dev/null || echo 0); echo $((n + 1)) > "$0.n"\nexec "%s" --bframes "$n" "$@"\n' \
    "$STOCK" > "$W/x264-drift" && chmod +x "$W/x264-drift" && rm -f "$W/x264-drift.n"
bench_fails bench-drift "repeat(s) wrote other bytes than the first run" \
    "a repeat that writes other bytes fails the bench, saying so" CONFIGS=single_stock STOCK="$W/x264-drift"

# MPS=1: the bench starts a daemon of its own for the whole run, its pipe
# in OUTDIR and passed to the encodes, and stops it at the end; without the
# driver's tool it refuses, saying why.  A stand-in nvidia-cuda-mps-control
# records its calls; a stand-in x264 records the pipe it was given.
mkdir -p "$W/mpsbin"
printf '#!/bin/sh\nif [ "$1" = -d ]; then echo "start $CUDA_MPS_PIPE_DIRECTORY" >> "%s"; else read -r c; echo "$c" >> "%s"; fi\n' \
    "$W/mps.calls" "$W/mps.calls" > "$W/mpsbin/nvidia-cuda-mps-control"
printf '#!/bin/sh\necho "x264 $CUDA_MPS_PIPE_DIRECTORY" >> "%s"\nexec "%s" "$@"\n' "$W/mps.calls" "$STOCK" > "$W/x264-mps"
chmod +x "$W/mpsbin/nvidia-cuda-mps-control" "$W/x264-mps"
rm -f "$W/mps.calls"
PATH="$W/mpsbin:$PATH" MPS=1 QUICK=1 PY="$PY" MANY=2 CONFIGS="single_stock chunked_stock" LENGTHS=30 REPEATS=1 QPS=27 \
    STOCK="$W/x264-mps" \
    "$TOP/chunked/bench.sh" "$W/bench-mps" > "$W/bench-mps.log" 2>&1
brc=$?
calls="$(cat "$W/mps.calls" 2>/dev/null)"
if [ "$brc" = 0 ] && [ "$(head -1 <<< "$calls")" = "start $W/bench-mps/mps" ] && [ "$(tail -1 <<< "$calls")" = quit ] &&
   [ "$(grep -cx "x264 $W/bench-mps/mps" <<< "$calls")" -ge 3 ] && ! grep -v "^x264 $W/bench-mps/mps$" <<< "$calls" | grep -q "^x264" &&
   grep -q "CUDA MPS: on" "$W/bench-mps/table.md"; then
    pass "chunked/bench.sh MPS=1: a daemon of its own (pipe in OUTDIR) for every encode, the chunk workers' too, stopped at the end"
else
    fail "chunked/bench.sh MPS=1: exit $brc, calls: $(tr '\n' ';' <<< "$calls")"; tail -5 "$W/bench-mps.log"
fi
if command -v nvidia-cuda-mps-control > /dev/null 2>&1; then
    echo "  --    chunked/bench.sh MPS=1 without the driver's MPS tool: not checked, this machine has it"
else
    bench_fails bench-nomps "MPS=1: no nvidia-cuda-mps-control here" \
        "MPS=1 without the driver's MPS tool: refused, saying so" MPS=1 CONFIGS=single_stock REPEATS=1 QPS=27
fi

summary chunked
