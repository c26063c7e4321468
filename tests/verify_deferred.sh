#!/bin/bash
# tests/verify_deferred.sh DIR: the decode checks a GPU host deferred.
#
# There (no FFmpeg), E2E_DECODE=defer keeps each stream NAME.264 with the md5
# of x264's reconstruction, NAME.rec.md5 (tests/device.sh e2e, results/
# reliability_gpu.sh).  Here FFmpeg decodes every NAME.264 in DIR; the md5 of
# the decode must equal NAME.rec.md5.  A stream without its md5, or no
# FFmpeg, is a failure.
set -u
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"
dir="${1:?usage: verify_deferred.sh DIR}"
command -v ffmpeg >/dev/null 2>&1 || { fail "no decoder: ffmpeg not found"; summary verify_deferred; exit; }

shopt -s nullglob
streams=("$dir"/*.264)
[ ${#streams[@]} -gt 0 ] || fail "no streams (*.264) in $dir"
for s in "${streams[@]}"; do
    n="${s%.264}"
    name="$(basename "$n")"
    if [ ! -s "$n.rec.md5" ]; then fail "$name: no $name.rec.md5"; continue; fi
    want="$(cat "$n.rec.md5")"
    if got="$(set -o pipefail; ffmpeg -nostdin -loglevel error -i "$s" -f rawvideo - | md5sum | cut -d' ' -f1)" &&
            [ "$got" = "$want" ]; then
        pass "$name: FFmpeg's decode equals x264's reconstruction (md5 $got)"
    else
        fail "$name: FFmpeg's decode md5 $got, reconstruction $want"
    fi
done
summary verify_deferred "$dir"
