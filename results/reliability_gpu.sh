#!/bin/bash
# results/reliability_gpu.sh OUTDIR: the GPU machine's share of the
# reliability checks (issue "Reliability"); builds nothing.
#   - device memory over a 2000-frame encode (nvidia-smi every 100 ms)
#   - four concurrent encodes against the same four run one after another
#   - faults injected into the CUDA backend in the middle of an encode:
#     one warning, exit 0, a complete stream (decoded later, elsewhere,
#     against the reconstruction's md5 kept here)
set -u
TOP="$(cd "$(dirname "$0")/.." && pwd)"
X264="${X264:-$TOP/build/device/x264/x264}"
D="${CUDA_ME_TEST_DATA:-$TOP/build/data}"
O="${1:?usage: reliability_gpu.sh OUTDIR}"
mkdir -p "$O"
table="$O/reliability_gpu.csv"
echo "case,expected,observed,verdict" > "$table"
row() { echo "$1,$2,$3,$4" | tee -a "$table"; }

# 1. 2000 frames: the foreman clip looped
python3 - "$D/foreman_cif.y4m" "$O/long.y4m" 2000 <<'EOF'
import sys
src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = open(src, 'rb').read()
head, _, body = data.partition(b'\n')
frames = body.split(b'FRAME\n')[1:]
with open(dst, 'wb') as f:
    f.write(head + b'\n')
    for i in range(n):
        f.write(b'FRAME\n' + frames[i % len(frames)])
EOF
nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 100 > "$O/mem_2000.txt" 2>/dev/null &
smi=$!
sleep 1
"$X264" --gpu-me --gpu-me-backend cuda --gpu-me-stats --preset veryfast --bframes 3 --ref 3 --threads 16 \
    -o "$O/long.264" "$O/long.y4m" > "$O/long.log" 2>&1
rc=$?
sleep 1
kill $smi 2>/dev/null
rm -f "$O/long.y4m"
frames=$(sed -n 's/^encoded \([0-9]*\) frames.*/\1/p' "$O/long.log")
python3 - "$O/mem_2000.txt" > "$O/mem_2000_summary.txt" <<'EOF'
import sys
v = [int(l) for l in open(sys.argv[1]) if l.strip().isdigit()]
busy = [x for x in v if x > min(v) + 16]     # samples while the encoder held the GPU
n = len(busy)
q = busy[n//5:n] if n >= 10 else busy        # after the first fifth: steady state
print("samples %d, idle %d MiB, in use: first %s MiB, steady min %s max %s MiB" %
      (len(v), min(v), busy[0] if busy else '-', min(q) if q else '-', max(q) if q else '-'))
EOF
row "2000-frame CIF encode, --gpu-me cuda, 16 threads" "exit 0, 2000 frames" "exit $rc, $frames frames" \
    "$([ "$rc" = 0 ] && [ "$frames" = 2000 ] && echo pass || echo FAIL)"
row "device memory during the 2000 frames" "flat after start" "$(cat "$O/mem_2000_summary.txt")" "see text"
grep -h "memory peak\|pairs searched\|waited" "$O/long.log" | sed 's/^/    /'

# 2. four at once == four in turn
for i in 1 2 3 4; do
    "$X264" --gpu-me --gpu-me-backend cuda --threads 4 --bframes 3 --merange 24 -o "$O/ser$i.264" "$D/foreman_cif.y4m" > /dev/null 2>&1
done
for i in 1 2 3 4; do
    "$X264" --gpu-me --gpu-me-backend cuda --threads 4 --bframes 3 --merange 24 -o "$O/par$i.264" "$D/foreman_cif.y4m" > /dev/null 2>&1 &
done
wait
same=0
for i in 1 2 3 4; do cmp -s "$O/ser1.264" "$O/par$i.264" && cmp -s "$O/ser1.264" "$O/ser$i.264" && same=$((same+1)); done
row "4 concurrent encodes vs 4 serial" "8 identical streams" "$same of 4 parallel identical to serial" "$([ $same = 4 ] && echo pass || echo FAIL)"

# 3. faults in the middle of an encode (CUDA backend)
for spec in launch:40 copy:25 alloc:20 device:1; do
    n="fault_${spec/:/_}"
    CUDA_ME_FAULT=$spec "$X264" --gpu-me --gpu-me-stats --threads 4 --bframes 3 --dump-yuv "$O/$n.yuv" \
        -o "$O/$n.264" "$D/foreman_cif.y4m" > "$O/$n.log" 2>&1
    rc=$?
    warn=$(grep -c "warning.*gpu-me" "$O/$n.log")
    frames=$(sed -n 's/^encoded \([0-9]*\) frames.*/\1/p' "$O/$n.log")
    md5sum "$O/$n.yuv" | cut -d' ' -f1 > "$O/$n.rec.md5"
    rm -f "$O/$n.yuv"
    row "CUDA_ME_FAULT=$spec during a 30-frame encode" "one warning, exit 0, 30 frames" \
        "$warn warning(s), exit $rc, $frames frames: $(grep -h 'warning.*gpu-me' "$O/$n.log" | head -1 | sed 's/,/;/g')" \
        "$([ "$rc" = 0 ] && [ "$warn" = 1 ] && [ "$frames" = 30 ] && echo "pass (decode checked off-device)" || echo FAIL)"
done
rm -f "$O"/ser*.264 "$O"/par*.264
