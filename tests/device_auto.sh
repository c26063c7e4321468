#!/bin/bash
# tests/device_auto.sh: --gpu-me-device auto (the default) through the
# patched x264, on any machine (with or without a GPU).
#
#   - the help names <integer|auto>; "auto" and ordinals are accepted,
#     anything else ("bogus", negative numbers) is an invalid argument
#   - --gpu-me --gpu-me-range 16 --gpu-me-device auto --gpu-me-backend c
#     encodes; the C backend ignores the device, so auto, the default and
#     device 0 give the same bytes
#   - without the NVIDIA driver, --gpu-me-backend cuda with auto fails with
#     the message that says so (skipped where a driver is installed)
#
# Environment: X264 (binary), DEVICE_AUTO_DIR (outputs, kept for inspection).
# Needs python3 (makes the clip).

set -u
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"
W="${DEVICE_AUTO_DIR:-$B/device_auto}"
rm -rf "$W" && mkdir -p "$W"


# An 8-frame 176x144 clip of moving patterns, made here (no test data needed).
CLIP="$W/clip.y4m"
python3 - "$CLIP" <<'EOF'
import sys
w, h, n = 176, 144, 8
with open(sys.argv[1], 'wb') as f:
    f.write(b'YUV4MPEG2 W%d H%d F25:1 Ip A1:1 C420jpeg\n' % (w, h))
    for t in range(n):
        f.write(b'FRAME\n')
        f.write(bytes((((x*3 + y*2 + t*5) ^ (x*y >> 3)) & 255) for y in range(h) for x in range(w)))
        f.write(bytes(((x + y + t) & 255) for y in range(h//2) for x in range(w//2)) * 2)
EOF
[ -s "$CLIP" ] || { echo "device_auto: cannot make $CLIP"; echo "device_auto: 0 passed, 1 failed"; exit 1; }

# enc NAME ARGS...: encodes the clip to NAME.264, log in NAME.log
enc() {
    local name="$1"; shift
    "$X264" --no-progress --threads 2 "$@" -o "$W/$name.264" "$CLIP" > "$W/$name.log" 2>&1
}

# rejected VALUE: --gpu-me-device VALUE is an invalid argument
rejected() {
    if enc "bad$1" --gpu-me-device "$1"; then
        fail "--gpu-me-device $1 accepted"
    elif grep -q "invalid argument: gpu-me-device = $1" "$W/bad$1.log"; then
        pass "--gpu-me-device $1 rejected: $(grep -m1 'invalid argument' "$W/bad$1.log")"
    else
        fail "--gpu-me-device $1 failed without the invalid-argument error:"; tail -3 "$W/bad$1.log"
    fi
}

if "$X264" --fullhelp 2>&1 | grep -q -- '--gpu-me-device <integer|auto>'; then
    pass "--fullhelp: --gpu-me-device <integer|auto>"
else
    fail "--fullhelp does not show --gpu-me-device <integer|auto>"
fi

GPU_C="--gpu-me --gpu-me-range 16 --gpu-me-backend c"
# shellcheck disable=SC2086
if enc auto $GPU_C --gpu-me-device auto && [ -s "$W/auto.264" ] && grep -q 'gpu-me: C reference' "$W/auto.log"; then
    pass "--gpu-me-device auto accepted: $GPU_C encodes with the C backend"
else
    fail "$GPU_C --gpu-me-device auto does not encode with the C backend:"; tail -3 "$W/auto.log"
fi
# shellcheck disable=SC2086
if enc default $GPU_C && enc dev0 $GPU_C --gpu-me-device 0 &&
   cmp -s "$W/auto.264" "$W/default.264" && cmp -s "$W/auto.264" "$W/dev0.264"; then
    pass "C backend: --gpu-me-device auto, the default and 0 give the same bytes"
else
    fail "C backend: --gpu-me-device auto, the default and 0 differ (or failed)"
fi

rejected bogus
rejected -3

if ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1'; then
    echo "  skip  --gpu-me-backend cuda --gpu-me-device auto without a driver: libcuda.so.1 is installed"
elif enc nodriver --gpu-me --gpu-me-range 16 --gpu-me-backend cuda --gpu-me-device auto; then
    fail "--gpu-me-backend cuda --gpu-me-device auto encoded without an NVIDIA driver"
elif grep -q 'no NVIDIA driver found' "$W/nodriver.log"; then
    pass "no driver: --gpu-me-backend cuda --gpu-me-device auto fails: $(grep -m1 'no NVIDIA driver' "$W/nodriver.log")"
else
    fail "no driver: --gpu-me-backend cuda --gpu-me-device auto failed without saying why:"; tail -3 "$W/nodriver.log"
fi

summary device_auto
