#!/bin/bash
# Session 34, call 3: how much of a launch is steady work.  Nsight Compute
# on the 5th search_kernel launch of bench_me (as tests/ncu_kernel.sh) at
# 1080p: the kernel's own duration against bench_me's total, and the SMs'
# active cycles (average, least, most) against the elapsed cycles: the
# ramp and the tail, where SMs hold fewer blocks than they can.
# Carry: build/carry33/c2.tar.xz (as c02.sh).
set -u
tar xJf build/carry33/c2.tar.xz -C build
B=build/bench/bench_me
M=gpu__time_duration.sum,sm__cycles_elapsed.max,sm__cycles_active.avg,sm__cycles_active.min,sm__cycles_active.max
M=$M,smsp__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,smsp__pipe_alu_cycles_active.avg.pct_of_peak_sustained_elapsed
M=$M,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active
M=$M,launch__grid_size,launch__block_size,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,launch__registers_per_thread
for rv in 32:15 32:19 16:14 64:16 24:15; do
  IFS=: read -r r v <<< "$rv"
  $B -q -s 1080p -r $r -v $v | awk '$4 == "total"' >> "$OUT/bench.txt"
  timeout 90 ncu --clock-control none -k regex:search_kernel --launch-skip 4 --launch-count 1 --csv --metrics $M \
    $B -q -s 1080p -r $r -v $v > "$OUT/ncu_r${r}_v$v.csv" 2>&1
  echo "r$r v$v rc $?"
done
cat "$OUT/bench.txt"
for f in "$OUT"/ncu_*.csv; do echo "== $f"; grep -E '"(gpu__|sm__|smsp__|launch__)' "$f" | awk -F'","' '{print $(NF-2), $(NF-1), $NF}'; done
