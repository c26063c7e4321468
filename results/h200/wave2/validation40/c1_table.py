#!/usr/bin/env python3
# c1_table.py c1/bench.txt: the medians of c01.sh's three timings and the
# kernels of before issue 13, per size and range (c1/bench.md).
import collections,statistics,sys
d=collections.defaultdict(list)
for l in open(sys.argv[1]):
    f=l.split()
    rep,sz,r,tag=f[:4]
    kind=f[7]
    if kind=='2': kind='2cands'; val=float(f[9])
    else: val=float(f[8])
    d[(sz,int(r),tag,kind)].append(val)
share={('720p',16):0.040,('720p',32):0.110,('720p',64):0.419,('1080p',16):0.09,('1080p',32):0.25,('1080p',64):0.95,('2160p',16):0.357,('2160p',32):0.993,('2160p',64):3.77}
print("| size | range | target (share) | events | GPU time (-b) | streamed (-P 16) | old events | old -b | new/old events | new/old -b | streamed spread |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for sz in ['720p','1080p','2160p']:
  for r in [16,32,64]:
    m=lambda t,k: statistics.median(d[(sz,r,t,k)])
    ne,nb,ns,oe,ob=m('new-ev','total'),m('new-b','total'),m('new-b','streamed'),m('old-ev','total'),m('old-b','total')
    s=d[(sz,r,'new-b','streamed')]
    print(f"| {sz} | +-{r} | {share[(sz,r)]} | {ne:.4f} | {nb:.4f} | {ns:.4f} | {oe:.4f} | {ob:.4f} | {ne/oe:.3f} | {nb/ob:.3f} | {min(s):.4f}-{max(s):.4f} |")
