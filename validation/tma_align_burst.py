#!/usr/bin/env python3
"""Misaligned TMA boxes from many SMs at once, simulated against
validation/data/h200/micro_tma_align_burst.csv (validation/hw/micro/tma_align_burst.cu).

  python3 validation/tma_align_burst.py BUILD/asyncsim [--set KEY=VALUE ...]

G CTAs, one per SM, each re-read their own 128-row block of a [S/2 x 128 G] fp16 tensor (row
stride S bytes): per iteration 8 boxes of 64 columns x 128 rows (128 KB) on one mbarrier, 18
iterations. The hardware times each iteration (expect_tx, 8 issues, wait) and reports the
median over CTAs of each CTA's median over iterations 2..17; the simulation takes the same
statistic over the time between consecutive iteration ends (the first iterations fill L2 from
DRAM in the model; the hardware read the tensor with all SMs first, and drops them too).
Simulated at each row's measured clock with the kernel and CTA launch costs off. Standard
library only.
"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CSV = os.path.join(ROOT, "validation", "data", "h200", "micro_tma_align_burst.csv")
ITERS = 18


def program(g, stride):
    loads = "".join(f"    TMA_LOAD A [{64 * b}, cta * 128] bar=full[0]\n" for b in range(8))
    return (f"kernel tma_align_burst\ngrid {g}\nresources regs=32 smem=132096\n"
            f"tensormap A dtype=f16 dims=[{stride // 2}, {128 * g}] strides=[{stride}] "
            f"box=[64, 128] base=0x100000000\n"
            f"mbarrier full[1] arrivals=1\nrole main warpgroups=1\n"
            f"  loop i = 0, {ITERS}\n    MB_ARRIVE_EXPECT_TX full[0] bytes=131072\n{loads}"
            f"    MB_WAIT full[0] parity=i % 2\n  end\nend\n")


def simulate(binary, g, stride, mhz, sets):
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "p.asim")
        tl = os.path.join(tmp, "t.json")
        open(src, "w").write(program(g, stride))
        cmd = [binary, "run", src, "--sm-clock-mhz", str(mhz), "--set", "sm.kernel_launch_cycles=0",
               "--set", "sm.cta_launch_cycles=0", "--timeline", tl]
        for s in sets:
            cmd += ["--set", s]
        subprocess.run(cmd, check=True, capture_output=True)
        spans = {}
        for e in json.load(open(tl))["traceEvents"]:
            if e.get("ph") == "X" and e["name"] == "wait_mbarrier":
                spans.setdefault(e["pid"], []).append((e["ts"], e["ts"] + e["dur"]))
        per_cta = []
        for sp in spans.values():
            # A wait right after the copies is drawn as two slices: the attempt the
            # copy holds (tma.barrier_hold_cycles), then the wait itself, at most a cycle or two
            # later. One wait, one end.
            sp.sort()
            v = []
            for begin, end in sp:
                if v and begin <= v[-1] + 2:
                    v[-1] = end
                else:
                    v.append(end)
            if len(v) != ITERS:
                raise SystemExit(f"expected {ITERS} waits per CTA, got {len(v)}")
            per_cta.append(statistics.median(b - a for a, b in zip(v[1:], v[2:])))
        return statistics.median(per_cta)  # the timeline's unit is one SM cycle


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--set", action="append", default=[])
    a = ap.parse_args()
    rows = list(csv.DictReader(line for line in open(CSV) if not line.startswith("#")))
    print("| stride B | CTAs | H200 median | simulated | error | H200 vs aligned | sim vs aligned |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    base_hw, base_sim = {}, {}
    for r in rows:
        g, s, mhz = int(r["ctas"]), int(r["stride_bytes"]), float(r["sm_mhz"])
        hw = float(r["median_cycles"])
        sim = simulate(a.binary, g, s, mhz, a.set)
        if s % 128 == 0:
            base_hw[g], base_sim[g] = hw, sim
        rel_hw = f"{hw / base_hw[g]:.2f}x" if g in base_hw else ""
        rel_sim = f"{sim / base_sim[g]:.2f}x" if g in base_sim else ""
        print(f"| {s} | {g} | {hw:.0f} | {sim:.0f} | {100 * (sim / hw - 1):+.1f} % | {rel_hw} | {rel_sim} |",
              flush=True)


if __name__ == "__main__":
    main()
