#!/bin/bash
# tests/device.sh: what runs on a GPU host (doc/testing.md).
# Uses binaries built here by ./build.sh device and carried there: it builds
# nothing.  Sections (default: data unit sanitize bench e2e):
#   data        decodes the test clips with OpenCV (no FFmpeg there)
#   unit        unit tests, CUDA_ME_REQUIRE_GPU=1
#   sanitize    compute-sanitizer memcheck, racecheck, synccheck (SANITIZE_TOOLS:
#               some of them; SANITIZE_TIMEOUT: each one's limit [320 s]:
#               racecheck takes about 240 s on an H100)
#   bench       kernel benchmark
#   e2e         tests/e2e.sh GPU=1 with E2E_DECODE=defer: $OUT/e2e-gpu.tgz
#               holds the streams and NAME.rec.md5; on a machine with FFmpeg:
#               tar xzf e2e-gpu.tgz -C DIR && tests/verify_deferred.sh DIR
#   gpu         the checks after a kernel or glue change, side by side
#               (about 4-5 minutes; not by default): unit, compute-sanitizer
#               memcheck over the GPU case gpu, and e2e; logs unit.log,
#               memcheck.log, e2e.log in $OUT (limits UNIT_TIMEOUT,
#               MEMCHECK_TIMEOUT, E2E_TIMEOUT: 280 280 290 s)
#   sanitize-encode  compute-sanitizer memcheck, racecheck, synccheck over
#               real --gpu-me encodes (CUDA backend)
#   ffmpeg      build/device/ffmpeg/ffmpeg -c:v libx264 -x264-params gpu-me=1
#               on the CUDA backend
#   reliability results/reliability_gpu.sh $OUT/reliability (not by default:
#               its memory case encodes for more than a minute)
#   opencl      whether x264's own OpenCL lookahead (--opencl) loads here:
#               the library path as it is, /usr/local/cuda/lib64, and a
#               libOpenCL.so link to ldconfig's loader (information only)
#   oldarch     build/device/x264-oldarch/x264 (kernels for sm_100 only, no
#               PTX sm_90 can JIT: ./build.sh device): --gpu-me warns once,
#               naming the GPU's compute capability, and encodes with x264's
#               own search (the same pictures as without --gpu-me, exit 0);
#               --gpu-me-backend cuda fails with that message as an error
set -u
X264_TREE=device/x264
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"
OUT="${OUT:-$B/device-out}"
mkdir -p "$OUT"
export CUDA_ME_TEST_DATA="$D"
export CUDA_ME_COMMIT="${CUDA_ME_COMMIT:-$(git -C "$TOP" rev-parse --short HEAD 2>/dev/null || echo unknown)}"
T="$B/tests/test_cuda_me_static"
what="${*:-data unit sanitize bench e2e}"
sec() { echo; echo "##### $* ($(date +%T))"; }
verdict() {   # STATUS WHAT
    if [ "$1" = 0 ]; then pass "$2"; else fail "$2: exit $1"; fi
}
cv2dec() { python3 "$TOP/tests/tools/decode_cv2.py" "$2" "$1" "${@:3}"; }   # OUT SRC FRAMES [W H X Y]

for w in $what; do case "$w" in
data)
    sec data
    decode_clips cv2dec "street_1080p.y4m VID_1920x1080_cabac_temporal_direct.264 8"
    verdict $? "test clips decoded in $D"
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$OUT/gpu.txt"
    ;;
unit)
    # the five parts side by side (alone, the GPU cases take about 130 s
    # (gpu), 100 s (big: the 1080p frames), 150 s (pass2) and 10 s (subpel)
    # on an H100: in sequence they take 6.5 minutes); one log each
    sec "unit tests, GPU required: cuda_me, gpu/gpu, gpu/big, gpu/pass2, gpu/subpel at once"
    upids=()
    for part in cuda_me gpu/gpu gpu/big gpu/pass2 gpu/subpel; do
        ( if [ "$part" = cuda_me ]; then export CK_RUN_SUITE=cuda_me; else
              export CK_RUN_SUITE="${part%/*}" CK_RUN_CASE="${part#*/}"; fi
          t0=$(date +%s)
          CUDA_ME_REQUIRE_GPU=1 timeout "${UNIT_TIMEOUT:-900}" "$T" > "$OUT/unit-${part//\//-}.log" 2>&1
          rc=$?
          echo "$rc $(( $(date +%s) - t0 ))" > "$OUT/unit-${part//\//-}.rc" ) &
        upids+=($!)
    done
    wait "${upids[@]}"
    for part in cuda_me gpu/gpu gpu/big gpu/pass2 gpu/subpel; do
        f="$OUT/unit-${part//\//-}"
        read -r rc secs < "$f.rc"
        grep -E "^[0-9]+%: Checks|:[FE]:" "$f.log" | head -12
        verdict "$rc" "unit tests $part, CUDA_ME_REQUIRE_GPU=1 (${secs} s)"
    done
    ;;
sanitize)
    for tool in ${SANITIZE_TOOLS:-memcheck racecheck synccheck}; do
        sec "compute-sanitizer $tool"
        level=1; [ "$tool" = memcheck ] || level=2
        CK_FORK=no CK_RUN_SUITE=gpu CUDA_ME_SANITIZE=$level CUDA_ME_REQUIRE_GPU=1 \
            timeout "${SANITIZE_TIMEOUT:-320}" compute-sanitizer --tool "$tool" --error-exitcode 9 "$T" > "$OUT/sanitize-$tool.log" 2>&1
        rc=$?
        tail -4 "$OUT/sanitize-$tool.log"
        verdict $rc "compute-sanitizer $tool"
    done
    ;;
bench)
    sec "kernel benchmark"
    "$B/bench/bench_me" -o "$OUT/kernel_bench.csv" 2>&1 | tee "$OUT/kernel_bench.txt" | tail -60
    verdict "${PIPESTATUS[0]}" "kernel benchmark"
    ;;
e2e)
    sec "end-to-end: CUDA backend == C backend (decodes deferred)"
    X264="$X264" X264_EXP="$B/device/x264-exp/x264" E2E_DECODE=defer GPU=1 E2E_DIR="$B/e2e-gpu" "$TOP/tests/e2e.sh" 2>&1 | tee "$OUT/e2e-gpu.log"
    verdict "${PIPESTATUS[0]}" "end-to-end encodes, CUDA == C"
    (cd "$B/e2e-gpu" && tar czf "$OUT/e2e-gpu.tgz" ./*.264 ./*.rec.md5 ./*.log)
    ;;
gpu)
    sec "GPU checks side by side: unit, memcheck (case gpu), e2e"
    UNIT_TIMEOUT="${UNIT_TIMEOUT:-280}" "$0" unit > "$OUT/unit.log" 2>&1 &
    p_unit=$!
    CK_FORK=no CK_RUN_SUITE=gpu CK_RUN_CASE=gpu CUDA_ME_SANITIZE=1 CUDA_ME_REQUIRE_GPU=1 \
        timeout "${MEMCHECK_TIMEOUT:-280}" compute-sanitizer --tool memcheck --error-exitcode 9 "$T" \
        > "$OUT/memcheck.log" 2>&1 &
    p_mem=$!
    timeout "${E2E_TIMEOUT:-290}" "$0" e2e > "$OUT/e2e.log" 2>&1
    r_e2e=$?
    wait "$p_unit"; r_unit=$?
    wait "$p_mem"; r_mem=$?
    grep -E "Checks|  (ok|FAIL)  unit" "$OUT/unit.log" | tail -8
    tail -2 "$OUT/memcheck.log"
    grep -E "^e2e: |  (ok|FAIL)  end-to-end" "$OUT/e2e.log" | tail -2
    verdict "$r_unit" "unit tests (unit.log)"
    verdict "$r_mem" "compute-sanitizer memcheck over the GPU case gpu (memcheck.log)"
    verdict "$r_e2e" "e2e, CUDA == C (e2e.log; 124: past E2E_TIMEOUT)"
    ;;
sanitize-encode)
    for tool in memcheck racecheck synccheck; do
        sec "compute-sanitizer $tool over a --gpu-me encode"
        # the warm-up cut to one frame (the developer build) and a short
        # lookahead with two slices: the lookahead's searches run on the GPU
        # too (queued ahead)
        X264_GPU_ME_WARMUP=1 timeout 300 compute-sanitizer --tool "$tool" --error-exitcode 9 "$B/device/x264-exp/x264" --no-progress \
            --gpu-me --gpu-me-backend cuda --gpu-me-range 16 --gpu-me-stats --threads 4 --bframes 3 --ref 3 \
            --rc-lookahead 10 --lookahead-threads 2 --frames 30 -o "$OUT/san-$tool.264" \
            "$D/foreman_cif.y4m" > "$OUT/sanitize-encode-$tool.log" 2>&1
        rc=$?
        grep -E "ERROR SUMMARY|encoded|backend=|lookahead_gpu_pairs=" "$OUT/sanitize-encode-$tool.log" | tail -4
        if [ "$rc" = 0 ] && [ "$(kv "$OUT/sanitize-encode-$tool.log" backend)" = cuda ] &&
           [ "$(kvn "$OUT/sanitize-encode-$tool.log" lookahead_gpu_pairs)" -gt 0 ] &&
           grep -Eq "(ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards displayed \(0 errors)" "$OUT/sanitize-encode-$tool.log"; then
            pass "compute-sanitizer $tool over a --gpu-me encode: 0 errors"
        else
            fail "compute-sanitizer $tool over a --gpu-me encode: exit $rc"
        fi
    done
    ;;
ffmpeg)
    sec "FFmpeg with the patched libx264, CUDA backend"
    FF="$B/device/ffmpeg/ffmpeg"
    "$FF" -nostdin -y -i "$D/foreman_cif.y4m" -c:v libx264 \
        -x264-params gpu-me=1:gpu-me-backend=cuda:gpu-me-range=16:gpu-me-stats=1 "$OUT/ffmpeg-gpu.mp4" > "$OUT/ffmpeg-gpu.log" 2>&1
    rc=$?
    grep "gpu-me-stats: device=" "$OUT/ffmpeg-gpu.log"
    if [ "$rc" = 0 ] && [ "$(kv "$OUT/ffmpeg-gpu.log" backend)" = cuda ]; then
        pass "ffmpeg -x264-params gpu-me=1 on the CUDA backend"
    else
        fail "ffmpeg -x264-params gpu-me=1 on the CUDA backend: exit $rc"; tail -5 "$OUT/ffmpeg-gpu.log"
    fi
    ;;
reliability)
    sec "reliability on the GPU (decodes deferred)"
    X264="$X264" "$TOP/results/reliability_gpu.sh" "$OUT/reliability"
    verdict $? "results/reliability_gpu.sh"
    ;;
oldarch)
    sec "a GPU without kernels for its architecture: build/device/x264-oldarch"
    OLD="$B/device/x264-oldarch/x264"
    W="$OUT/oldarch"; rm -rf "$W"; mkdir -p "$W"
    cc="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' ')"
    if [ -n "$cc" ]; then
        re="gpu-me: GPU .* has compute capability $cc; this build has kernels for sm_1"
    else
        re="gpu-me: no NVIDIA driver found"; echo "  (no GPU here: a dry run, the warning is the no-driver one)"
    fi
    if [ ! -x "$OLD" ]; then
        fail "no $OLD (./build.sh device)"
    elif [ -n "$cc" ] && [ "${cc%%.*}" -ge 10 ]; then
        echo "  skip  this GPU (compute capability $cc) can run sm_100 kernels"
    else
        # one frame thread: no thread MV limit, so x264's own search gives
        # exactly the pictures of an encode without --gpu-me (the streams
        # differ in the options SEI only)
        args="--threads 1 --bframes 3 --ref 3 --frames 12"
        # shellcheck disable=SC2086
        enc "$OLD" plain foreman_cif.y4m $args
        # shellcheck disable=SC2086
        enc "$OLD" gpu foreman_cif.y4m $args --gpu-me --gpu-me-range 16 --gpu-me-stats
        n=$(grep -c 'x264 \[warning\]: gpu-me' "$W/gpu.log")
        row "oldarch: --gpu-me, 1 thread" "exit 0; exactly one gpu-me warning /$re/" \
            "exit $rc; $n gpu-me warning(s): $(grep -m1 'x264 \[warning\]' "$W/gpu.log")" \
            "$([ "$rc" = 0 ] && [ "$n" = 1 ] && grep -q "warning.*$re" "$W/gpu.log" && echo 1 || echo 0)"
        row "oldarch: pictures after the fallback" "the reconstruction of an encode without --gpu-me" \
            "$(cmp -s "$W/plain.rec.yuv" "$W/gpu.rec.yuv" && echo identical || echo DIFFERENT) ($(x264_log_stats "$W/gpu.log" frames) frames)" \
            "$(cmp -s "$W/plain.rec.yuv" "$W/gpu.rec.yuv" && [ -s "$W/gpu.rec.yuv" ] && echo 1 || echo 0)"
        enc "$OLD" gpu4 foreman_cif.y4m --threads 4 --frames 12 --gpu-me --gpu-me-range 16
        # no FFmpeg on the GPU host: the md5 of the reconstruction stays
        # in $OUT/oldarch for tests/verify_deferred.sh
        E2E_DECODE=$(command -v ffmpeg >/dev/null && echo ffmpeg || echo defer) \
            encodes "oldarch: --gpu-me, 4 threads" gpu4 "" "$re"
        enc "$OLD" cuda foreman_cif.y4m --threads 4 --frames 12 --gpu-me --gpu-me-range 16 --gpu-me-backend cuda
        row "oldarch: --gpu-me-backend cuda" "a failure (x264 exits 255) with /$re/" "exit $rc: $(grep -m1 'gpu-me' "$W/cuda.log")" \
            "$([ "$rc" != 0 ] && grep -q "error.*$re" "$W/cuda.log" && echo 1 || echo 0)"
        rm -f "$W"/*.yuv
    fi
    ;;
opencl)
    # x264's own OpenCL lookahead (--opencl; x264 dlopens
    # libOpenCL.so at run time): can this machine run it, and with which
    # environment?  Information for the table2 runs, not a test.  The
    # loader: ldconfig's libOpenCL.so.1, else $OCL_LOADER (a copy carried
    # from the build machine: Debian's ocl-icd-libopencl1); the driver: the
    # ICD files in /etc/OpenCL/vendors, else one written here that names
    # the libnvidia-opencl.so.1 the container has.  The environment that
    # worked is printed as "opencl env: VAR=VALUE ..." and written to
    # $OUT/opencl/env (empty when none did).
    sec "x264's OpenCL lookahead (--opencl): usable here?"
    W="$OUT/opencl"; mkdir -p "$W/lib" "$W/vendors"
    # shellcheck disable=SC2012  # a listing for the reader
    { ls -l /etc/OpenCL/vendors/ 2>&1; ldconfig -p 2>/dev/null | grep -i opencl
      find / -xdev \( -name 'libnvidia-opencl*' -o -name 'libOpenCL*' -o -name '*.icd' \) 2>/dev/null | grep -v '^/proc' | head -20
    } | sed 's/^/  /'
    so1="$(ldconfig -p 2>/dev/null | sed -n 's/.*libOpenCL\.so\.1 .*=> //p' | head -1)"
    [ -z "$so1" ] && [ -s "${OCL_LOADER:-}" ] && so1="$OCL_LOADER"
    [ -n "$so1" ] && ln -sf "$so1" "$W/lib/libOpenCL.so"
    nv="$(ldconfig -p 2>/dev/null | sed -n 's/.*libnvidia-opencl\.so\.1 .*=> //p' | head -1)"
    [ -z "$nv" ] && nv="$(find / -xdev -name 'libnvidia-opencl.so.1' 2>/dev/null | head -1)"
    [ -n "$nv" ] && echo "$nv" > "$W/vendors/nvidia.icd"
    : > "$W/env"
    for lp in "" /usr/local/cuda/lib64 ${so1:+"$W/lib"}; do
        for icd in "" ${nv:+"$W/vendors"}; do
            e="${lp:+LD_LIBRARY_PATH=$lp}${icd:+ OCL_ICD_VENDORS=$icd}"
            n="ocl_$(basename "${lp:-none}")_$(basename "${icd:-sys}")"
            ENC_DUMP=0 ENC_ENV="$e" enc "$X264" "$n" foreman_cif.y4m --frames 30 --preset slower \
                --opencl --opencl-clbin "$W/$n.clbin"
            echo "  ${e:-(environment as is)}: exit $rc; $(grep -i -m2 'opencl' "$W/$n.log" | tr '\n' ' ')"
            if [ "$rc" = 0 ] && [ ! -s "$W/env" ] && grep -q 'OpenCL acceleration enabled' "$W/$n.log"; then
                echo "${e:-none}" > "$W/env"
            fi
        done
    done
    echo "opencl env: $(cat "$W/env")"
    ;;
*) echo "unknown section $w"; exit 2 ;;
esac; done
summary device
