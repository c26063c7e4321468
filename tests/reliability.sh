#!/bin/bash
# tests/reliability.sh: bad input, absurd options and injected faults
# through the patched x264 (C backend here; tests/device.sh and
# results/reliability_gpu.sh do the CUDA backend on the GPU machine).
#
# Each case: a clear message, a non-zero exit where x264 refuses, exit 0
# and a stream FFmpeg decodes exactly to x264's reconstruction otherwise;
# never a crash (exit >= 128) or a hang (timeout).  Writes the table
# (case, expected, observed) to $REL_TABLE (default build/reliability.csv).

set -u
TOP="$(cd "$(dirname "$0")/.." && pwd)"
B="$TOP/build"
X264="${X264:-$B/x264/x264}"
D="${CUDA_ME_TEST_DATA:-$B/data}"
W="$B/reliability"
TABLE="${REL_TABLE:-$B/reliability.csv}"
rm -rf "$W" && mkdir -p "$W"
echo "case,expected,observed,verdict" > "$TABLE"
npass=0
nfail=0

row() {   # case expected observed ok(0/1)
    local v=pass
    [ "$4" = 1 ] || v=FAIL
    [ "$v" = pass ] && npass=$((npass+1)) || nfail=$((nfail+1))
    printf '  %-5s %s: %s\n' "$v" "$1" "$3"
    printf '"%s","%s","%s",%s\n' "$1" "$2" "${3//\"/\'}" "$v" >> "$TABLE"
}

# x264 run: NAME INPUT ARGS... -> rc in $rc, log in $W/NAME.log
run() {
    local name="$1" in="$2"; shift 2
    timeout 300 "$X264" --no-progress "$@" --dump-yuv "$W/$name.rec" -o "$W/$name.264" "$in" > "$W/$name.log" 2>&1
    rc=$?
}

msg() { grep -E "error|warning" "$W/$1.log" | grep -v "^x264 \[info\]" | head -2 | tr '\n' ' ' | sed 's/  */ /g'; }

decodes() {   # NAME [pix_fmt]
    local pf="${2:-yuv420p}"
    ffmpeg -nostdin -loglevel error -y -i "$W/$1.264" -f rawvideo -pix_fmt "$pf" "$W/$1.dec" 2>/dev/null &&
        [ -s "$W/$1.dec" ] && cmp -s "$W/$1.rec" "$W/$1.dec"
}

refuses() {   # CASE NAME: non-zero exit, not a crash or hang, with a message
    local ok=0
    # x264 exits 255 (-1) on errors; 124 is a timeout, 128+N a signal
    [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && { [ "$rc" -lt 128 ] || [ "$rc" = 255 ]; } &&
        grep -qE "error" "$W/$2.log" && ok=1
    row "$1" "clear error; exit != 0" "exit $rc: $(msg "$2")" $ok
}

encodes() {   # CASE NAME [pix_fmt] [expected warning regex]
    local ok=0 note=""
    if [ "$rc" = 0 ] && decodes "$2" "${3:-yuv420p}"; then
        ok=1
        note="exit 0, decodes exactly"
    else
        note="exit $rc, decode $(decodes "$2" "${3:-yuv420p}" && echo ok || echo differs)"
    fi
    if [ -n "${4:-}" ]; then
        if grep -qE "$4" "$W/$2.log"; then note="$note; $(grep -hE "$4" "$W/$2.log" | head -1)"; else ok=0; note="$note; no warning /$4/"; fi
    fi
    row "$1" "exit 0; FFmpeg decode == reconstruction${4:+; warning}" "$note" $ok
}

C="--gpu-me --gpu-me-backend c"
Q="$D/bus_qcif.y4m"
F="$D/foreman_cif.y4m"

echo "--- bad input"
printf 'YUV4MPEG2 Wabc H48 F25:1 Ip C420jpeg\nFRAME\n' > "$W/hdr1.y4m"
run hdr1 "$W/hdr1.y4m" $C; refuses "malformed y4m header (W not a number)" hdr1
printf 'YUV4MPEG3 W64 H48\n' > "$W/hdr2.y4m"
run hdr2 "$W/hdr2.y4m" $C; refuses "malformed y4m header (bad magic)" hdr2
: > "$W/empty.y4m"
run empty "$W/empty.y4m" $C; refuses "empty file" empty
head -c $(( $(head -1 "$Q" | wc -c) + 3*(6 + 176*144*3/2) + 5000 )) "$Q" > "$W/trunc.y4m"
run trunc "$W/trunc.y4m" $C; encodes "truncated last frame (3 whole frames + 5000 bytes)" trunc
n=$(sed -n 's/^encoded \([0-9]*\) frames.*/\1/p' "$W/trunc.log")
row "truncated last frame: frames encoded" "3 (the partial frame dropped)" "$n" $([ "$n" = 3 ] && echo 1 || echo 0)

mk() {   # NAME SIZE PIXFMT [extra]: a few frames of real footage scaled or cropped
    local name="$1" size="$2" pf="$3"; shift 3
    ffmpeg -nostdin -loglevel error -y -i "$F" -frames:v "${FRAMES:-3}" -vf "scale=$size:flags=bicubic" "$@" \
        -pix_fmt "$pf" -strict -1 "$W/$name.y4m" 2>"$W/$name.ffmpeg.log"
}
mk s1918 1918x1078 yuv420p; run s1918 "$W/s1918.y4m" $C --gpu-me-range 8; encodes "1918x1078 (not a multiple of 16)" s1918
mk s33 33x17 yuv444p; run s33 "$W/s33.y4m" $C; refuses "33x17 4:4:4 input to 4:2:0 (odd size)" s33
mk s34 34x18 yuv420p; run s34 "$W/s34.y4m" $C; encodes "34x18 (tiny, not a multiple of 16)" s34
mk s16 16x16 yuv420p; run s16 "$W/s16.y4m" $C; encodes "16x16 (one macroblock)" s16
mk s2 2x2 yuv420p; run s2 "$W/s2.y4m" $C; encodes "2x2 (below one macroblock: x264 pads it)" s2
FRAMES=2 mk s8k 7680x4320 yuv420p; run s8k "$W/s8k.y4m" $C --gpu-me-range 4 --threads 2; encodes "8K 7680x4320, C backend" s8k
rm -f "$W"/s8k.*
mk s422 352x288 yuv422p; run s422 "$W/s422.y4m" $C --output-csp i422; encodes "4:2:2 input, 4:2:2 output" s422 yuv422p
mk s444 352x288 yuv444p; run s444 "$W/s444.y4m" $C --output-csp i444; encodes "4:4:4 input, 4:4:4 output" s444 yuv444p
mk s444b 352x288 yuv444p; run s444b "$W/s444b.y4m" $C; encodes "4:4:4 input, 4:2:0 output" s444b
mk s10 352x288 yuv420p10le; run s10 "$W/s10.y4m" $C; encodes "10-bit input to the 8-bit build (x264 dithers down)" s10
run s10o "$W/s10.y4m" $C --output-depth 10; refuses "--output-depth 10 on the 8-bit build" s10o
mk sint 352x288 yuv420p -vf "scale=352:288,setfield=tff"
run sint "$W/sint.y4m" $C --interlaced; encodes "interlaced encoding: gpu-me refuses, x264 encodes" sint yuv420p "gpu-me does not support interlaced"

echo "--- absurd options"
run mr0 "$Q" $C --merange 0 --frames 5; encodes "--merange 0 (x264: 4)" mr0
run mrbig "$Q" $C --merange 100000 --frames 3; encodes "--merange 100000 (gpu-me: 128)" mrbig yuv420p "search range .* using 128"
run gr3 "$Q" $C --gpu-me-range 3 --frames 3; encodes "--gpu-me-range 3" gr3 yuv420p "search range 3 out of"
run dev99 "$Q" --gpu-me --gpu-me-device 99 --frames 3; encodes "--gpu-me-device 99, auto backend" dev99 yuv420p "warning.*gpu-me"
run dev99c "$Q" --gpu-me --gpu-me-backend cuda --gpu-me-device 99 --frames 3; refuses "--gpu-me-device 99, --gpu-me-backend cuda" dev99c
run badbe "$Q" --gpu-me --gpu-me-backend opencl --frames 3; refuses "--gpu-me-backend opencl (unknown)" badbe
run badmode "$Q" --gpu-me --gpu-me-mode fast --frames 3; refuses "--gpu-me-mode fast (unknown)" badmode

echo "--- faults injected into the C backend during an encode"
for spec in launch:1 launch:12 copy:7 alloc:9; do
    n="fault_${spec/:/_}"
    CUDA_ME_FAULT=$spec run "$n" "$F" $C --threads 3 --bframes 3
    warns=$(grep -c "warning.*gpu-me" "$W/$n.log")
    encodes "CUDA_ME_FAULT=$spec, C backend, 3 threads" "$n" yuv420p "gpu-me: .* failed"
    row "CUDA_ME_FAULT=$spec: warnings" "exactly 1" "$warns" $([ "$warns" = 1 ] && echo 1 || echo 0)
done
CUDA_ME_FAULT=alloc:1 run fstart "$Q" $C --frames 3; refuses "CUDA_ME_FAULT=alloc:1 (at open) with --gpu-me-backend c" fstart

echo "--- conformance sweep: every clip, presets ultrafast..veryslow, --gpu-me (C backend), 12 frames"
for clip in foreman_cif bus_qcif mobile_cif carphone_qcif foreman_346x282; do
    for preset in ultrafast superfast veryfast faster fast medium slow slower veryslow; do
        n="sweep_${clip}_$preset"
        run "$n" "$D/$clip.y4m" $C --preset "$preset" --frames 12 --threads 2
        encodes "$clip --preset $preset" "$n"
        rm -f "$W/$n.rec" "$W/$n.dec"
    done
done

if command -v valgrind >/dev/null 2>&1 && [ "${VALGRIND:-1}" = 1 ]; then
    echo "--- valgrind (C backend, x264 without asm: valgrind lacks AVX-512)"
    timeout 900 valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
        "$X264" --no-progress $C --no-asm --threads 2 --bframes 2 --ref 2 --frames 4 --gpu-me-range 8 \
        -o "$W/vg.264" "$Q" > "$W/vg.log" 2>&1
    rc=$?
    row "valgrind memcheck, C backend encode (4 frames, 2 threads)" "no errors, no definite leaks" \
        "exit $rc$(grep -c '==[0-9]*==' "$W/vg.log" | sed 's/^/, valgrind lines: /')" $([ "$rc" = 0 ] && echo 1 || echo 0)
fi

echo "reliability: $npass passed, $nfail failed (table: $TABLE)"
[ "$nfail" = 0 ]
