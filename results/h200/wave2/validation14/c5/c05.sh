#!/bin/bash
# call 5: kernel-rem1 (one-row last groups searched as one position) against main, then every variant == C
set -u
C=build/carry05
xz -d -k $C/bench_old.xz $C/bench_new.xz $C/test_cuda_me_static.xz; chmod +x $C/bench_old $C/bench_new $C/test_cuda_me_static
for rep in 1 2; do for r in 16 32 64; do v=4; [ $r = 16 ] && v=7; [ $r = 32 ] && v=6
  for b in old new; do echo "== rep $rep r $r v $v $b"; $C/bench_$b -s 1080p -r $r -v $v 2>&1; done; done; done > "$OUT/bench.txt" 2>&1
grep -E "^==|^v[0-9]+:" "$OUT/bench.txt" | paste - - | awk '{print $3, $4, $5, $6, $7, $8, $11}' 
tests/device.sh data > "$OUT/data.log" 2>&1
CUDA_ME_REQUIRE_GPU=1 CK_RUN_SUITE=gpu CK_RUN_CASE=gpu timeout 170 $C/test_cuda_me_static > "$OUT/unit_gpu.log" 2>&1; echo "unit rc $?"
grep -E "^[0-9]+%: Checks|:[FE]:" "$OUT/unit_gpu.log" | head
