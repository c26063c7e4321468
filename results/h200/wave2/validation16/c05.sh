#!/bin/bash
# call 5 (session 16): the sanitizers again, now over an encode whose
# lookahead searches reach the GPU (call 4's 16 frames were all the warm-up)
set -u
tar xJf build/carry16/c3.tar.xz
tests/device.sh data > "$OUT/device.log" 2>&1
timeout 200 tests/device.sh sanitize-encode > "$OUT/sanitize.log" 2>&1
tail -16 "$OUT/sanitize.log"
