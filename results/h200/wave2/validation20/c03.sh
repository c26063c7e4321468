#!/bin/bash
# call 3 (session 20): 82528d7 (v6 the default up to +-8).  GPU unit cases
# gpu (every variant == C, the default at ranges 4..8 now v6) and pass2
# (pass 2 at range 8 for range 16) side by side; then bench_me's two
# candidates against one at +-16 (pass 2 at +-8), the defaults at +-8..64.
set -u
tar xJf build/carry20/c3.tar.xz
export CUDA_ME_COMMIT=$(cat build/carry20/commit)
tests/device.sh data > "$OUT/device.log" 2>&1
for c in gpu pass2; do
  (CUDA_ME_REQUIRE_GPU=1 CK_RUN_SUITE=gpu CK_RUN_CASE=$c timeout 220 build/tests/test_cuda_me_static > "$OUT/unit_$c.log" 2>&1
   echo "unit $c rc=$?" >> "$OUT/unit_$c.log") &
done
wait
grep -hE "Checks|rc=" "$OUT"/unit_*.log
for rep in 1 2; do
  for r in 8 16 32 64; do
    build/bench/bench_me -q -s 1080p -r $r -v $([ $r -le 8 ] && echo 6 || { [ $r -le 16 ] && echo 12 || { [ $r -le 32 ] && echo 6 || echo 4; }; }) 2>&1 |
      awk -v rep=$rep '$4 == "total" || $4 == "2" {print rep, $0}'
  done
done > "$OUT/bench.txt" 2>&1
cat "$OUT/bench.txt"
