"""Chunked encoding with the patched x264: cut, encode chunks on a Dask
cluster (or serially), join.  See chunked/README.md."""

import argparse
import contextlib
import hashlib
import json
import os
import shutil
import signal
import sys
import time

from . import encode, h264, plan
from .engine import Dask, EngineError, Serial
from .plan import InputError

# x264 options the driver sets itself per chunk, or that would tie a chunk
# to frames outside it
OWNED = {"--seek", "--frames", "-o", "--output", "--dump-yuv", "--threads", "--stitchable",
         "--pass", "-p", "--stats", "--qpfile", "--tcfile-in", "--tcfile-out", "--index",
         "--demuxer", "--input-fmt", "--input-res", "--input-csp", "--input-depth"}


class ChunkFailed(Exception):
    pass


def default_x264():
    if os.environ.get("X264"):
        return os.environ["X264"]
    built = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "build", "x264", "x264")
    return built if os.path.isfile(built) else "x264"


def parse_args(argv):
    own, extra = (argv[:argv.index("--")], argv[argv.index("--") + 1:]) if "--" in argv else (argv, [])
    p = argparse.ArgumentParser(
        prog="python3 -m chunked",
        usage="%(prog)s [options] INPUT -o OUTPUT.264 [-- x264 options...]",
        description="Encode INPUT in chunks cut at scene cuts or keyframes, on a Dask cluster, "
                    "with the patched x264; join them into one H.264 stream.",
        epilog="Options after -- go to every chunk's x264 as they are (e.g. -- --gpu-me --bframes 5).")
    p.add_argument("input", metavar="INPUT")
    p.add_argument("-o", "--output", required=True, metavar="OUTPUT", help="the joined H.264 (Annex-B) stream")
    g = p.add_argument_group("x264")
    g.add_argument("--x264", default=default_x264(), metavar="PATH",
                   help="x264 binary, at this path on every worker [$X264, else build/x264/x264, else x264]")
    g.add_argument("--preset")
    g.add_argument("--tune")
    g.add_argument("--crf")
    g.add_argument("--qp")
    g.add_argument("--threads", type=int, default=4, metavar="N",
                   help="x264 threads per chunk; fixed so that the bytes do not depend on the host [4]")
    g = p.add_argument_group("chunks")
    g.add_argument("--chunk", default="5s", metavar="LEN",
                   help="target chunk length: seconds (5s) or frames (120) [5s]")
    g.add_argument("--cuts", choices=("scene", "keyframes", "fixed"), default="scene",
                   help="cut candidates: FFmpeg's scene score, the source's keyframes, or none [scene]")
    g.add_argument("--scene-threshold", type=float, default=0.3, metavar="S", help="scene score of a cut, 0..1 [0.3]")
    g = p.add_argument_group("engine")
    g.add_argument("--serial", action="store_true", help="no engine: the chunks one after another, here")
    g.add_argument("--scheduler", metavar="ADDR", help="a Dask scheduler's address (tcp://host:8786) or scheduler file")
    g.add_argument("--workers", type=int, metavar="N",
                   help="a local cluster of N workers, each one chunk at a time [cores / --threads]; "
                        "with --scheduler: wait for N workers before starting")
    g.add_argument("--gpu-per-chunk", type=float, default=1.0, metavar="F",
                   help="GPU resource each chunk takes where workers declare GPU resources; 0.5: two "
                        "encodes per GPU; 0: none asked [1]")
    g.add_argument("--wait-workers", type=float, default=60, metavar="S",
                   help="seconds to wait for workers, at the start and when none are left [60]")
    g = p.add_argument_group("output")
    g.add_argument("--workdir", metavar="DIR", help="finished chunks and the manifest, kept for a rerun [OUTPUT.work]")
    g.add_argument("--dump-yuv", metavar="FILE", help="also the chunks' reconstructions (x264 --dump-yuv), joined")
    g.add_argument("--summary-json", metavar="FILE", help="the summary as JSON [WORKDIR/summary.json]")
    g.add_argument("--no-progress", action="store_true")
    args = p.parse_args(own)
    for a in extra:
        opt = a.split("=")[0]
        if opt == "--threads":
            p.error("give --threads before the --, as the driver's option (x264 threads per chunk)")
        if opt in OWNED:
            p.error(f"x264 option {opt} is the driver's to set per chunk, or ties a chunk to frames outside it")
    args.extra = extra
    return args


def x264_args(args):
    a = []
    for opt in ("preset", "tune", "crf", "qp"):
        if getattr(args, opt) is not None:
            a += [f"--{opt}", str(getattr(args, opt))]
    a += ["--threads", str(args.threads)] + args.extra
    if any(x.startswith("--gpu-me") for x in a) and "--gpu-me-stats" not in a:
        a.append("--gpu-me-stats")   # statistics only: the bytes are the same
    return a


def digest(obj):
    return hashlib.sha256(json.dumps(obj, sort_keys=True).encode()).hexdigest()


@contextlib.contextmanager
def atomic_file(path):
    """A file written under a temporary name beside path and renamed to
    path only when the block ends normally: path is never half-written."""
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        with open(tmp, "wb") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def write_atomic(path, data):
    with atomic_file(path) as f:
        f.write(data if isinstance(data, bytes) else json.dumps(data, indent=1).encode())


def read_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


class Progress:
    """tqdm's bar, or a line per chunk without tqdm, or nothing."""

    def __init__(self, total, done, quiet):
        self.total, self.done, self.quiet, self.bar = total, done, quiet, None
        if not quiet:
            try:
                from tqdm import tqdm
                self.bar = tqdm(total=total, initial=done, unit="chunk", desc="chunks", file=sys.stderr)
            except ImportError:
                pass

    def step(self, rec):
        self.done += 1
        note = f"{rec['worker']}: chunk {rec['index']}, {rec['fps']} fps"
        if self.bar is not None:
            self.bar.set_postfix_str(note, refresh=False)
            self.bar.update()
        elif not self.quiet:
            print(f"chunks {self.done}/{self.total} ({note})", file=sys.stderr)

    def close(self):
        if self.bar is not None:
            self.bar.close()


class ChunkStore:
    """WORKDIR/chunks: for every finished chunk its stream, its record (JSON,
    written last: a chunk with a record is finished) and, when asked, its
    reconstruction.  The names hash everything the bytes depend on, so no
    run reuses a chunk made from other options, input or x264."""

    def __init__(self, work, options):
        self.dir = os.path.join(work, "chunks")
        self.options = options
        os.makedirs(self.dir, exist_ok=True)

    def paths(self, start, n):
        base = os.path.join(self.dir, f"{start:07d}+{n}-{digest([self.options, start, n])[:16]}")
        return base + ".264", base + ".json", base + ".yuv"

    def finished(self, start, n, recon):
        """The chunk's record when its files are there and whole, else None."""
        s264, sjson, syuv = self.paths(start, n)
        rec = read_json(sjson)
        if not rec or not os.path.isfile(s264) or encode.file_sha256(s264) != rec["sha256"]:
            return None
        if recon and not (os.path.isfile(syuv) and os.path.getsize(syuv) == rec.get("recon_bytes")):
            return None
        return dict(rec, reused=True)

    def save(self, index, start, n, r):
        s264, sjson, syuv = self.paths(start, n)
        write_atomic(s264, r["stream"])
        if "recon" in r:
            write_atomic(syuv, r["recon"])
        st = r["stats"]
        rec = {"index": index, "start": start, "frames": n, "sha256": hashlib.sha256(r["stream"]).hexdigest(),
               "worker": r["worker"], "host": r["host"], "wall_s": r["wall_s"], "fps": r["fps"],
               "open_ms": st.get("open_ms"), "gpu_busy_pct": st.get("busy_pct"), "stats": st,
               "recon_bytes": len(r["recon"]) if "recon" in r else None, "command": r["command"]}
        write_atomic(sjson, rec)
        return rec


def probe_workers(engine, x264, video):
    """Every worker has the same x264 and sees the input; returns the x264's
    hash and version."""
    found = engine.probe(encode.probe, x264, video.path, os.path.getsize(video.path))
    problems = [f"worker {r['worker']} on {r['host']}: {p}" for r in found.values() for p in r["problems"]]
    if problems:
        raise EngineError("; ".join(problems))
    builds = {r["x264_sha256"] for r in found.values()}
    if len(builds) > 1:
        raise EngineError("workers have different x264 builds at " + x264 + " (the streams must come "
                          "from one build): " + ", ".join(f"{r['worker']}={r['x264_sha256'][:12]}"
                                                          for r in found.values()))
    r = next(iter(found.values()))
    return r["x264_sha256"], r["x264_version"], len(found)


def summarise(records, video, joined_bytes, wall, encode_wall):
    encoded = [r for r in records if not r.get("reused")]
    frames = sum(r["frames"] for r in records)
    enc_frames = sum(r["frames"] for r in encoded)
    workers = {}
    for r in encoded:
        w = workers.setdefault(r["worker"], {"host": r["host"], "chunks": 0, "frames": 0, "encode_s": 0.0,
                                             "open_ms": 0.0, "open_wait_ms": 0.0, "close_ms": 0.0,
                                             "gpu_busy_ms": 0.0, "gpu_wall_ms": 0.0})
        w["chunks"] += 1
        w["frames"] += r["frames"]
        w["encode_s"] += r["wall_s"]
        st = r.get("stats", {})
        for k in ("open_ms", "open_wait_ms", "close_ms"):
            w[k] += st.get(k, 0)
        if "busy_pct" in st and "wall_ms" in st:
            w["gpu_busy_ms"] += st["busy_pct"] / 100 * st["wall_ms"]
            w["gpu_wall_ms"] += st["wall_ms"]
    for w in workers.values():
        gpu_wall, busy = w.pop("gpu_wall_ms"), w.pop("gpu_busy_ms")
        # the GPU's busy time over the encodes' wall clock, as x264 books it
        w["gpu_busy_pct"] = round(100 * busy / gpu_wall, 1) if gpu_wall else None
        for k in ("encode_s", "open_ms", "open_wait_ms", "close_ms"):
            w[k] = round(w[k], 3)
    psnr = [r["stats"].get("psnr_y") for r in records]
    return {"chunks": len(records), "reused": len(records) - len(encoded), "frames": frames,
            "frames_encoded": enc_frames, "wall_s": round(wall, 3), "encode_wall_s": round(encode_wall, 3),
            "fps": round(enc_frames / encode_wall, 2) if encode_wall > 0 and enc_frames else None,
            "kbps": round(joined_bytes * 8 / (frames / video.fps) / 1000, 2),
            # x264's PSNR Mean Y is a mean over frames, so chunks weigh by frames
            "psnr_y": round(sum(p * r["frames"] for p, r in zip(psnr, records)) / frames, 4)
            if all(p is not None for p in psnr) else None,
            "no_gpu": [[r["index"], r["stats"].get("warning") or r["stats"]["choice"]] for r in records
                       if r["stats"].get("warning") or "own motion search" in r["stats"].get("choice", "")],
            "workers": workers, "chunk_records": records}


def print_summary(s):
    print(f"chunked: {s['chunks']} chunks ({s['reused']} reused), {s['frames']} frames, "
          f"{s['wall_s']:.1f} s wall clock; {s['frames_encoded']} frames encoded in "
          f"{s['encode_wall_s']:.1f} s: {s['fps']} fps ({s['engine']}, {s['workers_seen']} worker(s)); "
          f"{s['kbps']} kb/s" + (f", PSNR Y {s['psnr_y']}" if s["psnr_y"] is not None else ""))
    if s["workers"]:
        print(f"  {'worker':<24} {'host':<14} {'chunks':>6} {'frames':>7} {'encode_s':>9} {'open_ms':>8} "
              f"{'wait_ms':>8} {'close_ms':>8} {'gpu_busy%':>9}")
        for name, w in sorted(s["workers"].items()):
            busy = "-" if w["gpu_busy_pct"] is None else w["gpu_busy_pct"]
            print(f"  {name:<24} {w['host']:<14} {w['chunks']:>6} {w['frames']:>7} {w['encode_s']:>9.1f} "
                  f"{w['open_ms']:>8.1f} {w['open_wait_ms']:>8.1f} {w['close_ms']:>8.1f} {busy:>9}")
    if s["no_gpu"]:
        print(f"  note: {len(s['no_gpu'])} chunk(s) searched without the GPU; chunk {s['no_gpu'][0][0]}: "
              f"{s['no_gpu'][0][1]}")
    if s["idr_pic_id_rewrites"]:
        print(f"  idr_pic_id changed at {s['idr_pic_id_rewrites']} join(s) (a chunk ended in an IDR picture "
              "with the id the next chunk starts with)")
    print(f"  output {s['output']} ({s['bytes']} bytes); summary {s['summary']}")


def open_input(args, src, work):
    """The input's hash (it names everything derived from the input) and its
    y4m: the input itself, or decoded once into the work folder."""
    src_hash = encode.file_sha256(src)
    if plan.is_y4m(src):
        return src_hash, plan.Video(src)
    y4m = os.path.join(work, f"input-{src_hash[:16]}.y4m")
    if not os.path.exists(y4m):
        print(f"chunked: decoding {args.input} to {y4m}", file=sys.stderr)
        plan.to_y4m(src, y4m)
    return src_hash, plan.Video(y4m)


def load_plan(args, src, src_hash, video, work):
    """The chunks [(start, frames)] and the cut candidates, found once per
    input and chunking options and kept in the work folder."""
    target = plan.chunk_frames(args.chunk, video.fps)
    path = os.path.join(work, f"plan-{digest([src_hash, args.cuts, args.scene_threshold, target])[:16]}.json")
    saved = read_json(path)
    if saved is None:
        cands = plan.candidates(args.cuts, src, video.path, args.scene_threshold)
        saved = {"target": target, "candidates": cands, "chunks": plan.plan(video.frames, cands, target)}
        write_atomic(path, saved)
    return [tuple(c) for c in saved["chunks"]], saved


def write_outputs(store, chunks, out, dump_yuv):
    """The joined stream (and the joined reconstructions), each appearing
    only whole.  Returns (bytes written, idr_pic_id rewrites)."""
    joiner, size = h264.Joiner(), 0
    with atomic_file(out) as f:
        for start, n in chunks:
            with open(store.paths(start, n)[0], "rb") as c:
                size += f.write(joiner.add(c.read(), n))
    if dump_yuv:
        with atomic_file(os.path.abspath(dump_yuv)) as f:
            for start, n in chunks:
                with open(store.paths(start, n)[2], "rb") as c:
                    shutil.copyfileobj(c, f)
    return size, joiner.rewrites


def run(args):
    t0 = time.time()
    src, out = os.path.abspath(args.input), os.path.abspath(args.output)
    if not os.path.isfile(src):
        raise InputError(f"input not found: {args.input}")
    if not os.path.isdir(os.path.dirname(out)):
        raise InputError(f"no folder for the output: {os.path.dirname(out)}")
    # a bare name is looked up here; workers must have x264 at the same path
    x264 = os.path.abspath(args.x264) if os.sep in args.x264 else shutil.which(args.x264) or args.x264
    work = os.path.abspath(args.workdir or out + ".work")
    os.makedirs(work, exist_ok=True)
    src_hash, video = open_input(args, src, work)
    chunks, saved = load_plan(args, src, src_hash, video, work)

    engine = Serial() if args.serial else Dask(args.scheduler, args.workers, args.wait_workers, args.threads)
    try:
        x264_hash, x264_version, nworkers = probe_workers(engine, x264, video)
        resources = engine.gpu_resources(args.gpu_per_chunk)
        xargs = x264_args(args)
        store = ChunkStore(work, {"x264_sha256": x264_hash, "args": xargs, "input_sha256": src_hash})
        write_atomic(os.path.join(work, "manifest.json"), {
            "input": src, "input_sha256": src_hash, "y4m": video.path, "frames": video.frames,
            "fps": [video.fps_num, video.fps_den], "x264": x264, "x264_version": x264_version,
            "x264_sha256": x264_hash, "x264_args": xargs, "cuts": args.cuts, "target_frames": saved["target"],
            "scene_threshold": args.scene_threshold, "chunks": chunks, "cut_candidates": saved["candidates"]})

        records = [store.finished(start, n, bool(args.dump_yuv)) for start, n in chunks]
        todo = [{"index": i, "x264": x264, "y4m": video.path, "start": start, "frames": n, "args": xargs,
                 "recon": bool(args.dump_yuv)} for i, (start, n) in enumerate(chunks) if records[i] is None]
        reused = len(chunks) - len(todo)
        gpu_note = f", GPU {resources['GPU']:g} per chunk" if resources else ""
        print(f"chunked: {video.frames} frames of {video.width}x{video.height} in {len(chunks)} chunks "
              f"(target {saved['target']} frames, cuts: {args.cuts}), {reused} already done; "
              f"{engine.name}, {nworkers} worker(s){gpu_note}", file=sys.stderr)

        bar = Progress(len(chunks), reused, args.no_progress)

        def finished(job, r):
            i, start, n = job["index"], job["start"], job["frames"]
            if not r["ok"]:
                raise ChunkFailed(f"chunk {i} (frames {start}..{start + n - 1}) failed on worker "
                                  f"{r['worker']} ({r['host']}): {r['error']}\n  x264's last lines:\n    "
                                  + "\n    ".join(r.get("log_tail") or ["(none)"]))
            records[i] = store.save(i, start, n, r)
            bar.step(records[i])

        t_enc = time.time()
        try:
            engine.run(encode.encode_chunk, todo, finished, resources)
        finally:
            bar.close()
        encode_wall = time.time() - t_enc
    finally:
        engine.close()

    size, rewrites = write_outputs(store, chunks, out, args.dump_yuv)
    summary = summarise(records, video, size, time.time() - t0, encode_wall)
    summary.update({"engine": engine.name, "workers_seen": nworkers, "output": out, "bytes": size,
                    "idr_pic_id_rewrites": rewrites, "x264_args": xargs,
                    "summary": os.path.abspath(args.summary_json or os.path.join(work, "summary.json"))})
    write_atomic(summary["summary"], summary)
    print_summary(summary)
    return 0


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)

    def stop(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    try:
        return run(args)
    except InputError as e:
        print(f"chunked: error: {e}", file=sys.stderr)
        return 2
    except (ChunkFailed, EngineError, h264.JoinError) as e:
        print(f"chunked: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("chunked: interrupted; finished chunks stay in the work folder for a rerun", file=sys.stderr)
        return 130
