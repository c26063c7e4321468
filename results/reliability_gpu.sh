#!/bin/bash
# results/reliability_gpu.sh OUTDIR: the GPU host's share of the
# reliability checks (tests/device.sh reliability); builds nothing.  Every case gets
# a pass/fail verdict in OUTDIR/reliability_gpu.csv and a final
# "reliability_gpu: N passed, N failed" line; exit 1 on any failure.
#
#   1. device memory over a long encode: MEM_CLIP (street_1080p.y4m, 8
#      frames, decoded by tests/device.sh data) looped into x264's stdin for
#      MEM_SECONDS (75) s, --gpu-me cuda, preset medium, THREADS (16)
#      threads.  At ~45 fps (street 1080p, medium, 16 threads on an H200)
#      that is ~3400 frames; the
#      input is cut by time, so the encode lasts MEM_SECONDS whatever the
#      speed.  The measured duration must be >= 60 s and every frame fed
#      must be encoded.  nvidia-smi samples the GPU's memory every 500 ms;
#      pass when the samples are never more than 1 s apart, the steady state
#      (the samples after the first 10%, up to 1 s before x264 exits, when
#      it frees everything) varies by at most MEM_TOL_MIB (2) MiB, and the
#      peak stays within MEM_PEAK_MIB (2048) MiB above idle (CUDA context
#      ~0.5 GiB plus the library's buffers, which x264 reports as "memory
#      peak").  The long stream is not kept (no reconstruction of 3000+
#      1080p frames is dumped); the other cases check decodes.
#   2. four concurrent encodes give the same bytes as four in turn
#   3. faults injected into the CUDA backend in the middle of an encode:
#      one warning, exit 0, all 30 frames
#
# Decodes (2, 3) are deferred (E2E_DECODE=defer, no FFmpeg on the GPU
# host): OUTDIR keeps NAME.264 and NAME.rec.md5; on a machine with
# FFmpeg, tests/verify_deferred.sh OUTDIR decodes and compares them.
#
# Environment: X264 (default build/device/x264/x264), CUDA_ME_TEST_DATA,
# GPU_ME_BACKEND (cuda), THREADS, MEM_CLIP, MEM_SECONDS, MEM_TOL_MIB,
# MEM_PEAK_MIB.
set -u
X264_TREE=device/x264
E2E_DECODE="${E2E_DECODE:-defer}"
# shellcheck source=SCRIPTDIR/../tests/lib.sh
. "$(dirname "$0")/../tests/lib.sh"
W="${1:?usage: reliability_gpu.sh OUTDIR}"
mkdir -p "$W"
rm -f "$W"/*.264 "$W"/*.rec.md5 "$W"/*.rec.yuv
TABLE="$W/reliability_gpu.csv"
table_init
BE="--gpu-me --gpu-me-backend ${GPU_ME_BACKEND:-cuda}"
THREADS="${THREADS:-16}"
MEM_CLIP="${MEM_CLIP:-street_1080p.y4m}"
MEM_SECONDS="${MEM_SECONDS:-75}"
MEM_MIN_SECONDS=60
MEM_TOL_MIB="${MEM_TOL_MIB:-2}"
MEM_PEAK_MIB="${MEM_PEAK_MIB:-2048}"

# y4m on stdout: SRC's frames over and over until SECONDS have passed; the
# number of frames written goes to COUNT_FILE
LOOP_Y4M='
import sys, time
src, seconds, count_file = sys.argv[1], float(sys.argv[2]), sys.argv[3]
head, _, body = open(src, "rb").read().partition(b"\n")
frames = [b"FRAME\n" + f for f in body.split(b"FRAME\n")[1:]]
out, n, end = sys.stdout.buffer, 0, time.time() + seconds
try:
    out.write(head + b"\n")
    while time.time() < end:
        out.write(frames[n % len(frames)])
        n += 1
    out.flush()
except BrokenPipeError:
    pass
open(count_file, "w").write("%d\n" % n)
'

# MEM_CSV T0 T1 TOL PEAK: verdict on nvidia-smi samples (timestamp, MiB);
# prints the observation, exits 0 on pass
MEM_VERDICT='
import sys, datetime
path, t0, t1, tol, peak_max = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
s = []
try:
    lines = open(path).readlines()
except OSError as e:
    print("no samples: %s" % e)
    sys.exit(1)
for line in lines:
    p = [x.strip() for x in line.split(",")]
    try:
        t = datetime.datetime.strptime(p[0], "%Y/%m/%d %H:%M:%S.%f").timestamp()
        s.append((t, int(p[1])))
    except (ValueError, IndexError):
        pass
idle = [m for t, m in s if t < t0]
run = [(t, m) for t, m in s if t0 <= t <= t1]
if len(run) < 10:
    print("%d samples during the encode (of %d lines): too few" % (len(run), len(s)))
    sys.exit(1)
times = [t0] + [t for t, m in run] + [t1]
gap = max(b - a for a, b in zip(times, times[1:]))
base = min(idle) if idle else 0
steady = [m for t, m in run[(len(run) + 9) // 10:] if t <= t1 - 1.0]
peak = max(m for t, m in run) - base
var = max(steady) - min(steady) if steady else -1
print("%d samples in %.1f s, largest gap %.2f s; idle %s MiB; steady state %d samples, %s..%s MiB (varies %d MiB); peak %d MiB above idle"
      % (len(run), t1 - t0, gap, base if idle else "unknown (0 assumed)", len(steady),
         min(steady) if steady else "-", max(steady) if steady else "-", var, peak))
sys.exit(0 if gap <= 1.0 and steady and 0 <= var <= tol and peak <= peak_max else 1)
'

echo "--- 1. device memory over a long encode"
if [ -s "$D/$MEM_CLIP" ]; then
    nvidia-smi -i 0 --query-gpu=timestamp,memory.used --format=csv,noheader,nounits -lms 500 > "$W/mem.csv" 2> "$W/mem.err" &
    smi=$!
    sleep 2   # idle samples
    t0=$(date +%s.%N)
    # shellcheck disable=SC2086
    ENC_DUMP=0 ENC_TIMEOUT=$((MEM_SECONDS + 300)) enc "$X264" long - --demuxer y4m $BE --gpu-me-stats \
        --preset medium --merange 64 --threads "$THREADS" < <(python3 -c "$LOOP_Y4M" "$D/$MEM_CLIP" "$MEM_SECONDS" "$W/long.fed")
    t1=$(date +%s.%N)
    sleep 1
    kill "$smi" 2>/dev/null; wait "$smi" 2>/dev/null
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
    fed=$(cat "$W/long.fed" 2>/dev/null)
    IFS=, read -r frames fps <<< "$(x264_log_stats "$W/long.log" frames fps)"
    ok=0
    [ "$rc" = 0 ] && [ -n "$frames" ] && [ "$frames" = "$fed" ] &&
        awk -v s="$secs" -v m="$MEM_MIN_SECONDS" 'BEGIN { exit !(s >= m) }' && ok=1
    row "long encode: $MEM_CLIP looped ${MEM_SECONDS} s into stdin, $BE, medium, --merange 64, $THREADS threads" \
        "exit 0; every frame fed encoded; >= $MEM_MIN_SECONDS s" \
        "exit $rc; $frames of ${fed:-?} frames encoded at $fps fps; $secs s" $ok
    grep -h "gpu-me-stats: \(frames=\|wall_ms=\|open_ms=\)" "$W/long.log" | sed 's/^/        /'
    ok=0
    obs=$(python3 -c "$MEM_VERDICT" "$W/mem.csv" "$t0" "$t1" "$MEM_TOL_MIB" "$MEM_PEAK_MIB" 2>&1) && ok=1
    lib_peak="$(kv "$W/long.log" device_mib_peak) MiB"
    [ -s "$W/mem.err" ] && obs="$obs; nvidia-smi: $(head -1 "$W/mem.err")"
    row "device memory during the long encode (nvidia-smi every 500 ms)" \
        "samples <= 1 s apart; steady state varies <= $MEM_TOL_MIB MiB; peak <= $MEM_PEAK_MIB MiB above idle" \
        "$obs; x264: ${lib_peak:-no memory peak line}" $ok
    rm -f "$W/long.264"
else
    row "long encode" "$D/$MEM_CLIP (tests/device.sh data)" "missing" 0
    row "device memory during the long encode" "a long encode" "not run: $D/$MEM_CLIP missing" 0
fi

echo "--- 2. four concurrent encodes == four in turn"
# shellcheck disable=SC2086
for i in 1 2 3 4; do enc "$X264" "ser$i" foreman_cif.y4m $BE --threads 4 --bframes 3 --gpu-me-range 24; done
encodes "serial encode 1 of 4" ser1
for i in 1 2 3 4; do
    # shellcheck disable=SC2086
    ENC_DUMP=0 enc "$X264" "par$i" foreman_cif.y4m $BE --threads 4 --bframes 3 --gpu-me-range 24 &
done
wait
n=0
for i in 1 2 3 4; do cmp -s "$W/ser1.264" "$W/par$i.264" && cmp -s "$W/ser1.264" "$W/ser$i.264" && n=$((n+1)); done
row "4 concurrent encodes vs 4 serial" "8 identical streams" "$n of 4 parallel identical to serial" "$(truth [ "$n" = 4 ])"
rm -f "$W"/ser[234].* "$W"/par*.264

echo "--- 3. faults injected in the middle of an encode"
for spec in launch:40 copy:25 alloc:20 device:1; do
    fault_case "$spec" "CUDA backend (auto), 30 frames, 4 threads" "warning.*gpu-me" 30 \
        foreman_cif.y4m --gpu-me --gpu-me-range 16 --gpu-me-stats --threads 4 --bframes 3
done

note="table: $TABLE"
if [ "$E2E_DECODE" = defer ]; then
    rm -f "$W"/*.rec.yuv
    note="$note; decodes deferred: tests/verify_deferred.sh $W"
fi
summary reliability_gpu "$note"
