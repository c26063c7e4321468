#!/bin/bash
# tests/results.sh: the measuring tools, without a GPU.
# - results/current's tables are made again from its CSVs by
#   results/tables.py, byte for byte (the tables say what the CSVs hold);
# - results/run.sh QUICK=1 (C backend, CIF and QCIF, a few frames): the
#   startup, table1, table2 and throughput sections write their tables,
#   with a row for every configuration and nothing skipped;
# - TP_MPS=1 where no nvidia-cuda-mps-control exists: a clear message and
#   no throughput table.
set -u
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"
W="$B/results-test"
rm -rf "$W" && mkdir -p "$W"

# results/run.sh's python: one with numpy and cv2, else a venv of
# results/requirements.txt (CI's python3 has neither)
if [ -z "${PYTHON:-}" ] && ! python3 -c "import numpy, cv2" 2>/dev/null; then
    V="$B/results-venv"
    if ! "$V/bin/python" -c "import numpy, cv2" 2>/dev/null; then
        echo "--- installing results/requirements.txt into $V"
        { python3 -m venv "$V" && "$V/bin/pip" install -q --disable-pip-version-check -r "$TOP/results/requirements.txt"; } ||
            { echo "results: could not install the Python packages"; echo "results: 0 passed, 1 failed"; exit 1; }
    fi
    export PYTHON="$V/bin/python"
fi

# the tables again, in a folder of the same name (headline.md names it)
mkdir -p "$W/re" && cp -r "$TOP/results/current" "$W/re/current"
ok=1
for s in startup table1 table2 throughput headline; do
    python3 "$TOP/results/tables.py" "$s" "$W/re/current" > "$W/re/$s.log" 2>&1 || { ok=0; cat "$W/re/$s.log"; }
done
python3 "$TOP/results/tables.py" table2 "$W/re/current/corpus" > "$W/re/corpus.log" 2>&1 || { ok=0; cat "$W/re/corpus.log"; }
if [ $ok = 1 ] && diff -r "$TOP/results/current" "$W/re/current" > "$W/re/diff.txt"; then
    pass "results/current: every table made again from its CSVs, byte for byte"
else
    fail "results/current: the tables differ from what results/tables.py makes of the CSVs:"; head -20 "$W/re/diff.txt"
fi

# a dry run of the sections
q() {   # OUT SECTIONS...: results/run.sh QUICK=1 with a small throughput
    local out="$1"; shift
    QUICK=1 WORK="$W/work" TP_NT="${TP_NT:-2x1}" TP_CONFIGS="stock gpu" TP_CLIPS=CIF TP_FRAMES=CIF:10 \
        "$TOP/results/run.sh" "$out" "$@" > "$out.log" 2>&1
}
if q "$W/quick" startup table1 table2 throughput; then
    missing=""
    for f in startup.md table1.md table2.md throughput.md machine.txt timing.csv; do
        [ -s "$W/quick/$f" ] || missing="$missing $f"
    done
    if [ -n "$missing" ]; then
        fail "results/run.sh QUICK=1: no$missing"; tail -20 "$W/quick.log"
    elif grep -qi "skipped" "$W/quick"/*.md; then
        fail "results/run.sh QUICK=1: skipped encodes within the budget:"; grep -i "skipped" "$W/quick"/*.md | head -5
    elif ! grep -Eq "^\| 2x1 \| stock \| 4 \| [0-9]" "$W/quick/throughput.md" ||
         ! grep -Eq "^\| 2x1 \| --gpu-me \| 4 \| [0-9]" "$W/quick/throughput.md" ||
         ! grep -q "^- CUDA MPS: off" "$W/quick/throughput.md"; then
        fail "results/run.sh QUICK=1 throughput: a row missing:"; cat "$W/quick/throughput.md"
    else
        pass "results/run.sh QUICK=1: startup, table1, table2 and throughput tables ($(grep -c '^| ' "$W/quick/table2.md") table2 lines)"
    fi
else
    fail "results/run.sh QUICK=1: exit $?"; tail -20 "$W/quick.log"
fi

if command -v nvidia-cuda-mps-control > /dev/null 2>&1; then
    echo "  skip  TP_MPS=1 without MPS: this machine has nvidia-cuda-mps-control"
elif TP_MPS=1 q "$W/mps" throughput; grep -q "TP_MPS=1: no nvidia-cuda-mps-control here" "$W/mps.log" &&
     [ ! -e "$W/mps/throughput.md" ]; then
    pass "results/run.sh TP_MPS=1 without MPS: says so, writes no throughput table"
else
    fail "results/run.sh TP_MPS=1 without MPS:"; tail -10 "$W/mps.log"
fi
# one table from two invocations: a second preset and N x T added with
# TP_APPEND=1 (per-preset rows, every wait recorded); appending to CSVs of
# another layout is refused
if TP_PRESETS="veryfast medium" q "$W/app" throughput &&
   TP_APPEND=1 TP_NT=1x2 TP_PRESETS=medium q "$W/app" throughput; then
    if grep -Eq "^\| veryfast \| 2x1 \| --gpu-me \| 4 \| [0-9]" "$W/app/throughput.md" &&
       grep -Eq "^\| medium \| 2x1 \| stock \| 4 \| [0-9]" "$W/app/throughput.md" &&
       grep -Eq "^\| medium \| 1x2 \| --gpu-me \| 4 \| [0-9].* \| [0-9.]+% \| [0-9.]+% \|$" "$W/app/throughput.md" &&
       [ "$(grep -c "^| \(veryfast\|medium\) |" "$W/app/throughput.md")" = 6 ] &&
       [ "$(tar tzf "$W/app/logs_throughput.tgz" | grep -c '_[0-9]*\.log$')" = 24 ]; then
        pass "results/run.sh throughput: two presets, and TP_APPEND=1 adds an N x T to the same table and logs"
    else
        fail "results/run.sh TP_PRESETS and TP_APPEND=1: rows missing:"; cat "$W/app/throughput.md"
    fi
else
    fail "results/run.sh TP_PRESETS / TP_APPEND=1: exit $?"; tail -20 "$W/app.log"
fi
mkdir -p "$W/old" && echo "nt,config" > "$W/old/throughput_runs.csv"
TP_APPEND=1 q "$W/old" throughput
if grep -q "TP_APPEND=1: .* another layout" "$W/old.log" && [ ! -e "$W/old/throughput.md" ]; then
    pass "results/run.sh TP_APPEND=1 onto CSVs of another layout: refused, saying so"
else
    fail "results/run.sh TP_APPEND=1 onto CSVs of another layout:"; tail -5 "$W/old.log"
fi

summary results
