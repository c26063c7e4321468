#!/usr/bin/env python3
"""Make a benchmark clip from a decoded 8-bit 4:2:0 y4m (results/run.sh).

    y4m_clip.py IN.y4m OUT.y4m FRAMES [--scale S] [--crop WxH]

FRAMES frames are written; when IN has fewer, it is played forward then
backward, again and again (a palindrome loop: 0 1 .. n-1 n-2 .. 1 0 1 ..;
no frame is repeated at the turns, so every step is a real motion between
neighbouring frames, reversed after a turn).  --scale S (an integer)
enlarges every frame S times with cv2.resize(INTER_CUBIC), the luma plane
and each chroma plane separately (the 2160p clip: the 1080p street clip
with --scale 2).  --crop WxH then keeps the centre W x H of every frame
(even sizes; the 2160c clip: the 2160p clip's centre 1920x1080, the
upscaled content at 1080p's frame size).  The output keeps IN's frame rate
and 4:2:0 layout."""
import os
import sys

import numpy as np


def read_y4m(path):
    with open(path, 'rb') as f:
        header = f.readline().decode().split()
        tags = {t[0]: t[1:] for t in header[1:]}
        w, h = int(tags['W']), int(tags['H'])
        if not tags.get('C', '420').startswith('420'):
            sys.exit('y4m_clip: %s: only 4:2:0 8-bit input' % path)
        size = w * h * 3 // 2
        frames = []
        while True:
            line = f.readline()
            if not line:
                break
            if not line.startswith(b'FRAME'):
                sys.exit('y4m_clip: %s: bad frame header' % path)
            data = f.read(size)
            if len(data) < size:
                break
            frames.append(data)
    return header, w, h, frames


def palindrome(n, count):
    """Source frame index of each of count output frames."""
    if n == 1:
        return [0] * count
    period = 2 * (n - 1)
    return [i if i < n else period - i for i in (k % period for k in range(count))]


def planes(data, w, h):
    """The Y, U and V planes of a 4:2:0 frame of w x h, as arrays."""
    cw, ch = w // 2, h // 2
    y = np.frombuffer(data, np.uint8, w * h).reshape(h, w)
    u = np.frombuffer(data, np.uint8, cw * ch, w * h).reshape(ch, cw)
    v = np.frombuffer(data, np.uint8, cw * ch, w * h + cw * ch).reshape(ch, cw)
    return y, u, v


def scaled(data, w, h, s):
    import cv2
    out = [cv2.resize(p, (p.shape[1] * s, p.shape[0] * s), interpolation=cv2.INTER_CUBIC) for p in planes(data, w, h)]
    return b''.join(p.tobytes() for p in out)


def cropped(data, w, h, cw, ch):
    """The centre cw x ch of a 4:2:0 frame of w x h (all even)."""
    x0, y0 = (w - cw) // 2 & ~1, (h - ch) // 2 & ~1
    y, u, v = planes(data, w, h)
    c = [y[y0:y0 + ch, x0:x0 + cw]] + [p[y0 // 2:(y0 + ch) // 2, x0 // 2:(x0 + cw) // 2] for p in (u, v)]
    return b''.join(np.ascontiguousarray(p).tobytes() for p in c)


def main():
    args = sys.argv[1:]
    scale = 1
    if '--scale' in args:
        i = args.index('--scale')
        scale = int(args[i + 1])
        del args[i:i + 2]
    crop = None
    if '--crop' in args:
        i = args.index('--crop')
        crop = tuple(int(x) for x in args[i + 1].split('x'))
        del args[i:i + 2]
    if len(args) != 3:
        sys.exit(__doc__)
    src, dst, count = args[0], args[1], int(args[2])
    header, w, h, frames = read_y4m(src)
    if not frames:
        sys.exit('y4m_clip: no frame in ' + src)
    n_src = len(frames)
    order = palindrome(n_src, count)
    if scale != 1:
        frames = {i: scaled(frames[i], w, h, scale) for i in set(order)}
        w, h = w * scale, h * scale
    if crop:
        cw, ch = crop
        if cw % 2 or ch % 2 or cw > w or ch > h:
            sys.exit('y4m_clip: --crop %dx%d: even sizes within %dx%d' % (cw, ch, w, h))
        frames = {i: cropped(frames[i], w, h, cw, ch) for i in set(order)}
        w, h = cw, ch
    header = [header[0], 'W%d' % w, 'H%d' % h] + [t for t in header[1:] if t[0] not in 'WH']
    with open(dst + '.tmp', 'wb') as f:
        f.write((' '.join(header) + '\n').encode())
        for i in order:
            f.write(b'FRAME\n')
            f.write(frames[i])
    os.replace(dst + '.tmp', dst)
    print('%s: %dx%d, %d frames from %d of %s%s' % (dst, w, h, count, n_src, src,
                                                   ' (palindrome loop)' if count > n_src else '') +
          (', scaled %dx with cv2.resize INTER_CUBIC' % scale if scale != 1 else '') +
          (', its centre %dx%d' % crop if crop else ''))


if __name__ == '__main__':
    main()
