#!/usr/bin/env python3
"""strip_sei.py IN.264 [OUT]: an Annex-B H.264 stream without its SEI NAL
units (type 6), to OUT or as an md5 on stdout.  Two encodes whose option SEI
texts differ (x264 writes its options into one) compare equal this way when
every picture is the same."""
import hashlib
import sys


def nal_units(data):
    """(start, end) of each NAL unit's bytes after its start code."""
    starts = []
    i = 0
    while True:
        i = data.find(b'\x00\x00\x01', i)
        if i < 0:
            break
        starts.append(i + 3)
        i += 3
    for k, s in enumerate(starts):
        e = starts[k + 1] - 3 if k + 1 < len(starts) else len(data)
        # a 4-byte start code leaves a zero before the next unit's 3 bytes
        while e > s and data[e - 1] == 0 and k + 1 < len(starts):
            e -= 1
        yield s, e


def main():
    data = open(sys.argv[1], 'rb').read()
    out = bytearray()
    for s, e in nal_units(data):
        if s < e and (data[s] & 0x1f) != 6:
            out += b'\x00\x00\x00\x01' + data[s:e]
    if len(sys.argv) > 2:
        open(sys.argv[2], 'wb').write(out)
    else:
        print(hashlib.md5(out).hexdigest())


if __name__ == '__main__':
    main()
