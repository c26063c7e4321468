#!/bin/bash
# call 2b (session 20, warm after call 2, af041e4's binaries): which
# variant for +-8 (pass 2 of two candidates at range 16), and one-warp
# blocks there.  Run as one command line; output in c2b/bench_r8.txt.
for rep in 1 2; do for v in 12 7 13 10 6 4 3; do build/bench/bench_me -q -s 1080p -r 8 -v $v 2>&1 | awk '$4=="total"'; done; for u in 1 2; do build/bench/bench_me -q -s 1080p -r 8 -v 12 -g 32,$u 2>&1 | awk -v u=$u '$4=="total"{print "g32,"u, $0}'; build/bench/bench_me -q -s 1080p -r 8 -v 7 -g 32,$u 2>&1 | awk -v u=$u '$4=="total"{print "g32,"u, $0}'; done; done
