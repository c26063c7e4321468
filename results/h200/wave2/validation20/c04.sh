#!/bin/bash
# call 4 (session 20): 82528d7's bench_me (v6 the default up to +-8;
# two candidates timed as the library runs them: pass 2 at +-8 with v6).
# The smallest call the device time left allowed (c03.sh's unit tests did
# not fit): bench only, 3 runs.
set -u
tar xJf build/carry20/c3.tar.xz
for rep in 1 2 3; do
  for r in 8 16; do
    build/bench/bench_me -q -s 1080p -r $r -v $([ $r -le 8 ] && echo 6 || echo 12) 2>&1 |
      awk -v rep=$rep '$4 == "total" || $4 == "2" {print rep, $0}'
  done
done | tee "$OUT/bench.txt"
