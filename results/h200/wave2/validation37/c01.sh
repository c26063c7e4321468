#!/bin/bash
# Session 37, call 1 (binaries of 067ac9f; carry build/carry37/c1.tar.xz:
# ./build.sh device, then tar cJf build/carry37/c1.tar.xz -C build
# device/x264/x264 tests/test_cuda_me_static bench/bench_me).
# 1. session 36's call 2 (validation36/c02.sh, never lent a machine): v26
#    against v16 at 1080p +-48, 720p and 2160p +-64; v27 against v4 at
#    1080p +-96; the defaults at 720p/1080p/2160p x +-16/32/64; 3 runs
#    interleaved;
# 2. where 720p's fixed time goes: v24 +-32 and v14 +-16 over frames 1280
#    wide and 36..50 macroblock rows (bench_me -s 1280xH), 2 runs; 720p
#    +-32 with 2 blocks a macroblock (-g 96,4) and with blocks of 64
#    threads (-g 64,12); Nsight Compute of v24 at 720p and 1080p +-32;
# 3. tests/device.sh data gpu: unit (5 parts), memcheck over gpu/gpu, e2e
#    CUDA == C with the new defaults.
set -u
t00=$(date +%s)
tar xJf build/carry37/c1.tar.xz -C build
B=build/bench/bench_me
tests/tools/bench_interleaved.sh "$B" "$OUT" 3 1080p:48:16: 1080p:48:26: 720p:64:16: 720p:64:26: 2160p:64:16: 2160p:64:26: \
           1080p:96:4: 1080p:96:27: 720p:16:14: 1080p:16:14: 2160p:16:14: 720p:32:24: 1080p:32:24: 2160p:32:24: \
           720p:32:15: 1080p:32:15: 2160p:32:15: 1080p:64:26: 1080p:64:16: \
           "720p:32:24:-g 96,4" "720p:32:24:-g 64,12" "1080p:32:24:-g 96,4"
echo "bench done $(( $(date +%s) - t00 )) s" >> "$OUT/times.txt"
sw=()
for h in 576 608 640 672 704 720 736 768 800; do sw+=("1280x$h:32:24:" "1280x$h:16:14:"); done
OUT2="$OUT/sweep"; tests/tools/bench_interleaved.sh "$B" "$OUT2" 2 "${sw[@]}" > /dev/null
echo "sweep done $(( $(date +%s) - t00 )) s" >> "$OUT/times.txt"
mkdir -p "$OUT/ncu"
OUT="$OUT/ncu" SIZE=720p TAG=_720p timeout 120 tests/ncu_kernel.sh "$B" 32 24 > "$OUT/ncu/720p.txt" 2>&1
OUT="$OUT/ncu" SIZE=1080p TAG=_1080p timeout 120 tests/ncu_kernel.sh "$B" 32 24 > "$OUT/ncu/1080p.txt" 2>&1
echo "ncu done $(( $(date +%s) - t00 )) s" >> "$OUT/times.txt"
OUT="$OUT/gpu" tests/device.sh data > "$OUT/data.log" 2>&1
OUT="$OUT/gpu" tests/device.sh data gpu > "$OUT/gpu.log" 2>&1
echo "device.sh gpu rc $? $(( $(date +%s) - t00 )) s" >> "$OUT/times.txt"
tar czf "$OUT/logs.tgz" -C "$OUT" gpu raw.txt data.log gpu.log sweep ncu && rm -rf "$OUT/gpu" "$OUT/raw.txt" "$OUT/data.log" "$OUT/ncu"/*.ncu-rep
cat "$OUT/machine.txt" "$OUT/times.txt"; grep -E "Checks|ok  |FAIL" "$OUT/gpu.log" | tail -12; cat "$OUT/bench.md" "$OUT2/bench.md"; cat "$OUT/ncu/"*.txt | tail -30
