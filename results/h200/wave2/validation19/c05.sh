#!/bin/bash
# call 5 (session 19): issue 13.
# 1. the run loop's instruction mix against warps per scheduler and chains
#    per thread (tests/tools/pipe_rate.cu)
# 2. geometry rules: each (range, default variant, threads, runs) that the
#    current rule or a candidate rule picks (build/carry19/geom_cands.txt),
#    3 repeats interleaved, bench_me -g
# 3. GPU unit tests (every variant == C) on the build with the fused
#    reduction (macroblocks of one block store their results)
set -u
tar xJf build/carry19/c05.tar.xz
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
tests/device.sh data > "$OUT/device.log" 2>&1
(UNIT_TIMEOUT=280 tests/device.sh unit > "$OUT/unit.log" 2>&1; cp build/device-out/unit-*.log "$OUT/" 2>/dev/null) &
upid=$!
build/carry19/pipe_rate > "$OUT/pipe_rate.txt" 2>&1
for rep in 1 2 3; do
  while read -r r v nt u; do
    ms=$(build/bench/bench_me -q -s 1080p -r "$r" -v "$v" -g "$nt,$u" 2>/dev/null | awk '$4 == "total" {print $5; exit}')
    echo "$rep $r $v $nt $u ${ms:-fail}"
  done < build/carry19/geom_cands.txt
done > "$OUT/geom_cands.txt"
wait $upid
grep -E "Checks|verdict|PASS|FAIL|unit tests" "$OUT/unit.log" | tail -12
cat "$OUT/pipe_rate.txt" | tail -18
