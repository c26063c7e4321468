#!/bin/bash
# call 3 (session 15): cu_lowres on the library's CME_CUDA/device_account helpers: CUDA == C again
set -u
tar xJf build/carry15/unit3.tar.xz
tests/device.sh data > "$OUT/device.log" 2>&1
CUDA_ME_REQUIRE_GPU=1 CK_RUN_SUITE=gpu CK_RUN_CASE=subpel timeout 150 build/tests/test_cuda_me_static > "$OUT/unit_subpel.log" 2>&1
echo "unit rc=$?" >> "$OUT/unit_subpel.log"
