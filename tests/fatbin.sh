#!/bin/bash
# tests/fatbin.sh: the CUDA kernels are built for every architecture
# configure asked for (SASS each, PTX of the newest), in libcuda_me.a and in
# the x264 binary.  cuobjdump comes from the CUDA toolkit, or else from PyPI's
# nvidia-cuda-cuobjdump in a venv under build/ (the Debian machine's nvcc
# install has none).
set -u
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"
grep -q '^HAVE_CUDA=yes' "$TOP/config.mak" || { echo "fatbin: no CUDA backend in this build (nvcc not found): nothing to check"; summary fatbin; exit; }
archs="$(sed -n "s/^NVCCFLAGS=.*-DCUDA_ME_ARCHS='\"\([^\"]*\)\"'.*/\1/p" "$TOP/config.mak")"
[ -n "$archs" ] || { fail "no CUDA_ME_ARCHS in config.mak"; summary fatbin; exit; }

CUOBJDUMP="$(command -v cuobjdump || true)"
[ -z "$CUOBJDUMP" ] && [ -x /usr/local/cuda/bin/cuobjdump ] && CUOBJDUMP=/usr/local/cuda/bin/cuobjdump
if [ -z "$CUOBJDUMP" ]; then
    venv="$B/cuobjdump-venv"
    if [ ! -x "$venv/bin/python3" ]; then
        python3 -m venv "$venv" && "$venv/bin/pip" install -q nvidia-cuda-cuobjdump >/dev/null ||
            { fail "cannot install nvidia-cuda-cuobjdump from PyPI"; summary fatbin; exit; }
    fi
    CUOBJDUMP="$(find "$venv" -name cuobjdump -type f | head -1)"
fi
echo "cuobjdump: $CUOBJDUMP ($("$CUOBJDUMP" --version | tail -1))"

for bin in "$B/lib/libcuda_me.a" "$B/x264/x264"; do
    elf="$("$CUOBJDUMP" --list-elf "$bin" 2>&1)"
    ptx="$("$CUOBJDUMP" --list-ptx "$bin" 2>&1)"
    missing=""
    for a in ${archs%% + *}; do
        echo "$elf" | grep -q "me_cuda\.$a\.cubin" || missing="$missing $a"
    done
    newest="${archs##*compute_}"
    echo "$ptx" | grep -q "me_cuda\.sm_$newest\.ptx" || missing="$missing PTX-compute_$newest"
    if [ -z "$missing" ]; then
        pass "$(basename "$bin"): kernels for $archs"
    else
        fail "$(basename "$bin"): missing$missing"; echo "$elf"; echo "$ptx"
    fi
done
summary fatbin
