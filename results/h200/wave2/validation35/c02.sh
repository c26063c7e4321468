#!/bin/bash
# Session 35, call 2 (prepared; for the session after c01.sh): Nsight
# Compute on the 5th search_kernel launch at 1080p +-32 (as validation33/
# c03.sh): v15 against v20 and v21, the kernel's duration against
# bench_me's total, SMs active, warps resident, the ALU pipe and issue.
# The model (tests/tools/warp_slots.c): at 1080p +-32 v20 issues 2.2% fewer
# warp-iterations than v15 and holds 6.2% fewer warp slots (v15's blocks
# keep a finished warp's slot until their longest warp ends: busy 95.8%,
# ncu's 14.4 of 15 warps resident in validation33/c3).
# Carry: build/carry35/c1.tar.xz (as c01.sh).
set -u
tar xJf build/carry35/c1.tar.xz -C build
B=build/bench/bench_me
M=gpu__time_duration.sum,sm__cycles_elapsed.max,sm__cycles_active.avg,sm__cycles_active.min,sm__cycles_active.max
M=$M,smsp__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,smsp__pipe_alu_cycles_active.avg.pct_of_peak_sustained_elapsed
M=$M,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active
M=$M,sm__inst_executed_pipe_alu.sum,sm__inst_executed.sum
M=$M,launch__grid_size,launch__block_size,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,launch__registers_per_thread
for rv in 32:15 32:20 32:21 24:15 24:20; do
  IFS=: read -r r v <<< "$rv"
  $B -q -s 1080p -r $r -v $v | awk '$4 == "total"' >> "$OUT/bench.txt"
  timeout 90 ncu --clock-control none -k regex:search_kernel --launch-skip 4 --launch-count 1 --csv --metrics $M \
    $B -q -s 1080p -r $r -v $v > "$OUT/ncu_r${r}_v$v.csv" 2>&1
  echo "r$r v$v rc $?"
done
cat "$OUT/bench.txt"
for f in "$OUT"/ncu_*.csv; do echo "== $f"; grep -E '"(gpu__|sm__|smsp__|launch__)' "$f" | awk -F'","' '{print $(NF-2), $(NF-1), $NF}'; done
