#!/usr/bin/env python3
"""Decode a clip to 8-bit 4:2:0 y4m with OpenCV, for a GPU host without FFmpeg.

    decode_cv2.py IN OUT.y4m FRAMES [W H X Y]     (optional crop, even values)

Pixels pass through BGR, so they differ slightly from an FFmpeg decode: only
compare encodes made from the same y4m."""
import sys
import cv2

src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
crop = [int(v) for v in sys.argv[4:8]] if len(sys.argv) >= 8 else None
cap = cv2.VideoCapture(src)
out = None
k = 0
while k < n:
    ok, f = cap.read()
    if not ok:
        break
    if crop:
        w, h, x, y = crop
        f = f[y:y + h, x:x + w]
    h, w = f.shape[:2]
    if out is None:
        out = open(dst + '.tmp', 'wb')
        out.write(b'YUV4MPEG2 W%d H%d F25:1 Ip A1:1 C420jpeg\n' % (w, h))
    out.write(b'FRAME\n')
    out.write(cv2.cvtColor(f, cv2.COLOR_BGR2YUV_I420).tobytes())
    k += 1
if out is None:
    sys.exit('decode_cv2: no frame decoded from ' + src)
out.close()
import os
os.replace(dst + '.tmp', dst)
print(dst, k, 'frames')
