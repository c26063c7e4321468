#!/bin/bash
# tests/e2e.sh: end-to-end encodes of real clips with stock and patched x264.
#
# Every encode is decoded by FFmpeg and must equal x264's own reconstruction
# (--dump-yuv) byte for byte; without FFmpeg that is a failure, except with
# E2E_DECODE=defer (tests/device.sh, on a GPU host without FFmpeg): each
# stream keeps NAME.rec.md5 for tests/verify_deferred.sh on a machine with
# FFmpeg.  Checks read --gpu-me-stats' key=value lines (lib.sh's kv).
#
#   (default)   stock == patched without --gpu-me; --mvrange-thread auto;
#               --gpu-me with no GPU warns once and encodes as x264 alone;
#               --gpu-me-backend cuda without a GPU fails; what plain
#               --gpu-me decides; C-backend encodes of every kind; each rule
#               (A/B runs through the developer build, build/x264-exp)
#   GPU=1       on a GPU host: the same kinds of encodes on the CUDA backend
#               are byte-identical to the C backend
#
# Environment: X264, STOCK, X264_EXP (binaries), CUDA_ME_TEST_DATA (decoded
# clips), E2E_DIR (outputs, kept for inspection), E2E_DECODE (ffmpeg or
# defer).

set -u
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"
W="${E2E_DIR:-$B/e2e}"
GPU="${GPU:-0}"
XE="${X264_EXP:-$B/${X264_TREE:-x264}-exp/x264}"   # the series plus patches/experiments
rm -rf "$W" && mkdir -p "$W"

# check_exp NAME ENV INPUT ARGS...: check with the developer build, ENV
# ("VAR=VALUE ...") set
check_exp() {
    local name="$1" env="$2"; shift 2
    X264="$XE" ENC_ENV="$env" check "$name" "$@"
}
[ -x "$XE" ] || { echo "no $XE: ./build.sh test builds it (./build.sh experiment)"; exit 1; }
# street8: 8 frames of the 1080p test clip; loop1080 N: N frames of it
# played forward and backward, a y4m on stdout (piped, x264 is not told
# the count)
street8() {
    [ -s "$D/street_1080p_8.y4m" ] || ffmpeg -nostdin -loglevel error -y -i "$TOP/tests/data/VID_1920x1080_cabac_temporal_direct.264" \
        -frames:v 8 -pix_fmt yuv420p "$D/street_1080p_8.y4m"
}
loop1080() {
    street8 && python3 - "$D/street_1080p_8.y4m" "$1" <<'EOF_PY'
import sys
d = open(sys.argv[1], 'rb').read()
i = d.index(b'\n') + 1
tags = {t[:1]: t[1:] for t in d[:i].split()[1:]}
size = len(b'FRAME\n') + int(tags[b'W']) * int(tags[b'H']) * 3 // 2
frames = [d[i + k * size:i + (k + 1) * size] for k in range((len(d) - i) // size)]
order = frames + frames[-2:0:-1]
sys.stdout.buffer.write(d[:i])
for k in range(int(sys.argv[2])):
    sys.stdout.buffer.write(order[k % len(order)])
EOF_PY
}

gpu_present=0
if ENC_DUMP=0 enc "$X264" probe bus_qcif.y4m --frames 2 --gpu-me --gpu-me-backend cuda; then gpu_present=1; fi
rm -f "$W/probe.264"   # every stream left in $W is checked (or its check deferred)

if [ "$GPU" = 1 ]; then
    [ "$gpu_present" = 1 ] || { echo "GPU=1 but the CUDA backend cannot open:"; cat "$W/probe.log"; exit 1; }
    echo "--- CUDA backend == C backend, byte for byte"
    # NAME CLIP ENV|- ARGS: ENV for the developer build, - for the shipped one
    while read -r name clip env args; do
        [ -z "$name" ] && continue
        if [ "$env" = - ]; then
            # shellcheck disable=SC2086
            check "$name.cuda" "$clip" --gpu-me --gpu-me-backend cuda --gpu-me-stats $args &&
            check "$name.c" "$clip" --gpu-me --gpu-me-backend c $args
        else
            # shellcheck disable=SC2086
            check_exp "$name.cuda" "$env" "$clip" --gpu-me --gpu-me-backend cuda --gpu-me-stats $args &&
            check_exp "$name.c" "$env" "$clip" --gpu-me --gpu-me-backend c $args
        fi && same "$name.cuda" "$name.c" "$name: cuda and c streams identical ($env $args)"
        echo "        search_ms_per_pair=$(kv "$W/$name.cuda.log" search_ms_per_pair) pairs=$(kv "$W/$name.cuda.log" pairs)"
    done <<'EOF'
pyramid foreman_cif.y4m - --bframes 3 --b-pyramid normal --ref 4 --threads 4
ponly foreman_cif.y4m - --bframes 0 --ref 1 --threads 1
range24 foreman_cif.y4m - --threads 4 --gpu-me-range 24
threads8 mobile_cif.y4m - --threads 8 --gpu-me-range 28 --bframes 3
mvrt8 foreman_cif.y4m - --threads 8 --gpu-me-range 32 --bframes 3
partall mobile_cif.y4m - --ref 3 --mixed-refs --partitions all --threads 4
sliced foreman_cif.y4m - --sliced-threads --threads 4
odd foreman_346x282.y4m - --threads 2 --gpu-me-range 48
veryslow bus_qcif.y4m - --preset veryslow --threads 4
ultrafast carphone_qcif.y4m - --preset ultrafast --threads 4 --merange 128
idrwarm foreman_cif.y4m - --keyint 4 --min-keyint 1 --threads 4 --gpu-me-range 16
lathreads mobile_cif.y4m - --threads 12 --lookahead-threads 2 --gpu-me-range 28 --bframes 3
subpel foreman_cif.y4m - --threads 4 --gpu-me-range 32 --ref 4 --bframes 3
subpelall mobile_cif.y4m - --preset slower --threads 4 --gpu-me-range 16
split foreman_cif.y4m X264_GPU_ME_SPLIT=10 --threads 4 --gpu-me-range 32 --ref 3 --bframes 3
cands1 foreman_cif.y4m X264_GPU_ME_CANDS=1 --threads 4 --gpu-me-range 28
lookahead foreman_cif.y4m X264_GPU_ME_WARMUP=1 --threads 4 --rc-lookahead 10 --gpu-me-range 16 --preset slower
final foreman_cif.y4m X264_GPU_ME_FINAL=2 --threads 4 --gpu-me-range 32 --ref 2 --bframes 3
EOF
    # the backend users get (auto): the device opens on its own thread during
    # the warm-up; the same bytes as the C reference
    check auto foreman_cif.y4m --gpu-me --gpu-me-stats --threads 4 --bframes 3 --gpu-me-range 16 &&
    check auto.c foreman_cif.y4m --gpu-me --gpu-me-backend c --threads 4 --bframes 3 --gpu-me-range 16 &&
    same auto auto.c "--gpu-me-backend auto (opened during the warm-up) and c: streams identical"
    if [ "$(kvn "$W/auto.log" backend)" = cuda ] && [ "$(kvn "$W/lookahead.cuda.log" lookahead_gpu_pairs)" -gt 0 ]; then
        pass "auto ran CUDA ($(kv "$W/auto.log" gpu)); the lookahead's pairs reached the GPU ($(kv "$W/lookahead.cuda.log" lookahead_gpu_pairs))"
    else
        fail "expected backend=cuda and lookahead pairs on the GPU"; grep -h gpu-me-stats "$W/auto.log" "$W/lookahead.cuda.log"
    fi
    summary e2e
    exit
fi

echo "--- stock x264 $("$STOCK" --version | head -1) == patched x264 without --gpu-me"
i=0
while read -r clip args; do
    [ -z "$clip" ] && continue
    i=$((i+1))
    # shellcheck disable=SC2086
    enc "$STOCK" "stock$i" "$clip" $args || fail "stock x264 failed ($args)"
    # shellcheck disable=SC2086
    check "plain$i" "$clip" $args && same "stock$i" "plain$i" "stock == patched, byte for byte ($clip $args)"
done <<'EOF'
foreman_cif.y4m --threads 2
foreman_cif.y4m --preset veryfast --threads 2
foreman_cif.y4m --preset slow --tune film --threads 1
bus_qcif.y4m --bframes 0 --ref 1 --threads 3
foreman_346x282.y4m --preset medium --threads 4
EOF

# a camera tilting down: foreman's 16 first frames, a 352x192 window moving
# down 6 rows a frame; mobile panning 16 pixels a frame
[ -s "$D/tilt_352x192.y4m" ] || ffmpeg -nostdin -loglevel error -y -i "$D/foreman_cif.y4m" \
    -vf "crop=352:192:0:'min(6*n,96)'" -frames:v 16 -pix_fmt yuv420p "$D/tilt_352x192.y4m" ||
    fail "cannot make the tilting clip"
[ -s "$D/pan_352x288.y4m" ] || ffmpeg -nostdin -loglevel error -y -i "$D/mobile_cif.y4m" \
    -vf "scale=704:576,crop=352:288:16*n:0" -frames:v 20 -pix_fmt yuv420p "$D/pan_352x288.y4m" ||
    fail "cannot make the panning clip"

echo "--- --mvrange-thread auto (no GPU involved)"
# 8 frame threads on 352x192: x264's own limit 24; auto chooses per frame
# between it and 72 (64 rounded to the threads' rows): the clip tilts down 6
# pixels a frame, so P frames 4 apart need more than B frames
{
check mvrta tilt_352x192.y4m --mvrange-thread auto --threads 8 --gpu-me-stats
check mvrtb tilt_352x192.y4m --mvrange-thread auto --threads 8
check mvrts tilt_352x192.y4m --threads 8
}
same mvrta mvrtb "--mvrange-thread auto: deterministic (the same encode twice, the same bytes)"
frames="$(kv "$W/mvrta.log" mv_range_thread_frames)"
if [ "$(kv "$W/mvrta.log" mv_range_thread_min)" = 24 ] && [ "$(kv "$W/mvrta.log" mv_range_thread_max)" = 72 ] &&
   [ "$(echo "$frames" | tr ',' '\n' | wc -l)" -ge 2 ] && ! cmp -s "$W/mvrta.264" "$W/mvrts.264"; then
    pass "--mvrange-thread auto: limits 24..72, chosen per frame ($frames), another encode than x264's fixed 24"
else
    fail "--mvrange-thread auto: expected 24..72 with two limits or more chosen"; grep -h "gpu-me-stats: look" "$W/mvrta.log"
fi
# the lookahead searches +-64: its mb-tree (a first pass, made by the
# lookahead alone) is stock --me umh --merange 64's, whose lookahead (hex,
# uncapped for umh) searches as far, on mobile panning 16 pixels a frame,
# where +-16 gives another; also in x264's sliced lookahead (two threads)
for lt in 1 2; do
    for r in 16 64; do
        ENC_DUMP=0 enc "$STOCK" "lastock${r}_$lt" pan_352x288.y4m --me umh --merange $r --pass 1 --slow-firstpass \
            --stats "$W/lastock${r}_$lt.stats" --threads 4 --lookahead-threads $lt --bframes 3 ||
            fail "stock x264 first pass failed (lookahead threads $lt, range $r)"
    done
    ENC_DUMP=0 enc "$X264" "laauto_$lt" pan_352x288.y4m --mvrange-thread auto --pass 1 --slow-firstpass \
        --stats "$W/laauto_$lt.stats" --threads 4 --lookahead-threads $lt --bframes 3 ||
        fail "--mvrange-thread auto first pass failed (lookahead threads $lt)"
    if ! cmp -s "$W/lastock16_$lt.stats.mbtree" "$W/lastock64_$lt.stats.mbtree" &&
       cmp -s "$W/laauto_$lt.stats.mbtree" "$W/lastock64_$lt.stats.mbtree"; then
        pass "lookahead threads $lt: --mvrange-thread auto's lookahead searches +-64 (mb-tree as stock --me umh --merange 64's)"
    else
        fail "lookahead threads $lt: --mvrange-thread auto's mb-tree is not stock --merange 64's (or the clip does not tell 16 from 64)"
    fi
    rm -f "$W"/la*_"$lt".264
done

if [ "$gpu_present" = 0 ]; then
    echo "--- no GPU here"
    if enc "$X264" auto foreman_cif.y4m --gpu-me --gpu-me-range 16 --threads 2; then
        n=$(grep -c "gpu-me" "$W/auto.log")
        if [ "$n" = 1 ] && grep -q "warning.*gpu-me:.*x264's own motion search" "$W/auto.log"; then
            pass "--gpu-me without GPU: one warning: $(grep gpu-me "$W/auto.log")"
        else
            fail "--gpu-me without GPU: expected one warning line, got $n"; cat "$W/auto.log"
        fi
        # the option SEI, written before the open ends, says what was asked
        # for; every picture is x264's alone (range 16 widens nothing on CIF)
        if cmp -s "$W/auto.rec.yuv" "$W/plain1.rec.yuv" && grep -a -q "gpu_me=16 " "$W/auto.264"; then
            pass "--gpu-me without GPU encodes exactly as x264 alone (same pictures; the option SEI says gpu_me=16)"
        else
            fail "--gpu-me without GPU encodes differently from x264 alone"
        fi
        if decoded auto; then pass "--gpu-me without GPU: $DECODE_NOTE"; else fail "--gpu-me without GPU: $DECODE_NOTE"; fi
    else
        fail "--gpu-me without GPU must exit 0"
    fi
    # a frame count x264 is not told (FFmpeg, a pipe) follows the rule of
    # a known one: 200 frames of 1080p (414 Mpixels) open the device, here
    # at frame 193 instead of at once; without a device both say so once
    # and encode as x264 alone, the same bytes
    loop1080 200 | enc "$X264" pipe200 - --demuxer y4m --gpu-me --preset veryfast --threads 4
    rc_unknown=$rc
    loop1080 200 | enc "$X264" pipe200n - --demuxer y4m --frames 200 --gpu-me --preset veryfast --threads 4
    if [ "$rc_unknown" = 0 ] && [ "$rc" = 0 ] &&
       grep -q "info.*gpu-me: 1920x1080, frame count unknown: .* up to frame 193" "$W/pipe200.log" &&
       [ "$(grep -c "warning.*gpu-me:.*x264's own motion search" "$W/pipe200.log")" = 1 ] &&
       [ "$(grep -c "warning.*gpu-me:.*x264's own motion search" "$W/pipe200n.log")" = 1 ] &&
       cmp -s "$W/pipe200.264" "$W/pipe200n.264"; then
        pass "--gpu-me, 200 frames of 1080p piped: the device opens at frame 193, not at once; without it, one warning and the bytes of the known count"
    else
        fail "--gpu-me, 200 frames of 1080p piped, count unknown and known: expected one warning each and the same bytes"
        grep -h gpu-me "$W/pipe200.log" "$W/pipe200n.log"
    fi
    if decoded pipe200; then pass "--gpu-me, 200 piped frames: $DECODE_NOTE"; else fail "--gpu-me, 200 piped frames: $DECODE_NOTE"; fi
    if enc "$X264" cuda foreman_cif.y4m --gpu-me --gpu-me-backend cuda; then
        fail "--gpu-me-backend cuda without GPU must fail"
    elif grep -q "error.*gpu-me:" "$W/cuda.log"; then
        pass "--gpu-me-backend cuda without GPU fails: $(grep 'error.*gpu-me' "$W/cuda.log" | head -1)"
    else
        fail "--gpu-me-backend cuda without GPU: no clear error"; cat "$W/cuda.log"
    fi
else
    echo "--- a GPU is present: the no-GPU checks do not apply (GPU=1 runs the GPU checks)"
fi

echo "--- what plain --gpu-me decides (at open, from size, frame count and options)"
if enc "$X264" small foreman_cif.y4m --gpu-me --threads 2 && grep -q "info.*gpu-me: 352x288.*too small.*x264's own motion search" "$W/small.log" &&
   ! grep -q "warning" "$W/small.log"; then
    pass "--gpu-me on CIF: off, one info line: $(grep gpu-me "$W/small.log" | sed 's/.*gpu-me: //')"
else
    fail "--gpu-me on CIF: expected one info line and no GPU"; cat "$W/small.log"
fi
same small plain1 "--gpu-me on CIF encodes exactly as x264 alone"
if ENC_DUMP=0 enc "$X264" fast1080 street_1080p_2.y4m --gpu-me --preset ultrafast --threads 16 &&
   grep -q "gpu-me: 1920x1080, --me dia: .*diamond.*x264's own motion search" "$W/fast1080.log"; then
    pass "--gpu-me --preset ultrafast at 1080p: off: $(grep gpu-me "$W/fast1080.log" | sed 's/.*gpu-me: //')"
else
    fail "--gpu-me --preset ultrafast at 1080p: expected it off"; cat "$W/fast1080.log"
fi
if ENC_DUMP=0 enc "$X264" auto1080 street_1080p_2.y4m --gpu-me --gpu-me-backend c --frames 1 --threads 16 --gpu-me-stats &&
   [ "$(kv "$W/auto1080.log" range)" = 64 ] && [ "$(kv "$W/auto1080.log" lookahead_range)" = 64 ] &&
   [ "$(kv "$W/auto1080.log" mv_range_thread_min)" = 24 ] && [ "$(kv "$W/auto1080.log" mv_range_thread_max)" = 72 ] &&
   grep -q "gpu-me: C reference; range 64, .*--mvrange-thread auto (24..72)" "$W/auto1080.log"; then
    pass "--gpu-me at 1080p, 16 threads: $(grep 'gpu-me: C' "$W/auto1080.log" | sed 's/.*gpu-me: //')"
else
    fail "--gpu-me at 1080p: expected range 64, --mvrange-thread auto 24..72, lookahead range 64"; grep gpu-me "$W/auto1080.log"
fi
# no_device NAME CLIP WHAT INFO ARGS...: plain --gpu-me (backend auto) does
# not open the device (no warning where there is none), one info line
# matching INFO says why; x264's own search with --mvrange-thread auto: the
# same pictures as that option alone
no_device() {
    local name="$1" clip="$2" what="$3" info="$4"; shift 4
    if check "$name" "$clip" --gpu-me --gpu-me-stats "$@" && grep -q "info.*gpu-me: $info" "$W/$name.log" &&
       ! grep -q "warning\|C reference" "$W/$name.log" && [ "$(kv "$W/$name.log" device)" = 0 ]; then
        pass "--gpu-me on $what: no device: $(grep "gpu-me: ${info%%:*}" "$W/$name.log" | sed 's/.*gpu-me: //')"
    else
        fail "--gpu-me on $what: expected no device and one info line"; grep gpu-me "$W/$name.log"
    fi
    check "${name}a" "$clip" --mvrange-thread auto "$@"
    if cmp -s "$W/$name.rec.yuv" "$W/${name}a.rec.yuv"; then
        pass "--gpu-me on $what: the same pictures as --mvrange-thread auto"
    else
        fail "--gpu-me on $what: other pictures than --mvrange-thread auto"
    fi
}
# a short encode (8 frames of 1080p: 17 of the 400 Mpixels that repay
# CUDA's start-up)
if street8; then
    no_device short1080 street_1080p_8.y4m "8 frames of 1080p" \
        "1920x1080, 8 frames: too few frames to repay the GPU's start-up; x264's own motion search with range 64 and --mvrange-thread auto" \
        --threads 16
    if [ -n "$(kv "$W/short1080.log" mv_range_thread_frames)" ] && [ "$(kv "$W/short1080.log" mv_range_thread_frames)" != none ]; then
        pass "--gpu-me on 8 frames of 1080p: --gpu-me-stats counts the per-frame limits without the device: $(kv "$W/short1080.log" mv_range_thread_frames)"
    else
        fail "--gpu-me on 8 frames of 1080p: no per-frame MV limits"; grep gpu-me "$W/short1080.log"
    fi
else
    fail "cannot decode 8 frames of the 1080p test clip"
fi
# the same 8 frames piped, their count unknown: the device would open at
# frame 193; it never does, and the bytes are those of the known count
loop1080 8 | enc "$X264" pipe8 - --demuxer y4m --gpu-me --gpu-me-stats --threads 16
if [ "$rc" = 0 ] && grep -q "info.*gpu-me: 1920x1080, frame count unknown: x264's own motion search up to frame 193" "$W/pipe8.log" &&
   ! grep -q "warning" "$W/pipe8.log" && [ "$(kv "$W/pipe8.log" device)" = 0 ] && cmp -s "$W/pipe8.264" "$W/short1080.264"; then
    pass "--gpu-me on 8 piped frames of 1080p, count unknown: no device, the bytes of the known count: $(grep 'gpu-me: 1920' "$W/pipe8.log" | sed 's/.*gpu-me: //')"
else
    fail "--gpu-me on 8 piped frames of 1080p: expected no device and the bytes of the known count"; grep gpu-me "$W/pipe8.log"
fi
if enc "$X264" stats foreman_cif.y4m --gpu-me-stats --threads 2 && [ "$(kvn "$W/stats.log" searches)" -gt 0 ] &&
   [ "$(kv "$W/stats.log" device)" = 0 ]; then
    pass "--gpu-me-stats alone times x264's searches: searches=$(kv "$W/stats.log" searches) search_int_ms=$(kv "$W/stats.log" search_int_ms)"
else
    fail "--gpu-me-stats alone: no motion search times"; cat "$W/stats.log"
fi
same stats plain1 "--gpu-me-stats changes no byte"

echo "--- C reference backend (the search the GPU must reproduce)"
C="--gpu-me --gpu-me-backend c"
# shellcheck disable=SC2086
{
check pyramid foreman_cif.y4m $C --bframes 3 --b-pyramid normal --ref 4 --threads 2 --gpu-me-stats
check ponly foreman_cif.y4m $C --bframes 0 --ref 1 --threads 1
check partall mobile_cif.y4m $C --ref 3 --mixed-refs --partitions all --threads 2
check sliced foreman_cif.y4m $C --sliced-threads --threads 3
check threads4 foreman_cif.y4m $C --threads 4 --merange 28 --gpu-me-stats
check threads4b foreman_cif.y4m $C --threads 4 --merange 28
check odd foreman_346x282.y4m $C --threads 2
check range64 bus_qcif.y4m $C --merange 64 --threads 2
check veryslow bus_qcif.y4m $C --preset veryslow --threads 2 --gpu-me-stats
check ultrafast carphone_qcif.y4m $C --preset ultrafast --threads 2
check plainpyr foreman_cif.y4m --bframes 3 --b-pyramid normal --ref 4 --threads 2
check range16 foreman_cif.y4m $C --threads 2 --merange 16 --gpu-me-stats
# 8 frame threads on the tilt: range 32, so limits 24..40 per frame; an
# explicit --mvrange-thread stands
check mvrt8 tilt_352x192.y4m $C --threads 8 --gpu-me-range 32 --gpu-me-stats
check mvrtfix tilt_352x192.y4m $C --threads 8 --gpu-me-range 32 --mvrange-thread 24 --gpu-me-stats
}
same threads4 threads4b "deterministic: the same encode twice gives the same bytes"
if [ "$(kv "$W/mvrt8.log" mv_range_thread_min)..$(kv "$W/mvrt8.log" mv_range_thread_max)" = 24..40 ] &&
   [ "$(kv "$W/mvrt8.log" mv_range_thread_frames | tr ',' '\n' | wc -l)" = 2 ]; then
    pass "--gpu-me-range 32 with 8 threads: limits 24..40 per frame ($(kv "$W/mvrt8.log" mv_range_thread_frames))"
else
    fail "--gpu-me-range 32 with 8 threads: expected 24..40 with both chosen"; grep -h "gpu-me-stats: look" "$W/mvrt8.log"
fi
if [ "$(kv "$W/mvrtfix.log" mv_range_thread_min)..$(kv "$W/mvrtfix.log" mv_range_thread_max)" = 24..24 ]; then
    pass "--mvrange-thread 24 stands with --gpu-me: $(kv "$W/mvrtfix.log" mv_range_thread_frames)"
else
    fail "--mvrange-thread 24 with --gpu-me-range 32: expected 24 for every frame"; grep -h "gpu-me-stats: look" "$W/mvrtfix.log"
fi
# the same with x264's sliced lookahead (two threads), whose vectors centre
# the GPU's windows
# shellcheck disable=SC2086
check lathr pan_352x288.y4m $C --threads 12 --lookahead-threads 2 --gpu-me-range 32 --bframes 3 &&
check lathrb pan_352x288.y4m $C --threads 12 --lookahead-threads 2 --gpu-me-range 32 --bframes 3 &&
same lathr lathrb "deterministic with two lookahead threads: the same encode twice gives the same bytes"
if cmp -s "$W/pyramid.264" "$W/plainpyr.264"; then
    fail "the GPU vectors do not change the encode"
else
    pass "the GPU vectors change the encode ($(stat -c %s "$W/pyramid.264") vs $(stat -c %s "$W/plainpyr.264") bytes)"
fi
if [ "$(kvn "$W/pyramid.log" pairs)" -gt 0 ] && [ "$(kvn "$W/pyramid.log" pairs_used)" -gt 0 ] &&
   [ "$(kvn "$W/pyramid.log" gpu_searches)" -gt 0 ] && [ -n "$(kvn "$W/pyramid.log" open_ms)" ]; then
    pass "--gpu-me-stats: pairs=$(kv "$W/pyramid.log" pairs) pairs_used=$(kv "$W/pyramid.log" pairs_used) gpu_kept_pct=$(kv "$W/pyramid.log" gpu_kept_pct)"
else
    fail "--gpu-me-stats printed no GPU work"; grep gpu-me-stats "$W/pyramid.log"
fi
# the frame threads' time per frame, by slice type: as many frames as x264
# encoded (its "frame I/P/B:N" lines)
nt=$(sed -n 's/.*x264 \[info\]: frame [IPB]:\([0-9]*\) .*/\1/p' "$W/pyramid.log" | awk '{n += $1} END {print n + 0}')
nf=$(( $(kvn "$W/pyramid.log" frames_I) + $(kvn "$W/pyramid.log" frames_P) + $(kvn "$W/pyramid.log" frames_B) ))
if [ "$nt" -gt 0 ] && [ "$nf" = "$nt" ] && [ -n "$(kvn "$W/pyramid.log" main_wait_frame_ms)" ]; then
    pass "--gpu-me-stats times the frame threads: frame_ms_P=$(kv "$W/pyramid.log" frame_ms_P) frame_ms_B=$(kv "$W/pyramid.log" frame_ms_B) ($nt frames)"
else
    fail "--gpu-me-stats: expected frame timers over $nt frames (got $nf)"
fi

echo "--- the rules (from x264's options; A/B through the developer build)"
# two GPU candidates from range 28, one below, and on frames of more than 4
# Mpixels (foreman scaled to 2304x1792, 4.1 Mpixels; a short range for C)
[ -s "$D/big_2304x1792.y4m" ] || ffmpeg -nostdin -loglevel error -y -i "$D/foreman_cif.y4m" \
    -vf scale=2304:1792 -frames:v 3 -pix_fmt yuv420p "$D/big_2304x1792.y4m" || fail "cannot make the 4-Mpixel clip"
# shellcheck disable=SC2086
{
check big4m big_2304x1792.y4m $C --gpu-me-range 8 --bframes 0 --ref 1 --threads 2 --gpu-me-stats
check_exp cands1 X264_GPU_ME_CANDS=1 foreman_cif.y4m $C --threads 4 --merange 28
}
if [ "$(kv "$W/threads4.log" cands)" = 2 ] && [ "$(kv "$W/range16.log" cands)" = 1 ] && [ "$(kv "$W/big4m.log" cands)" = 1 ] &&
   ! cmp -s "$W/threads4.264" "$W/cands1.264"; then
    pass "two GPU candidates at range 28, one at 16 and above 4 Mpixels; the second changes the encode"
else
    fail "candidates: expected 2 at range 28, 1 at 16 and at 4.1 Mpixels, and the second to change the encode"
fi
no_device bigauto big_2304x1792.y4m "4.1-Mpixel frames" \
    "2304x1792, 3 frames: frames of more than 4 Mpixels, where x264's own search does better than with the GPU's vectors" \
    --threads 4 --bframes 0
# sub-pel reference skipping: from --ref 3 (P loops below --ref 5, the 8x8
# loops from 5), not at --ref 2 nor with --me esa; x264's cost at its
# predictor keeps some of the searches the GPU's costs would skip
SP="foreman_cif.y4m $C --threads 2 --merange 28 --bframes 3"
# shellcheck disable=SC2086
{
check sp4 $SP --ref 4 --gpu-me-stats
check sp5 $SP --ref 5 --frames 12 --gpu-me-stats
check sp2 $SP --ref 2 --gpu-me-stats
check spesa $SP --ref 5 --me esa --frames 6 --gpu-me-stats
check_exp sp4off X264_GPU_ME_SUBPEL=0 $SP --ref 4
check_exp sp4g30 X264_GPU_ME_SUBPEL=30 $SP --ref 4 --gpu-me-stats
}
if [ "$(kv "$W/sp4.log" subpel)" = 20 ] && [ "$(kv "$W/sp4.log" subpel_sites)" = 3 ] && [ "$(kv "$W/sp5.log" subpel_sites)" = 10 ] &&
   [ -z "$(kv "$W/sp2.log" subpel)" ] && [ -z "$(kv "$W/spesa.log" subpel)" ] &&
   [ "$(kvn "$W/sp4.log" ref_skipped)" -gt 0 ] && ! cmp -s "$W/sp4.264" "$W/sp4off.264"; then
    pass "sub-pel skipping: 20% at --ref 4 (P loops) and 5 (8x8 loops), off at --ref 2 and with esa; $(kv "$W/sp4.log" ref_skipped) of $(kv "$W/sp4.log" ref_checked) skipped, another encode"
else
    fail "sub-pel skipping: expected it at --ref 4 and 5 only, with skips that change the encode"; grep -h "subpel=" "$W"/sp*.log
fi
# the GPU refines only the pairs whose refinement a loop reads: at --ref 4
# the P frames' (not the B frames'), at --ref 5 every pair
if [ "$(kvn "$W/sp4.log" subpel_pairs)" -gt 0 ] && [ "$(kvn "$W/sp4.log" subpel_pairs)" -lt "$(kvn "$W/sp4.log" pairs)" ] &&
   [ "$(kv "$W/sp5.log" subpel_pairs)" = "$(kv "$W/sp5.log" pairs)" ]; then
    pass "sub-pel refinement of the pairs read: $(kv "$W/sp4.log" subpel_pairs) of $(kv "$W/sp4.log" pairs) at --ref 4 (P frames), $(kv "$W/sp5.log" subpel_pairs) of $(kv "$W/sp5.log" pairs) at --ref 5"
else
    fail "sub-pel refinement: expected the P pairs only at --ref 4, all at --ref 5"; grep -h "subpel=" "$W/sp4.log" "$W/sp5.log"
fi
kept="$(kv "$W/sp4g30.log" ref_kept_by_x264)"
if [ -n "$kept" ] && [ "$kept" -gt 0 ]; then
    pass "sub-pel skipping at 30%: x264's cost at its predictor keeps $kept of the searches the GPU's costs would skip"
else
    fail "sub-pel skipping at 30%: expected the guard to keep some searches"; grep -h "subpel=" "$W/sp4g30.log"
fi
# the GPU searches ahead the pairs x264 will ask for: the references its
# DPB will hold (b-pyramid's MMCOs and sliding window; under strict, x264
# drops its Brefs at each P frame): none missing; at --ref 2 and 3 none
# searched in vain either (from --ref 4 a P frame after a Bref still gets
# one pair it does not read)
# shellcheck disable=SC2086
{
check strict foreman_cif.y4m $C --bframes 3 --b-pyramid strict --ref 4 --threads 2 --gpu-me-stats
check dpb foreman_cif.y4m $C --threads 2 --merange 28 --gpu-me-stats
}
bad=""
for n in pyramid strict dpb sp2 sp4 sp5; do
    [ "$(kv "$W/$n.log" pairs_missed)" = 0 ] && [ "$(kvn "$W/$n.log" pairs)" -gt 0 ] ||
        bad="$bad $n (pairs $(kv "$W/$n.log" pairs), missed $(kv "$W/$n.log" pairs_missed))"
done
for n in dpb sp2; do
    [ "$(kv "$W/$n.log" pairs_used)" = "$(kv "$W/$n.log" pairs)" ] ||
        bad="$bad $n (pairs $(kv "$W/$n.log" pairs), read $(kv "$W/$n.log" pairs_used))"
done
if [ -z "$bad" ]; then
    pass "every pair x264 asked for was searched ahead (b-pyramid normal and strict, --ref 2 to 5), all read at --ref 2 and 3 ($(kv "$W/dpb.log" pairs) pairs)"
else
    fail "pairs searched ahead and pairs x264 asked for differ:$bad"
fi
# the predictor cut: 2 at --ref 3 and 4, all 16 elsewhere
check_exp sp4p16 X264_GPU_ME_PREDICTORS=16 $SP --ref 4
if [ "$(kv "$W/sp4.log" predictors)" = 2 ] && [ "$(kv "$W/sp2.log" predictors)" = 16 ] && [ "$(kv "$W/sp5.log" predictors)" = 16 ] &&
   ! cmp -s "$W/sp4.264" "$W/sp4p16.264"; then
    pass "predictors: 2 at --ref 4, 16 at --ref 2 and 5; the cut changes the encode"
else
    fail "predictors: expected 2 at --ref 4 and 16 at 2 and 5"; grep -h "predictors=" "$W"/sp*.log
fi
# the 8x8 split: 10% from 1.5 Mpixels (the 4.1-Mpixel clip), off on CIF;
# forced on CIF, it skips P and B 8x8 analyses and changes the encode
check_exp split10 X264_GPU_ME_SPLIT=10 $SP --ref 4 --gpu-me-stats
if [ "$(kv "$W/big4m.log" split)" = 10 ] && [ -z "$(kv "$W/sp4.log" split)" ] &&
   [ "$(kvn "$W/split10.log" split_p_skipped)" -gt 0 ] && [ "$(kvn "$W/split10.log" split_b_skipped)" -gt 0 ] &&
   [ "$(kvn "$W/split10.log" split_p_skipped)" -lt "$(kvn "$W/split10.log" split_p_checked)" ] &&
   ! cmp -s "$W/split10.264" "$W/sp4.264"; then
    pass "8x8 split: 10% at 4.1 Mpixels, off on CIF; forced: P $(kv "$W/split10.log" split_p_skipped) of $(kv "$W/split10.log" split_p_checked), B $(kv "$W/split10.log" split_b_skipped) of $(kv "$W/split10.log" split_b_checked) skipped"
else
    fail "8x8 split: expected 10 at 4.1 Mpixels, none on CIF, and P and B skips when forced"; grep -h "split=" "$W"/big4m.log "$W"/split10.log
fi
# X264_GPU_ME_FINAL (developer build): where the GPU's vector wins, x264
# starts from the GPU's quarter-pel refinement (1) or takes it (2); every
# pair is refined, also below --ref 3 where nothing else reads it
FIN="foreman_cif.y4m $C --threads 2 --gpu-me-range 16 --bframes 3 --frames 16 --gpu-me-stats"
# shellcheck disable=SC2086
{
check fin2 $FIN --ref 2
check_exp final1 X264_GPU_ME_FINAL=1 $FIN --ref 4
check_exp final2 X264_GPU_ME_FINAL=2 $FIN --ref 2
}
if [ "$(kvn "$W/final1.log" final_searches)" -gt 0 ] && [ "$(kvn "$W/final2.log" final_searches)" -gt 0 ] &&
   [ "$(kvn "$W/final1.log" final_searches)" -le "$(kvn "$W/final1.log" gpu_searches)" ] &&
   [ "$(kvn "$W/final2.log" subpel_pairs)" -ge "$(kvn "$W/final2.log" pairs_used)" ] &&
   ! cmp -s "$W/final2.264" "$W/fin2.264"; then
    pass "X264_GPU_ME_FINAL: 1 took $(kv "$W/final1.log" final_searches) of $(kv "$W/final1.log" gpu_searches) searches' GPU vectors, 2 $(kv "$W/final2.log" final_searches) with all $(kv "$W/final2.log" pairs_used) pairs read refined"
else
    fail "X264_GPU_ME_FINAL: expected GPU vectors taken, every pair refined, other encodes"
    grep -h "final=\|subpel=\|pairs=" "$W"/final1.log "$W"/final2.log
fi
# the hexagon fallback: with --me umh (slower, veryslow), not with hex or tesa
FB="bus_qcif.y4m $C --threads 2 --gpu-me-range 16 --frames 16"
# shellcheck disable=SC2086
{
check fbvs $FB --preset veryslow --gpu-me-stats
check fbtesa $FB --preset veryslow --me tesa --frames 6 --gpu-me-stats
check_exp fbvsme X264_GPU_ME_FALLBACK_HEX=0 $FB --preset veryslow
}
if [ "$(kv "$W/fbvs.log" fallback_hex)" = 1 ] && [ "$(kv "$W/fbtesa.log" fallback_hex)" = 0 ] &&
   [ "$(kv "$W/pyramid.log" fallback_hex)" = 0 ] && ! cmp -s "$W/fbvs.264" "$W/fbvsme.264"; then
    pass "hexagon fallback: with umh (veryslow), not with tesa or hex; it changes the encode"
else
    fail "hexagon fallback: expected it with umh only, changing the encode"
fi
# the lookahead's search in cuda_me (cuda_me/lowres_spec.h) is x264's, bit
# for bit: the same bytes as x264 searching, across x264's features; the
# warm-up cut to one frame so that the pairs reach cuda_me, queued ahead
# (every one asked for taken) or searched when asked for
while IFS='|' read -r n clip want args; do
    # shellcheck disable=SC2086
    {
    check_exp "la_${n}1" "X264_GPU_ME_WARMUP=1" "$clip" $C --gpu-me-range 16 --gpu-me-stats $args
    check_exp "la_${n}0" "X264_GPU_ME_WARMUP=1 X264_GPU_ME_LOOKAHEAD=0" "$clip" $C --gpu-me-range 16 $args
    }
    got="$(kv "$W/la_${n}1.log" lookahead_gpu_pairs) $(kv "$W/la_${n}1.log" lookahead_hits)"
    if ! cmp -s "$W/la_${n}1.264" "$W/la_${n}0.264"; then
        fail "the lookahead's search in cuda_me and x264's differ: $n ($args)"
    elif { [ "$want" = 1 ] && [ "${got% *}" -gt 0 ] && [ "${got% *}" = "${got#* }" ]; } ||
         { [ "$want" = s ] && [ "${got% *}" -gt 0 ]; } || { [ "$want" = 0 ] && [ "${got% *}" = 0 ]; }; then
        pass "the lookahead's search in cuda_me: the same bytes as x264's: $n ($args; pairs in cuda_me, from the queue: $got)"
    else
        fail "$n: lookahead pairs in cuda_me, from the queue: '$got', expected $want ($args)"
    fi
done <<'LIST'
slower|foreman_cif.y4m|1|--preset slower --threads 4 --lookahead-threads 2 --rc-lookahead 10
qp|foreman_cif.y4m|1|--qp 27 --threads 4 --lookahead-threads 2 --rc-lookahead 10
wp2|mobile_cif.y4m|1|--preset slower --weightp 2 --threads 3 --rc-lookahead 12
badapt0|foreman_cif.y4m|1|--b-adapt 0 --threads 2 --rc-lookahead 10
keyint5|foreman_cif.y4m|1|--keyint 5 --min-keyint 1 --threads 4 --rc-lookahead 10
scenecut|pan_352x288.y4m|1|--scenecut 80 --threads 2 --rc-lookahead 10
vbv|foreman_cif.y4m|1|--no-mbtree --bitrate 400 --vbv-maxrate 500 --vbv-bufsize 800 --threads 1 --rc-lookahead 10
abr|foreman_cif.y4m|1|--no-mbtree --bitrate 400 --threads 2 --rc-lookahead 10
la4|foreman_cif.y4m|1|--threads 4 --lookahead-threads 4 --rc-lookahead 10
slices|foreman_cif.y4m|1|--slices 4 --threads 2 --rc-lookahead 10
pyramid|bus_qcif.y4m|1|--bframes 5 --b-pyramid strict --threads 2 --rc-lookahead 10
zerolat|foreman_cif.y4m|s|--tune zerolatency --threads 2
irefresh|foreman_cif.y4m|1|--intra-refresh --threads 2 --rc-lookahead 10
umh|carphone_qcif.y4m|1|--me umh --merange 24 --threads 1 --rc-lookahead 10
tilt|tilt_352x192.y4m|1|--threads 2 --rc-lookahead 10 --bframes 8
subme1|foreman_cif.y4m|0|--subme 1 --threads 2 --rc-lookahead 10
LIST
# without queueing ahead: each pair searched when asked for, the same bytes
check_exp la_noq "X264_GPU_ME_WARMUP=1 X264_GPU_ME_LA_PREFETCH=0" foreman_cif.y4m $C --gpu-me-range 16 --gpu-me-stats \
    --preset slower --threads 4 --lookahead-threads 2 --rc-lookahead 10
if cmp -s "$W/la_noq.264" "$W/la_slower0.264" && [ "$(kv "$W/la_noq.log" lookahead_hits)" = 0 ] &&
   [ "$(kvn "$W/la_noq.log" lookahead_gpu_pairs)" -gt 0 ]; then
    pass "the lookahead's search in cuda_me without queueing: the same bytes ($(kv "$W/la_noq.log" lookahead_gpu_pairs) pairs)"
else
    fail "the lookahead's search in cuda_me without queueing: expected the same bytes and no queue hits"
fi

echo "--- the warm-up (x264's own search while the device opens)"
# the first threads + bframes + 1 frames (here 4 + 3 + 1, to a minigop) are
# x264's; the references among them are searched against once it is open;
# an encode shorter than the warm-up, IDR frames inside it
# shellcheck disable=SC2086
{
check warmshort foreman_cif.y4m $C --threads 4 --frames 3 --gpu-me-range 8
check warmidr foreman_cif.y4m $C --threads 4 --frames 20 --keyint 4 --min-keyint 1 --gpu-me-range 8
check warmup foreman_cif.y4m $C --threads 4 --bframes 3 --frames 24 --gpu-me-stats --log-level debug
check_exp warm14 X264_GPU_ME_WARMUP=14 foreman_cif.y4m $C --threads 4 --bframes 3 --frames 24 --gpu-me-stats --log-level debug
}
# first_search NAME: the first frame the GPU searched (--log-level debug)
first_search() { sed -n 's/.*gpu-me: search frame \([0-9]*\) in frame [0-9]*$/\1/p' "$W/$1.log" | sort -n | head -1; }
end=$(( $(kvn "$W/warmup.log" warmup_frames) - 1 ))
first=$(first_search warmup)
warmref=$(sed -n 's/.*gpu-me: search frame [0-9]* in frame \([0-9]*\)$/\1/p' "$W/warmup.log" | sort -n | head -1)
if [ "$end" -ge 7 ] && [ -n "$first" ] && [ "$first" -gt "$end" ] && [ -n "$warmref" ] && [ "$warmref" -le "$end" ]; then
    pass "warm-up: frames 0..$end x264's own; the first GPU search is of frame $first, against frame $warmref from the warm-up"
else
    fail "warm-up: expected frames 0..N (N >= 7) unsearched and searches against them after (end '$end', first '$first', ref '$warmref')"
fi
end14=$(( $(kvn "$W/warm14.log" warmup_frames) - 1 ))
first14=$(first_search warm14)
if [ "$end14" -ge 13 ] && [ "$end14" -le 16 ] && [ -n "$first14" ] && [ "$first14" -gt "$end14" ]; then
    pass "X264_GPU_ME_WARMUP=14 (developer build): frames 0..$end14 x264's own, the first GPU search is of frame $first14"
else
    fail "X264_GPU_ME_WARMUP=14: expected frames 0..13-16 unsearched (end '$end14', first '$first14')"
fi

summary e2e
