#!/usr/bin/env python3
"""A TMA GEMM's prologue on every SM at once (validation/hw/micro/first_round.cu), simulated, and
compared with validation/data/h200/micro_first_round.csv once that exists.

  python3 validation/first_round.py BUILD/asyncsim [--set KEY=VALUE ...]

Each CTA arms 2 stages of two 16 KB copies (A, then B: 64 fp16 columns x 128 rows of a tensor
whose rows are 8 KB apart, or the same bytes as bulk copies) and waits for each stage. Columns
as the .cu prints them: the cycle at which each copy's issue returned and the stage arrivals
(median and p90 over CTAs), counted from the CTA's first copy. cold = the launch alone (cold
L2), warm = the same launch twice on one GPU (`asyncsim run P P`), the second measured, written =
a store kernel writing A's first 16 MB and B's first 32 MB, then the launch (the traced GEMMs'
inputs were written by torch.randn just before them). The
.cu's t0 is read before its first issue, so the H200 columns carry ~10 cycles more. Simulated at
1980 MHz with the kernel and CTA launch costs off (the hardware clocks from inside the CTA).
Why: the Proton traces of the Triton GEMMs put a first-round CTA's stage 0 at ~2800-3400 cycles
after its first copy where asyncsim has ~1700 (later rounds agree), validation/README.md, "Rows
that miss" item 6. Standard library only.
"""
import os
import statistics
import sys

import sim_timeline

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CSV = os.path.join(ROOT, "validation", "data", "h200", "micro_first_round.csv")
BOX = 16384
BLOCKS = 264
A_BASE = 1 << 32
B_BASE = A_BASE + (1 << 30)
WRITTEN_A = 16 << 20  # first_round.cu's written state: 2048 x 4096 fp16
WRITTEN_B = 32 << 20  # 4096 x 4096 fp16


def program(tensor, shared, grid):
    rb = "(cta / 32)" if shared else "cta"
    cb = "(cta % 32)" if shared else "cta"
    lines = [f"kernel first_round\ngrid {grid}\nresources regs=32 smem=102400"]
    if tensor:
        for name, base in (("a", A_BASE), ("b", B_BASE)):
            lines.append(f"tensormap {name} dtype=f16 dims=[4096, {BLOCKS * 128}] strides=[8192] "
                         f"box=[64, 128] base={base:#x}")
    lines.append("mbarrier full[2] arrivals=1\nrole main warpgroups=1")
    for s in range(2):
        lines.append(f"  MB_ARRIVE_EXPECT_TX full[{s}] bytes={2 * BOX}")
        for name, base, block in (("a", A_BASE, rb), ("b", B_BASE, cb)):
            if tensor:
                lines.append(f"  TMA_LOAD {name} [{64 * s}, 128 * {block}] bar=full[{s}]")
            else:
                lines.append(f"  BULK_LOAD addr=({base} + ({block} * 2 + {s}) * {BOX}) "
                             f"bytes={BOX} bar=full[{s}]")
    for s in range(2):
        lines.append(f"  MB_WAIT full[{s}] parity=0")
    lines.append("end\n")
    return "\n".join(lines)


def writer(base_a, base_b):
    """The `written` state's store kernel: A's first 16 MB and B's first 32 MB written once by
    1056 CTAs of one warpgroup, 16 B per thread per store (fill_kernel's grid-stride order, a
    warpgroup's 2 KB a store)."""
    chunk = 2048
    units = (WRITTEN_A + WRITTEN_B) // chunk
    a_units = WRITTEN_A // chunk
    ctas = 1056
    return "\n".join([
        "kernel fill\ngrid 1056\nresources regs=16 smem=0\nrole main warpgroups=1",
        f"  loop j = 0, cdiv(({units} - cta), {ctas})",
        f"    if (cta + j * {ctas}) < {a_units}",
        f"      ST_GLOBAL addr={base_a} + (cta + j * {ctas}) * {chunk} bytes={chunk}",
        "    end",
        f"    if (cta + j * {ctas}) >= {a_units}",
        f"      ST_GLOBAL addr={base_b} + (cta + j * {ctas} - {a_units}) * {chunk} bytes={chunk}",
        "    end",
        "  end",
        "end\n"])


def simulate(binary, tensor, shared, grid, state, extra):
    text = program(tensor, shared, grid)
    seq = {"cold": [text], "warm": [text, text],
           "written": [writer(A_BASE, B_BASE), text]}[state]
    per_thread = sim_timeline.run_bare(binary, seq, extra)
    # Per CTA slot: the measured launch's four copies (the last four when warm), from the first
    # one's issue: when each issue returned, and when the wait saw each stage's two copies.
    cols = [[] for _ in range(6)]
    for copies, waits in per_thread.values():
        copies = copies[-4:]
        t0 = copies[0][0]
        for i in range(4):
            cols[i].append(copies[i][1] - t0)
        for s in range(2):
            done = max(copies[2 * s][2], copies[2 * s + 1][2])
            cols[4 + s].append(sim_timeline.seen(waits, done) - t0)
    return cols


def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p * len(v)))]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    binary, extra = sys.argv[1], sys.argv[2:]
    measured = {(r["tensor"], r["shared"], r["state"], int(r["grid"])): r
                for r in sim_timeline.measured_rows(CSV) if r["first_launch"] == "0"}
    print("| copies | tiles | L2 | grid | issue 1-4 returned (median) | stage 0 median / p90 | "
          "stage 1 median / p90 | H200 stage 0 / 1 median |")
    print("|---|---|---|---:|---|---|---|---|")
    for tensor in (True, False):
        for shared in (True, False):
            for state in ("cold", "warm", "written"):
                for grid in (132, 264):
                    c = simulate(binary, tensor, shared, grid, state, extra)
                    key = ("tensor" if tensor else "bulk", "gemm" if shared else "distinct",
                           state, grid)
                    m = measured.get(key)
                    hw = f"{m['stage0_median']} / {m['stage1_median']}" if m else "not measured"
                    print(f"| {key[0]} | {key[1]} | {key[2]} | {grid} | "
                          f"{' / '.join(str(round(statistics.median(x))) for x in c[:4])} | "
                          f"{statistics.median(c[4]):.0f} / {pct(c[4], 0.9):.0f} | "
                          f"{statistics.median(c[5]):.0f} / {pct(c[5], 0.9):.0f} | {hw} |")


if __name__ == "__main__":
    main()
