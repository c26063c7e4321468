#!/bin/bash
# tests/device.sh: what runs on the GPU machine (see README, "GPU machine").
# Uses binaries built here by ./build.sh device and carried there: it builds
# nothing.  Sections (default all): data unit sanitize bench e2e
set -u
TOP="$(cd "$(dirname "$0")/.." && pwd)"
B="$TOP/build"
OUT="${OUT:-$B/device-out}"
mkdir -p "$OUT"
export CUDA_ME_TEST_DATA="$B/data"
export CUDA_ME_COMMIT="${CUDA_ME_COMMIT:-$(git -C "$TOP" rev-parse --short HEAD 2>/dev/null || echo unknown)}"
D="$CUDA_ME_TEST_DATA"
T="$B/tests/test_cuda_me_static"
what="${*:-data unit sanitize bench e2e}"
status=0
sec() { echo; echo "##### $* ($(date +%T))"; }

for w in $what; do case "$w" in
data)
    sec data
    mkdir -p "$D"
    dec() { [ -s "$D/$1" ] || python3 "$TOP/tests/tools/decode_cv2.py" "$TOP/tests/data/$2" "$D/$1" "${@:3}"; }
    dec foreman_cif.y4m BA1_FT_C.264 30
    dec bus_qcif.y4m test_qcif_cabac.264 30
    dec mobile_cif.y4m CVPCMNL1_SVA_C.264 20
    dec carphone_qcif.y4m carphone_pristine.mp4 40
    dec foreman_346x282.y4m BA1_FT_C.264 12 346 282 2 4
    dec street_1080p.y4m VID_1920x1080_cabac_temporal_direct.264 8
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$OUT/gpu.txt"
    ;;
unit)
    sec "unit tests, GPU required"
    CUDA_ME_REQUIRE_GPU=1 "$T" 2>&1 | tee "$OUT/unit.log" | grep -v "^\*\*\* SKIP" | tail -40
    [ "${PIPESTATUS[0]}" = 0 ] || status=1
    ;;
sanitize)
    for tool in memcheck racecheck synccheck; do
        sec "compute-sanitizer $tool"
        level=1; [ "$tool" = memcheck ] || level=2
        CK_FORK=no CK_RUN_SUITE=gpu CUDA_ME_SANITIZE=$level CUDA_ME_REQUIRE_GPU=1 \
            timeout 200 compute-sanitizer --tool "$tool" --error-exitcode 9 "$T" > "$OUT/sanitize-$tool.log" 2>&1
        rc=$?
        tail -4 "$OUT/sanitize-$tool.log"
        echo "compute-sanitizer $tool: exit $rc"
        [ "$rc" = 0 ] || status=1
    done
    ;;
bench)
    sec "kernel benchmark"
    "$B/bench/bench_me" -o "$OUT/kernel_bench.csv" 2>&1 | tee "$OUT/kernel_bench.txt" | tail -60
    ;;
e2e)
    sec "end-to-end: CUDA backend == C backend"
    X264="$B/device/x264/x264" GPU=1 E2E_DIR="$B/e2e-gpu" "$TOP/tests/e2e.sh" 2>&1 | tee "$OUT/e2e-gpu.log"
    [ "${PIPESTATUS[0]}" = 0 ] || status=1
    (cd "$B/e2e-gpu" && md5sum *.rec.yuv > rec.md5 && tar czf "$OUT/e2e-gpu.tgz" *.264 rec.md5 *.log)
    ;;
*) echo "unknown section $w"; exit 2 ;;
esac; done
exit $status
