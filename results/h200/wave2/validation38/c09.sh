#!/bin/bash
# Session 38, call 9 (carry build/carry38/c9.tar.xz: v33 = v31 (K = 5)
# with X_DYN, the runs handed out to the warps as they come for them;
# 127 registers, no spills):
# 1. v33 against v31 and v24 at +-32 (720p, 1080p, 2160p) and v31's
#    default ranges 17, 24, 27 (1080p, 720p), 3 runs interleaved;
# 2. the GPU unit case gpu/gpu alone (every variant == C, v33 too; the
#    session's device time was nearly spent).
set -u
t00=$(date +%s)
tar xJf build/carry38/c9.tar.xz -C build
B=build/bench/bench_me
L=$OUT/logs; mkdir -p "$L"
tests/tools/bench_interleaved.sh "$B" "$OUT" 3 720p:32:24: 720p:32:31: 720p:32:33: 1080p:32:24: 1080p:32:31: 1080p:32:33: \
    2160p:32:24: 2160p:32:33: 1080p:17:31: 1080p:17:33: 1080p:24:31: 1080p:24:33: 1080p:27:31: 1080p:27:33: \
    720p:17:31: 720p:17:33: 720p:27:31: 720p:27:33: > /dev/null
echo "bench done $(( $(date +%s) - t00 )) s" >> "$OUT/times.txt"
cat "$OUT/bench.md"
OUT="$L" tests/device.sh data > "$L/data.log" 2>&1
CUDA_ME_TEST_DATA=$PWD/build/data CUDA_ME_REQUIRE_GPU=1 CK_RUN_SUITE=gpu CK_RUN_CASE=gpu timeout 175 build/tests/test_cuda_me_static > "$L/unit_gpu.log" 2>&1
echo "gpu/gpu rc $? $(( $(date +%s) - t00 )) s" >> "$OUT/times.txt"
grep -hE "Checks|:[FE]:" "$L/unit_gpu.log" 2>/dev/null | head -30 >> "$OUT/times.txt"
tar cJf "$OUT/logs.tar.xz" -C "$OUT" logs raw.txt && rm -rf "$L" "$OUT/raw.txt"
cat "$OUT/machine.txt" "$OUT/times.txt"; cat "$OUT/bench.md"
