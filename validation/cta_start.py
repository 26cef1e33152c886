#!/usr/bin/env python3
"""A CTA's first TMA load at kernel start, simulated against validation/data/h200/micro_cta_start.csv
(validation/hw/micro/cta_start.cu): G CTAs, one per SM, each start with one bulk copy of S bytes.

  python3 validation/cta_start.py BUILD/asyncsim [--set KEY=VALUE ...]

state dram: the copy reads bytes no one has read (cold L2); state l2: the launch runs twice on
one GPU (`asyncsim run P P`: L2 and DRAM state carry over) and the second launch's copies, all
CTAs at once from L2, are measured, as cta_start.cu measures a launch after one that read the
same bytes. (Until the twenty-third session the mirror read the bytes and the copy in one
launch, one CTA after its own warm-up: the measured copies did not start together.) Simulated at
1980 MHz with the kernel and CTA launch costs off (the hardware clocks the copy, not the launch);
the simulated time from the copy's issue to the end of its wait, plus 40 cycles for the
clock read and the arrive before it, against the measured median.
Standard library only.
"""
import os
import statistics
import sys

import sim_timeline

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CSV = os.path.join(ROOT, "validation", "data", "h200", "micro_cta_start.csv")


def program(g, size):
    return (f"kernel cta_start\ngrid {g}\nresources regs=32 smem=122880\n"
            f"mbarrier full[1] arrivals=1\nrole main warpgroups=1\n"
            f"  MB_ARRIVE_EXPECT_TX full[0] bytes={size}\n"
            f"  BULK_LOAD addr=(4294967296 + cta * {size}) bytes={size} bar=full[0]\n"
            f"  MB_WAIT full[0] parity=0\nend\n")


def simulate(binary, g, size, warm, extra=()):
    # state l2: the same launch twice (the L2 carries over), the second one measured. Per SM (one
    # CTA each): the launch's last copy, from its issue to the moment its wait saw it complete.
    text = program(g, size)
    per_thread = sim_timeline.run_bare(binary, [text, text] if warm else [text], extra)
    return statistics.median(sim_timeline.last_copy_cycles(per_thread)) + 40


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    binary, extra = sys.argv[1], sys.argv[2:]
    rows = [r for r in sim_timeline.measured_rows(CSV)
            if r["place"] == "contig" and r["state"] in ("dram", "l2")]
    print("| state | CTAs | bytes | H200 median | simulated | error |")
    print("|---|---:|---:|---:|---:|---:|")
    for r in rows:
        g, size = int(r["ctas"]), int(r["size_bytes"])
        sim = simulate(binary, g, size, r["state"] == "l2", extra)
        hw = float(r["median_cycles"])
        print(f"| {r['state']} | {g} | {size} | {hw:.0f} | {sim:.0f} | {100 * (sim / hw - 1):+.1f} % |")


if __name__ == "__main__":
    main()
