#!/bin/sh
# tests/check_patches.sh: patches/ is a text-only series of source changes,
# and applying it to x264 baee400 then exporting it again gives the same
# bytes (the edit loop of README's "Changing the x264 glue" is a fixed point).
#
#   tests/check_patches.sh              check (needs build/x264-src, made by ./build.sh)
#   tests/check_patches.sh --export DIR export the commits of build/x264-src on
#                                       top of cuda-me-base into DIR (build.sh patches)
set -u
TOP="$(cd "$(dirname "$0")/.." && pwd)"
SRC="${X264_SRC:-$TOP/build/x264-src}"

# The one definition of how the series is exported: no commit hashes, no
# "n/m" in subjects (adding a patch leaves the others alone), full
# blob ids (abbreviations depend on the repository), no version signature.
export_series() {   # REPO DIR
    git -C "$1" format-patch -q --no-numbered --zero-commit --no-signature --full-index -o "$2" cuda-me-base..HEAD
}

if [ "${1:-}" = "--export" ]; then
    export_series "$SRC" "${2:?usage: check_patches.sh --export DIR}"
    exit
fi

npass=0
nfail=0
pass() { echo "  ok    $*"; npass=$((npass+1)); }
fail() { echo "  FAIL  $*"; nfail=$((nfail+1)); }

# 1. Text only, sources only (the series, and the developer-only
# experiments applied on top of it by ./build.sh experiment).
for p in "$TOP"/patches/*.patch "$TOP"/patches/experiments/*.patch; do
    [ -f "$p" ] || continue
    n="$(basename "$p")"
    if grep -q -e '^GIT binary patch' -e '^Binary files ' "$p"; then
        fail "$n: contains a binary hunk"
    elif LC_ALL=C grep -q "$(printf '\r')" "$p" || ! LC_ALL=C tr -d '\000' < "$p" | cmp -s - "$p"; then
        fail "$n: contains NUL or CR bytes"
    else
        bad="$(sed -n 's|^diff --git a/\([^ ]*\) b/.*|\1|p' "$p" |
               grep -E '\.(o|a|so|so\.[0-9.]*|dll|exe|obj|lib|pyc|d)$|(^|/)(config\.h|config\.mak|config\.log|x264_config\.h|\.depend|oclobj\.h)$' || true)"
        if [ -n "$bad" ]; then
            fail "$n: adds build output: $(echo $bad)"
        else
            pass "$n: text, sources only ($(grep -c '^diff --git' "$p") files)"
        fi
    fi
done

# 2. A series a maintainer can review: at most 10 patches, subjects of at
# most 72 characters, no environment switches in the shipped glue (those
# live in patches/experiments), no words of the project's own history.
n="$(ls "$TOP"/patches/*.patch 2>/dev/null | wc -l)"
if [ "$n" -ge 1 ] && [ "$n" -le 10 ]; then pass "$n patches (at most 10)"; else fail "$n patches: expected 1 to 10"; fi
for p in "$TOP"/patches/*.patch "$TOP"/patches/experiments/*.patch; do
    [ -f "$p" ] || continue
    subj="$(sed -n '/^Subject: /{s/^Subject: //;s/^\[PATCH[^]]*\] *//;N;s/\n / /;s/\n.*//;p;q}' "$p")"
    [ "${#subj}" -le 72 ] || fail "$(basename "$p"): subject of ${#subj} characters: $subj"
    if grep -n -i -E 'se[s]sion|device c[a]ll|gpu m[a]chine|validati[o]n[0-9]|iss[u]e [0-9]|results/' "$p" | grep -v '^[0-9]*:[- ]' >/dev/null; then
        fail "$(basename "$p"): words of the project's history or results/ paths: $(grep -i -E -m1 'se[s]sion|device c[a]ll|gpu m[a]chine|validati[o]n[0-9]|iss[u]e [0-9]|results/' "$p")"
    fi
done
if grep -l '^+.*getenv' "$TOP"/patches/*.patch >/dev/null 2>&1; then
    fail "getenv in the shipped series: $(grep -l '^+.*getenv' "$TOP"/patches/*.patch | xargs -n1 basename)"
else
    pass "no getenv in the shipped series"
fi

# 3. Apply then export: the same bytes.
if git -C "$SRC" rev-parse -q --verify cuda-me-base >/dev/null 2>&1; then
    tmp="$(mktemp -d)"
    git clone -q --shared --no-checkout "$SRC" "$tmp/x264" &&
        git -C "$tmp/x264" checkout -q --detach cuda-me-base &&
        git -C "$tmp/x264" -c user.name=cuda_me -c user.email=cuda_me@localhost \
            am -q --committer-date-is-author-date "$TOP"/patches/*.patch &&
        export_series "$tmp/x264" "$tmp/out"
    if [ $? != 0 ]; then
        fail "patches/ do not apply to cuda-me-base"
    elif diff -r -q "$TOP/patches" "$tmp/out" -x '*.md' -x series -x experiments >/dev/null; then
        pass "apply + export is a fixed point ($(ls "$tmp/out" | wc -l) patches)"
    else
        fail "apply + export changes patches/ (run ./build.sh patches):"
        diff -r -u "$TOP/patches" "$tmp/out" -x '*.md' -x series -x experiments | head -20
    fi
    if ls "$TOP"/patches/experiments/*.patch >/dev/null 2>&1; then
        if git -C "$tmp/x264" -c user.name=cuda_me -c user.email=cuda_me@localhost \
               am -q --committer-date-is-author-date "$TOP"/patches/experiments/*.patch; then
            pass "patches/experiments apply on top of the series ($(ls "$TOP"/patches/experiments/*.patch | wc -l))"
        else
            fail "patches/experiments do not apply on top of the series"
        fi
    fi
    rm -rf "$tmp"
else
    fail "no $SRC with tag cuda-me-base: run ./build.sh first"
fi

echo "patches: $npass passed, $nfail failed"
[ "$nfail" = 0 ]
