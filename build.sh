#!/bin/sh
# build.sh: everything from a fresh checkout to a patched x264 with --gpu-me.
#
#   ./build.sh            install what is missing, get x264, apply patches/
#                         in build/x264-src, build cuda_me and the patched
#                         x264 (build/x264/x264)
#   ./build.sh test       the above, then build and run every test
#   ./build.sh device     also build binaries for the GPU machine (static
#                         cudart, no libav*: build/device/)
#   ./build.sh deps       only install the system packages
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

PACKAGES="build-essential git nasm pkg-config ffmpeg libavformat-dev libavcodec-dev libavutil-dev libswscale-dev check python3 xz-utils valgrind"

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

# x264_build DIR SRC CONFIGURE-ARGS...: out-of-tree build, reconfigured when
# the arguments or the source commit change.
x264_build() {
    dir="$1"; src="$2"; shift 2
    stamp="$src $* $(git -C "$src" rev-parse HEAD 2>/dev/null || echo stock)"
    mkdir -p "$dir"
    if [ "$(cat "$dir/.configured" 2>/dev/null)" != "$stamp" ]; then
        (cd "$dir" && "$src/configure" "$@" > configure.out 2>&1) || { cat "$dir/configure.out"; die "x264 configure failed in $dir"; }
        echo "$stamp" > "$dir/.configured"
    fi
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

# Binaries for the GPU machine: no libav* there; static Check for the tests.
device() {
    x264_build "$B/device/x264" "$SRC" --bit-depth=8 --enable-static --cuda-me-dir="$B" \
        --disable-lavf --disable-ffms --disable-swscale --disable-lsmash --disable-gpac --disable-avs
    make -C "$TOP" "build/tests/test_cuda_me_static" >/dev/null
    say "device binaries: $B/device/x264/x264, $B/tests/test_cuda_me_static, $B/bench/bench_me"
}

# ------------------------------------------------------------------ main

what="${1:-all}"
case "$what" in
    deps) deps ;;
    all)  deps; x264_source; x264_patch; cuda_me; x264_all ;;
    device) deps; x264_source; x264_patch; cuda_me; x264_all; device ;;
    test) deps; x264_source; x264_patch; cuda_me; x264_all; x264_stock
          exec "$TOP/tests/run.sh" ;;
    patches) x264_source; patches ;;
    *) echo "usage: $0 [all|test|device|deps|patches]"; exit 1 ;;
esac
