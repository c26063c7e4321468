#!/bin/bash
# Session 39, call 5 (carry build/carry39/c5.tar.xz: the review mends'
# bench_me and its -DCME_TRACE=1 build): -b at 720p +-32 (v24), and -T
# through trace_blocks.py, to see both paths still work.
set -u
tar xJf build/carry39/c5.tar.xz -C build
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
build/bench/bench_me -q -b -s 720p -r 32 -v 24 | grep -E " total | 2 cands"
build/bench/bench_me -q -s 720p -r 32 -v 24 -T /tmp/x.bin; echo "stamps without CME_TRACE: rc $? (2 expected)"
build/bench/bench_me_trace -q -b -s 720p -r 32 -v 24 -T "$OUT/tr.bin" | grep -E "stamps| total "
python3 tests/tools/trace_blocks.py "$OUT/tr.bin"
