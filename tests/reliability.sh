#!/bin/bash
# tests/reliability.sh: bad input, absurd options and injected faults
# through the patched x264 (C backend here; tests/device.sh and
# results/reliability_gpu.sh do the CUDA backend on a GPU host).
#
# Each case: a clear message, a non-zero exit where x264 refuses, exit 0
# and a stream FFmpeg decodes exactly to x264's reconstruction otherwise;
# never a crash (exit >= 128) or a hang (timeout).  Writes the table
# (case, expected, observed) to $REL_TABLE (default build/reliability.csv).

set -u
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"
W="$B/reliability"
ENC_TIMEOUT="${ENC_TIMEOUT:-300}"
TABLE="${REL_TABLE:-$B/reliability.csv}"
rm -rf "$W" && mkdir -p "$W"
table_init

msg() { grep -E "error|warning" "$W/$1.log" | grep -v "^x264 \[info\]" | head -2 | tr '\n' ' ' | sed 's/  */ /g'; }

refuses() {   # CASE NAME: non-zero exit, not a crash or hang, with a message
    local ok=0
    # x264 exits 255 (-1) on errors; 124 is a timeout, 128+N a signal
    [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && { [ "$rc" -lt 128 ] || [ "$rc" = 255 ]; } &&
        grep -qE "error|unrecognized option" "$W/$2.log" && ok=1
    row "$1" "clear error; exit != 0" "exit $rc: $(msg "$2")" $ok
}

C="--gpu-me --gpu-me-backend c"
Q="$D/bus_qcif.y4m"
F="$D/foreman_cif.y4m"

echo "--- bad input"
printf 'YUV4MPEG2 Wabc H48 F25:1 Ip C420jpeg\nFRAME\n' > "$W/hdr1.y4m"
enc "$X264" hdr1 "$W/hdr1.y4m" $C; refuses "malformed y4m header (W not a number)" hdr1
printf 'YUV4MPEG3 W64 H48\n' > "$W/hdr2.y4m"
enc "$X264" hdr2 "$W/hdr2.y4m" $C; refuses "malformed y4m header (bad magic)" hdr2
: > "$W/empty.y4m"
enc "$X264" empty "$W/empty.y4m" $C; refuses "empty file" empty
head -c $(( $(head -1 "$Q" | wc -c) + 3*(6 + 176*144*3/2) + 5000 )) "$Q" > "$W/trunc.y4m"
enc "$X264" trunc "$W/trunc.y4m" $C; encodes "truncated last frame (3 whole frames + 5000 bytes)" trunc
n=$(x264_log_stats "$W/trunc.log" frames)
row "truncated last frame: frames encoded" "3 (the partial frame dropped)" "$n" "$(truth [ "$n" = 3 ])"

mk() {   # NAME SIZE PIXFMT [extra]: a few frames of real footage scaled or cropped
    local name="$1" size="$2" pf="$3"; shift 3
    ffmpeg -nostdin -loglevel error -y -i "$F" -frames:v "${FRAMES:-3}" -vf "scale=$size:flags=bicubic" "$@" \
        -pix_fmt "$pf" -strict -1 "$W/$name.y4m" 2>"$W/$name.ffmpeg.log"
}
mk s1918 1918x1078 yuv420p; enc "$X264" s1918 "$W/s1918.y4m" $C --gpu-me-range 8; encodes "1918x1078 (not a multiple of 16)" s1918
mk s33 33x17 yuv444p; enc "$X264" s33 "$W/s33.y4m" $C; refuses "33x17 4:4:4 input to 4:2:0 (odd size)" s33
mk s34 34x18 yuv420p; enc "$X264" s34 "$W/s34.y4m" $C; encodes "34x18 (tiny, not a multiple of 16)" s34
mk s16 16x16 yuv420p; enc "$X264" s16 "$W/s16.y4m" $C; encodes "16x16 (one macroblock)" s16
mk s2 2x2 yuv420p; enc "$X264" s2 "$W/s2.y4m" $C; encodes "2x2 (below one macroblock: x264 pads it)" s2
FRAMES=2 mk s8k 7680x4320 yuv420p; enc "$X264" s8k "$W/s8k.y4m" $C --gpu-me-range 4 --threads 2; encodes "8K 7680x4320, C backend" s8k
rm -f "$W"/s8k.*
mk s422 352x288 yuv422p; enc "$X264" s422 "$W/s422.y4m" $C --output-csp i422; encodes "4:2:2 input, 4:2:2 output" s422 yuv422p
mk s444 352x288 yuv444p; enc "$X264" s444 "$W/s444.y4m" $C --output-csp i444; encodes "4:4:4 input, 4:4:4 output" s444 yuv444p
mk s444b 352x288 yuv444p; enc "$X264" s444b "$W/s444b.y4m" $C; encodes "4:4:4 input, 4:2:0 output" s444b
mk s10 352x288 yuv420p10le; enc "$X264" s10 "$W/s10.y4m" $C; encodes "10-bit input to the 8-bit build (x264 dithers down)" s10
enc "$X264" s10o "$W/s10.y4m" $C --output-depth 10; refuses "--output-depth 10 on the 8-bit build" s10o
mk sint 352x288 yuv420p -vf "scale=352:288,setfield=tff"
enc "$X264" sint "$W/sint.y4m" $C --interlaced; encodes "interlaced encoding: gpu-me refuses, x264 encodes" sint yuv420p "gpu-me does not support interlaced"

echo "--- absurd options"
enc "$X264" mr0 "$Q" $C --merange 0 --frames 5; encodes "--merange 0 (x264: 4)" mr0
enc "$X264" mrbig "$Q" $C --merange 100000 --frames 3; encodes "--merange 100000 (gpu-me: 128)" mrbig yuv420p "search range .* using 128"
enc "$X264" gr3 "$Q" $C --gpu-me-range 3 --frames 3; encodes "--gpu-me-range 3" gr3 yuv420p "search range 3 out of"
enc "$X264" dev99 "$Q" --gpu-me --gpu-me-range 8 --gpu-me-device 99 --frames 3; encodes "--gpu-me-device 99, auto backend" dev99 yuv420p "warning.*gpu-me"
enc "$X264" dev99c "$Q" --gpu-me --gpu-me-backend cuda --gpu-me-device 99 --frames 3; refuses "--gpu-me-device 99, --gpu-me-backend cuda" dev99c
enc "$X264" badbe "$Q" --gpu-me --gpu-me-backend opencl --frames 3; refuses "--gpu-me-backend opencl (unknown)" badbe
enc "$X264" badmode "$Q" --gpu-me --gpu-me-mode fast --frames 3; refuses "--gpu-me-mode (not an option)" badmode
enc "$X264" badmvrt "$Q" --mvrange-thread fast --frames 3 --threads 4; refuses "--mvrange-thread fast (not a number nor auto)" badmvrt

echo "--- faults injected into the C backend during an encode"
for spec in launch:1 launch:12 copy:7 alloc:9; do
    # shellcheck disable=SC2086
    fault_case "$spec" "C backend, 3 threads" "gpu-me: .* failed" 30 "$F" $C --threads 3 --bframes 3
done
# the lookahead's search in cuda_me: one thread, so the 5th launch is
# deterministically the lookahead's (its first queue of searches after a
# one-frame warm-up, the developer build's X264_GPU_ME_WARMUP=1); x264 then
# searches on its own
XE="${X264_EXP:-$B/${X264_TREE:-x264}-exp/x264}"
# shellcheck disable=SC2086
X264="$XE" X264_GPU_ME_WARMUP=1 fault_case launch:5 "C backend, the lookahead's search" "gpu-me: the lookahead's search failed" 30 \
    "$F" $C --threads 1 --rc-lookahead 10
CUDA_ME_FAULT=alloc:1 enc "$X264" fstart "$Q" $C --frames 3; refuses "CUDA_ME_FAULT=alloc:1 (at open) with --gpu-me-backend c" fstart

echo "--- conformance sweep: every clip, presets ultrafast..veryslow, --gpu-me (C backend), 12 frames"
for clip in foreman_cif bus_qcif mobile_cif carphone_qcif foreman_346x282; do
    for preset in ultrafast superfast veryfast faster fast medium slow slower veryslow; do
        n="sweep_${clip}_$preset"
        enc "$X264" "$n" "$clip.y4m" $C --preset "$preset" --frames 12 --threads 2
        encodes "$clip --preset $preset" "$n"
        rm -f "$W/$n.rec.yuv" "$W/$n.dec.yuv"
    done
done

if command -v valgrind >/dev/null 2>&1 && [ "${VALGRIND:-1}" = 1 ]; then
    echo "--- valgrind (C backend, x264 without asm: valgrind lacks AVX-512)"
    timeout 900 valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
        "$X264" --no-progress $C --no-asm --threads 2 --bframes 2 --ref 2 --frames 4 --gpu-me-range 8 \
        -o "$W/vg.264" "$Q" > "$W/vg.log" 2>&1
    rc=$?
    row "valgrind memcheck, C backend encode (4 frames, 2 threads)" "no errors, no definite leaks" \
        "exit $rc$(grep -c '==[0-9]*==' "$W/vg.log" | sed 's/^/, valgrind lines: /')" "$(truth [ "$rc" = 0 ])"
fi

summary reliability "table: $TABLE"
