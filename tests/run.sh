#!/bin/bash
# tests/run.sh: every test of the project, after ./build.sh has built it.
#
#   unit       cuda_me unit tests (Check): C reference vs oracle, API, faults,
#              CUDA vs C (skipped loudly without a GPU; CUDA_ME_REQUIRE_GPU=1
#              makes that a failure)
#   header     cuda_me.h compiles alone with -std=c99 -pedantic (make does it)
#   checkasm   x264's own tools/checkasm on the patched tree
#   e2e        tests/e2e.sh: real clips through stock and patched x264;
#              FFmpeg decodes every output to x264's reconstruction exactly
#   reliability tests/reliability.sh: bad input, absurd options, injected
#              faults, valgrind (C backend)
#
# tests/run.sh [unit|checkasm|e2e|reliability]...   (default: all)

set -u
TOP="$(cd "$(dirname "$0")/.." && pwd)"
B="$TOP/build"
export CUDA_ME_TEST_DATA="${CUDA_ME_TEST_DATA:-$B/data}"
JOBS="$(nproc 2>/dev/null || echo 2)"
failed=""

run() {
    name="$1"; shift
    echo "=== $name"
    start=$(date +%s)
    if "$@"; then
        echo "=== $name: ok ($(( $(date +%s) - start )) s)"
    else
        echo "=== $name: FAILED"
        failed="$failed $name"
    fi
}

# Decoded clips (y4m) for the unit and end-to-end tests, from tests/data.
decode_clips() {
    mkdir -p "$CUDA_ME_TEST_DATA"
    local d="$CUDA_ME_TEST_DATA"
    dec() {   # out src frames [extra ffmpeg args]
        local out="$1" src="$2" n="$3"; shift 3
        [ -s "$d/$out" ] && return 0
        ffmpeg -nostdin -loglevel error -y -i "$TOP/tests/data/$src" -frames:v "$n" "$@" -pix_fmt yuv420p "$d/$out.tmp.y4m" &&
            mv "$d/$out.tmp.y4m" "$d/$out"
    }
    dec foreman_cif.y4m BA1_FT_C.264 30 &&
    dec bus_qcif.y4m test_qcif_cabac.264 30 &&
    dec mobile_cif.y4m CVPCMNL1_SVA_C.264 20 &&
    dec carphone_qcif.y4m carphone_pristine.mp4 40 &&
    dec foreman_346x282.y4m BA1_FT_C.264 12 -vf crop=346:282:2:4
}

unit() {
    make -C "$TOP" -s lib tests >/dev/null && "$B/tests/test_cuda_me"
}

checkasm() {
    make -C "$B/x264" -s -j"$JOBS" checkasm >/dev/null 2>"$B/x264/checkasm-make.err" || { cat "$B/x264/checkasm-make.err"; return 1; }
    "$B/x264/checkasm8"
}

e2e() {
    "$TOP/tests/e2e.sh"
}

reliability() {
    "$TOP/tests/reliability.sh"
}

what="${*:-unit checkasm e2e reliability}"
run "decode test clips" decode_clips || true
for w in $what; do
    case "$w" in
        unit)     run "unit tests (Check)" unit ;;
        checkasm) run "x264 checkasm" checkasm ;;
        e2e)      run "end-to-end encodes" e2e ;;
        reliability) run "reliability" reliability ;;
        *)        echo "unknown test set $w"; exit 2 ;;
    esac
done

if [ -n "$failed" ]; then
    echo "FAILED:$failed"
    exit 1
fi
echo "all tests passed"
