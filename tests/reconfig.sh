#!/bin/bash
# tests/reconfig.sh: x264_encoder_reconfig() during --gpu-me encodes, through
# libx264's API (tests/reconfig_test.c), under valgrind: changes the module
# cannot follow (p4x4, b-pyramid) are refused, the others applied; no
# invalid read; FFmpeg decodes the stream to x264's reconstruction exactly.
set -u
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"
W="$B/reconfig"
rm -rf "$W" && mkdir -p "$W"
BIN="$B/tests/reconfig_test"
cc -O1 -g -std=gnu99 -Wall -Werror -I"$B/x264" -I"$B/x264-src" "$TOP/tests/reconfig_test.c" "$B/x264/libx264.a" \
    -L"$B/lib" -lcuda_me $(cat "$B/lib/cuda_me.libs") -lm -lpthread -ldl -o "$BIN" || { echo "reconfig: build failed"; exit 1; }
command -v valgrind >/dev/null || { echo "reconfig: valgrind missing"; exit 1; }

for threads in 1 3; do
    n="threads$threads"
    if ! valgrind -q --error-exitcode=9 "$BIN" "$D/bus_qcif.y4m" "$W/$n.264" "$W/$n.rec.yuv" "$threads" > "$W/$n.log" 2>&1 ||
       ! grep -q "cannot switch p4x4" "$W/$n.log" || ! grep -q "cannot change b-pyramid" "$W/$n.log"; then
        fail "reconfig, $threads thread(s):"; cat "$W/$n.log"
    elif decoded "$n"; then
        pass "reconfig mid-encode, $threads thread(s): $(grep '^frames' "$W/$n.log"), valgrind clean, $DECODE_NOTE"
    else
        fail "reconfig, $threads thread(s): $DECODE_NOTE"
    fi
done
summary reconfig
