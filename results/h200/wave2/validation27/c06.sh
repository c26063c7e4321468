#!/bin/bash
# call 6 (session 27, the review's mend: cme_cuda_prepare() and
# cme_cuda_carveout() through one loop, host code only): the cuda_me unit
# suite (device open, kernels' limits), bench_me with and without -C, and
# the GPU e2e set (CUDA == C) under a 200 s limit, side by side with the suite.
set -u
tar xJf build/carry27/c6.tar.xz
export CUDA_ME_COMMIT=$(cat build/carry27/commit)
date +%T > "$OUT/times.txt"
tests/device.sh data > "$OUT/device.log" 2>&1
B=build/bench/bench_me
for c in -1 75; do timeout 60 $B -s 1080p -r 32 -C $c 2>&1 | awk -v c=$c '$4 == "total" {print "C=" c, $0}'; done > "$OUT/bench.txt"
cat "$OUT/bench.txt"
( CK_RUN_SUITE=cuda_me CUDA_ME_REQUIRE_GPU=1 timeout 200 build/tests/test_cuda_me_static > "$OUT/unit-cuda_me.log" 2>&1; echo "rc $?" >> "$OUT/unit-cuda_me.log" ) &
timeout 200 tests/device.sh e2e > "$OUT/e2e.log" 2>&1; echo "e2e rc=$?" >> "$OUT/e2e.log"
wait
date +%T >> "$OUT/times.txt"
grep -E "Checks|^rc" "$OUT/unit-cuda_me.log"; grep -E "^e2e|rc=" "$OUT/e2e.log" | tail -2
cd "$OUT" && tar czf /tmp/all.tgz . && rm -rf ./* && mv /tmp/all.tgz .
