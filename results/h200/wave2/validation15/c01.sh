#!/bin/bash
# call 1 (session 15): can x264's OpenCL lookahead run here; if so, table2 slower and medium with it
set -u
tar xJf build/carry15/main.tar.xz
export CUDA_ME_COMMIT=ff53b41+opencl
OCL_LOADER=$PWD/build/carry15/libOpenCL.so.1 tests/device.sh data opencl > "$OUT/device.log" 2>&1
e=$(cat "$OUT/opencl/env" 2>/dev/null)
echo "env: '$e'" >> "$OUT/device.log"
if [ -n "$e" ]; then
  [ "$e" = none ] && e="" 
  env $e build/device/x264/x264 --opencl --preset slower --frames 30 -o /dev/null build/data/foreman_cif.y4m > "$OUT/prewarm.log" 2>&1 || true
  ls -l x264_lookahead.clbin >> "$OUT/prewarm.log" 2>&1
  s=""; [ -n "$e" ] && s="+$(echo $e | tr ' ' '+')"
  T2_CLIPS=1080p T2_THREADS=16 T2_REPEATS=3 T2_PRESETS=slower T2_FRAMES_MANY=1080p:216 T2_QFRAMES_MANY=1080p:216 \
    T2_CONFIGS="stock_mvt64 gpu gpu%--opencl$s stock_mvt64%--opencl$s" TOTAL_BUDGET=240 T2_BUDGET=235 \
    results/run.sh "$OUT/i12_ocl_slower" table2 > "$OUT/sl.log" 2>&1
  T2_CLIPS=1080p T2_THREADS=16 T2_REPEATS=3 T2_PRESETS=medium T2_FRAMES_MANY=1080p:216 T2_QFRAMES_MANY=1080p:216 \
    T2_CONFIGS="stock_mvt64 gpu gpu%--opencl$s stock_mvt64%--opencl$s" TOTAL_BUDGET=200 T2_BUDGET=195 \
    results/run.sh "$OUT/i12_ocl_medium" table2 > "$OUT/md.log" 2>&1
fi
cd "$OUT" && tar czf /tmp/all.tgz . && mv /tmp/all.tgz .
