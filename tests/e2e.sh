#!/bin/bash
# tests/e2e.sh: end-to-end encodes of real clips with stock and patched x264.
#
# Every encode is decoded by FFmpeg and must equal x264's own reconstruction
# (--dump-yuv) byte for byte; without FFmpeg that is a failure, except with
# E2E_DECODE=defer (tests/device.sh, on the GPU machine): each stream keeps
# NAME.rec.md5 for tests/verify_deferred.sh on a machine with FFmpeg.
#
#   (default)   CI checks: stock == patched without --gpu-me; --gpu-me with
#               no GPU warns once and encodes as x264 alone; --gpu-me-backend
#               cuda without a GPU fails; C-backend encodes of every kind
#   GPU=1       on the GPU machine: the same encodes on the CUDA backend
#               must be byte-identical to the C backend
#
# Environment: X264, STOCK (binaries), CUDA_ME_TEST_DATA (decoded clips),
# E2E_DIR (outputs, kept for inspection), E2E_DECODE (ffmpeg or defer).

set -u
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"
W="${E2E_DIR:-$B/e2e}"
GPU="${GPU:-0}"
rm -rf "$W" && mkdir -p "$W"

gpu_present=0
if ENC_DUMP=0 enc "$X264" probe bus_qcif.y4m --frames 2 --gpu-me --gpu-me-backend cuda; then gpu_present=1; fi
rm -f "$W/probe.264"   # every stream left in $W is checked (or its check deferred)

if [ "$GPU" = 1 ]; then
    [ "$gpu_present" = 1 ] || { echo "GPU=1 but the CUDA backend cannot open:"; cat "$W/probe.log"; exit 1; }
    echo "--- CUDA backend == C backend, byte for byte"
    while read -r name clip args; do
        [ -z "$name" ] && continue
        # shellcheck disable=SC2086
        check "$name.cuda" "$clip" --gpu-me --gpu-me-backend cuda --gpu-me-stats $args &&
        check "$name.c" "$clip" --gpu-me --gpu-me-backend c $args &&
        same "$name.cuda" "$name.c" "$name: cuda and c streams identical ($args)"
        grep -h "gpu-me: search" "$W/$name.cuda.log" | sed 's/^/        /'
    done <<'EOF'
pyramid foreman_cif.y4m --bframes 3 --b-pyramid normal --ref 4 --threads 4
ponly foreman_cif.y4m --bframes 0 --ref 1 --threads 1
replace foreman_cif.y4m --gpu-me-mode replace --threads 4 --merange 32
adaptive foreman_cif.y4m --gpu-me-mode adaptive --threads 4 --gpu-me-range 24
threads8 mobile_cif.y4m --threads 8 --gpu-me-range 28 --bframes 3
mvrt8 foreman_cif.y4m --threads 8 --gpu-me-range 32 --bframes 3
partall mobile_cif.y4m --ref 3 --mixed-refs --partitions all --threads 4
sliced foreman_cif.y4m --sliced-threads --threads 4
odd foreman_346x282.y4m --threads 2 --gpu-me-range 48
veryslow bus_qcif.y4m --preset veryslow --threads 4
ultrafast carphone_qcif.y4m --preset ultrafast --threads 4 --merange 128
idrwarm foreman_cif.y4m --keyint 4 --min-keyint 1 --threads 4 --gpu-me-range 16
lathreads mobile_cif.y4m --threads 12 --lookahead-threads 2 --gpu-me-range 28 --bframes 3
subpel foreman_cif.y4m --threads 4 --gpu-me-range 32 --ref 4 --bframes 3 --gpu-me-subpel 30
subpelall mobile_cif.y4m --preset slower --threads 4 --gpu-me-range 16 --gpu-me-subpel 10
split foreman_cif.y4m --threads 4 --gpu-me-range 32 --ref 3 --bframes 3 --gpu-me-split 10
fallback bus_qcif.y4m --preset veryslow --threads 4 --gpu-me-fallback hex
EOF
    # the backend users get (auto): the device opens on its own thread during
    # the warm-up; the same bytes as the C reference
    check auto foreman_cif.y4m --gpu-me --gpu-me-stats --threads 4 --bframes 3 --gpu-me-range 16 &&
    check auto.c foreman_cif.y4m --gpu-me --gpu-me-backend c --threads 4 --bframes 3 --gpu-me-range 16 &&
    same auto auto.c "--gpu-me-backend auto (opened during the warm-up) and c: streams identical"
    # every encode above: two GPU candidates (the default from range 28; below, one); one, as before
    X264_GPU_ME_CANDS=1 check cands1.cuda foreman_cif.y4m --gpu-me --gpu-me-backend cuda --threads 4 --gpu-me-range 28 &&
    X264_GPU_ME_CANDS=1 check cands1.c foreman_cif.y4m --gpu-me --gpu-me-backend c --threads 4 --gpu-me-range 28 &&
    same cands1.cuda cands1.c "one candidate (X264_GPU_ME_CANDS=1): cuda and c streams identical"
else
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

    if [ "$gpu_present" = 0 ]; then
        echo "--- no GPU here"
        if enc "$X264" auto foreman_cif.y4m --gpu-me --gpu-me-range 16 --threads 2; then
            n=$(grep -c "gpu-me" "$W/auto.log")
            if [ "$n" = 1 ] && grep -q "warning.*gpu-me:.*x264's own motion search" "$W/auto.log"; then
                pass "--gpu-me without GPU: one warning: $(grep gpu-me "$W/auto.log")"
            else
                fail "--gpu-me without GPU: expected one warning line, got $n"; cat "$W/auto.log"
            fi
            # The device opens in the background (CUDA start-up overlaps x264's),
            # so the option SEI, written before the open ends, says what was
            # asked for; every picture is x264's alone.
            if cmp -s "$W/auto.rec.yuv" "$W/plain1.rec.yuv" && grep -q "gpu_me=adaptive:16" "$W/auto.264"; then
                pass "--gpu-me without GPU encodes exactly as x264 alone (same pictures; the option SEI says gpu_me=adaptive:16)"
            else
                fail "--gpu-me without GPU encodes differently from x264 alone"
            fi
            if decoded auto; then pass "--gpu-me without GPU: $DECODE_NOTE"; else fail "--gpu-me without GPU: $DECODE_NOTE"; fi
        else
            fail "--gpu-me without GPU must exit 0"
        fi
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

    echo "--- what plain --gpu-me chooses (decided at open, from size and options)"
    if enc "$X264" small foreman_cif.y4m --gpu-me --threads 2 && grep -q "info.*gpu-me: 352x288.*too small.*x264's own motion search" "$W/small.log" &&
       ! grep -q "warning" "$W/small.log"; then
        pass "--gpu-me on CIF: off, one info line: $(grep gpu-me "$W/small.log" | sed 's/.*gpu-me: //')"
    else
        fail "--gpu-me on CIF: expected one info line and no GPU"; cat "$W/small.log"
    fi
    same small plain1 "--gpu-me on CIF encodes exactly as x264 alone"
    if [ -s "$D/street_1080p_2.y4m" ] || ffmpeg -nostdin -loglevel error -y -i "$TOP/tests/data/VID_1920x1080_cabac_temporal_direct.264" \
           -frames:v 2 -pix_fmt yuv420p "$D/street_1080p_2.y4m"; then
        if ENC_DUMP=0 enc "$X264" fast1080 street_1080p_2.y4m --gpu-me --preset ultrafast --threads 16 &&
           grep -q "gpu-me: 1920x1080, --me dia: .*diamond.*x264's own motion search" "$W/fast1080.log"; then
            pass "--gpu-me --preset ultrafast at 1080p: off: $(grep gpu-me "$W/fast1080.log" | sed 's/.*gpu-me: //')"
        else
            fail "--gpu-me --preset ultrafast at 1080p: expected it off"; cat "$W/fast1080.log"
        fi
        if ENC_DUMP=0 enc "$X264" auto1080 street_1080p_2.y4m --gpu-me --gpu-me-backend c --frames 1 --threads 16 &&
           grep -q "gpu-me: C reference; range 64 chosen for 1920x1080 .*frame-thread MV limit 24\.\.72 per frame.*lookahead range 64" "$W/auto1080.log"; then
            pass "--gpu-me at 1080p, 16 threads: $(grep 'gpu-me: C' "$W/auto1080.log" | sed 's/.*gpu-me: //')"
        else
            fail "--gpu-me at 1080p: expected range 64, thread MV limit 24..72 per frame, lookahead range 64"; cat "$W/auto1080.log"
        fi
    else
        fail "cannot decode the 1080p test clip"
    fi
    # no_device NAME CLIP WHAT INFO ARGS...: plain --gpu-me (backend auto)
    # does not open the device (so no warning where there is none, no
    # backend line), one info line matching INFO says why; x264's own search
    # with the range's lookahead and frame-thread MV limits: the same stream
    # as the C backend with every frame in the warm-up
    no_device() {
        local name="$1" clip="$2" what="$3" info="$4"; shift 4
        if check "$name" "$clip" --gpu-me "$@" && grep -q "info.*gpu-me: $info" "$W/$name.log" &&
           ! grep -q "warning\|gpu-me: backend\|gpu-me: open\|gpu-me: C reference" "$W/$name.log"; then
            pass "--gpu-me on $what: no device: $(grep "gpu-me: ${info%%:*}" "$W/$name.log" | sed 's/.*gpu-me: //')"
        else
            fail "--gpu-me on $what: expected no device and one info line"; grep gpu-me "$W/$name.log"
        fi
        ENC_ENV="X264_GPU_ME_WARMUP=1000" check "${name}c" "$clip" --gpu-me --gpu-me-backend c "$@" &&
        same "$name" "${name}c" "--gpu-me on $what: the same stream as the C backend with every frame in the warm-up"
    }
    # a short encode (8 frames of 1080p: 17 of the 400 Mpixels that repay
    # CUDA's start-up); --gpu-me-stats still counts the per-frame limits
    if [ -s "$D/street_1080p_8.y4m" ] || ffmpeg -nostdin -loglevel error -y -i "$TOP/tests/data/VID_1920x1080_cabac_temporal_direct.264" \
           -frames:v 8 -pix_fmt yuv420p "$D/street_1080p_8.y4m"; then
        no_device short1080 street_1080p_8.y4m "8 frames of 1080p" \
            "1920x1080, 8 frames: too few frames to repay the GPU's start-up; x264's own motion search, range 64 chosen for 1920x1080 .*frame-thread MV limit 24\.\.72 per frame from the lookahead, lookahead range 64" \
            --gpu-me-stats --threads 16
        if grep -q "gpu-me: frame-thread MV limit per frame (x264's own 24, at most 72), frames: " "$W/short1080.log"; then
            pass "--gpu-me on 8 frames of 1080p: --gpu-me-stats counts the per-frame MV limits without the device"
        else
            fail "--gpu-me on 8 frames of 1080p: no per-frame MV limit line"; grep gpu-me "$W/short1080.log"
        fi
    else
        fail "cannot decode 8 frames of the 1080p test clip"
    fi
    if enc "$X264" stats foreman_cif.y4m --gpu-me-stats --threads 2 &&
       grep -q "gpu-me: x264 motion searches [1-9][0-9]*, integer part [0-9.]* ms" "$W/stats.log"; then
        pass "--gpu-me-stats alone times x264's searches: $(grep 'motion searches' "$W/stats.log" | sed 's/.*gpu-me: //')"
    else
        fail "--gpu-me-stats alone: no motion search times"; cat "$W/stats.log"
    fi
    same stats plain1 "--gpu-me-stats changes no byte"

    echo "--- C reference backend (the search the GPU must reproduce)"
    # a camera tilting down: foreman's 16 first frames, a 352x192 window
    # moving down 6 rows a frame
    [ -s "$D/tilt_352x192.y4m" ] || ffmpeg -nostdin -loglevel error -y -i "$D/foreman_cif.y4m" \
        -vf "crop=352:192:0:'min(6*n,96)'" -frames:v 16 -pix_fmt yuv420p "$D/tilt_352x192.y4m" ||
        fail "cannot make the tilting clip"
    C="--gpu-me --gpu-me-backend c"
    # the lookahead searches with the GPU's range, also in the sliced
    # lookahead's threads (--lookahead-threads 2: x264's own choice from 12
    # threads on). Its mb-tree (written by a first pass, made by the
    # lookahead alone) must equal stock x264's with --me umh --merange 32,
    # whose lookahead (hex, uncapped for umh) searches +-32, on mobile
    # panning 16 pixels a frame, where +-16 gives another mb-tree
    [ -s "$D/pan_352x288.y4m" ] || ffmpeg -nostdin -loglevel error -y -i "$D/mobile_cif.y4m" \
        -vf "scale=704:576,crop=352:288:16*n:0" -frames:v 20 -pix_fmt yuv420p "$D/pan_352x288.y4m" ||
        fail "cannot make the panning clip"
    for lt in 1 2; do
        for r in 16 32; do
            ENC_DUMP=0 enc "$STOCK" "lastock${r}_$lt" pan_352x288.y4m --me umh --merange $r --pass 1 --slow-firstpass \
                --stats "$W/lastock${r}_$lt.stats" --threads 4 --lookahead-threads $lt --bframes 3 ||
                fail "stock x264 first pass failed (lookahead threads $lt, range $r)"
        done
        # shellcheck disable=SC2086
        ENC_DUMP=0 enc "$X264" "lagpu_$lt" pan_352x288.y4m $C --gpu-me-range 32 --pass 1 --slow-firstpass \
            --stats "$W/lagpu_$lt.stats" --threads 4 --lookahead-threads $lt --bframes 3 ||
            fail "--gpu-me first pass failed (lookahead threads $lt)"
        if ! cmp -s "$W/lastock16_$lt.stats.mbtree" "$W/lastock32_$lt.stats.mbtree" &&
           cmp -s "$W/lagpu_$lt.stats.mbtree" "$W/lastock32_$lt.stats.mbtree"; then
            pass "lookahead threads $lt: the lookahead searches +-32 with --gpu-me-range 32 (mb-tree as stock --me umh --merange 32's, not as +-16's)"
        else
            fail "lookahead threads $lt: --gpu-me's mb-tree is not stock --merange 32's (or the clip does not tell 16 from 32)"
        fi
        rm -f "$W"/la*_"$lt".264
    done
    # shellcheck disable=SC2086
    {
    check pyramid foreman_cif.y4m $C --bframes 3 --b-pyramid normal --ref 4 --threads 2 --gpu-me-stats
    check ponly foreman_cif.y4m $C --bframes 0 --ref 1 --threads 1
    check replace foreman_cif.y4m $C --gpu-me-mode replace --threads 2
    check adaptive foreman_cif.y4m $C --gpu-me-mode adaptive --threads 2
    check partall mobile_cif.y4m $C --ref 3 --mixed-refs --partitions all --threads 2
    check sliced foreman_cif.y4m $C --sliced-threads --threads 3
    check threads4 foreman_cif.y4m $C --threads 4 --merange 28
    check threads4b foreman_cif.y4m $C --threads 4 --merange 28
    check odd foreman_346x282.y4m $C --threads 2
    check range64 bus_qcif.y4m $C --merange 64 --threads 2
    check veryslow bus_qcif.y4m $C --preset veryslow --threads 2
    check ultrafast carphone_qcif.y4m $C --preset ultrafast --threads 2
    check plainpyr foreman_cif.y4m --bframes 3 --b-pyramid normal --ref 4 --threads 2
    # 8 frame threads on 352x192: x264's own thread MV limit 24, range 32's
    # 40: chosen per frame (the clip tilts down 6 pixels a frame: P frames
    # 4 apart need 40, B frames 24); an explicit --mvrange-thread stands
    check mvrt8 tilt_352x192.y4m $C --threads 8 --gpu-me-range 32 --gpu-me-stats
    check mvrt8b tilt_352x192.y4m $C --threads 8 --gpu-me-range 32
    check mvrtfix tilt_352x192.y4m $C --threads 8 --gpu-me-range 32 --mvrange-thread 24 --gpu-me-stats
    }
    same mvrt8 mvrt8b "per-frame thread MV limits: deterministic"
    if grep -q "frame-thread MV limit 24\.\.40 per frame" "$W/mvrt8.log" &&
       grep -Eq "frame-thread MV limit per frame \(x264's own 24, at most 40\), frames: 16\.\.31: [1-9][0-9]* 32\.\.47: [1-9]" "$W/mvrt8.log"; then
        pass "per-frame thread MV limits: $(grep -h 'limit per frame' "$W/mvrt8.log" | sed 's/.*gpu-me: //')"
    else
        fail "per-frame thread MV limits: expected 24..40 with both chosen"; grep gpu-me "$W/mvrt8.log"
    fi
    if grep -q "frame-thread MV limit 24, " "$W/mvrtfix.log" && ! grep -q "limit per frame" "$W/mvrtfix.log"; then
        pass "--mvrange-thread 24 stands: $(grep -h 'gpu-me: C' "$W/mvrtfix.log" | sed 's/.*gpu-me: //')"
    else
        fail "--mvrange-thread 24 with --gpu-me-range 32: expected limit 24 for every frame"; grep gpu-me "$W/mvrtfix.log"
    fi
    same threads4 threads4b "deterministic: the same encode twice gives the same bytes"
    # the same with x264's sliced lookahead (two threads), whose vectors
    # centre the GPU's windows
    # shellcheck disable=SC2086
    check lathr pan_352x288.y4m $C --threads 12 --lookahead-threads 2 --gpu-me-range 32 --bframes 3 &&
    check lathrb pan_352x288.y4m $C --threads 12 --lookahead-threads 2 --gpu-me-range 32 --bframes 3 &&
    same lathr lathrb "deterministic with two lookahead threads: the same encode twice gives the same bytes"
    # --gpu-me-mode auto (the default): adaptive at every preset and size
    # shellcheck disable=SC2086
    {
    check vsadapt bus_qcif.y4m $C --preset veryslow --threads 2 --gpu-me-mode adaptive
    check automed foreman_cif.y4m $C --threads 2
    }
    same veryslow vsadapt "--gpu-me-mode auto at veryslow (--subme 10) is adaptive"
    same automed adaptive "--gpu-me-mode auto at medium is adaptive"
    if cmp -s "$W/automed.264" "$W/replace.264"; then
        fail "--gpu-me-mode replace gives the same encode as the default (adaptive)"
    else
        pass "--gpu-me-mode replace still changes the encode ($(stat -c %s "$W/replace.264") vs $(stat -c %s "$W/automed.264") bytes)"
    fi
    if grep -q "gpu-me: C reference; .*, adaptive mode (auto), " "$W/veryslow.log" &&
       grep -q "gpu-me: C reference; .*, adaptive mode (auto), " "$W/automed.log" &&
       grep -q "gpu-me: C reference; .*, replace mode, " "$W/replace.log" &&
       grep -q "gpu-me: C reference; .*, adaptive mode, " "$W/adaptive.log"; then
        pass "the info line names the mode and says when auto chose it"
    else
        fail "the info line does not name the mode auto chose"; grep -h "gpu-me: C" "$W/veryslow.log" "$W/automed.log" "$W/replace.log" "$W/adaptive.log"
    fi
    # two GPU candidates per partition (the default), against one
    # shellcheck disable=SC2086
    X264_GPU_ME_CANDS=1 check cands1 foreman_cif.y4m $C --threads 4 --merange 28 --gpu-me-stats
    if grep -q "C reference; .*, 2 candidates, " "$W/threads4.log" && grep -q "C reference; .*, 1 candidate (X264_GPU_ME_CANDS), " "$W/cands1.log"; then
        pass "two GPU candidates by default, one with X264_GPU_ME_CANDS=1"
    else
        fail "expected 2 candidates by default and 1 with X264_GPU_ME_CANDS=1"; grep -h "gpu-me: C" "$W/threads4.log" "$W/cands1.log"
    fi
    # ranges below 28: one candidate (the two passes would cost more than
    # 1.5x one: patches/0019)
    # shellcheck disable=SC2086
    check range16 foreman_cif.y4m $C --threads 2 --merange 16
    if grep -q "C reference; .*, 1 candidate (range below 28), " "$W/range16.log" &&
       grep -q "C reference; .*, 2 candidates, " "$W/threads4.log"; then
        pass "one GPU candidate at range 16, two at 28, and the info line says why"
    else
        fail "expected 1 candidate at range 16 and 2 at 28"; grep -h "gpu-me: C" "$W/range16.log" "$W/threads4.log"
    fi
    # --gpu-me-subpel N (patches/0020): the GPU's quarter-pel costs skip
    # x264's search of references in its loops over them, with mixed
    # references: the 8x8 ones (P and B) from --ref 5, the P 16x16 and 8x8
    # ones below (0029); 0 and bad values leave the encode as it was.  auto,
    # the default (0021, 0027, 0029): 20 at --ref 3 or more with --me
    # dia/hex/umh, else 0
    SP="foreman_cif.y4m $C --threads 2 --merange 28 --ref 4 --bframes 3"
    SP5="foreman_cif.y4m $C --threads 2 --merange 28 --ref 5 --bframes 3 --frames 12"
    # shellcheck disable=SC2086
    {
    check subpel30 $SP --gpu-me-subpel 30 --gpu-me-stats
    check subpelnone $SP
    check subpel20 $SP --gpu-me-subpel 20
    check subpel0 $SP --gpu-me-subpel 0
    check subpelauto2 $SP --ref 2
    check subpel0r2 $SP --ref 2 --gpu-me-subpel 0
    check subpelbad $SP --gpu-me-subpel -5
    check subpelauto5 $SP5
    check subpel20r5 $SP5 --gpu-me-subpel 20
    check subpelauto9 $SP5 --ref 9 --gpu-me-subpel auto
    check subpel20r9 $SP5 --ref 9 --gpu-me-subpel 20
    check subpelesa $SP5 --me esa --frames 6
    check subpelesa0 $SP5 --me esa --frames 6 --gpu-me-subpel 0
    }
    same subpel20 subpelnone "--gpu-me-subpel auto, the default, is 20 at --ref 4 (0029)"
    same subpel0r2 subpelauto2 "--gpu-me-subpel auto, the default, is 0 at --ref 2"
    same subpelauto5 subpel20r5 "--gpu-me-subpel auto, the default, is 20 at --ref 5"
    same subpelauto9 subpel20r9 "--gpu-me-subpel auto is 20 at --ref 9 (0027)"
    same subpelesa subpelesa0 "--gpu-me-subpel auto is 0 with --me esa (an exhaustive search asked for)"
    if grep -q "C reference; .*, sub-pel (subme 7) skipping 8x8 references 20% above the best (auto)" "$W/subpelauto5.log" &&
       grep -q "C reference; .*, sub-pel (subme 7) skipping 8x8 references 20% above the best (auto)" "$W/subpelauto9.log" &&
       grep -q "C reference; .*, sub-pel (subme 7) skipping P 16x16 and 8x8 references 20% above the best (auto)" "$W/subpelnone.log" &&
       grep -q "C reference; .*, sub-pel (subme 7) skipping P 16x16 and 8x8 references 20% above the best$" "$W/subpel20.log" &&
       ! grep -q "above the best (auto)" "$W/subpel20r5.log" "$W/subpel20r9.log" &&
       ! grep -q "sub-pel (subme" "$W/subpel0.log" "$W/subpelauto2.log"; then
        pass "--gpu-me-subpel auto: the info line names the loops and says when it chose"
    else
        fail "--gpu-me-subpel auto: expected (auto) in the info line at --ref 4 (P 16x16 and 8x8), 5 and 9 (8x8), not where asked, no sub-pel at --ref 2"
        grep -h "gpu-me: C" "$W"/subpel20*.log "$W"/subpelnone.log "$W"/subpelauto*.log
    fi
    # shellcheck disable=SC2086
    {
    check subpelref1 foreman_cif.y4m $C --threads 2 --merange 28 --ref 1 --bframes 3 --gpu-me-subpel 10
    check subpelref1none foreman_cif.y4m $C --threads 2 --merange 28 --ref 1 --bframes 3
    }
    same subpelref1 subpelref1none "--gpu-me-subpel with --ref 1 (nothing to skip) is off"
    if grep -q "gpu-me: --gpu-me-subpel skips references of the 8x8 searches, which need --mixed-refs and --ref 2 or more (--ref 1); off" "$W/subpelref1.log"; then
        pass "--gpu-me-subpel with --ref 1: the warning says why it is off"
    else
        fail "--gpu-me-subpel with --ref 1: no warning"; grep -h "gpu-me" "$W/subpelref1.log"
    fi
    # refused OPTION CASE OFF: CASE, encoded with --OPTION -5, is OFF's
    # encode (the option off), and x264 said why
    refused() {
        same "$2" "$3" "--$1 -5 is refused (off)"
        if grep -q "gpu-me: --$1 -5 out of auto, 0..1000, using 0 (off)" "$W/$2.log"; then
            pass "--$1 -5: the warning says so"
        else
            fail "--$1 -5: no warning"; grep -h "gpu-me" "$W/$2.log"
        fi
    }
    refused gpu-me-subpel subpelbad subpel0
    skip="$(sed -n 's/.*reference searches skipped \([0-9]*\) of \([0-9]*\) .*/\1 \2/p' "$W/subpel30.log")"
    if grep -q "C reference; .*, sub-pel (subme 7) skipping P 16x16 and 8x8 references 30% above the best" "$W/subpel30.log" &&
       [ -n "$skip" ] && [ "${skip%% *}" -gt 0 ] && [ "${skip%% *}" -lt "${skip##* }" ] &&
       ! cmp -s "$W/subpel30.264" "$W/subpel0.264"; then
        pass "--gpu-me-subpel 30 skips ${skip%% *} of ${skip##* } reference searches it could, says so, and changes the encode"
    else
        fail "--gpu-me-subpel 30: expected the info line, some searches skipped and another encode"
        grep -h "gpu-me: C\|skipped" "$W/subpel30.log"
    fi
    # the guard (patches/0022): x264's cost at its predictor keeps some of
    # the searches the GPU's costs would skip
    kept="$(sed -n "s/.*; \([0-9]*\) more kept by x264's cost at its predictor).*/\1/p" "$W/subpel30.log")"
    if [ -n "$kept" ] && [ -n "$skip" ] && [ "$kept" -gt 0 ] && [ $((kept + ${skip%% *})) -le "${skip##* }" ]; then
        pass "--gpu-me-subpel 30: x264's cost at its predictor keeps $kept of the searches the GPU's costs would skip"
    else
        fail "--gpu-me-subpel 30: expected the guard to keep some searches"; grep -h "skipped" "$W/subpel30.log"
    fi
    # --gpu-me-predictors N (patches/0030): where the GPU gave vectors, x264
    # prices only the first N of its own predictors beside them; auto, the
    # default: 2 at --ref 3 and 4 (medium), else 16 (all); -5 is refused (all)
    # shellcheck disable=SC2086
    {
    check pred2 $SP --gpu-me-predictors 2
    check pred16 $SP --gpu-me-predictors 16
    check predbad $SP --gpu-me-predictors -5
    check pred16r2 $SP --ref 2 --gpu-me-predictors 16
    }
    same pred2 subpelnone "--gpu-me-predictors auto, the default, is 2 at --ref 4"
    same pred16r2 subpelauto2 "--gpu-me-predictors auto, the default, is 16 (all) at --ref 2"
    same predbad pred16 "--gpu-me-predictors -5 is refused (all)"
    if grep -q "C reference; .*, 2 of x264's predictors priced (auto), lookahead range" "$W/subpelnone.log" &&
       grep -q "C reference; .*, 2 of x264's predictors priced, lookahead range" "$W/pred2.log" &&
       ! grep -q "predictors priced" "$W/pred16.log" "$W/subpelauto2.log" &&
       grep -q "gpu-me: --gpu-me-predictors -5 out of auto, 0..16, using 16 (all)" "$W/predbad.log" &&
       grep -a -q "gpu_me_predictors=2 " "$W/subpelnone.264" && ! grep -a -q "gpu_me_predictors" "$W/pred16.264" &&
       ! cmp -s "$W/pred2.264" "$W/pred16.264"; then
        pass "--gpu-me-predictors: the info line and the option SEI say it, -5 warns, and 2 changes the encode"
    else
        fail "--gpu-me-predictors: expected the info line (auto at --ref 4), the SEI, the warning and another encode"
        grep -h "gpu-me: C\|predictors" "$W"/pred*.log "$W/subpelnone.log"
    fi
    # --gpu-me-split N (patches/0024): the GPU's integer costs skip x264's
    # 8x8 analysis (P and B macroblocks); auto, the default: 10 on frames
    # of 1.5 Mpixels or more (checked on big4m below), 0 on CIF
    # shellcheck disable=SC2086
    {
    check split10 $SP --gpu-me-split 10 --gpu-me-stats
    check split0 $SP --gpu-me-split 0
    check splitbad $SP --gpu-me-split -5
    }
    same split0 subpelnone "--gpu-me-split auto, the default, is 0 on CIF"
    refused gpu-me-split splitbad subpelnone
    sp="$(sed -n 's/.*8x8 analyses skipped (the GPU.s four 8x8s over 10% above 16x16): P \([0-9]*\) of \([0-9]*\) (.*), B \([0-9]*\) of \([0-9]*\) .*/\1 \2 \3 \4/p' "$W/split10.log")"
    read -r s1 s2 s3 s4 <<< "$sp"
    if grep -q "C reference; .*, 8x8 analyses skipped where the GPU puts them 10% above 16x16$" "$W/split10.log" &&
       ! grep -q "8x8 analyses skipped where" "$W/subpelnone.log" && [ -n "$s4" ] &&
       [ "$s1" -gt 0 ] && [ "$s1" -lt "$s2" ] && [ "$s3" -gt 0 ] && [ "$s3" -lt "$s4" ] &&
       ! cmp -s "$W/split10.264" "$W/subpelnone.264"; then
        pass "--gpu-me-split 10 skips $s1 of $s2 P and $s3 of $s4 B 8x8 analyses, says so, and changes the encode"
    else
        fail "--gpu-me-split 10: expected the info line, some P and B 8x8 analyses skipped and another encode"
        grep -h "gpu-me: C\|8x8 analyses" "$W/split10.log"
    fi
    # --gpu-me-fallback (patches/0026): adaptive mode's own search, where a
    # predictor beat the GPU's vectors, with x264's --me (the default) or a
    # hexagon; it changes the encode only with --me umh/esa/tesa in adaptive mode.
    # auto, the default (0027): hex with --me umh (slower, veryslow), else me
    FB="bus_qcif.y4m $C --threads 2 --gpu-me-range 16 --frames 16"
    # shellcheck disable=SC2086
    {
    check fbdef $FB --preset veryslow
    check fbhex $FB --preset veryslow --gpu-me-fallback hex
    check fbme $FB --preset veryslow --gpu-me-fallback me
    check fbmehex $FB --preset veryslow --me hex --gpu-me-fallback hex
    check fbmehexme $FB --preset veryslow --me hex --gpu-me-fallback me
    check fbrepl $FB --preset veryslow --gpu-me-mode replace --gpu-me-fallback hex
    check fbreplme $FB --preset veryslow --gpu-me-mode replace --gpu-me-fallback me
    check fbdef8 $FB --preset slower
    check fbhex8 $FB --preset slower --gpu-me-fallback hex
    check fbme8 $FB --preset slower --gpu-me-fallback me
    check fbdeftesa $FB --preset veryslow --me tesa --frames 6
    check fbmetesa $FB --preset veryslow --me tesa --frames 6 --gpu-me-fallback me
    }
    same fbdef fbhex "--gpu-me-fallback auto, the default, is hex at veryslow (--ref 16)"
    same fbdef8 fbhex8 "--gpu-me-fallback auto, the default, is hex at slower (umh, --ref 8)"
    same fbdeftesa fbmetesa "--gpu-me-fallback auto, the default, is me with --me tesa (placebo's)"
    same fbmehex fbmehexme "--gpu-me-fallback hex with --me hex: nothing to change"
    same fbrepl fbreplme "--gpu-me-fallback hex in replace mode (no fallback search): nothing to change"
    if ! cmp -s "$W/fbhex.264" "$W/fbme.264" && ! cmp -s "$W/fbhex8.264" "$W/fbme8.264" &&
       grep -q "C reference; .*, adaptive mode (auto), hexagon fallback, " "$W/fbhex.log" &&
       ! grep -q "hexagon fallback" "$W/fbme.log" "$W/fbmehex.log" "$W/fbrepl.log" &&
       grep -q "gpu_me_fallback=hex" "$W/fbhex.264" && ! grep -q "gpu_me_fallback" "$W/fbme.264" "$W/fbmehex.264" "$W/fbrepl.264" &&
       grep -q "C reference; .*, adaptive mode (auto), hexagon fallback (auto), " "$W/fbdef.log" &&
       grep -q "hexagon fallback (auto)" "$W/fbdef8.log" && ! grep -q "hexagon fallback (auto)" "$W/fbhex.log" &&
       ! grep -q "hexagon fallback" "$W/fbdeftesa.log"; then
        pass "--gpu-me-fallback hex changes the slower and veryslow (umh) encodes; the info line and the option SEI say so, only where it applies, and (auto) where auto chose it"
    else
        fail "--gpu-me-fallback: expected hex to change the slower and veryslow encodes, with the info line and the option SEI"
        grep -h "gpu-me: C" "$W"/fb*.log
    fi
    # shellcheck disable=SC2086
    if ENC_DUMP=0 enc "$X264" fbbad bus_qcif.y4m $C --frames 2 --gpu-me-fallback umh; then
        fail "--gpu-me-fallback umh must be refused"
    elif grep -q "invalid argument: gpu-me-fallback = umh" "$W/fbbad.log"; then
        pass "--gpu-me-fallback umh is refused: $(grep -h 'invalid argument' "$W/fbbad.log")"
    else
        fail "--gpu-me-fallback umh: no clear error"; cat "$W/fbbad.log"
    fi
    rm -f "$W/fbbad.264"
    # --gpu-me-lookahead 1 (patches/0025): the lookahead's own lowres
    # search in cuda_me (cuda_me/lowres_spec.h) is x264's, bit for bit: the
    # same bytes as x264 searching, with MB-tree (every block) and with --qp
    # (x264 skips the outer ring), with two lookahead slices; the warm-up
    # cut to one frame and a short lookahead so that most pairs reach
    # cuda_me (the CUDA kernel: tests/checkasm_me.c, test_lowres)
    LA="foreman_cif.y4m $C --threads 4 --lookahead-threads 2 --rc-lookahead 10 --gpu-me-range 16"
    # shellcheck disable=SC2086
    {
    ENC_ENV=X264_GPU_ME_WARMUP=1 check la1 $LA --preset slower --gpu-me-lookahead 1 --gpu-me-stats
    ENC_ENV=X264_GPU_ME_WARMUP=1 check la0 $LA --preset slower --gpu-me-lookahead 0
    ENC_ENV=X264_GPU_ME_WARMUP=1 check la1q $LA --preset medium --qp 27 --gpu-me-stats
    ENC_ENV=X264_GPU_ME_WARMUP=1 check la0q $LA --preset medium --qp 27 --gpu-me-lookahead 0
    ENC_ENV="X264_GPU_ME_WARMUP=1 X264_GPU_ME_LA_PREFETCH=0" check la1s $LA --preset slower --gpu-me-lookahead 1 --gpu-me-stats
    ENC_ENV="X264_GPU_ME_WARMUP=1 X264_GPU_ME_LA_PREFETCH=0" check la1qs $LA --preset medium --qp 27 --gpu-me-lookahead 1 --gpu-me-stats
    }
    same la1 la0 "--gpu-me-lookahead 1 (MB-tree, 2 lookahead slices): the same bytes as x264's own lookahead search"
    same la1q la0q "--gpu-me-lookahead 1, the default (--qp: the outer ring left as it was): the same bytes"
    same la1s la0 "--gpu-me-lookahead 1 without queueing ahead (each pair searched when asked for): the same bytes"
    same la1qs la0q "--gpu-me-lookahead 1 without queueing ahead, --qp: the same bytes"
    # the pairs reach cuda_me: queued ahead and taken (la1, la1q), or
    # searched when asked for (la1s, la1qs: none queued)
    for n in la1 la1q la1s la1qs; do
        la="$(sed -n 's/.*gpu-me: lookahead: \([0-9]*\) pairs searched by cuda_me .*/\1/p' "$W/$n.log")"
        hit="$(sed -n 's/.*queued ahead, \([0-9]*\) of them asked for.*/\1/p' "$W/$n.log")"
        want=$la; [ "${n%s}" != "$n" ] && want=0
        if [ -n "$la" ] && [ "$la" -gt 10 ] && [ "$hit" = "$want" ]; then
            pass "$n: $la lookahead pairs searched by cuda_me, $hit of them queued ahead"
        else
            fail "$n: expected the lookahead's pairs in cuda_me, $want of them queued ahead"; grep -h "lookahead" "$W/$n.log"
        fi
    done
    # --gpu-me-lookahead across x264's features: weighted P (x264 keeps
    # the weighted pairs), 8 B-frames, b-adapt 0, short GOPs,
    # scene cuts, VBV and ABR without MB-tree (the outer ring), 4
    # lookahead slices, slices, B-pyramid, zerolatency, intra refresh,
    # umh, --subme 1 (x264 searches: diamond), odd sizes: the same bytes
    # with 1 (the default) and 0, and the pairs reach cuda_me (queued
    # ahead, every one asked for taken) where they should.  VBV at one
    # thread: with frame threads x264's VBV depends on their timing (stock
    # x264 too: four runs at --threads 2, four different streams)
    while IFS='|' read -r n clip want args; do
        # shellcheck disable=SC2086
        {
        ENC_ENV=X264_GPU_ME_WARMUP=1 check "lab_${n}1" "$clip" $C --gpu-me-range 16 --gpu-me-stats $args
        ENC_ENV=X264_GPU_ME_WARMUP=1 check "lab_${n}0" "$clip" $C --gpu-me-range 16 --gpu-me-lookahead 0 $args
        }
        got="$(sed -n 's/.*gpu-me: lookahead: \([0-9]*\) pairs searched by cuda_me .*queued ahead, \([0-9]*\) of them.*/\1 \2/p' "$W/lab_${n}1.log")"
        if ! cmp -s "$W/lab_${n}1.264" "$W/lab_${n}0.264"; then
            fail "--gpu-me-lookahead 1 and 0 differ: $n ($args)"
        elif { [ "$want" = 1 ] && [ -n "$got" ] && [ "${got% *}" -gt 0 ] && [ "${got% *}" = "${got#* }" ]; } ||
             { [ "$want" = 0 ] && [ -z "$got" ]; }; then
            pass "--gpu-me-lookahead 1 and 0 encode the same bytes: $n ($args; pairs in cuda_me, taken from the queue: ${got:-none})"
        else
            fail "$n: lookahead pairs in cuda_me, taken from the queue: '${got:-none}', expected $([ "$want" = 1 ] && echo "some, all taken" || echo none) ($args)"
        fi
    done <<'LIST'
wp2|mobile_cif.y4m|1|--preset slower --weightp 2 --threads 3 --rc-lookahead 12
badapt0|foreman_cif.y4m|1|--b-adapt 0 --threads 2 --rc-lookahead 10
keyint5|foreman_cif.y4m|1|--keyint 5 --min-keyint 1 --threads 4 --rc-lookahead 10
scenecut|pan_352x288.y4m|1|--scenecut 80 --threads 2 --rc-lookahead 10
vbv|foreman_cif.y4m|1|--no-mbtree --bitrate 400 --vbv-maxrate 500 --vbv-bufsize 800 --threads 1 --rc-lookahead 10
abr|foreman_cif.y4m|1|--no-mbtree --bitrate 400 --threads 2 --rc-lookahead 10
la4|foreman_cif.y4m|1|--threads 4 --lookahead-threads 4 --rc-lookahead 10
slices|foreman_cif.y4m|1|--slices 4 --threads 2 --rc-lookahead 10
pyramid|bus_qcif.y4m|1|--bframes 5 --b-pyramid strict --threads 2 --rc-lookahead 10
zerolat|foreman_cif.y4m|1|--tune zerolatency --threads 2
irefresh|foreman_cif.y4m|1|--intra-refresh --threads 2 --rc-lookahead 10
umh|carphone_qcif.y4m|1|--me umh --merange 24 --threads 1 --rc-lookahead 10
tilt|tilt_352x192.y4m|1|--threads 2 --rc-lookahead 10 --bframes 8
subme1|foreman_cif.y4m|0|--subme 1 --threads 2 --rc-lookahead 10
LIST
    # frames of more than 4 Mpixels: one candidate by default (foreman
    # scaled to 2304x1792, 4.1 Mpixels; a short range for the C search)
    [ -s "$D/big_2304x1792.y4m" ] || ffmpeg -nostdin -loglevel error -y -i "$D/foreman_cif.y4m" \
        -vf scale=2304:1792 -frames:v 3 -pix_fmt yuv420p "$D/big_2304x1792.y4m" ||
        fail "cannot make the 4-Mpixel clip"
    # shellcheck disable=SC2086
    check big4m big_2304x1792.y4m $C --gpu-me-range 8 --bframes 0 --ref 1 --threads 2
    if grep -q "C reference; .*, 1 candidate (frames of more than 4 Mpixels), " "$W/big4m.log" &&
       grep -q "C reference; .*, 2 candidates, " "$W/threads4.log"; then
        pass "one GPU candidate on frames of more than 4 Mpixels, two below, and the info line says why"
    else
        fail "expected 1 candidate at 2304x1792 and 2 at CIF"; grep -h "gpu-me: C" "$W/big4m.log" "$W/threads4.log"
    fi
    if grep -q "C reference; .*, 8x8 analyses skipped where the GPU puts them 10% above 16x16 (auto)$" "$W/big4m.log"; then
        pass "--gpu-me-split auto is 10 on frames of 1.5 Mpixels or more, and the info line says it chose"
    else
        fail "--gpu-me-split auto: expected 10 (auto) at 2304x1792"; grep -h "gpu-me: C" "$W/big4m.log"
    fi
    # ... and plain --gpu-me (backend auto) does not open the device there
    no_device bigauto big_2304x1792.y4m "4.1-Mpixel frames" \
        "2304x1792, 3 frames: frames of more than 4 Mpixels, where x264's own search does better than with the GPU's vectors; x264's own motion search, range 64 chosen" \
        --threads 4 --bframes 0
    if cmp -s "$W/threads4.264" "$W/cands1.264"; then
        fail "the second GPU candidate does not change the encode"
    else
        pass "the second GPU candidate changes the encode ($(stat -c %s "$W/threads4.264") vs $(stat -c %s "$W/cands1.264") bytes)"
    fi
    if cmp -s "$W/pyramid.264" "$W/plainpyr.264"; then
        fail "the GPU vectors do not change the encode"
    else
        pass "the GPU vectors change the encode ($(stat -c %s "$W/pyramid.264") vs $(stat -c %s "$W/plainpyr.264") bytes)"
    fi
    if grep -q "gpu-me: frames [0-9]*, pairs searched [1-9]" "$W/pyramid.log" &&
       grep -q "gpu-me: open [0-9.]* ms (x264 waited [0-9.]* ms for it; frames 0\.\.[0-9]*, the warm-up, x264's own), close [0-9.]* ms" "$W/pyramid.log"; then
        pass "--gpu-me-stats: $(grep -h 'pairs searched' "$W/pyramid.log" | sed 's/.*gpu-me: //')"
    else
        fail "--gpu-me-stats printed nothing"
    fi
    # patches/0028: the frame threads' time per frame, by slice type: as many
    # frames as x264 encoded (its "frame I/P/B:N" lines)
    fl="$(grep -h 'gpu-me: frame threads, per frame:' "$W/pyramid.log")"
    nt=$(sed -n 's/.*x264 \[info\]: frame [IPB]:\([0-9]*\) .*/\1/p' "$W/pyramid.log" | awk '{n += $1} END {print n + 0}')
    nf=$(echo "$fl" | grep -o '[IPB] [0-9]* x [0-9.]* ms (rows waited [0-9.]*)' | awk '{n += $2} END {print n + 0}')
    if [ -n "$fl" ] && [ "$nt" -gt 0 ] && [ "$nf" = "$nt" ] && echo "$fl" | grep -q "P [1-9][0-9]* x .* B [1-9][0-9]* x " &&
       echo "$fl" | grep -q "the main thread waited [0-9.]* ms for the oldest frame, [0-9.]* ms for the lookahead"; then
        pass "--gpu-me-stats times the frame threads: ${fl#*per frame:} ($nt frames)"
    else
        fail "--gpu-me-stats: expected the frame threads' line over $nt frames (got $nf): ${fl:-none}"
    fi
    # the warm-up: the first threads + bframes + 1 frames (here 4 + 3 + 1,
    # rounded up to a minigop) are x264's own while the device opens; the
    # references among them are searched against once it is open
    # an encode shorter than the warm-up; IDR frames inside it
    # shellcheck disable=SC2086
    {
    check warmshort foreman_cif.y4m $C --threads 4 --frames 3 --gpu-me-range 8
    check warmidr foreman_cif.y4m $C --threads 4 --frames 20 --keyint 4 --min-keyint 1 --gpu-me-range 8
    check warmup foreman_cif.y4m $C --threads 4 --bframes 3 --frames 24 --gpu-me-stats --log-level debug
    }
    # warm_end NAME: the last warm-up frame of its --gpu-me-stats line;
    # first_search NAME: the first frame the GPU searched (--log-level debug)
    warm_end() { sed -n 's/.*frames 0\.\.\([0-9]*\), the warm-up.*/\1/p' "$W/$1.log"; }
    first_search() { sed -n 's/.*gpu-me: search frame \([0-9]*\) in frame [0-9]*$/\1/p' "$W/$1.log" | sort -n | head -1; }
    end=$(warm_end warmup)
    first=$(first_search warmup)
    warmref=$(sed -n 's/.*gpu-me: search frame [0-9]* in frame \([0-9]*\)$/\1/p' "$W/warmup.log" | sort -n | head -1)
    if [ "$rc" = 0 ] && [ -n "$end" ] && [ "$end" -ge 7 ] && [ -n "$first" ] && [ "$first" -gt "$end" ] &&
       [ -n "$warmref" ] && [ "$warmref" -le "$end" ]; then
        pass "warm-up: frames 0..$end x264's own; the first GPU search is of frame $first, against frame $warmref from the warm-up"
    else
        fail "warm-up: expected frames 0..N (N >= 7) unsearched and searches against them after (exit $rc, end '$end', first '$first', ref '$warmref')"
    fi
    # X264_GPU_ME_WARMUP=N (developers: A/B runs of the start-up): N frames,
    # to the end of their minigop
    # shellcheck disable=SC2086
    ENC_ENV="X264_GPU_ME_WARMUP=14" check warm14 foreman_cif.y4m $C --threads 4 --bframes 3 --frames 24 --gpu-me-stats --log-level debug
    end14=$(warm_end warm14)
    first14=$(first_search warm14)
    if [ "$rc" = 0 ] && [ -n "$end14" ] && [ "$end14" -ge 13 ] && [ "$end14" -le 16 ] &&
       [ -n "$first14" ] && [ "$first14" -gt "$end14" ] && [ -n "$end" ] && [ "$end14" -gt "$end" ]; then
        pass "X264_GPU_ME_WARMUP=14: frames 0..$end14 x264's own (default 0..$end), the first GPU search is of frame $first14"
    else
        fail "X264_GPU_ME_WARMUP=14: expected frames 0..13-16 unsearched (exit $rc, end '$end14', first '$first14', default end '$end')"
    fi
fi

summary e2e
