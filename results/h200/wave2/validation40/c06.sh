#!/bin/bash
# Session 40, call 6 (the same carry): racecheck over the whole GPU suite
# with room (c4's ran past its 200 s): tests/device.sh sanitize with
# SANITIZE_TOOLS=racecheck SANITIZE_TIMEOUT=540.
set -u
tar xJf build/carry40/v.tar.xz -C build
SECONDS=0
OUT="$OUT" SANITIZE_TOOLS=racecheck SANITIZE_TIMEOUT=540 tests/device.sh data sanitize 2>&1 | tail -12
echo "took $SECONDS s"
gzip -9 "$OUT"/sanitize-racecheck.log
