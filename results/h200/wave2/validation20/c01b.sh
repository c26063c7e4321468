#!/bin/bash
# call 1b (session 20, the machine still warm after call 1, same binaries
# d31dfff): the GPU unit case pass2 with time enough (call 1 gave it 60 s),
# the geometry rule at 2160p against dcac9f6 (bench_me without -q: -q skips
# 2160p), v12 at 2160p and 720p.  Run as one command line.
set -u; tar xJf build/carry20/c1.tar.xz; xz -dkf build/carry20/bench_old.xz; export CUDA_ME_COMMIT=$(cat build/carry20/commit); tests/device.sh data > $OUT/device.log 2>&1; (CUDA_ME_REQUIRE_GPU=1 CK_RUN_SUITE=gpu CK_RUN_CASE=pass2 timeout 250 build/tests/test_cuda_me_static > $OUT/unit_pass2.log 2>&1; echo "pass2 rc=$?" >> $OUT/unit_pass2.log); tail -2 $OUT/unit_pass2.log; for rep in 1 2; do for r in 16 32 64; do v=4; [ $r = 16 ] && v=7; [ $r = 32 ] && v=6; build/carry20/bench_old -s 2160p -r $r -v $v 2>&1 | awk -v a="old $r" '$4=="total"{print a,"|",$0}'; build/bench/bench_me -s 2160p -r $r -v $v 2>&1 | awk -v a="new $r" '$4=="total"{print a,"|",$0}'; [ $r = 16 ] && build/bench/bench_me -s 2160p -r 16 -v 12 2>&1 | awk -v a="new $r" '$4=="total"{print a,"|",$0}'; done; build/bench/bench_me -q -s 720p -r 16 -v 12 2>&1 | awk '$4=="total"'; done | tee $OUT/sizes2.txt
