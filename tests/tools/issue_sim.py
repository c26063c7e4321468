#!/usr/bin/env python3
"""issue_sim.py: a rough model of one SM sub-partition issuing the search
kernel's run loop, to compare instruction orders before
spending GPU time on them.

    cuobjdump -sass me_cuda.cubin | tests/tools/issue_sim.py [-w WARPS] [FILTER]

For each search_kernel<NP=41,...> (or those whose mangled name contains
FILTER) it takes the run loop's body (sass_pipes.run_loop) and runs WARPS copies of it (default
4, each started at a different point of the loop) through one scheduler:
one instruction per cycle, in order per warp, a warp eligible when its
source registers are ready and its pipe is free; ALU and FMA-heavy
instructions hold their pipe 2 cycles (measured on the H200 with
tests/tools/pipe_rate.cu: 0.49 warp instructions per cycle each, 0.92 for
an ALU/FMA pair), results ready after a fixed latency (ALU 5, FMA 5, LDS 24,
LDG 300, others 4: guesses, not measurements).  Prints cycles per loop
iteration and per position, issue and ALU-pipe utilisation.  A reading aid
for A/B comparisons, not a measurement.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sass_pipes import parse, run_loop  # noqa: E402

ALU = re.compile(r"^(VABSDIFF4|VIADDMNMX|VIMNMX3?|IMNMX|IADD3|LEA|SHF|LOP3|ISETP|SEL|PRMT|IABS|FLO|POPC|VIADD|PLOP3|P2R|R2P|FMNMX|FSETP|FSEL|BMSK|SGXT)")
FMA = re.compile(r"^(IMAD|FFMA|FMUL|FADD|IMUL|IDP)")
LAT = {"alu": 5, "fma": 5, "lds": 24, "ldg": 300, "oth": 4}


def regs(tok):
    """Registers named by one operand (R12 of a .64/.128 op: see width)."""
    return re.findall(r"\b(U?R\d+|U?P\d)\b", tok)


def decode(text):
    t = text
    pred = None
    if t.startswith("@"):
        pred, t = t.split(None, 1)
    parts = t.split(None, 1)
    op = parts[0]
    ops = [o.strip() for o in parts[1].split(",")] if len(parts) > 1 else []
    base = op.split(".")[0]
    if ALU.match(op):
        pipe = "alu"
    elif FMA.match(op):
        pipe = "fma"
    elif base in ("LDS", "LDL"):
        pipe = "lds"
    elif base in ("LDG", "LDC"):
        pipe = "ldg"
    else:
        pipe = "oth"
    width = 4 if ".128" in op else 2 if (".64" in op or ".WIDE" in op) else 1
    dst, src = [], []
    if base in ("STS", "STL", "STG", "BRA", "BAR", "EXIT", "BSYNC", "BSSY", "NOP"):
        for o in ops:
            src += regs(o)
    elif ops:
        d = regs(ops[0])
        for r in d:
            m = re.match(r"(U?R)(\d+)", r)
            if m and r not in ("RZ",):
                dst += [f"{m.group(1)}{int(m.group(2)) + i}" for i in range(width)]
            else:
                dst.append(r)
        for o in ops[1:]:
            src += regs(o)
        if base in ("ISETP", "PLOP3", "FSETP") and len(ops) > 1:
            dst += regs(ops[1])
    if pred:
        src += regs(pred)
    src = [r for r in src if r not in ("RZ", "PT", "URZ", "UPT")]
    dst = [r for r in dst if r not in ("RZ", "PT", "URZ", "UPT")]
    return op, pipe, dst, src


def simulate(prog, warps, iters=6):
    code = [decode(t) for t in prog if not t.startswith(("BRA", "NOP"))]
    n = len(code)
    total = n * iters
    pcs = [(w * n // warps) for w in range(warps)]   # staggered starts
    done = [0] * warps
    ready = [dict() for _ in range(warps)]
    busy = {"alu": 0, "fma": 0}
    cyc = issued = alu = 0
    last = 0
    while min(done) < total and cyc < 10 ** 7:
        pick = None
        for k in range(warps):
            w = (last + 1 + k) % warps
            if done[w] >= total:
                continue
            op, pipe, dst, src = code[pcs[w] % n]
            if any(ready[w].get(r, 0) > cyc for r in src + dst):
                continue
            if pipe in busy and busy[pipe] > cyc:
                continue
            pick = w
            break
        if pick is not None:
            w = pick
            op, pipe, dst, src = code[pcs[w] % n]
            for r in dst:
                ready[w][r] = cyc + LAT[pipe]
            if pipe in busy:
                busy[pipe] = cyc + 2
            alu += pipe == "alu"
            pcs[w] += 1
            done[w] += 1
            issued += 1
            last = w
        cyc += 1
    return cyc, issued, alu


def main():
    args = sys.argv[1:]
    warps = 4
    if args[:1] == ["-w"]:
        warps = int(args[1])
        args = args[2:]
    filt = args[0] if args else ""
    for name, ins in parse(sys.stdin).items():
        m = re.match(r"_Z13search_kernelILi(\d+)ELi(\d+)ELi(\d+)ELi(\d+)E", name)
        if not m or m.group(1) != "41" or filt not in name:
            continue
        K = int(m.group(2))
        prog = [t for _, t in run_loop(ins)]
        if not prog:
            continue
        cyc, issued, alu = simulate(prog, warps)
        per_it = cyc / (issued / len(prog))
        print(f"search_kernel<41, K={K}, MINB={m.group(3)}, keys={m.group(4)}>: {len(prog)} instructions, "
              f"{warps} warps: {per_it / K:.1f} cycles per position, issue {issued / cyc:.1%}, "
              f"ALU pipe {2 * alu / cyc:.1%}")


if __name__ == "__main__":
    main()
