#!/bin/bash
# call 4 (session 16): compute-sanitizer memcheck, racecheck, synccheck over
# a --gpu-me encode with the lookahead's search on the GPU (the default;
# warm-up of one frame so that most pairs are queued and searched there)
set -u
tar xJf build/carry16/c3.tar.xz
tests/device.sh data > "$OUT/device.log" 2>&1
X264_GPU_ME_WARMUP=1 timeout 290 tests/device.sh sanitize-encode > "$OUT/sanitize.log" 2>&1
tail -12 "$OUT/sanitize.log"
grep -h "lookahead:" "$OUT"/sanitize-encode-*.log
