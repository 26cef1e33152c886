#!/usr/bin/env python3
"""A CTA's first TMA load at kernel start, simulated against validation/data/h200/micro_cta_start.csv
(validation/hw/micro/cta_start.cu): G CTAs, one per SM, each start with one bulk copy of S bytes.

  python3 validation/cta_start.py BUILD/asyncsim

state dram: the copy reads bytes no one has read (cold L2); state l2: each CTA first reads its
bytes once, syncs, and the second copy of the same bytes is the one measured. Simulated at
1980 MHz with the kernel and CTA launch costs off (the hardware clocks the copy, not the launch);
the simulated wait plus 40 cycles of issue (tma.launch_cycles) against the measured median.
Standard library only.
"""
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CSV = os.path.join(ROOT, "validation", "data", "h200", "micro_cta_start.csv")


def program(g, size, warm):
    load = ("  MB_ARRIVE_EXPECT_TX full[{i}] bytes={s}\n"
            "  BULK_LOAD addr=(4294967296 + cta * {s}) bytes={s} bar=full[{i}]\n"
            "  MB_WAIT full[{i}] parity=0\n")
    body = load.format(i=0, s=size)
    if warm:
        body += "  BAR_SYNC 1 threads=128\n" + load.format(i=1, s=size)
    return (f"kernel cta_start\ngrid {g}\nresources regs=32 smem=122880\n"
            f"mbarrier full[2] arrivals=1\nrole main warpgroups=1\n{body}end\n")


def simulate(binary, g, size, warm):
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "p.asim")
        tl = os.path.join(tmp, "t.json")
        open(src, "w").write(program(g, size, warm))
        subprocess.run([binary, "run", src, "--sm-clock-mhz", "1980", "--set",
                        "sm.kernel_launch_cycles=0", "--set", "sm.cta_launch_cycles=0",
                        "--timeline", tl], check=True, capture_output=True)
        waits = {}
        for e in json.load(open(tl))["traceEvents"]:
            if e.get("ph") == "X" and e["name"] == "wait_mbarrier":
                waits.setdefault(e["pid"], []).append((e["ts"], e["dur"]))
        pick = 1 if warm else 0
        return statistics.median(sorted(w)[pick][1] for w in waits.values()) + 40


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    rows = [r for r in csv.DictReader(line for line in open(CSV) if not line.startswith("#"))
            if r["place"] == "contig" and r["state"] in ("dram", "l2")]
    print("| state | CTAs | bytes | H200 median | simulated | error |")
    print("|---|---:|---:|---:|---:|---:|")
    for r in rows:
        g, size = int(r["ctas"]), int(r["size_bytes"])
        sim = simulate(sys.argv[1], g, size, r["state"] == "l2")
        hw = float(r["median_cycles"])
        print(f"| {r['state']} | {g} | {size} | {hw:.0f} | {sim:.0f} | {100 * (sim / hw - 1):+.1f} % |")


if __name__ == "__main__":
    main()
