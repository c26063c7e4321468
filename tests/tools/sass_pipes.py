#!/usr/bin/env python3
"""sass_pipes.py: static instruction counts per position of the search kernels.

    cuobjdump -sass me_cuda.cubin | tests/tools/sass_pipes.py [-a] [FILTER]

For every search_kernel<NP, K, MINB, ...> in the SASS (or those whose mangled
name contains FILTER), finds the loop over runs (the backward branch whose
body holds the most VABSDIFF4), counts its instructions by opcode and divides
by K: instructions per search position.  The pipe of each opcode is a static
guess for sm_90 (Hopper), from Nsight Compute's pipe names:
  alu  integer/logic/compare/min-max, VABSDIFF4, the DPX min-max family
  fma  IMAD* (fmaheavy on sm_90), FFMA/FMUL/FADD
  lsu  shared/global memory (MIO)
  oth  branches, moves, barriers, the rest
It is a reading aid for A/B comparisons of SASS, not a measurement: the
dynamic mix comes from ncu (tests/ncu_kernel.sh).  -a: every opcode, not
only the 12 most frequent.
"""

import re
import sys
from collections import Counter

ALU = {"VABSDIFF4", "VABSDIFF", "VIADDMNMX", "VIMNMX", "VIMNMX3", "IMNMX", "IADD3", "LEA", "SHF",
       "LOP3", "ISETP", "SEL", "PRMT", "IABS", "FLO", "POPC", "BMSK", "SGXT", "VIADD", "IADD", "VIMNMX16",
       "PLOP3", "P2R", "R2P", "FMNMX", "FSETP", "FSEL", "LOP", "BREV", "VHMNMX", "HMNMX2"}
FMA = {"IMAD", "FFMA", "FMUL", "FADD", "IMUL", "HFMA2", "HADD2", "HMUL2", "IDP", "IDP4A"}
LSU = {"LDS", "STS", "LDG", "STG", "LD", "ST", "LDSM", "ATOMS", "SHFL", "REDUX", "LDC", "ULDC"}


def parse(stream):
    funcs, cur = {}, None
    for line in stream:
        m = re.search(r"Function : (\S+)", line)
        if m:
            cur = m.group(1)
            funcs[cur] = []
            continue
        m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?);", line)
        if m and cur:
            funcs[cur].append((int(m.group(1), 16), m.group(2).strip()))
    return funcs


def opcode(ins):
    ins = re.sub(r"^@!?U?P[T0-9]\s+", "", ins)
    return ins.split()[0] if ins else ""


def base(op):
    return op.split(".")[0]


def pipe(op):
    b = base(op)
    if b == "IMAD" and op.startswith("IMAD.MOV"):
        return "fma"
    if b in ALU:
        return "alu"
    if b in FMA:
        return "fma"
    if b in LSU:
        return "lsu"
    return "oth"


def run_loop(ins):
    """The loop over runs of one function's (address, text) list: the
    backward branch whose body holds the most VABSDIFF4 (empty if none)."""
    addr = {a: i for i, (a, _) in enumerate(ins)}
    best = None
    for i, (a, t) in enumerate(ins):
        mm = re.search(r"\bBRA\s+0x([0-9a-f]+)", t)
        if not mm:
            continue
        tgt = int(mm.group(1), 16)
        if tgt >= a or tgt not in addr:
            continue
        body = ins[addr[tgt]:i + 1]
        n = sum(1 for _, x in body if base(opcode(x)) == "VABSDIFF4")
        if best is None or n > best[0]:
            best = (n, body)
    return best[1] if best and best[0] else []


def main():
    args = [a for a in sys.argv[1:] if a != "-a"]
    every = "-a" in sys.argv[1:]
    filt = args[0] if args else "search_kernel"
    funcs = parse(sys.stdin)
    for name in sorted(funcs):
        if filt not in name:
            continue
        m = re.search(r"search_kernelILi(\d+)ELi(\d+)ELi(\d+)E(?:Li(\d+)E)?", name)
        if not m:
            continue
        np_, k, minb = int(m.group(1)), int(m.group(2)), int(m.group(3))
        flav = int(m.group(4)) if m.group(4) else 0
        k_rows = k
        if flav == 2:   # KEYS_PAIR: a run is K rows of two columns
            k = 2 * k
        body = run_loop(funcs[name])
        if not body:
            continue
        ops = Counter(opcode(x) for _, x in body)
        pipes = Counter()
        for op, c in ops.items():
            pipes[pipe(op)] += c
        regs = "?"
        print(f"search_kernel<NP={np_}, K={k_rows}, MINB={minb}, flavour={flav}>: loop of {len(body)} instructions, "
              f"per position: total {len(body)/k:.1f}  alu {pipes['alu']/k:.1f}  fma {pipes['fma']/k:.1f}  "
              f"lsu {pipes['lsu']/k:.1f}  other {pipes['oth']/k:.1f}")
        shown = ops.most_common() if every else ops.most_common(12)
        print("    " + "  ".join(f"{op} {c/k:.2f}" for op, c in shown))


if __name__ == "__main__":
    main()
