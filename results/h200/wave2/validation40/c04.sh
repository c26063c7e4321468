#!/bin/bash
# Session 40, call 4 (the same carry): compute-sanitizer memcheck,
# racecheck and synccheck over the GPU suite (tests/device.sh sanitize),
# for the issue's "compute-sanitizer clean" on the final kernels.
set -u
tar xJf build/carry40/v.tar.xz -C build
OUT="$OUT" tests/device.sh data sanitize 2>&1 | tail -30
tar czf "$OUT/logs.tgz" -C "$OUT" $(cd "$OUT" && ls *.log 2>/dev/null) 2>/dev/null && rm -f "$OUT"/*.log
