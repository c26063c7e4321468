#!/bin/bash
# tests/run.sh: every test of the project, after ./build.sh has built it.
#
#   unit       cuda_me unit tests (Check): C reference vs oracle, API, faults,
#              CUDA vs C (skipped loudly without a GPU; CUDA_ME_REQUIRE_GPU=1
#              makes that a failure); test_subpel: the sub-pel
#              specification against x264's own C functions (libx264.a)
#   header     cuda_me.h compiles alone with -std=c99 -pedantic (make does it)
#   checkasm   x264's own tools/checkasm on the patched tree
#   e2e        tests/e2e.sh: real clips through stock and patched x264;
#              FFmpeg decodes every output to x264's reconstruction exactly
#   reliability tests/reliability.sh: bad input, absurd options, injected
#              faults, valgrind (C backend)
#   patches    tests/check_patches.sh: patches/ is text and sources only, and
#              applying then exporting it is a fixed point
#   reconfig   tests/reconfig.sh: x264_encoder_reconfig() during --gpu-me
#              encodes through libx264's API, under valgrind
#   ffmpeg     tests/ffmpeg.sh: build/ffmpeg/ffmpeg -c:v libx264 -x264-params gpu-me=1
#   abi        tests/abi.sh: the shared patched library is libx264-gpu-me.so.164
#   fatbin     tests/fatbin.sh: kernels for every configured GPU architecture
#   device     tests/device_auto.sh: --gpu-me-device auto|N
#   chunked    tests/chunked.sh: chunked encodes on a local Dask cluster (venv in build/)
#   results    tests/results.sh: results/current's tables from its CSVs, and
#              results/run.sh's dry run (QUICK=1)
#
# tests/run.sh [patches|unit|checkasm|e2e|reconfig|reliability|ffmpeg|abi|fatbin|device|chunked|results]...   (default: all)

set -u
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"
export CUDA_ME_TEST_DATA="$D"
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
ffdec() {   # OUT SRC FRAMES [W H X Y]
    local crop=()
    [ $# -ge 7 ] && crop=(-vf "crop=$4:$5:$6:$7")
    ffmpeg -nostdin -loglevel error -y -i "$2" -frames:v "$3" "${crop[@]}" -pix_fmt yuv420p "$1.tmp.y4m" &&
        mv "$1.tmp.y4m" "$1"
}

unit() {
    make -C "$TOP" -s lib tests >/dev/null && "$B/tests/test_cuda_me" &&
        make -C "$TOP" -s test-subpel >/dev/null && "$B/tests/test_subpel"
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

what="${*:-patches unit fatbin checkasm e2e device reconfig reliability ffmpeg abi chunked results}"
run "decode test clips" decode_clips ffdec || true
for w in $what; do
    case "$w" in
        patches)  run "patch series" "$TOP/tests/check_patches.sh" ;;
        unit)     run "unit tests (Check)" unit ;;
        reconfig) run "reconfig through the API" "$TOP/tests/reconfig.sh" ;;
        ffmpeg)   run "FFmpeg with the patched libx264" "$TOP/tests/ffmpeg.sh" ;;
        abi)      run "shared library (libx264-gpu-me.so)" "$TOP/tests/abi.sh" ;;
        fatbin)   run "GPU architectures in the binaries" "$TOP/tests/fatbin.sh" ;;
        device)   run "--gpu-me-device auto" "$TOP/tests/device_auto.sh" ;;
        checkasm) run "x264 checkasm" checkasm ;;
        chunked)  run "chunked encoding on Dask" "$TOP/tests/chunked.sh" ;;
        results)  run "the measuring tools" "$TOP/tests/results.sh" ;;
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
