#!/bin/bash
# tests/ffmpeg.sh: the patched libx264 inside FFmpeg (./build.sh ffmpeg),
# on the CPU with the C backend of the GPU search.
#
#   build      build/ffmpeg/ffmpeg has --enable-gpl --enable-libx264 and
#              links libavcodec and libx264 statically (needs neither .so)
#   gpu-me=1   -x264-params gpu-me=1:gpu-me-backend=c:gpu-me-stats=1 encodes
#              (exit 0, a non-empty mp4) and x264's "gpu-me-stats: frames="
#              line is in FFmpeg's log
#   gpu-me=0   -x264-params gpu-me=0 encodes (exit 0), no gpu-me line, and
#              its stream is byte-identical to no -x264-params at all
#   differ     the gpu-me=1 and gpu-me=0 streams differ
#   decode     Debian's /usr/bin/ffmpeg decodes both without an error, every
#              frame
#   options    every gpu-me-* option gets through -x264-params (backend c,
#              range 24, device 0, stats 0): no parse error, x264 reports
#              them and writes gpu_me=24 into the stream's option SEI; and
#              x264's mvrange-thread=auto
#   bad value  gpu-me-backend=bogus: -x264opts fails (exit != 0, "bad value
#              for 'gpu-me-backend'"); -x264-params, where FFmpeg only warns
#              about x264 options, names it ("Error parsing option
#              'gpu-me-backend = bogus'")
#
# Environment: FFMPEG (binary under test) [build/ffmpeg/ffmpeg],
# CUDA_ME_TEST_DATA (decoded clips, foreman_cif.y4m is made when missing),
# FFMPEG_TEST_DIR (outputs, kept for inspection) [build/ffmpeg-test],
# FRAMES [8].

set -u
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"
FF="${FFMPEG:-$B/ffmpeg/ffmpeg}"
SYSFF=/usr/bin/ffmpeg
W="${FFMPEG_TEST_DIR:-$B/ffmpeg-test}"
N="${FRAMES:-8}"
rm -rf "$W" && mkdir -p "$W"

finish() { summary ffmpeg; exit; }

if [ ! -x "$FF" ]; then
    fail "no $FF: run ./build.sh ffmpeg"
    finish
fi
if [ ! -x "$SYSFF" ]; then
    fail "no $SYSFF (Debian's ffmpeg) to decode with"
    finish
fi

# The clip: tests/run.sh's decoded foreman, or decode it here.
clip="$D/foreman_cif.y4m"
if [ ! -s "$clip" ]; then
    clip="$W/foreman_cif.y4m"
    "$SYSFF" -nostdin -loglevel error -y -i "$TOP/tests/data/BA1_FT_C.264" -frames:v "$N" -pix_fmt yuv420p "$clip" ||
        { fail "cannot decode tests/data/BA1_FT_C.264"; finish; }
fi

# enc NAME ARGS...: encode N frames of the clip to NAME.mp4, log in NAME.log
enc() {
    local name="$1"; shift
    "$FF" -nostdin -hide_banner -y -i "$clip" -frames:v "$N" -an -c:v libx264 "$@" "$W/$name.mp4" > "$W/$name.log" 2>&1
}

# decodes NAME: Debian's ffmpeg decodes NAME.mp4 with no error, N frames
decodes() {
    local n="$1" frames
    "$SYSFF" -nostdin -v error -xerror -i "$W/$n.mp4" -f framemd5 "$W/$n.framemd5" > "$W/$n.dec.log" 2>&1 &&
        [ ! -s "$W/$n.dec.log" ] || return 1
    frames="$(grep -vc '^#' "$W/$n.framemd5")"
    [ "$frames" = "$N" ] || { echo "        $n: $frames frames decoded, $N encoded"; return 1; }
}

# 1. the binary
conf="$("$FF" -hide_banner -buildconf 2>&1)"
needed="$(readelf -d "$FF" 2>/dev/null | grep NEEDED)"
if echo "$conf" | grep -q -e '--enable-gpl' && echo "$conf" | grep -q -e '--enable-libx264' &&
   ! echo "$needed" | grep -q -e 'libx264' -e 'libavcodec'; then
    pass "build: $FF has --enable-gpl --enable-libx264, libavcodec and libx264 linked statically"
else
    fail "build: $FF lacks --enable-gpl/--enable-libx264 or needs a shared libavcodec/libx264"
fi

# 2. gpu-me=1, C backend, statistics
if enc on -x264-params gpu-me=1:gpu-me-backend=c:gpu-me-stats=1 && [ -s "$W/on.mp4" ]; then
    if grep -q '^\[libx264 @ [^]]*\] gpu-me-stats: frames=[1-9]' "$W/on.log"; then
        pass "gpu-me=1: exit 0, gpu-me statistics in FFmpeg's log: $(grep -m1 'gpu-me-stats: frames=' "$W/on.log" | sed 's/.*gpu-me-stats: //')"
    else
        fail "gpu-me=1: exit 0 but no 'gpu-me-stats: frames=' line in $W/on.log"
    fi
else
    fail "gpu-me=1: FFmpeg failed"; tail -n 5 "$W/on.log"
fi

# 3. gpu-me=0: as if the option were not there
if enc off -x264-params gpu-me=0 && [ -s "$W/off.mp4" ] && enc plain; then
    if grep -q 'Error parsing option' "$W/off.log"; then
        fail "gpu-me=0: $(grep -m1 'Error parsing option' "$W/off.log")"
    elif grep -q 'gpu-me:' "$W/off.log"; then
        fail "gpu-me=0: exit 0 but x264 printed gpu-me lines"
    elif ! cmp -s "$W/off.mp4" "$W/plain.mp4"; then
        fail "gpu-me=0: exit 0 but the stream differs from one without -x264-params"
    else
        pass "gpu-me=0: exit 0, no gpu-me lines, stream identical to no -x264-params"
    fi
else
    fail "gpu-me=0: FFmpeg failed"; tail -n 5 "$W/off.log" "$W/plain.log"
fi

# 4. the two streams differ
if [ -s "$W/on.mp4" ] && [ -s "$W/off.mp4" ] && ! cmp -s "$W/on.mp4" "$W/off.mp4"; then
    pass "differ: gpu-me=1 and gpu-me=0 streams differ ($(stat -c %s "$W/on.mp4") vs $(stat -c %s "$W/off.mp4") bytes)"
else
    fail "differ: gpu-me=1 and gpu-me=0 streams are identical or missing"
fi

# 5. Debian's FFmpeg decodes both
if decodes on && decodes off; then
    pass "decode: $SYSFF decodes both without error, $N frames each"
else
    fail "decode: $SYSFF cannot decode a stream cleanly"; cat "$W/on.dec.log" "$W/off.dec.log" 2>/dev/null | head -n 5
fi

# 6. every gpu-me-* option through -x264-params: FFmpeg passes them all,
# x264's info line names the backend and the range, the stream's option SEI
# holds gpu_me=RANGE, and no statistics printed (gpu-me-stats=0)
if ! enc opts -x264-params gpu-me=1:gpu-me-backend=c:gpu-me-range=24:gpu-me-device=0:gpu-me-stats=0; then
    fail "options: FFmpeg failed"; tail -n 5 "$W/opts.log"
elif grep -q 'Error parsing option' "$W/opts.log"; then
    fail "options: FFmpeg could not pass an option: $(grep -m1 'Error parsing option' "$W/opts.log")"
elif ! grep -q "gpu-me: C reference; range 24, " "$W/opts.log"; then
    fail "options: x264 did not report 'C reference; range 24'"; grep 'gpu-me' "$W/opts.log"
elif grep -q 'gpu-me-stats:' "$W/opts.log"; then
    fail "options: statistics printed with gpu-me-stats=0"
elif ! grep -a -q "gpu_me=24 " "$W/opts.mp4"; then
    fail "options: no gpu_me=24 in the stream's option SEI"
else
    pass "options: gpu-me, -backend, -range, -device, -stats reach x264 (SEI: gpu_me=24)"
fi
# and x264's own --mvrange-thread auto
if enc mvrt -x264-params mvrange-thread=auto:threads=8 && ! grep -q 'Error parsing option' "$W/mvrt.log" && decodes mvrt; then
    pass "options: mvrange-thread=auto reaches x264 and the stream decodes"
else
    fail "options: mvrange-thread=auto"; grep -i 'error\|mvrange' "$W/mvrt.log" | head -3
fi

# 7. plain gpu-me=1 on a short 1080p encode: FFmpeg does not tell x264
# the frame count, so the device's open waits for 400 Mpixels (frame 193)
# and 8 frames never open it, as the CLI's known count decides
if "$FF" -nostdin -hide_banner -y -i "$TOP/tests/data/VID_1920x1080_cabac_temporal_direct.264" -frames:v "$N" -an \
        -c:v libx264 -x264-params gpu-me=1:gpu-me-stats=1 "$W/short1080.mp4" > "$W/short1080.log" 2>&1 &&
   grep -q "gpu-me: 1920x1080, frame count unknown: x264's own motion search up to frame 193" "$W/short1080.log" &&
   grep -q "gpu-me-stats: device=0" "$W/short1080.log" && ! grep -q "warning.*gpu-me\|gpu-me.*failed" "$W/short1080.log"; then
    pass "gpu-me=1, $N frames of 1080p: the device does not open (count unknown, the open waits for frame 193)"
else
    fail "gpu-me=1, $N frames of 1080p: expected no open and the frame-count line"; grep 'gpu-me' "$W/short1080.log" | head -5
fi

# 8. a bad value
enc bad_opts -x264opts gpu-me=1:gpu-me-backend=bogus; rc_opts=$?
enc bad_params -x264-params gpu-me=1:gpu-me-backend=bogus
if [ "$rc_opts" != 0 ] && grep -q "bad value for 'gpu-me-backend': 'bogus'" "$W/bad_opts.log" &&
   grep -q "Error parsing option 'gpu-me-backend = bogus'" "$W/bad_params.log"; then
    pass "bad value: gpu-me-backend=bogus fails -x264opts (exit $rc_opts) and is named by -x264-params"
else
    fail "bad value: gpu-me-backend=bogus not reported (-x264opts exit $rc_opts)"
    grep -h -i 'bogus' "$W/bad_opts.log" "$W/bad_params.log"
fi

finish
