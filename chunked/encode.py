"""What runs on a worker: one chunk's x264 encode, and the checks before any.

Only the standard library is imported here: the engine ships this module to
the workers by value, so a worker needs Python, the engine, x264 and the
input, not this package.  Failures come back as values (ok=False), never as
exceptions of this module's own types, which would not survive the trip.
"""

import hashlib
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time

LOG_TAIL = 12
STATS = re.compile(r"gpu-me-stats: (.*)")
CHOICE = re.compile(r"\[(info|warning)\]: gpu-me: (.*)")
PSNR = re.compile(r"PSNR Mean Y:([\d.]+)")
SSIM = re.compile(r"SSIM Mean Y:([\d.]+)")
PAIR = re.compile(r'(\w+)=("[^"]*"|\S+)')
ENCODED = re.compile(r"encoded (\d+) frames, ([\d.]+) fps")


def worker_name(worker=None):
    try:
        if worker is None:
            from distributed import get_worker
            worker = get_worker()
        return worker.name if isinstance(worker.name, str) else worker.address
    except (ImportError, ValueError):
        return "local"


def file_sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def probe(x264, y4m, y4m_size, dask_worker=None):
    """What a worker has: its x264 (checked, hashed, versioned) and whether
    it sees the input at the driver's path with the driver's size.  (Dask's
    Client.run passes the worker as dask_worker.)"""
    r = {"host": socket.gethostname(), "worker": worker_name(dask_worker), "problems": []}
    if not (os.path.isfile(x264) and os.access(x264, os.X_OK)):
        r["problems"].append(f"x264 not found or not executable: {x264}")
    else:
        r["x264_sha256"] = file_sha256(x264)
        try:
            out = subprocess.run([x264, "--version"], capture_output=True, text=True, timeout=30)
            r["x264_version"] = (out.stdout.splitlines() or ["?"])[0]
        except (OSError, subprocess.TimeoutExpired) as e:
            r["problems"].append(f"{x264} --version failed: {e}")
    try:
        size = os.path.getsize(y4m)
        if size != y4m_size:
            r["problems"].append(f"input {y4m} is {size} bytes here, {y4m_size} on the driver")
    except OSError as e:
        r["problems"].append(f"cannot read the input {y4m} ({e.strerror}): it must be at the same "
                             "path on every worker (shared storage)")
    return r


def number(v):
    try:
        return float(v) if "." in v else int(v)
    except ValueError:
        return v


def parse_log(log):
    """x264's own numbers: the gpu-me-stats key=value lines (merged), the
    first gpu-me info line, saying what it chose ("choice"), and warning
    ("warning", e.g. no usable GPU), PSNR and SSIM when
    asked for (--psnr, --ssim), and the closing 'encoded N frames, F fps'."""
    stats, encoded = {}, None
    for line in log.replace("\r", "\n").splitlines():
        m = STATS.search(line)
        if m:
            for k, v in PAIR.findall(m.group(1)):
                stats[k] = number(v.strip('"'))
            continue
        m = CHOICE.search(line)
        if m and ("choice" if m.group(1) == "info" else "warning") not in stats:
            stats["choice" if m.group(1) == "info" else "warning"] = m.group(2)
        for key, pattern in (("psnr_y", PSNR), ("ssim_y", SSIM)):
            m = pattern.search(line)
            if m:
                stats[key] = float(m.group(1))
        m = ENCODED.search(line)
        if m:
            encoded = (int(m.group(1)), float(m.group(2)))
    return stats, encoded


def _pdeathsig():
    # x264 dies with the worker (kill -9 included) instead of finishing an
    # encode nobody will read: setpriv (util-linux) sets the parent-death
    # signal and execs x264, avoiding preexec_fn in a threaded process.
    p = shutil.which("setpriv")
    return [p, "--pdeathsig", "KILL", "--"] if p else []


def encode_chunk(job):
    """Encodes frames [start, start+frames) of job["y4m"] with x264's own
    --seek/--frames into a private temporary folder and returns the stream
    (and the reconstruction when asked) as bytes, with the log's numbers.

    job: index, x264, y4m, start, frames, args (x264 options), recon (bool).
    """
    t0 = time.time()
    r = {"index": job["index"], "host": socket.gethostname(), "worker": worker_name(), "ok": False}
    tmp = tempfile.mkdtemp(prefix=f"chunk{job['index']:05d}-")
    try:
        out = os.path.join(tmp, "chunk.264")
        cmd = [job["x264"], *job["args"], "--stitchable", "--no-progress",
               "--seek", str(job["start"]), "--frames", str(job["frames"]), "-o", out]
        if job["recon"]:
            cmd += ["--dump-yuv", os.path.join(tmp, "recon.yuv")]
        cmd.append(job["y4m"])
        try:
            p = subprocess.run(_pdeathsig() + cmd, stdin=subprocess.DEVNULL, capture_output=True,
                               text=True, errors="replace")
            rc, log = p.returncode, p.stderr + p.stdout
        except OSError as e:
            rc, log = None, f"cannot run {job['x264']}: {e}"
        r["wall_s"] = round(time.time() - t0, 3)
        r["stats"], encoded = parse_log(log)
        r["log_tail"] = [line for line in log.replace("\r", "\n").splitlines() if line.strip()][-LOG_TAIL:]
        r["command"] = cmd
        if rc != 0:
            r["error"] = f"x264 exited with status {rc}" if rc is not None else log
            return r
        if not encoded or encoded[0] != job["frames"]:
            r["error"] = (f"x264 encoded {encoded[0] if encoded else 'no'} frames, "
                          f"{job['frames']} asked (is the input shorter here?)")
            return r
        r["fps"] = encoded[1]
        with open(out, "rb") as f:
            r["stream"] = f.read()
        if job["recon"]:
            with open(os.path.join(tmp, "recon.yuv"), "rb") as f:
                r["recon"] = f.read()
        r["ok"] = True
        return r
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
