#!/bin/sh
# build.sh: everything from a fresh checkout to a patched x264 with --gpu-me.
#
#   ./build.sh            install what is missing, get x264, apply patches/
#                         in build/x264-src, build cuda_me and the patched
#                         x264 (build/x264/x264)
#   ./build.sh test       the above, stock x264 and FFmpeg, then build and
#                         run every test
#   ./build.sh device     also build binaries for a GPU host (static
#                         cudart, no libav*: build/device/, with
#                         build/device/ffmpeg/ffmpeg, and
#                         build/device/x264-oldarch/x264: kernels for sm_100
#                         only, OLDARCH_CUDA_ARCH=LIST for others)
#   ./build.sh ffmpeg     also build FFmpeg (Debian's source package, 5.1.x)
#                         with the patched static libx264: build/ffmpeg/ffmpeg
#   ./build.sh deps       only install the system packages
#   ./build.sh experiment also build/x264-exp/x264: the series plus the
#                         developer-only patches/experiments (environment
#                         switches for A/B runs of each rule; the tests use
#                         them too), and build/device/x264-exp/x264
#   ./build.sh patches    export the commits of build/x264-src on top of the
#                         pinned x264 into patches/ (the edit loop: README)
#
# The x264 submodule is never modified: the patched tree is build/x264-src,
# a git repository whose tag cuda-me-base is x264 baee400.  Re-running is
# safe: each step is skipped when its result is up to date.

set -eu
cd "$(dirname "$0")"
TOP="$(pwd)"
B="$TOP/build"
SRC="$B/x264-src"   # the patched x264 tree (git, tag cuda-me-base = baee400)

X264_COMMIT=baee400fa9ced6f5481a728138fed6e867b0ff7f
X264_DEB_VERSION=2:0.164.3095+gitbaee400-3
X264_DEB_ORIG=x264_0.164.3095+gitbaee400.orig.tar.gz
JOBS="$(nproc 2>/dev/null || echo 2)"

say() { echo "build.sh: $*"; }
die() { echo "build.sh: error: $*" >&2; exit 1; }

# ------------------------------------------------------------------ packages

PACKAGES="build-essential git nasm pkg-config ffmpeg libavformat-dev libavcodec-dev libavutil-dev libswscale-dev check python3 python3-venv xz-utils valgrind"

deps() {
    missing=""
    for p in $PACKAGES; do
        dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
    done
    [ -z "$missing" ] && return 0
    say "installing:$missing"
    [ "$(id -u)" = 0 ] || die "missing packages:$missing (run as root, or install them)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null || die "apt-get update failed"
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $missing >/dev/null || die "apt-get install$missing failed"
}

# ------------------------------------------------------------------ x264 source

# A deb-src list made from the machine's own Debian sources: every "deb"
# entry (deb822 .sources files and one-line .list files) with its type
# changed to deb-src.  Nothing is written outside build/.
debian_sources() {
    d="$1"
    mkdir -p "$d/parts" "$d/lists/partial" "$d/cache/archives/partial"
    : > "$d/sources.list"
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] || continue
        sed -e 's/^Types:.*/Types: deb-src/' "$f" > "$d/parts/$(basename "$f")"
    done
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -f "$f" ] || continue
        sed -n -e 's/^[[:space:]]*deb[[:space:]]/deb-src /p' "$f" >> "$d/sources.list"
    done
    ls "$d"/parts/*.sources >/dev/null 2>&1 || [ -s "$d/sources.list" ] || die "no Debian sources configured in /etc/apt"
}

x264_from_debian() {
    d="$B/debsrc"
    say "x264 submodule not reachable: using Debian's source package x264 $X264_DEB_VERSION"
    debian_sources "$d"
    apt_opts="-o Dir::Etc::SourceList=$d/sources.list -o Dir::Etc::SourceParts=$d/parts \
              -o Dir::State::Lists=$d/lists -o Dir::Cache=$d/cache -o APT::Sandbox::User=root"
    # shellcheck disable=SC2086
    apt-get $apt_opts update -qq >/dev/null 2>&1 || die "apt-get update of the deb-src list failed"
    # shellcheck disable=SC2086
    (cd "$d" && apt-get $apt_opts source --download-only -qq "x264=$X264_DEB_VERSION" >/dev/null 2>&1) ||
        die "apt-get source x264=$X264_DEB_VERSION failed"
    [ -f "$d/$X264_DEB_ORIG" ] || die "$X264_DEB_ORIG missing after apt-get source"
    # Debian's patches are not applied: the orig tarball is upstream baee400.
    rm -rf "$SRC" && mkdir -p "$SRC"
    tar -xzf "$d/$X264_DEB_ORIG" -C "$SRC" --strip-components=1
    (cd "$SRC" && git init -q && git add -A &&
     GIT_AUTHOR_DATE="2021-06-13T12:00:00Z" GIT_COMMITTER_DATE="2021-06-13T12:00:00Z" \
     git -c user.name=x264 -c user.email=x264@localhost commit -q -m "x264 r3095 baee400 (Debian orig tarball $X264_DEB_VERSION)")
}

x264_source() {
    if git -C "$SRC" rev-parse -q --verify cuda-me-base >/dev/null 2>&1; then
        return 0
    fi
    rm -rf "$SRC"
    if timeout 120 git -C "$TOP" submodule update --init x264 >/dev/null 2>&1 &&
       [ "$(git -C "$TOP/x264" rev-parse HEAD 2>/dev/null)" = "$X264_COMMIT" ]; then
        say "x264: submodule at $X264_COMMIT"
        git clone -q --no-checkout "$TOP/x264" "$SRC" && git -C "$SRC" checkout -q --detach "$X264_COMMIT" ||
            die "cannot clone the x264 submodule into $SRC"
    else
        x264_from_debian
        # Debian's version.sh is a fixed script: it must name r3095 baee400.
        (cd "$SRC" && sh ./version.sh) | grep -q '"0.164.3095 baee400"' ||
            die "$SRC/version.sh does not report 0.164.3095 baee400"
    fi
    grep -q '^#define X264_BUILD 164$' "$SRC/x264.h" || die "$SRC/x264.h is not X264_BUILD 164"
    git -C "$SRC" tag -f cuda-me-base HEAD >/dev/null
}

patches_hash() {
    cat "$TOP"/patches/*.patch | sha256sum | cut -d' ' -f1
}

# git in the patched tree, with a fixed identity (commits made by git am)
xgit() {
    git -C "$SRC" -c user.name=cuda_me -c user.email=cuda_me@localhost "$@"
}

x264_patch() {
    want="$(patches_hash)"
    have="$(xgit config --get cuda-me.patches 2>/dev/null || true)"
    [ "$want" = "$have" ] && return 0
    if [ -n "$(xgit status --porcelain --untracked-files=no)" ]; then
        die "$SRC has uncommitted changes: commit them and run ./build.sh patches, or reset that tree"
    fi
    applied="$(xgit config --get cuda-me.head 2>/dev/null || true)"
    if [ -n "$applied" ] && [ "$(xgit rev-parse HEAD)" != "$applied" ]; then
        die "$SRC has commits that are not in patches/: run ./build.sh patches first, or reset that tree"
    fi
    say "applying patches/ to $SRC"
    xgit am --abort >/dev/null 2>&1 || true
    xgit reset -q --hard cuda-me-base
    # git am applies a patch only if its context matches exactly: no fuzz.
    if ! xgit am -q --committer-date-is-author-date "$TOP"/patches/*.patch; then
        xgit am --abort >/dev/null 2>&1 || true
        die "patches/ do not apply cleanly to x264 $X264_COMMIT"
    fi
    xgit config cuda-me.patches "$want"
    xgit config cuda-me.head "$(xgit rev-parse HEAD)"
}

patches() {   # DIR
    xgit format-patch -q --zero-commit --no-signature --full-index -o "$1" cuda-me-base..HEAD
}

patches() {
    [ -z "$(xgit status --porcelain --untracked-files=no)" ] || die "$SRC has uncommitted changes: commit them first"
    tmp="$B/patches.tmp"
    rm -rf "$tmp"
    "$TOP/tests/check_patches.sh" --export "$tmp"
    ls "$tmp"/*.patch >/dev/null 2>&1 || die "no commits on top of cuda-me-base in $SRC"
    rm -f "$TOP"/patches/*.patch
    mv "$tmp"/*.patch "$TOP/patches/"
    rmdir "$tmp"
    xgit config cuda-me.patches "$(patches_hash)"
    xgit config cuda-me.head "$(xgit rev-parse HEAD)"
    "$TOP/tests/check_patches.sh" || die "the exported series fails tests/check_patches.sh"
    say "patches/: $(ls "$TOP"/patches/*.patch | wc -l) patches from $SRC"
}

# ------------------------------------------------------------------ builds

cuda_me() {
    if [ ! -f "$TOP/config.mak" ] || [ "$TOP/configure" -nt "$TOP/config.mak" ]; then
        "$TOP/configure"
    fi
    make -C "$TOP" -j"$JOBS" lib tests bench >/dev/null || { make -C "$TOP" lib tests bench; die "cuda_me build failed"; }
}

# x264_build DIR SRC CONFIGURE-ARGS...: out-of-tree build, reconfigured and
# rebuilt from clean when the arguments, the source commit or cuda_me.h
# change (x264's dependencies do not follow the installed cuda_me.h).
x264_build() {
    dir="$1"; src="$2"; shift 2
    hdr=""
    for a in "$@"; do
        case "$a" in --cuda-me-dir=*) hdr="$(md5sum < "${a#--cuda-me-dir=}/include/cuda_me.h" 2>/dev/null | cut -c1-12)" ;; esac
    done
    stamp="$src $* $(git -C "$src" rev-parse HEAD 2>/dev/null || echo stock)${hdr:+ cuda_me.h $hdr}"
    mkdir -p "$dir"
    if [ "$(cat "$dir/.configured" 2>/dev/null)" != "$stamp" ]; then
        [ -f "$dir/Makefile" ] && make -C "$dir" clean >/dev/null 2>&1
        (cd "$dir" && "$src/configure" "$@" > configure.out 2>&1) || { cat "$dir/configure.out"; die "x264 configure failed in $dir"; }
        echo "$stamp" > "$dir/.configured"
    fi
    # x264's Makefile does not know libcuda_me.a: relink what is older
    for a in "$@"; do
        case "$a" in --cuda-me-dir=*)
            lib="${a#--cuda-me-dir=}/lib/libcuda_me.a"
            for f in "$dir/x264" "$dir/checkasm8" "$dir"/libx264*.so*; do
                [ -f "$f" ] && [ -f "$lib" ] && [ "$lib" -nt "$f" ] && rm -f "$f"
            done ;;
        esac
    done
    make -C "$dir" -j"$JOBS" >/dev/null 2>"$dir/make.err" || { cat "$dir/make.err"; die "x264 build failed in $dir"; }
}

x264_all() {
    x264_build "$B/x264" "$SRC" --bit-depth=8 --enable-static --cuda-me-dir="$B"
    grep -q '^HAVE_CUDA_ME=yes' "$B/x264/config.mak" || die "x264 was configured without cuda_me (see $B/x264/config.log)"
    say "patched x264: $B/x264/x264 ($(grep '^cuda-me:' "$B/x264/configure.out" | sed 's/  */ /g'))"
}

# Stock x264 baee400, unpatched, for the byte-identity test.
x264_stock() {
    src="$B/x264-stock-src"
    if [ "$(cat "$src/.base" 2>/dev/null)" != "$(git -C "$SRC" rev-parse cuda-me-base)" ]; then
        rm -rf "$src" && mkdir -p "$src"
        git -C "$SRC" archive cuda-me-base | tar -x -C "$src"
        git -C "$SRC" rev-parse cuda-me-base > "$src/.base"
    fi
    x264_build "$B/x264-stock" "$src" --bit-depth=8 --enable-static --disable-cuda-me
}

# Binaries for the GPU host: no libav* there; static Check for the tests;
# stock x264 beside the patched one, for the benchmarks' anchors.
DEVICE_X264_FLAGS="--disable-lavf --disable-ffms --disable-swscale --disable-lsmash --disable-gpac --disable-avs"
device() {
    # shellcheck disable=SC2086
    x264_build "$B/device/x264" "$SRC" --bit-depth=8 --enable-static --cuda-me-dir="$B" $DEVICE_X264_FLAGS
    # shellcheck disable=SC2086
    x264_build "$B/device/x264-stock" "$B/x264-stock-src" --bit-depth=8 --enable-static --disable-cuda-me $DEVICE_X264_FLAGS
    make -C "$TOP" "build/tests/test_cuda_me_static" >/dev/null
    say "device binaries: $B/device/x264/x264, $B/device/x264-stock/x264, $B/tests/test_cuda_me_static, $B/bench/bench_me"
    device_oldarch
}

# A device x264 whose kernels the H200 (compute capability 9.0) cannot run:
# cuda_me built with --cuda-arch=$OLDARCH_CUDA_ARCH (100: sm_100 SASS and PTX
# compute_100, which sm_90 cannot JIT) in build/oldarch, x264 in
# build/device/x264-oldarch (tests/device.sh oldarch).
device_oldarch() {
    a="${OLDARCH_CUDA_ARCH:-100}"
    d="$B/oldarch"
    grep -q '^HAVE_CUDA=yes' "$TOP/config.mak" || { say "no nvcc: no x264-oldarch"; return 0; }
    mkdir -p "$d/cfg"
    (cd "$d/cfg" && "$TOP/configure" --cuda-arch="$a" > configure.out) || die "configure --cuda-arch=$a failed"
    nv="$(sed -n 's/^NVCCFLAGS=//p' "$d/cfg/config.mak")"
    cf="$(sed -n 's/^CUDA_CFLAGS=//p' "$d/cfg/config.mak")"
    # objects of other flags (another OLDARCH_CUDA_ARCH) are rebuilt
    [ "$(cat "$d/.flags" 2>/dev/null)" = "$nv" ] || rm -rf "${d:?}/obj" "${d:?}/lib" "${d:?}/include"
    make -C "$TOP" -j"$JOBS" B="$d" NVCCFLAGS="$nv" CUDA_CFLAGS="$cf" lib >/dev/null || die "cuda_me build (--cuda-arch=$a) failed"
    echo "$nv" > "$d/.flags"
    x264_build "$B/device/x264-oldarch" "$SRC" --bit-depth=8 --enable-static --cuda-me-dir="$d" \
        --disable-lavf --disable-ffms --disable-swscale --disable-lsmash --disable-gpac --disable-avs
    say "device x264 with kernels for $(sed -n 's/^ *arch: *//p' "$d/cfg/configure.out") only: $B/device/x264-oldarch/x264"
}

# ------------------------------------------------------------------ FFmpeg

FFMPEG_DEB_SERIES="7:5.1."   # bookworm's ffmpeg; whichever 5.1.x the archive has
FFMPEG_SRC="$B/ffmpeg-src"

# Debian's source package ffmpeg, through the same deb-src list as x264
# (debian_sources), extracted by dpkg-source (Debian's patches applied) into
# build/ffmpeg-src.  Fetched once: delete build/ffmpeg-src to fetch again.
ffmpeg_source() {
    [ -f "$FFMPEG_SRC/.debian-version" ] && return 0
    d="$B/debsrc"
    debian_sources "$d"
    apt_opts="-o Dir::Etc::SourceList=$d/sources.list -o Dir::Etc::SourceParts=$d/parts \
              -o Dir::State::Lists=$d/lists -o Dir::Cache=$d/cache -o APT::Sandbox::User=root"
    # shellcheck disable=SC2086
    apt-get $apt_opts update -qq >/dev/null 2>&1 || die "apt-get update of the deb-src list failed"
    rm -rf "$d/ffmpeg" && mkdir -p "$d/ffmpeg"
    # shellcheck disable=SC2086
    (cd "$d/ffmpeg" && apt-get $apt_opts source --download-only -qq ffmpeg >/dev/null 2>&1) ||
        die "apt-get source ffmpeg failed"
    dsc="$(ls "$d"/ffmpeg/ffmpeg_*.dsc 2>/dev/null | head -n 1)"
    [ -n "$dsc" ] || die "no ffmpeg .dsc after apt-get source ffmpeg"
    version="$(sed -n 's/^Version: //p' "$dsc")"
    case "$version" in
        "$FFMPEG_DEB_SERIES"*) ;;
        *) die "Debian's ffmpeg source package is $version, not ${FFMPEG_DEB_SERIES}x (bookworm)" ;;
    esac
    say "FFmpeg: Debian's source package ffmpeg $version"
    rm -rf "$FFMPEG_SRC" "$FFMPEG_SRC.tmp"
    dpkg-source -x "$dsc" "$FFMPEG_SRC.tmp" >"$d/ffmpeg/dpkg-source.out" 2>&1 ||
        { cat "$d/ffmpeg/dpkg-source.out"; die "dpkg-source -x $dsc failed"; }
    echo "$version" > "$FFMPEG_SRC.tmp/.debian-version"
    mv "$FFMPEG_SRC.tmp" "$FFMPEG_SRC"
}

# ffmpeg_x264 XDIR PREFIX: the static patched libx264 of the x264 build XDIR
# as FFmpeg sees it: PREFIX/include, PREFIX/lib/libx264.a and a private
# PREFIX/lib/pkgconfig/x264.pc (x264's own, whose Libs name libcuda_me.a and
# cuda_me.libs).  Unchanged files keep their time stamps.
ffmpeg_x264() {
    xdir="$1"; p="$2"
    make -C "$xdir" -s install-lib-static prefix="$p" INSTALL="install -C" RANLIB= >/dev/null ||
        die "cannot install $xdir's libx264 into $p"
    sed "s|^prefix=.*|prefix=$p|" "$xdir/x264.pc" > "$p/lib/pkgconfig/x264.pc.tmp"
    mv "$p/lib/pkgconfig/x264.pc.tmp" "$p/lib/pkgconfig/x264.pc"
    grep -q -e '-lcuda_me' "$p/lib/pkgconfig/x264.pc" || die "$p/lib/pkgconfig/x264.pc does not link cuda_me"
}

# Only what encoding with libx264 needs: local files and pipes; mp4/mov,
# Matroska, raw H.264/HEVC, y4m and raw video in; H.264, HEVC, MPEG-4, VP9
# and raw video decoders (and AAC, so that a clip with sound encodes without
# -an); libx264 (and AAC) out into mp4/mov, Matroska, raw H.264, raw video or
# null; no autodetected system library, no docs, no ffplay/ffprobe.
FFMPEG_CONFIG="--disable-everything --disable-autodetect --disable-network --disable-doc
    --disable-ffplay --disable-ffprobe --disable-avdevice --disable-postproc --disable-debug
    --enable-gpl --enable-libx264 --pkg-config-flags=--static
    --enable-protocol=file,pipe
    --enable-demuxer=mov,matroska,h264,hevc,yuv4mpegpipe,rawvideo
    --enable-parser=h264,hevc,mpeg4video,vp9,aac
    --enable-decoder=h264,hevc,mpeg4,vp9,rawvideo,aac
    --enable-encoder=libx264,aac,rawvideo,wrapped_avframe
    --enable-muxer=mp4,mov,matroska,h264,rawvideo,null
    --enable-filter=scale,format,null,aresample,aformat,anull"

# ffmpeg_build DIR X264-PREFIX [CONFIGURE-ARGS...]: out-of-tree build of
# build/ffmpeg-src, reconfigured when the arguments, the source or x264.pc
# change, relinked when libx264.a or libcuda_me.a is newer than the binary.
ffmpeg_build() {
    dir="$1"; xp="$2"; shift 2
    pc="$xp/lib/pkgconfig"
    # shellcheck disable=SC2086
    set -- $FFMPEG_CONFIG "$@"
    stamp="$(cat "$FFMPEG_SRC/.debian-version") $* $(sha256sum < "$pc/x264.pc")"
    mkdir -p "$dir"
    if [ "$(cat "$dir/.configured" 2>/dev/null)" != "$stamp" ]; then
        say "configuring FFmpeg in $dir"
        rm -f "$dir/.configured"
        (cd "$dir" && PKG_CONFIG_LIBDIR="$pc" PKG_CONFIG_PATH="" "$FFMPEG_SRC/configure" "$@" > configure.out 2>&1) ||
            { tail -n 40 "$dir/ffbuild/config.log" 2>/dev/null; cat "$dir/configure.out"; die "FFmpeg configure failed in $dir"; }
        echo "$stamp" > "$dir/.configured"
    fi
    # FFmpeg's Makefile does not know external libraries: relink by hand.
    for l in "$xp/lib/libx264.a" "$B/lib/libcuda_me.a"; do
        [ "$l" -nt "$dir/ffmpeg_g" ] && rm -f "$dir/ffmpeg" "$dir/ffmpeg_g"
    done
    make -C "$dir" -j"$JOBS" >/dev/null 2>"$dir/make.err" || { tail -n 60 "$dir/make.err"; die "FFmpeg build failed in $dir"; }
    "$dir/ffmpeg" -hide_banner -buildconf | grep -q -e '--enable-libx264' || die "$dir/ffmpeg was built without libx264"
}

ffmpeg_all() {
    ffmpeg_source
    ffmpeg_x264 "$B/x264" "$B/ffmpeg-x264"
    start=$(date +%s)
    ffmpeg_build "$B/ffmpeg" "$B/ffmpeg-x264"
    say "FFmpeg $(cat "$FFMPEG_SRC/.debian-version") with the patched libx264: $B/ffmpeg/ffmpeg ($(( $(date +%s) - start )) s)"
}

# A GPU host may lack FFmpeg libraries and nasm: build/ffmpeg/ffmpeg
# links FFmpeg, libx264, cuda_me and the CUDA runtime statically and nothing
# outside the C/C++ runtime dynamically (checked), so it is that binary.
ffmpeg_device() {
    needed="$(readelf -d "$B/ffmpeg/ffmpeg" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')"
    for n in $needed; do
        case "$n" in
            libc.so.*|libm.so.*|libdl.so.*|librt.so.*|libpthread.so.*|libstdc++.so.*|libgcc_s.so.*|ld-linux*) ;;
            *) die "$B/ffmpeg/ffmpeg needs $n: not for a host without FFmpeg" ;;
        esac
    done
    mkdir -p "$B/device/ffmpeg"
    cmp -s "$B/ffmpeg/ffmpeg" "$B/device/ffmpeg/ffmpeg" || cp "$B/ffmpeg/ffmpeg" "$B/device/ffmpeg/ffmpeg"
    say "device FFmpeg: $B/device/ffmpeg/ffmpeg (needs only: $(echo $needed))"
}

# The series plus patches/experiments, in a tree of its own: developer-only
# switches that the shipped glue does not carry (DEVICE=1: for the GPU host
# too).
x264_experiment() {
    src="$B/x264-exp-src"
    want="$(xgit rev-parse HEAD) $(cat "$TOP"/patches/experiments/*.patch | sha256sum | cut -d' ' -f1)"
    if [ "$(cat "$B/x264-exp-src.stamp" 2>/dev/null)" != "$want" ]; then
        rm -rf "$src"
        git clone -q --shared --no-checkout "$SRC" "$src" && git -C "$src" checkout -q --detach "$(xgit rev-parse HEAD)" &&
            git -C "$src" -c user.name=cuda_me -c user.email=cuda_me@localhost \
                am -q --committer-date-is-author-date "$TOP"/patches/experiments/*.patch ||
            die "patches/experiments do not apply on top of the series"
        echo "$want" > "$B/x264-exp-src.stamp"
    fi
    x264_build "$B/x264-exp" "$src" --bit-depth=8 --enable-static --cuda-me-dir="$B"
    say "x264 with the developer-only experiments: $B/x264-exp/x264"
    [ "${DEVICE:-0}" = 1 ] || return 0
    # shellcheck disable=SC2086
    x264_build "$B/device/x264-exp" "$src" --bit-depth=8 --enable-static --cuda-me-dir="$B" $DEVICE_X264_FLAGS
    say "and for the GPU host: $B/device/x264-exp/x264"
}

# ------------------------------------------------------------------ main

what="${1:-all}"
case "$what" in
    deps) deps ;;
    all)  deps; x264_source; x264_patch; cuda_me; x264_all ;;
    device) deps; x264_source; x264_patch; cuda_me; x264_all; x264_stock; device; DEVICE=1 x264_experiment
            ffmpeg_all; ffmpeg_device ;;
    ffmpeg) deps; x264_source; x264_patch; cuda_me; x264_all; ffmpeg_all ;;
    test) deps; x264_source; x264_patch; cuda_me; x264_all; x264_stock; x264_experiment; ffmpeg_all
          exec "$TOP/tests/run.sh" ;;
    experiment) deps; x264_source; x264_patch; cuda_me; x264_all; DEVICE=1 x264_experiment ;;
    patches) x264_source; patches ;;
    *) echo "usage: $0 [all|test|device|ffmpeg|experiment|deps|patches]"; exit 1 ;;
esac
