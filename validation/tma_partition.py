#!/usr/bin/env python3
"""Summarise micro_tma_partition*.csv (validation/hw/micro/tma_partition.cu): 128-B TMA loads of
192 L2-resident lines, first read by a helper SM, then by every SM in passes (0, 1: TMA 2-D;
2: ld.global.cg; 3: TMA 2-D; 4: 1-D cp.async.bulk; 5: TMA 2-D through a map of the same bytes
with 4 KB rows; the first run has passes 0 and 1 only, the H100 run 0-4).

SMs are split into the helper's partition group (A: no line is much slower in pass 0 than in
pass 1) and the other (B: some lines are, the far lines that pass 0 leaves a near copy of).
Lines are split by what the SMs see:
  home A   slow for B in pass 0 only (homed near the helper; B's pass 0 leaves a copy)
  home B   fast for both groups in every pass (homed in B; the helper's read left a copy in A)
  slow     slow for A's SMs in pass 1, though the helper, in A, read them already: the lines
           timed at positions 3 mod 4, whose sample waits for the load of the next line's
           coordinates (validation/README.md, "Near and far lines by TMA")
and each cell gives p10 / median / p90 / mean cycles over the group's SMs and the class's lines.

    python3 validation/tma_partition.py [CSV ...]   (default: every micro_tma_partition*.csv)
    python3 validation/tma_partition.py --sim BUILD/asyncsim [--sms N] [--set KEY=VALUE ...]

--sim runs the same experiment on the model and prints the same table for it: per target SM
(every 132 / N-th, default all) a fresh simulation (the flush) of four launches back to back,
the L2 carrying over: SM 0 TMA-loads the lines, then the target loads each in turn, passes 0
and 1 by TMA 2-D (tma_partition.cu's tensor and box), pass 2 by a 1-D bulk copy (the H200's
pass 4; the model has no dependent-load mirror here). A load's time is from its issue to the
end of the wait that saw it, plus 40 cycles for the clock read and the arrive (cta_place.py's
convention; sim_timeline.py).
"""
import collections
import csv
import os
import statistics
import sys

import sim_timeline
from datafile import data_glob, open_text

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "validation", "data", "h200")
FAR_GAP = 80  # SM cycles: pass 0 this much above pass 1 is a far read that left a near copy
SLOW = 60  # SM cycles above the median of all pass-1 loads of A: a line A's SMs see slow


def load(path):
    """{(helper, smid): {(line, pass): cycles}}"""
    with open_text(path) as f:
        rows = [r for r in csv.reader(f) if r and not r[0].startswith("#")]
    head = rows[0]
    out = collections.defaultdict(dict)
    for r in rows[1:]:
        x = dict(zip(head, r))
        key = (int(x.get("helper", 0)), int(x["smid"]))
        out[key][(int(x["line"]), int(x["pass"]))] = int(x["cycles"])
    return out


def stats(xs):
    q = statistics.quantiles(xs, n=10)
    return f"{q[0]:.0f} / {statistics.median(xs):.0f} / {q[-1]:.0f} / {statistics.mean(xs):.0f}"


def summarise(title, data):
    """Prints the tables of one run, {(helper, smid): {(line, pass): cycles}}, titled `title`."""
    for helper in sorted({h for h, _ in data}):
        sms = {s: v for (h, s), v in data.items() if h == helper}
        lines = sorted({ln for v in sms.values() for ln, _ in v if ln > 0})  # line 0 fetches the map
        passes = sorted({p for v in sms.values() for _, p in v})
        far = {s for s, v in sms.items() if sum(v[(ln, 0)] - v[(ln, 1)] > FAR_GAP for ln in lines) > len(lines) // 5}
        group_a = sorted(s for s in sms if s not in far)
        group_b = sorted(far)
        base = statistics.median(sms[s][(ln, 1)] for s in group_a for ln in lines)
        classes = collections.defaultdict(list)
        for ln in lines:
            if statistics.median(sms[s][(ln, 1)] for s in group_a) > base + SLOW:
                classes["slow"].append(ln)
            elif group_b and statistics.median(sms[s][(ln, 0)] - sms[s][(ln, 1)] for s in group_b) > FAR_GAP:
                classes["home A"].append(ln)
            else:
                classes["home B"].append(ln)
        print(f"## {title}, helper SM {helper}: group A {len(group_a)} SMs, B {len(group_b)} SMs")
        print("| lines | n | SMs | " + " | ".join(f"pass {p}" for p in passes) + " |")
        print("|---|---:|---|" + "---|" * len(passes))
        for name in ("home A", "home B", "slow"):
            ls = classes[name]
            if not ls:
                continue
            for gname, group in (("A", group_a), ("B", group_b)):
                if not group:
                    continue
                cells = [stats([sms[s][(ln, p)] for s in group for ln in ls]) for p in passes]
                print(f"| {name} | {len(ls)} | {gname} | " + " | ".join(cells) + " |")
        print()


def random_lines(n, region_lines):
    """common.cuh's add_random_lines: n distinct lines of the region, xorshift64 from a fixed seed."""
    mask, x, out = (1 << 64) - 1, 88172645463325252, []
    while len(out) < n:
        x ^= (x << 13) & mask
        x ^= x >> 7
        x ^= (x << 17) & mask
        if x % region_lines not in out:
            out.append(x % region_lines)
    return out


BASE = 1 << 32
REGION = 64 << 20


def program(sm, lines, bulk):
    body = []
    for i, ln in enumerate(lines):
        body.append("    MB_ARRIVE_EXPECT_TX bar[0] bytes=128")
        if bulk:
            body.append(f"    BULK_LOAD addr={BASE + ln * 128} bytes=128 bar=bar[0]")
        else:
            body.append(f"    TMA_LOAD T [{ln % 64 * 64}, {ln // 64}] bar=bar[0]")
        body.append(f"    MB_WAIT bar[0] parity={i % 2}")
    return (f"kernel tma_partition\ngrid 132\nresources regs=32 smem=204800\n"
            f"tensormap T dtype=f16 dims=[4096, {REGION // 8192}] strides=[8192] box=[64, 1] "
            f"base={BASE:#x} swizzle=none\nmbarrier bar[1] arrivals=1\nrole main warpgroups=1\n"
            f"  if sm == {sm}\n" + "\n".join(body) + "\n  end\nend\n")


def simulate(binary, step, extra):
    """The model's run, in load()'s form."""
    lines = random_lines(192, REGION // 128)
    out = collections.defaultdict(dict)
    for s in range(0, 132, step):
        progs = [program(0, lines, False), program(s, lines, False), program(s, lines, False),
                 program(s, lines, True)]
        per = sim_timeline.run_bare(binary, progs, extra)
        copies, waits = next(v for (sm, _), v in per.items() if sm == s)
        if s == 0:
            copies = copies[len(lines):]  # the helper's own launch came first on SM 0
        if len(copies) != 3 * len(lines):
            raise SystemExit(f"SM {s}: {len(copies)} copies timed for {3 * len(lines)}")
        for k, (issue, _, done) in enumerate(copies):
            out[(0, s)][(k % len(lines), k // len(lines))] = round(sim_timeline.seen(waits, done) - issue + 40)
    return out


def main():
    args = sys.argv[1:]
    if args[:1] == ["--sim"]:
        binary, rest, step = args[1], args[2:], 1
        if rest[:1] == ["--sms"]:
            step, rest = 132 // int(rest[1]), rest[2:]
        summarise(f"model ({binary} {' '.join(rest)})", simulate(binary, step, rest))
        return
    paths = args or data_glob(os.path.join(DATA, "micro_tma_partition*.csv"))
    for p in paths:
        summarise(os.path.basename(p).removesuffix(".gz"), load(p))


if __name__ == "__main__":
    main()
