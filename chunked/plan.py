"""The input and where it is cut.

Every chunk is encoded by x264 from one y4m file with --seek N --frames M:
x264's y4m reader finds frame N by arithmetic (a fixed-size frame after a
fixed header), so a cut falls exactly where the plan says, with no decoder,
keyframe or timestamp in between.  Input that is not y4m is decoded to y4m
once, on the driver, frame for frame (no frame rate conversion).

Cut candidates come from FFmpeg: the scene score of every frame (the select
filter's scene detection) or the source's keyframes (ffprobe); plan() snaps
them to the target chunk length.
"""

import os
import re
import subprocess

Y4M_MAGIC = b"YUV4MPEG2 "
FRAME_MAGIC = b"FRAME\n"


class InputError(Exception):
    pass


class Video:
    """A y4m file: its geometry and frame count, checked against its size."""

    def __init__(self, path):
        self.path = path
        with open(path, "rb") as f:
            line = f.readline(4096)
        if not line.startswith(Y4M_MAGIC) or not line.endswith(b"\n"):
            raise InputError(f"{path}: not a y4m file")
        tags = {t[:1]: t[1:] for t in line[len(Y4M_MAGIC):].decode("ascii", "replace").split()}
        try:
            self.width, self.height = int(tags["W"]), int(tags["H"])
            num, den = tags.get("F", "25:1").split(":")
            self.fps_num, self.fps_den = int(num), int(den)
        except (KeyError, ValueError):
            raise InputError(f"{path}: y4m header without a usable size or frame rate: {line[:80]!r}")
        self.header_len = len(line)
        self.frame_len = len(FRAME_MAGIC) + self.picture_bytes(tags.get("C", "420"))
        body = os.path.getsize(path) - self.header_len
        self.frames, extra = divmod(body, self.frame_len)
        if extra or self.frames == 0:
            raise InputError(f"{path}: corrupt or truncated y4m: {body} bytes after the header are "
                             f"{self.frames} frames of {self.frame_len} bytes and {extra} more")
        with open(path, "rb") as f:
            for n in (0, self.frames - 1):   # a frame with parameters would break x264's seek
                f.seek(self.header_len + n * self.frame_len)
                if f.read(len(FRAME_MAGIC)) != FRAME_MAGIC:
                    raise InputError(f"{path}: frame {n} does not start with a plain FRAME line")

    def picture_bytes(self, colour):
        m, depth = re.match(r"420|422|444|mono", colour), re.search(r"p(\d+)$", colour)
        if not m:
            raise InputError(f"{self.path}: unsupported y4m colour space C{colour}")
        sample = 2 if depth and int(depth.group(1)) > 8 else 1
        luma = self.width * self.height
        cw, ch = -(-self.width // 2), -(-self.height // 2)
        chroma = {"420": 2 * cw * ch, "422": 2 * cw * self.height, "444": 2 * luma, "mono": 0}[m.group(0)]
        return (luma + chroma) * sample

    @property
    def fps(self):
        return self.fps_num / self.fps_den


def run(cmd, what):
    try:
        p = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True, errors="replace")
    except OSError as e:
        raise InputError(f"{what}: cannot run {cmd[0]} ({e.strerror})")
    if p.returncode != 0:
        tail = " / ".join(p.stderr.strip().splitlines()[-3:]) or f"exit status {p.returncode}"
        raise InputError(f"{what}: {tail}")
    return p.stdout


def is_y4m(path):
    with open(path, "rb") as f:
        return f.read(len(Y4M_MAGIC)) == Y4M_MAGIC


def to_y4m(src, dst):
    """Decodes src's first video stream to dst, every frame once
    (-fps_mode passthrough: no frame dropped or repeated to fit a rate)."""
    run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=codec_name",
         "-of", "csv=p=0", src], f"cannot read the input {src}")
    tmp = f"{dst}.tmp{os.getpid()}"
    try:
        run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", src, "-map", "0:v:0", "-fps_mode", "passthrough",
             "-f", "yuv4mpegpipe", "-strict", "-1", tmp], f"cannot decode the input {src}")
        os.replace(tmp, dst)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def scene_scores(y4m):
    """FFmpeg's scene score of every frame (0 for the first), on a copy at
    most 480 pixels wide, which is enough to see a cut and much cheaper."""
    out = run(["ffmpeg", "-nostdin", "-v", "error", "-i", y4m, "-vf",
               "scale='min(iw,480)':-2,select='gte(scene,0)',metadata=print:key=lavfi.scene_score:file=-",
               "-f", "null", "-"], "scene detection failed")
    scores, frame = {}, None
    for line in out.splitlines():
        m = re.match(r"frame:(\d+)", line)
        if m:
            frame = int(m.group(1))
        elif line.startswith("lavfi.scene_score=") and frame is not None:
            scores[frame] = float(line.split("=", 1)[1])
    return scores


def keyframes(src):
    """Display-order indexes of the source's keyframes (decoded frames, so
    the indexes match the y4m decoded from it)."""
    out = run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "frame=key_frame",
               "-of", "csv=p=0", src], f"cannot read keyframes of {src}")
    flags = [line.strip().rstrip(",") for line in out.splitlines() if line.strip()]
    return [i for i, f in enumerate(flags) if f == "1"]


def chunk_frames(spec, fps):
    """'5s' (seconds at the input's rate) or '120' (frames) -> frames."""
    try:
        n = round(float(spec[:-1]) * fps) if spec.endswith("s") else int(spec)
    except ValueError:
        raise InputError(f"--chunk {spec}: give seconds (5s) or frames (120)")
    if n < 1:
        raise InputError(f"--chunk {spec}: less than one frame")
    return n


def plan(total, candidates, target):
    """Chunks [(start, frames)] covering frames 0..total-1.  Each cut is the
    candidate nearest to one target length after the previous cut, within
    half a target either way; without one, the cut falls at one target
    length.  The last chunk is at most 1.5 targets and no chunk but a whole
    short input is under half a target, so no chunk is a lone frame."""
    half = max(1, target // 2)
    cands = sorted({c for c in candidates if 0 < c < total})
    starts, s = [0], 0
    while total - s > target + half:
        lo, hi = s + half, min(s + target + half, total - half)
        near = [c for c in cands if lo <= c <= hi]
        s = min(near, key=lambda c: (abs(c - s - target), c)) if near else s + target
        starts.append(s)
    return [(a, b - a) for a, b in zip(starts, starts[1:] + [total])]


def candidates(mode, src, y4m, threshold):
    if mode == "scene":
        return sorted(f for f, v in scene_scores(y4m).items() if v >= threshold)
    if mode == "keyframes":
        return keyframes(src)
    return []
