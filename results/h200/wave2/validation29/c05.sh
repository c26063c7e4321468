#!/bin/bash
# Prepared in session 29 (no device lent after call 2): branch hrow,
# 1c19918 (= lean's LEAN=29 set-up + row runs for the last 1-2 rows of
# the K = 8 key-table windows, +-48/64/128).  build/carry29/c5.tar.xz:
# test_hrow (fat), bench_hrow (sm_90).  1. The GPU unit case gpu/gpu
# (every variant == C, v16 and v17 with row runs); 2. bench, 5 runs
# interleaved: base (ae99324), y29 (lean, c3.tar.xz), hrow, at the
# defaults of 1080p +-48/64/128 and 720p/2160p +-64.  Run after c04.sh
# (or with it: both fit one call).
set -u
tar xJf build/carry29/c1.tar.xz
tar xJf build/carry29/c3.tar.xz
tar xJf build/carry29/c5.tar.xz
C=build/carry29/c5
date +%T > "$OUT/times5.txt"
[ -s build/data/foreman_cif.y4m ] || tests/device.sh data > "$OUT/data5.log" 2>&1
CUDA_ME_REQUIRE_GPU=1 CK_RUN_SUITE=gpu CK_RUN_CASE=gpu timeout 250 $C/test_hrow > "$OUT/unit_gpu_hrow.log" 2>&1
echo "unit rc $?" >> "$OUT/times5.txt"
date +%T >> "$OUT/times5.txt"
for rep in 1 2 3 4 5; do
  for srv in 1080p:48:16 1080p:64:16 1080p:128:17 720p:64:16 2160p:64:16; do
    IFS=: read -r sz r v <<< "$srv"
    for b in base y29 hrow; do
      case $b in base) B=build/carry29/base_bench_me;; y29) B=build/carry29/y29/bench_me;; hrow) B=$C/bench_hrow;; esac
      timeout 60 $B -q -s $sz -r $r -v $v 2>&1 | awk -v rep=$rep -v b=$b '$4 == "total" {print rep, b, $0}'
    done
  done
done > "$OUT/bench5.txt" 2>&1
date +%T >> "$OUT/times5.txt"
cat "$OUT/times5.txt"; grep -E "^[0-9]+%|:[FE]:" "$OUT/unit_gpu_hrow.log" | head; wc -l "$OUT/bench5.txt"
