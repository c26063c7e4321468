#!/bin/bash
# Session 40, call 3 (carry build/carry40/v.tar.xz: ./build.sh device of
# this session's tree; the kernels are d56e56a's): the GPU checks
# (tests/device.sh data gpu: unit, memcheck over the case gpu, e2e).
set -u
tar xJf build/carry40/v.tar.xz -C build
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
OUT="$OUT" tests/device.sh data gpu 2>&1 | tail -40
tar czf "$OUT/logs.tgz" -C "$OUT" $(cd "$OUT" && ls *.log 2>/dev/null) 2>/dev/null && rm -f "$OUT"/*.log
