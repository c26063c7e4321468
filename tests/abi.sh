#!/bin/bash
# tests/abi.sh: a shared build of the patched x264 cannot be mistaken for
# stock libx264.
#
# The patch adds fields to x264_param_t but keeps X264_BUILD 164 (the static
# CLI must stay byte-identical to stock), so a program compiled with stock
# x264.h that loaded a patched libx264.so.164 would have x264 write past its
# x264_param_t.  The patched tree's shared library is therefore
# libx264-gpu-me.so.164 (patches: configure), and its x264.pc links -lx264-gpu-me.
#
#   build      configure + build the patched x264 shared (build/x264-shared,
#              --enable-shared --disable-cli) and install it into
#              build/x264-shared/prefix
#   soname     its SONAME is libx264-gpu-me.so.<X264_BUILD>, the dev link is
#              libx264-gpu-me.so, there is no libx264.so*; X264_BUILD is
#              stock's (x264_param_t sizes printed)
#   x264.pc    pkg-config --libs x264 gives -lx264-gpu-me, not -lx264
#   stock      a program compiled with stock x264.h and -lx264 does not link
#              against that prefix
#   compile    tests/abi_test.c, compiled with the patched headers and
#              pkg-config x264, needs libx264-gpu-me.so.164 (not libx264.so)
#   run        it runs (LD_LIBRARY_PATH), resolves the library from the
#              prefix, sets every gpu-me option with x264_param_parse and
#              encodes frames on the C backend with the statistics line
#
# Environment: ABI_DIR [build/x264-shared], X264_SRC (patched x264 tree)
# [build/x264-src], CC [gcc].

set -u
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"
SRC="${X264_SRC:-$B/x264-src}"
S="${ABI_DIR:-$B/x264-shared}"
P="$S/prefix"
W="$S/test"
JOBS="$(nproc 2>/dev/null || echo 2)"
CC="${CC:-gcc}"

finish() { summary abi; exit; }

if ! git -C "$SRC" rev-parse -q --verify cuda-me-base >/dev/null 2>&1 || [ ! -f "$B/lib/libcuda_me.a" ]; then
    fail "no patched $SRC or no $B/lib/libcuda_me.a: run ./build.sh first"
    finish
fi
API="$(sed -n 's/^#define X264_BUILD \([0-9]*\)$/\1/p' "$SRC/x264.h")"
SONAME="libx264-gpu-me.so.$API"

# 1. configure + build + install (skipped when up to date)
build() {
    local stamp
    # rebuilt from clean when cuda_me.h changes (x264's dependencies do not follow it)
    stamp="$SRC $(git -C "$SRC" rev-parse HEAD) $(cat "$B/lib/cuda_me.libs") $(md5sum < "$B/include/cuda_me.h" | cut -c1-12)"
    mkdir -p "$S"
    if [ "$(cat "$S/.configured" 2>/dev/null)" != "$stamp" ]; then
        rm -f "$S/.configured"
        [ -f "$S/Makefile" ] && make -C "$S" clean >/dev/null 2>&1
        (cd "$S" && "$SRC/configure" --bit-depth=8 --enable-shared --disable-cli --enable-cuda-me \
            --cuda-me-dir="$B" --prefix="$P" > configure.out 2>&1) || { cat "$S/configure.out"; return 1; }
        echo "$stamp" > "$S/.configured"
    fi
    # a newer libcuda_me.a is linked into the library too
    [ "$B/lib/libcuda_me.a" -nt "$S/$SONAME" ] && rm -f "$S/$SONAME"
    make -C "$S" -j"$JOBS" lib-shared >/dev/null 2>"$S/make.err" || { tail -n 30 "$S/make.err"; return 1; }
    rm -rf "$P"
    make -C "$S" install-lib-shared >/dev/null 2>>"$S/make.err" || { tail -n 30 "$S/make.err"; return 1; }
}
if build; then
    pass "build: patched x264 shared in $S, installed into $P"
else
    fail "build: configure/build/install of the shared patched x264 failed"
    finish
fi
rm -rf "$W" && mkdir -p "$W"

# 2. the library's name
so="$(readelf -d "$S/$SONAME" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')"
link="$(readlink "$P/lib/libx264-gpu-me.so" 2>/dev/null)"
stock_others="$(cd "$P/lib" && ls libx264.so* 2>/dev/null | tr '\n' ' ')"
git -C "$SRC" show cuda-me-base:x264.h > "$W/stock_x264.h"
stock_api="$(sed -n 's/^#define X264_BUILD \([0-9]*\)$/\1/p' "$W/stock_x264.h")"
sizes() {   # HEADER-DIR: sizeof(x264_param_t) compiled with that x264.h
    printf '#include <stdint.h>\n#include <stdio.h>\n#include <x264.h>\nint main(void){printf("%%zu\\n",sizeof(x264_param_t));return 0;}\n' > "$W/size.c" &&
        "$CC" -I"$1" -I"$P/include" "$W/size.c" -o "$W/size" && "$W/size"
}
mkdir -p "$W/stock" && cp "$W/stock_x264.h" "$W/stock/x264.h"
size_stock="$(sizes "$W/stock")"
size_patched="$(sizes "$P/include")"
if [ "$so" = "$SONAME" ] && [ "$link" = "$SONAME" ] && [ -z "$stock_others" ] &&
   [ "$API" = "$stock_api" ] && [ -f "$P/lib/$SONAME" ]; then
    pass "soname: $so (dev link libx264-gpu-me.so, no libx264.so*); X264_BUILD $API as stock, sizeof(x264_param_t) $size_patched vs stock $size_stock"
else
    fail "soname: SONAME '$so' (want $SONAME), dev link '$link', other libs '$stock_others', X264_BUILD $API vs stock $stock_api"
fi

# 3. x264.pc
export PKG_CONFIG_LIBDIR="$P/lib/pkgconfig" PKG_CONFIG_PATH=""
libs="$(pkg-config --libs x264 2>&1)"
cflags="$(pkg-config --cflags x264 2>&1)"
if echo " $libs " | grep -q -e ' -lx264-gpu-me ' && ! echo " $libs " | grep -q -e ' -lx264 '; then
    pass "x264.pc: Libs: $libs"
else
    fail "x264.pc: Libs '$libs' do not link -lx264-gpu-me only"
fi

# 4. stock headers + -lx264 find nothing to link in the prefix
printf '#include <stdint.h>\n#include <x264.h>\nint main(void){x264_param_t p; x264_param_default(&p); return x264_encoder_open(&p) != 0;}\n' > "$W/stock.c"
"$CC" -I"$W/stock" -I"$P/include" "$W/stock.c" -L"$P/lib" -lx264 -o "$W/stock_prog" > "$W/stock.log" 2>&1
if [ ! -e "$W/stock_prog" ] && grep -q -e "cannot find -lx264" "$W/stock.log"; then
    pass "stock: stock x264.h + -L$P/lib -lx264 does not link (cannot find -lx264)"
elif [ -z "$stock_others" ] && [ -f "$W/stock_prog" ] && readelf -d "$W/stock_prog" | grep NEEDED | grep -q 'libx264\.so\.' &&
     ! readelf -d "$W/stock_prog" | grep NEEDED | grep -q 'libx264-gpu-me'; then
    # -lx264 found the system's libx264.so elsewhere: still never the patched one
    pass "stock: stock x264.h + -lx264 links the system's libx264, never $SONAME"
else
    fail "stock: a stock-header program linked against the patched library"; cat "$W/stock.log"
fi

# 5. compile the test program against the patched headers, through x264.pc
# shellcheck disable=SC2086
if "$CC" -std=gnu99 -O1 -Wall -Wextra -Werror $cflags "$TOP/tests/abi_test.c" $libs -o "$W/abi_test" > "$W/compile.log" 2>&1; then
    needed="$(readelf -d "$W/abi_test" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')"
    if echo " $needed" | grep -q " $SONAME " && ! echo " $needed" | grep -q ' libx264\.so'; then
        pass "compile: abi_test needs $SONAME (NEEDED: $needed)"
    else
        fail "compile: abi_test NEEDED: $needed"
    fi
else
    fail "compile: abi_test does not compile/link with pkg-config x264"; cat "$W/compile.log"
fi

# 6. run it
if [ -x "$W/abi_test" ]; then
    resolved="$(LD_LIBRARY_PATH="$P/lib" ldd "$W/abi_test" | grep 'libx264')"
    if LD_LIBRARY_PATH="$P/lib" "$W/abi_test" 6 > "$W/run.out" 2> "$W/run.log" &&
       grep -q '^abi_test: ok' "$W/run.out" && echo "$resolved" | grep -q "=> $P/lib/$SONAME"; then
        pass "run: $(cat "$W/run.out" | sed 's/^abi_test: ok, //'); $(grep -m1 'gpu-me-stats: frames=' "$W/run.log" | sed 's/.*gpu-me-stats: //')"
    else
        fail "run: abi_test failed ($resolved)"; tail -n 5 "$W/run.log" "$W/run.out"
    fi
else
    fail "run: no abi_test"
fi

finish
