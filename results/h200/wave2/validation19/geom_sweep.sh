#!/bin/bash
# Geometry sweep of the search kernel (issue 13): for each "RANGE:VARIANT"
# and each threads-per-block NT and runs-per-thread U, bench_me -q -s 1080p
# -r RANGE -v VARIANT -g NT,U; prints "range variant nt u ms" (ms: total
# kernel ms per frame, median) or "... fail".  Also the library's own
# geometry ("auto").
#   geom_sweep.sh BENCH "16:7 32:6 64:4" "32 64 96 128" "2 3 4 ... 16"
BENCH=$1
for rv in $2; do
    r=${rv%%:*}; v=${rv##*:}
    ms=$("$BENCH" -q -s 1080p -r "$r" -v "$v" 2>/dev/null | awk '$4 == "total" {print $5; exit}')
    echo "$r $v auto auto ${ms:-fail}"
    for nt in $3; do
        for u in $4; do
            ms=$("$BENCH" -q -s 1080p -r "$r" -v "$v" -g "$nt,$u" 2>/dev/null | awk '$4 == "total" {print $5; exit}')
            echo "$r $v $nt $u ${ms:-fail}"
        done
    done
done
