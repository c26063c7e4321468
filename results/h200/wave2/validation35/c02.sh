#!/bin/bash
# Session 35 (prepared, not run: c03.sh took its place, with the source
# counters; v20 and v21 exist only in f3ac2ec since): Nsight
# Compute (tests/ncu_kernel.sh: the 5th search_kernel launch) on
# v15 against v20 and v21 at +-32, v15 against v20 at +-24, and at 720p
# and 2160p +-32 (where the time per position differs: 720p 8.2, 1080p
# 7.6, 2160p 7.4 ps in validation33/c1: the launch's ends?): the kernel's
# time, warps resident, SMs active of the elapsed cycles (mean, least),
# the ALU pipe, issue.  The model (tests/tools/warp_slots.c): at 1080p
# +-32 v20 issues 2.2% fewer warp-iterations than v15 and holds 6.2% fewer
# warp slots (v15's blocks keep a finished warp's slot until their longest
# warp ends: busy 95.8%, ncu's 14.4 of 15 warps resident in
# validation33/c3); at +-24 no difference.
# Carry: build/carry35/c1.tar.xz (as c01.sh).
set -u
tar xJf build/carry35/c1.tar.xz -C build
OUT="$OUT/ncu" tests/ncu_kernel.sh build/bench/bench_me 32 15 20 21 2>&1 | tee "$OUT/ncu32.txt"
OUT="$OUT/ncu" tests/ncu_kernel.sh build/bench/bench_me 24 15 20 2>&1 | tee "$OUT/ncu24.txt"
SIZE=720p OUT="$OUT/ncu" tests/ncu_kernel.sh build/bench/bench_me 32 15 20 2>&1 | tee "$OUT/ncu32_720p.txt"
SIZE=2160p OUT="$OUT/ncu" tests/ncu_kernel.sh build/bench/bench_me 32 15 20 2>&1 | tee "$OUT/ncu32_2160p.txt"
tar czf "$OUT/ncu.tgz" -C "$OUT" ncu && rm -rf "$OUT/ncu"
