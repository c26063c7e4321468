#!/bin/bash
# call 4 (session 27, 1d8e429 + search_kernel_p: persistent blocks with two
# buffers, the next item's window copied by cp.async from the 4-byte plane
# while this one is searched; variants 18 pers-s80-K6/4 (as v15, the +-32
# default) and 19 pers-s144-K8/3 (as v16, +-48/64)): issue 13's bench, 3
# runs interleaved against the defaults; then the GPU unit tests that
# check every variant == C (gpu/gpu), the cuda_me suite and
# compute-sanitizer memcheck over the case gpu, side by side.
set -u
tar xJf build/carry27/c4.tar.xz
export CUDA_ME_COMMIT=$(head -1 build/carry27/commit)
date +%T > "$OUT/times.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
tests/device.sh data > "$OUT/device.log" 2>&1
B=build/bench/bench_me
for rep in 1 2 3; do
  for sr in 1080p:32:15 1080p:32:18 1080p:48:16 1080p:48:19 1080p:64:16 1080p:64:19 720p:32:15 720p:32:18 2160p:32:15 2160p:32:18; do
    IFS=: read -r s r v <<< "$sr"
    timeout 60 $B -s $s -r $r -v $v 2>&1 | awk -v rep=$rep '$4 == "total" || $4 == "2" {print rep, $0}'
  done
done > "$OUT/bench.txt" 2>&1
date +%T >> "$OUT/times.txt"
grep total "$OUT/bench.txt"
T=build/tests/test_cuda_me_static
( CK_RUN_SUITE=gpu CK_RUN_CASE=gpu CUDA_ME_REQUIRE_GPU=1 timeout 330 $T > "$OUT/unit-gpu-gpu.log" 2>&1; echo "rc $?" >> "$OUT/unit-gpu-gpu.log" ) &
( CK_RUN_SUITE=cuda_me CUDA_ME_REQUIRE_GPU=1 timeout 330 $T > "$OUT/unit-cuda_me.log" 2>&1; echo "rc $?" >> "$OUT/unit-cuda_me.log" ) &
CK_FORK=no CK_RUN_SUITE=gpu CK_RUN_CASE=gpu CUDA_ME_SANITIZE=1 CUDA_ME_REQUIRE_GPU=1 \
  timeout 330 compute-sanitizer --tool memcheck --error-exitcode 9 $T > "$OUT/memcheck.log" 2>&1
echo "rc $?" >> "$OUT/memcheck.log"
wait
date +%T >> "$OUT/times.txt"
for f in unit-gpu-gpu unit-cuda_me memcheck; do echo "== $f"; grep -E "Checks|ERROR SUMMARY|:[FE]:|^rc" "$OUT/$f.log" | head -8; done
cd "$OUT" && tar czf /tmp/all.tgz . && rm -rf ./* && mv /tmp/all.tgz .
