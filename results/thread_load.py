#!/usr/bin/env python3
"""Per-thread CPU load of one x264 encode, sampled from /proc.

  thread_load.py watch PATTERN OUT   waits (up to 30 s) for an x264 process
        whose command line contains PATTERN, samples the user + system CPU
        time of each of its threads every 20 ms until it exits, and writes
        OUT: one line per thread, busiest first (creation order, CPU seconds,
        share of the encode's wall clock, share of the thread's own life).
  thread_load.py summary FILE...     one line per file: the busiest threads'
        shares of the wall clock and the cores busy on average.

What it answers: whether a single thread (x264's lookahead, the main
thread that reads, copies and downscales each frame) is busy for the whole
encode while the frame threads idle, i.e. a serial limit on the frame rate.
Linux only (/proc/PID/task/TID/stat); 10 ms resolution (clock ticks).
"""
import os
import sys
import time

TICK = os.sysconf("SC_CLK_TCK")


def find(pattern, deadline):
    me = os.getpid()
    while time.time() < deadline:
        for d in os.listdir("/proc"):
            if not d.isdigit() or int(d) == me:
                continue
            try:
                with open(f"/proc/{d}/comm") as f:
                    if f.read().strip() != "x264":
                        continue
                with open(f"/proc/{d}/cmdline", "rb") as f:
                    if pattern.encode() in f.read():
                        return int(d)
            except OSError:
                continue
        time.sleep(0.005)
    return None


def sample(pid, threads, now):
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return False
    for t in tids:
        try:
            with open(f"/proc/{pid}/task/{t}/stat") as f:
                s = f.read()
        except OSError:
            continue
        # the fields after the command name, which may hold spaces
        fields = s[s.rindex(")") + 2:].split()
        cpu = (int(fields[11]) + int(fields[12])) / TICK   # utime, stime
        tid = int(t)
        first = threads.get(tid, (now, now, 0.0, ""))[0]
        threads[tid] = (first, now, cpu, s[s.index("(") + 1:s.rindex(")")])
    return True


def watch(pattern, out):
    pid = find(pattern, time.time() + 30)
    if pid is None:
        with open(out, "w") as f:
            f.write(f"no x264 process with '{pattern}' in its command line\n")
        return 1
    threads = {}
    t0 = time.time()
    while sample(pid, threads, time.time() - t0):
        time.sleep(0.02)
    wall = max(t[1] for t in threads.values()) if threads else 0
    order = {tid: i for i, tid in enumerate(sorted(threads))}
    total = sum(t[2] for t in threads.values())
    with open(out, "w") as f:
        f.write(f"# pid {pid}, {len(threads)} threads, wall {wall:.2f} s sampled, "
                f"CPU {total:.2f} s, cores busy {total / wall if wall else 0:.2f}\n")
        f.write("# created, tid, cpu_s, pct_of_wall, pct_of_life, name\n")
        for tid, (first, last, cpu, name) in sorted(threads.items(), key=lambda kv: -kv[1][2]):
            life = last - first
            f.write(f"{order[tid]:3d} {tid:8d} {cpu:8.2f} {100 * cpu / wall if wall else 0:6.1f} "
                    f"{100 * cpu / life if life > 0 else 0:6.1f} {name}\n")
    return 0


def summary(files):
    for fn in files:
        rows, head = [], ""
        with open(fn) as f:
            for line in f:
                if line.startswith("# pid"):
                    head = line.split(", ", 2)[2].strip()
                elif not line.startswith("#") and line.strip():
                    p = line.split()
                    rows.append((int(p[0]), float(p[3])))
        top = ", ".join(f"#{c} {w:.0f}%" for c, w in rows[:5])
        print(f"{os.path.basename(fn)}: busiest threads (creation order, % of wall): {top}; {head}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "watch":
        sys.exit(watch(sys.argv[2], sys.argv[3]))
    if len(sys.argv) >= 3 and sys.argv[1] == "summary":
        sys.exit(summary(sys.argv[2:]))
    sys.stderr.write(__doc__)
    sys.exit(2)
