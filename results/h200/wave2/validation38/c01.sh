#!/bin/bash
# Session 38, call 1 (binaries of e42447e; carry build/carry38/c1.tar.xz:
# ./build.sh device, then tar cJf build/carry38/c1.tar.xz -C build
# device/x264/x264 tests/test_cuda_me_static bench/bench_me).
# 1. why stream-K lost (session 37's c02, never lent a machine): v28 at
#    720p +-32 in n blocks (-k: 132 SMs x 3..10, 3599, and 3600 = one
#    block a macroblock: the SK kernel with the classic schedule) against
#    v24; v30 at 720p +-16, v29 at 1080p +-48; 3 runs interleaved;
# 2. ncu per scheduler (SMSP) of v24 and v28 at 720p +-32: issue active
#    and warps resident, least / mean / most over the SMSPs, blocks and
#    warps launched; the occupancy limits;
# 3. tests/device.sh data unit (e42447e's mends: the scratch check).
set -u
t00=$(date +%s)
tar xJf build/carry38/c1.tar.xz -C build
B=build/bench/bench_me
L=$OUT/logs; mkdir -p "$L"
tests/tools/bench_interleaved.sh "$B" "$OUT" 3 720p:32:24: 720p:32:28: "720p:32:28:-k 3600" "720p:32:28:-k 3599" "720p:32:28:-k 660" \
    "720p:32:28:-k 528" "720p:32:28:-k 396" "720p:32:28:-k 792" "720p:32:28:-k 1320" \
    720p:16:14: 720p:16:30: "720p:16:30:-k 1056" "720p:16:30:-k 3600" 1080p:48:26: 1080p:48:29: "1080p:48:29:-k 396" "1080p:48:29:-k 8160" > /dev/null
echo "bench done $(( $(date +%s) - t00 )) s" >> "$OUT/times.txt"
grep -h "stream-K in\|geometry" "$OUT/raw.txt" | sort | uniq -c | head -30 >> "$OUT/times.txt"
M=smsp__issue_active.min.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,\
smsp__issue_active.max.pct_of_peak_sustained_active,smsp__warps_active.min.per_cycle_active,\
smsp__warps_active.avg.per_cycle_active,smsp__warps_active.max.per_cycle_active,\
smsp__warps_launched.min,smsp__warps_launched.max,smsp__warps_launched.sum,sm__ctas_launched.min,sm__ctas_launched.max,\
sm__ctas_launched.sum,launch__grid_size,launch__block_size,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,\
launch__occupancy_limit_warps,launch__occupancy_limit_blocks,launch__registers_per_thread,\
launch__shared_mem_per_block_dynamic,gpu__time_duration.sum,sm__cycles_active.avg,sm__cycles_active.min,sm__cycles_elapsed.max,\
sm__inst_executed.sum,smsp__inst_executed.min,smsp__inst_executed.max,smsp__cycles_active.min,smsp__cycles_active.avg
for c in "24:" "28:" "28:-k 3600" "28:-k 660"; do
  IFS=: read -r v x <<< "$c"
  t=v${v}${x// /}
  timeout 90 ncu --clock-control none --kernel-name regex:search_kernel --launch-skip 4 --launch-count 1 \
    --metrics "$M" --csv --page raw $B -q -s 720p -r 32 -v $v $x > "$L/ncu_$t.csv" 2> "$L/ncu_$t.err"
  echo "ncu $t rc $?" >> "$OUT/times.txt"
  python3 - "$L/ncu_$t.csv" "$t" >> "$OUT/ncu.txt" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 5]
h = rows[0]; v = rows[-1]
print("==", sys.argv[2])
for k, x in zip(h, v):
    if '__' in k: print("  %-60s %s" % (k, x))
PY
done
echo "ncu done $(( $(date +%s) - t00 )) s" >> "$OUT/times.txt"
OUT="$L" tests/device.sh data > "$L/data.log" 2>&1
UNIT_TIMEOUT=300 OUT="$L" timeout 330 tests/device.sh unit > "$L/unit_part.log" 2>&1
echo "device.sh unit rc $? $(( $(date +%s) - t00 )) s" >> "$OUT/times.txt"
grep -hE "Checks|  (ok|FAIL)  |ERROR SUMMARY|Failures" "$L/unit_part.log" "$L/unit.log" 2>/dev/null | head -30 >> "$OUT/times.txt"
tar czf "$OUT/logs.tgz" -C "$OUT" logs raw.txt && rm -rf "$L" "$OUT/raw.txt"
cat "$OUT/machine.txt" "$OUT/times.txt" "$OUT/ncu.txt"; cat "$OUT/bench.md"
