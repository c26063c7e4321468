#!/bin/sh
# results/x264_cands1.sh: the x264 next to this script's default binary
# (X264_CANDS1_BIN, else build/device/x264/x264, else build/x264/x264) with one GPU
# candidate per partition (X264_GPU_ME_CANDS=1, developer-only), for A/B
# runs against the default two: results/run.sh's CONFIG@BINARY, e.g.
#   T2_CONFIGS="stock_mvt64 gpu gpu@results/x264_cands1.sh" results/run.sh OUT t2
TOP="$(cd "$(dirname "$0")/.." && pwd)"
bin="${X264_CANDS1_BIN:-}"
[ -n "$bin" ] || for b in "$TOP/build/device/x264/x264" "$TOP/build/x264/x264"; do [ -x "$b" ] && { bin="$b"; break; }; done
X264_GPU_ME_CANDS=1 exec "$bin" "$@"
