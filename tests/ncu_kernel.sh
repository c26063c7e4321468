#!/bin/bash
# tests/ncu_kernel.sh: Nsight Compute pipe counts of the search kernel, per
# variant, on a GPU host (kernel work only).
#
#   tests/ncu_kernel.sh [BENCH] [RANGE] [VARIANTS...]
#     BENCH     the benchmark binary [build/bench/bench_me, as tests/device.sh]
#     RANGE     search range [32]
#     VARIANTS  kernel variants (bench_me -v) [every one]
#   OUT=dir     where the reports go [build/ncu]
#   TAG=name    appended to the report names
#   ARGS="..."  more bench_me arguments (e.g. ARGS="-g 96,12": a geometry)
#   SIZE=name   the frame: 720p, 1080p or 2160p [1080p]
#   STALLS=1    also ncu's WarpStateStats and SchedulerStats sections per
#               variant (why warps do not issue: OUT/vV_rRANGE.stalls.txt,
#               its stall lines printed)
#
# One ncu run per variant: bench_me -q -s SIZE -r RANGE -v V, profiling the
# 5th launch of search_kernel, clocks left alone
# (--clock-control none: the H200's boost clock, as the benchmark runs).
# (bench_me times the range's default variant also with transfers and with two
# candidates: 4 launches per repeat, the 1st of them the plain search; other
# variants launch once per repeat; so the 5th launch is a plain search of
# the range in both cases).
# SOURCE=1: also per SASS instruction the instructions executed and the
# warp stall samples (ncu's SourceCounters, OUT/vV_rRANGE.sass.csv).
# Writes OUT/vV_rRANGE.ncu-rep and a CSV of the metrics; prints per variant
# the instructions per search position on each pipe (warp-level
# instructions x 32 / (positions = pixel absdiffs / 256)), the issue and
# ALU utilisations, the warps resident, and of the launch's elapsed cycles
# the SMs' active ones (mean, least: the ramp and the tail) and the ALU
# pipe's.
set -eu
cd "$(dirname "$0")/.."
BENCH="${1:-}"
BENCH="${BENCH:-build/bench/bench_me}"
RANGE="${2:-32}"
shift $(( $# > 2 ? 2 : $# ))
OUT="${OUT:-build/ncu}"
mkdir -p "$OUT"
NCU="${NCU:-ncu}"
command -v "$NCU" >/dev/null || { echo "ncu not found (set NCU=...)"; exit 1; }

VARIANTS=("$@")
[ ${#VARIANTS[@]} -gt 0 ] || mapfile -t VARIANTS < <("$BENCH" -l | cut -d' ' -f1)

METRICS=sm__inst_executed_pipe_alu.sum,sm__inst_executed_pipe_fma.sum,sm__inst_executed_pipe_fmaheavy.sum,\
sm__inst_executed_pipe_fmalite.sum,sm__inst_executed_pipe_lsu.sum,sm__inst_executed.sum,\
sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,\
sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active,\
sm__inst_issued.avg.pct_of_peak_sustained_active,sm__instruction_throughput.avg.pct_of_peak_sustained_active,\
sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__occupancy_limit_registers,\
gpu__time_duration.sum,sm__cycles_elapsed.max,sm__cycles_active.avg,sm__cycles_active.min,\
sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_elapsed

SIZE="${SIZE:-1080p}"
case "$SIZE" in 720p|1080p|2160p) ;; *) echo "SIZE: 720p, 1080p or 2160p"; exit 1 ;; esac
SFX=$([ "$SIZE" = 1080p ] || echo "_$SIZE")   # reports of 1080p keep their names
for v in "${VARIANTS[@]}"; do
    rep="$OUT/v${v}_r${RANGE}${SFX}${TAG:-}"
    "$NCU" --clock-control none --kernel-name regex:search_kernel --launch-skip 4 --launch-count 1 \
        --metrics "$METRICS" -f -o "$rep" "$BENCH" -q -s "$SIZE" -r "$RANGE" -v "$v" ${ARGS:-} > "$rep.log" 2>&1 ||
        { echo "v$v: ncu failed, see $rep.log"; continue; }
    "$NCU" -i "$rep.ncu-rep" --csv --page raw --metrics "$METRICS" > "$rep.csv"
    python3 - "$rep.csv" "$v" "$RANGE" "$SIZE" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
hdr, units, val = rows[0], rows[1], rows[2]
m = dict(zip(hdr, val))
def f(k):
    return float(m.get(k, "nan").replace(",", ""))
# the frame (1080p: 1920x1088), mv_range 512, no thread limit: the windows as bench_me's window_absdiffs()
R = int(sys.argv[3]); mbw, mbh = {'720p': (80, 45), '1080p': (120, 68), '2160p': (240, 135)}[sys.argv[4]]
def axis(i, n):
    lo = max(-16*i - 24, -512) + 6; hi = min(16*(n - i - 1) + 24, 511) - 6
    mn = min(max(-R, lo), max(lo, hi - 2*R)); return min(mn + 2*R, hi) - mn + 1
pos = sum(axis(x, mbw) for x in range(mbw)) * sum(axis(y, mbh) for y in range(mbh))
per = lambda k: f(k) * 32 / pos
# ncu picks the time unit (ns, us, ms) per report: its units row says which
ms = f('gpu__time_duration.sum') * {'ns': 1e-6, 'nsecond': 1e-6, 'us': 1e-3, 'usecond': 1e-3,
                                    'ms': 1, 'msecond': 1}.get(dict(zip(hdr, units)).get('gpu__time_duration.sum'), float('nan'))
print(f"v{sys.argv[2]} {sys.argv[4]} +-{R}: {ms:.4f} ms  per position: alu {per('sm__inst_executed_pipe_alu.sum'):.1f}"
      f"  fma {per('sm__inst_executed_pipe_fma.sum'):.1f} (heavy {per('sm__inst_executed_pipe_fmaheavy.sum'):.1f}"
      f" lite {per('sm__inst_executed_pipe_fmalite.sum'):.1f})  lsu {per('sm__inst_executed_pipe_lsu.sum'):.1f}"
      f"  all {per('sm__inst_executed.sum'):.1f} | alu {f('sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active'):.1f}%"
      f"  fmaheavy {f('sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active'):.1f}%"
      f"  issue {f('sm__inst_issued.avg.pct_of_peak_sustained_active'):.1f}%"
      f"  warps {f('sm__warps_active.avg.pct_of_peak_sustained_active'):.1f}%  regs {f('launch__registers_per_thread'):.0f}"
      f" | of the elapsed cycles: SMs active {100 * f('sm__cycles_active.avg') / f('sm__cycles_elapsed.max'):.1f}%"
      f" (least {100 * f('sm__cycles_active.min') / f('sm__cycles_elapsed.max'):.1f}%),"
      f" alu {f('sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_elapsed'):.1f}%")
PY
    if [ "${SOURCE:-0}" = 1 ]; then
        "$NCU" --clock-control none --kernel-name regex:search_kernel --launch-skip 4 --launch-count 1 \
            --section SourceCounters --section WarpStateStats -f -o "$rep.src" \
            "$BENCH" -q -s "$SIZE" -r "$RANGE" -v "$v" ${ARGS:-} > "$rep.src.log" 2>&1 &&
        { "$NCU" -i "$rep.src.ncu-rep" --page source --csv --print-source sass > "$rep.sass.csv" 2>> "$rep.src.log" ||
          "$NCU" -i "$rep.src.ncu-rep" --page source --csv > "$rep.sass.csv" 2>> "$rep.src.log"; } ||
            echo "v$v: ncu (source) failed, see $rep.src.log"
        echo "v$v: $(wc -l < "$rep.sass.csv") lines in $rep.sass.csv"
    fi
    if [ "${STALLS:-0}" = 1 ]; then
        "$NCU" --clock-control none --kernel-name regex:search_kernel --launch-skip 4 --launch-count 1 \
            --section WarpStateStats --section SchedulerStats -f -o "$rep.stalls" \
            "$BENCH" -q -s "$SIZE" -r "$RANGE" -v "$v" ${ARGS:-} > "$rep.stalls.log" 2>&1 &&
        "$NCU" -i "$rep.stalls.ncu-rep" --page details > "$rep.stalls.txt" 2>&1 &&
        grep -iE "stall|issued warp|eligible|active warps|no eligible" "$rep.stalls.txt" | sed "s/^/v$v stalls: /" &&
        "$NCU" -i "$rep.stalls.ncu-rep" --page raw --csv > "$rep.stalls.csv" 2>&1 &&
        python3 - "$rep.stalls.csv" "$v" <<'PY' ||
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
m, u = dict(zip(rows[0], rows[2])), dict(zip(rows[0], rows[1]))
pre, post = 'smsp__average_warps_issue_stalled_', '_per_issue_active.ratio'
st = sorted(((k[len(pre):-len(post)], float(x.replace(',', '') or 0)) for k, x in m.items()
             if k.startswith(pre) and k.endswith(post)), key=lambda kv: -kv[1])
print(f"v{sys.argv[2]} stall reasons, warp cycles per issued instruction ({m.get('launch__grid_size', '?')} blocks, "
      f"{m.get('gpu__time_duration.sum', '?')} {u.get('gpu__time_duration.sum', '')}): "
      + ", ".join(f"{k} {x:.2f}" for k, x in st if x >= 0.01))
PY
            echo "v$v: ncu (stalls) failed, see $rep.stalls.log"
    fi
done
