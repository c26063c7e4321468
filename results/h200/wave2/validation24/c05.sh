#!/bin/bash
# call 5 (session 24): the last kernel change (XPLANE(): no 4-byte-plane
# branch in the key-table variants v15-v17, whose SASS is then the
# pre-session code up to parameter offsets; every other kernel is
# byte-identical to call 4's).  GPU unit tests (every variant == C), then
# bench_me of 22616cb against this build at the wide defaults, 3 runs.
set -u
tar xJf build/carry24/c5.tar.xz
xz -dc build/carry24/bench_base.xz > /tmp/bench_base && chmod +x /tmp/bench_base
export CUDA_ME_COMMIT=$(cat build/carry24/commit)
tests/device.sh data > "$OUT/device.log" 2>&1
UNIT_TIMEOUT=200 tests/device.sh unit > "$OUT/unit.log" 2>&1
grep -E "Checks|unit tests" "$OUT/unit.log" | tail -8
def() { case $1 in 32) echo 15;; 48|64) echo 16;; *) echo 17;; esac; }
for rep in 1 2 3; do
  for s in 1080p:32 1080p:64 1080p:128; do
    size=${s%:*}; r=${s#*:}; v=$(def $r)
    timeout 60 /tmp/bench_base -s $size -r $r -v $v 2>&1 | awk -v rep=$rep '$4 == "total" {print rep, "base", $0}'
    timeout 60 build/bench/bench_me -s $size -r $r -v $v 2>&1 | awk -v rep=$rep '$4 == "total" {print rep, "new", $0}'
  done
done > "$OUT/bench.txt" 2>&1
awk '{print $1, $2, $3, $4, $5, $7}' "$OUT/bench.txt"
cd "$OUT" && tar czf /tmp/all.tgz . && mv /tmp/all.tgz .
