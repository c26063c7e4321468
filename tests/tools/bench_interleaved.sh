#!/bin/bash
# bench_interleaved.sh: bench_me runs of several configurations,
# interleaved, and their medians side by side (tests/tools/bench_runs.py;
# results/kernel_steps.md's comparisons).
#
#   tests/tools/bench_interleaved.sh BENCH DIR REPS CONFIG...
#
# CONFIG: size:range:variant[:more bench_me arguments], e.g. 1080p:32:15:
# or "1080p:32:20:-g 128,12".  REPS rounds, each running every CONFIG
# once (bench_me -q -s size -r range -v variant ...); DIR/bench.txt gets
# "ROUND vVARIANT[ARGS] <bench_me's total line>", DIR/raw.txt bench_me's
# whole output, DIR/bench.md tests/tools/bench_runs.py -V's table (the
# configurations' medians side by side, against the first), and
# DIR/machine.txt the time, GPU, driver, clock, CPU and commit.
set -u
[ $# -ge 4 ] || { sed -n '2,14p' "$0"; exit 1; }
B=$1 D=$2 N=$3
shift 3
mkdir -p "$D"
{ date +%T
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  lscpu | grep -m1 "Model name"
  git rev-parse --short HEAD 2>/dev/null; } > "$D/machine.txt" 2>&1
for rep in $(seq 1 "$N"); do
  for c in "$@"; do
    IFS=: read -r sz r v x <<< "$c"
    # shellcheck disable=SC2086  # x: more arguments, split on purpose
    timeout 60 "$B" -q -s "$sz" -r "$r" -v "$v" $x 2>&1 | tee -a "$D/raw.txt" |
      awk -v rep="$rep" -v b="v$v${x// /}" '$4 == "total" {print rep, b, $0}'
  done
done > "$D/bench.txt" 2>&1
python3 "$(dirname "$0")/bench_runs.py" -V "$D/bench.txt" > "$D/bench.md" 2>&1
