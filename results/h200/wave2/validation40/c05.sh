#!/bin/bash
# Session 40, call 5 (the same carry): compute-sanitizer racecheck over
# the default variant of each range band, one bench_me run each on a
# 128x64 frame (32 macroblocks, whole windows: the MV range reaches into
# the padding), since racecheck over the whole GPU suite ran past its 200
# s in c4 (no hazard printed before): v6 +-3, v14 +-16, v31 +-24, v24
# +-32, v26 +-64, v4 +-100, v17 +-128.  Then memcheck and synccheck of the
# same runs.
set -u
tar xJf build/carry40/v.tar.xz -C build
for tool in racecheck synccheck memcheck; do
  for rv in 3:6 16:14 24:31 32:24 64:26 100:4 128:17; do
    IFS=: read -r r v <<< "$rv"
    timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 build/bench/bench_me -q -s 128x64 -r $r -v $v > "$OUT/$tool-$r.log" 2>&1
    rc=$?
    echo "$tool +-$r v$v: rc $rc, $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/$tool-$r.log" | tail -1)"
  done
done | tee "$OUT/summary.txt"
tar czf "$OUT/logs.tgz" -C "$OUT" $(cd "$OUT" && ls *.log) && rm -f "$OUT"/*.log
