# tests/lib.sh: sourced (not run) by tests/*.sh and results/*.sh.
# shellcheck shell=bash
#
#   . "$(dirname "$0")/lib.sh"            (from tests/)
#   . "$(dirname "$0")/../tests/lib.sh"   (from results/)
#
# Sets TOP (the checkout), B (build/), D (decoded clips:
# $CUDA_ME_TEST_DATA, default build/data), X264 (patched x264, default
# build/$X264_TREE/x264 with X264_TREE=x264; the GPU host's scripts set
# X264_TREE=device/x264 before sourcing), STOCK (stock x264) and W (the work
# directory enc writes into: each script sets its own).
#
# Functions:
#   pass MSG / fail MSG       one verdict, counted
#   row CASE EXPECTED OBSERVED OK
#                             a verdict (OK 1 pass, 0 fail) that is also a
#                             row of the CSV table $TABLE when TABLE is set
#   table_init                writes the header of $TABLE
#   truth CMD...              prints 1 when CMD succeeds, else 0 (for row)
#   summary LABEL [NOTE]      prints "LABEL: N passed, N failed"; fails if any failed
#   enc BIN NAME INPUT ARGS...
#                             x264 encodes INPUT (under $D unless absolute or
#                             "-" for stdin) to $W/NAME.264, its reconstruction
#                             to $W/NAME.rec.yuv (not with ENC_DUMP=0), its
#                             log to $W/NAME.log; exit status in $rc;
#                             ENC_TIMEOUT seconds at most (600)
#   decoded NAME [PIX_FMT]    FFmpeg decodes $W/NAME.264 exactly to
#                             NAME.rec.yuv; fails when no decoder is found.
#                             E2E_DECODE=defer (a GPU host without FFmpeg):
#                             keeps NAME.rec.md5 for tests/verify_deferred.sh.
#                             Either way $DECODE_NOTE says what happened.
#   check NAME INPUT ARGS...  $X264 encodes, exit 0, decoded: one verdict
#   encodes CASE NAME [PIX_FMT] [WARNING_REGEX]
#                             after enc: exit 0, decoded, the warning: one row
#   fault_case SPEC WHAT WARNING_REGEX FRAMES INPUT ARGS...
#                             CUDA_ME_FAULT=SPEC during an encode by $X264
#                             into $W/fault_SPEC: encodes (WARNING_REGEX),
#                             then one row: exactly one gpu-me warning, FRAMES
#                             frames
#   same A B WHAT             $W/A.264 and $W/B.264 byte-identical: one verdict
#   kv LOG KEY                the value of KEY on the gpu-me-stats lines
#                             (--gpu-me-stats: key=value) of an x264 log,
#                             its quotes removed; empty where there is none
#   kvn LOG KEY               kv, or 0 where there is none
#   x264_log_stats LOG [FIELD...]
#                             the numbers of an x264 log, comma-separated;
#                             fields frames fps kbps psnr_y ssim_db
#                             gpu_wait_pct (default: all but frames); empty
#                             where the log has none
#   decode_clips DECODER [LINE...]
#                             the decoded test clips in $D, each made (unless
#                             present) by DECODER OUT SRC FRAMES [W H X Y]
#                             (crop); LINEs add clips ("OUT SRC FRAMES ...")

TOP="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
B="$TOP/build"
D="${CUDA_ME_TEST_DATA:-$B/data}"
X264="${X264:-$B/${X264_TREE:-x264}/x264}"
STOCK="${STOCK:-$B/x264-stock/x264}"
W="${W:-$B/work}"
E2E_DECODE="${E2E_DECODE:-ffmpeg}"
TABLE="${TABLE:-}"
npass=0
nfail=0
rc=0
DECODE_NOTE=""

pass() { echo "  ok    $*"; npass=$((npass+1)); }
fail() { echo "  FAIL  $*"; nfail=$((nfail+1)); }

truth() { if "$@"; then echo 1; else echo 0; fi; }

table_init() { echo "case,expected,observed,verdict" > "$TABLE"; }

row() {   # CASE EXPECTED OBSERVED OK(1/0)
    local v=pass
    if [ "$4" = 1 ]; then pass "$1: $3"; else v=FAIL; fail "$1: $3 (expected: $2)"; fi
    if [ -n "$TABLE" ]; then
        printf '"%s","%s","%s",%s\n' "${1//\"/\'}" "${2//\"/\'}" "${3//\"/\'}" "$v" >> "$TABLE"
    fi
}

summary() {   # LABEL [NOTE]
    echo "$1: $npass passed, $nfail failed${2:+ ($2)}"
    [ "$nfail" = 0 ]
}

enc() {   # BIN NAME INPUT ARGS...
    local bin="$1" name="$2" in="$3"; shift 3
    case "$in" in /*|-) ;; *) in="$D/$in" ;; esac
    [ "${ENC_DUMP:-1}" = 0 ] || set -- "$@" --dump-yuv "$W/$name.rec.yuv"
    # ENC_PIN=CPU: the encode pinned to that CPU (taskset), where taskset
    # exists; ENC_ENV="VAR=VALUE ...": set for the encode
    # shellcheck disable=SC2086  # ENC_ENV splits into its assignments
    timeout "${ENC_TIMEOUT:-600}" ${ENC_PIN:+taskset -c "$ENC_PIN"} ${ENC_ENV:+env $ENC_ENV} \
        "$bin" --no-progress "$@" -o "$W/$name.264" "$in" > "$W/$name.log" 2>&1
    rc=$?
    return $rc
}

decoded() {   # NAME [PIX_FMT]
    local n="$W/$1" pixfmt=()
    [ -n "${2:-}" ] && pixfmt=(-pix_fmt "$2")
    if [ ! -s "$n.264" ] || [ ! -s "$n.rec.yuv" ]; then
        DECODE_NOTE="no stream or no reconstruction to compare"; return 1
    fi
    case "$E2E_DECODE" in
    defer)
        md5sum < "$n.rec.yuv" | cut -d' ' -f1 > "$n.rec.md5" || { DECODE_NOTE="md5sum failed"; return 1; }
        DECODE_NOTE="decode deferred ($1.rec.md5 kept for tests/verify_deferred.sh)"
        return 0 ;;
    ffmpeg) ;;
    *) DECODE_NOTE="unknown E2E_DECODE=$E2E_DECODE (ffmpeg or defer)"; return 1 ;;
    esac
    if ! command -v ffmpeg >/dev/null 2>&1; then
        DECODE_NOTE="no decoder: ffmpeg not found (E2E_DECODE=defer defers decodes, for a GPU host only)"
        return 1
    fi
    if ffmpeg -nostdin -loglevel error -y -i "$n.264" -f rawvideo "${pixfmt[@]}" "$n.dec.yuv" &&
            [ -s "$n.dec.yuv" ] && cmp -s "$n.rec.yuv" "$n.dec.yuv"; then
        DECODE_NOTE="decodes exactly"
    else
        DECODE_NOTE="FFmpeg's decode differs from x264's reconstruction"; return 1
    fi
}

check() {   # NAME INPUT ARGS...
    local name="$1"
    if ! enc "$X264" "$@"; then
        shift 2; fail "$name: x264 failed, exit $rc ($*)"; tail -3 "$W/$name.log"; return 1
    fi
    shift 2
    if ! decoded "$name"; then fail "$name: $DECODE_NOTE ($*)"; return 1; fi
    pass "$name: encodes, $DECODE_NOTE ($*)"
}

encodes() {   # CASE NAME [PIX_FMT] [WARNING_REGEX]
    local ok=0 note="exit $rc"
    if [ "$rc" = 0 ]; then
        decoded "$2" "${3:-}" && ok=1
        note="$note, $DECODE_NOTE"
    fi
    if [ -n "${4:-}" ]; then
        if grep -qE "$4" "$W/$2.log"; then note="$note; $(grep -hE "$4" "$W/$2.log" | head -1)"; else ok=0; note="$note; no warning /$4/"; fi
    fi
    row "$1" "exit 0; decode == reconstruction${4:+; warning}" "$note" $ok
}

fault_case() {   # SPEC WHAT WARNING_REGEX FRAMES INPUT ARGS...
    local spec="$1" what="$2" re="$3" want="$4" n="fault_${1/:/_}" warns frames ok=0
    shift 4
    CUDA_ME_FAULT=$spec enc "$X264" "$n" "$@"
    encodes "CUDA_ME_FAULT=$spec, $what" "$n" "" "$re"
    warns=$(grep -c "warning.*gpu-me" "$W/$n.log")
    frames=$(x264_log_stats "$W/$n.log" frames)
    [ "$warns" = 1 ] && [ "$frames" = "$want" ] && ok=1
    row "CUDA_ME_FAULT=$spec: warnings, frames" "exactly 1 warning; $want frames" "$warns warning(s); $frames frames" $ok
}

same() {   # A B WHAT
    if cmp -s "$W/$1.264" "$W/$2.264"; then pass "$3"; else fail "$3"; fi
}

kv() {   # LOG KEY
    tr '\r' '\n' < "$1" | sed -n "s/.*gpu-me-stats:.* $2=\\(\"[^\"]*\"\\|[^ ]*\\).*/\\1/p" | head -n 1 | tr -d '"'
}

kvn() {   # LOG KEY: kv, 0 where there is none (for numeric tests)
    local v
    v="$(kv "$1" "$2")"
    echo "${v:-0}"
}

x264_log_stats() {   # LOG [FIELD...]
    local fields="${*:2}"
    tr '\r' '\n' < "$1" | awk -v fields="${fields:-fps kbps psnr_y ssim_db gpu_wait_pct}" '
        function num(s, key,   i) {   # the number right after key in s
            i = index(s, key); if (!i) return ""
            s = substr(s, i + length(key)); sub(/^ +/, "", s); match(s, /^[0-9.]+/)
            return RSTART ? substr(s, 1, RLENGTH) : ""
        }
        /^encoded [0-9]+ frames, / { v["frames"] = $2; v["fps"] = $4; v["kbps"] = $6 }
        /PSNR Mean Y:/             { v["psnr_y"] = num($0, "PSNR Mean Y:") }
        /SSIM Mean Y:/             { v["ssim_db"] = num(substr($0, index($0, "SSIM Mean Y:")), "(") }
        /gpu-me-stats: .* wait_pct=/ { v["gpu_wait_pct"] = num($0, " wait_pct=") }
        END { n = split(fields, f, " ")
              for (i = 1; i <= n; i++) printf "%s%s", (i > 1 ? "," : ""), v[f[i]]
              print "" }'
}

decode_clips() {   # DECODER [LINE...]
    local dec="$1" out src n crop st=0
    shift
    mkdir -p "$D"
    while read -r out src n crop; do
        [ -z "$out" ] || [ -s "$D/$out" ] && continue
        # shellcheck disable=SC2086
        "$dec" "$D/$out" "$TOP/tests/data/$src" "$n" $crop || { echo "could not decode $src to $D/$out"; st=1; }
    done < <(printf '%s\n' \
        "foreman_cif.y4m BA1_FT_C.264 30" \
        "bus_qcif.y4m test_qcif_cabac.264 30" \
        "mobile_cif.y4m CVPCMNL1_SVA_C.264 20" \
        "carphone_qcif.y4m carphone_pristine.mp4 40" \
        "foreman_346x282.y4m BA1_FT_C.264 12 346 282 2 4" \
        "street_1080p_2.y4m VID_1920x1080_cabac_temporal_direct.264 2" \
        "$@")
    return $st
}
