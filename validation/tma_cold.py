#!/usr/bin/env python3
"""A line's DRAM miss from every SM, near- and far-homed: micro_tma_partition_cold_helper{0,2}.csv
(validation/hw/micro/tma_partition.cu --cold, `next_batch.sh tmacold`; twenty-eighth session).

Per target SM: a flush, pass 6 loads each of 192 random lines of a 64 MiB region from DRAM by a
128-B TMA 2-D box (tma_latency's 64x1 fp16), one at a time; a flush, pass 7 the same by a
dependent ld.global.cg; a flush, the helper SM TMA-loads the lines and pass 0 loads them again
from the target, which tells the lines homed in the other partition (tma_partition.py's
groups: B's SMs see home-A lines far in pass 0). A line is near-homed for a target SM when its
home partition is the target's own. Cells: p10 / p25 / median / p75 / p90 (mean) cycles.

    python3 validation/tma_cold.py [CSV ...]
    python3 validation/tma_cold.py --sim BUILD/asyncsim [--sms N] [--set KEY=VALUE ...]

--sim runs pass 6 on the model: per target SM (every 132 / N-th, default 33 of them) a fresh
simulation (the flush) of its cold TMA loads, and one of the helper's loads then the target's
(pass 0) for the near / far split, read the same way (tma_partition.py's programs and timing).
"""
import collections
import os
import statistics
import sys

import sim_timeline
import tma_partition
from datafile import data_glob

FAR = 430  # SM cycles: a pass-0 load above this is a far L2 hit (near ~330, far ~515)


def quant(v):
    s = sorted(v)
    q = [s[int(f * (len(s) - 1))] for f in (0.1, 0.25, 0.5, 0.75, 0.9)]
    return " / ".join(str(x) for x in q) + f" ({statistics.mean(s):.0f})"


def far_share_of(data, h, s):
    """The share of SM s's pass-0 loads that were far L2 hits (B's SMs: ~half; A's: none)."""
    v = [c for (ln, p), c in data[(h, s)].items() if p == 0]
    return sum(c > FAR for c in v) / max(1, len(v))


def split(data, passes):
    """{pass: (near-homed samples, far-homed samples)} over every target SM and line, then the
    SMs of groups A and B and the lines homed in A and in all, for the title."""
    sms = sorted({s for (_, s) in data})
    helpers = {h for (h, _) in data}
    if len(helpers) != 1:
        raise SystemExit(f"one helper per file, got {sorted(helpers)}")
    h = helpers.pop()
    group_b = {s for s in sms if far_share_of(data, h, s) > 0.2}
    lines = sorted({ln for (ln, p) in data[(h, sms[0])] if p == 0})
    home_a = {ln: statistics.median(data[(h, s)][(ln, 0)] for s in group_b) > FAR for ln in lines}
    out = {}
    for p in passes:
        near, far = [], []
        for s in sms:
            for ln in lines:
                if (ln, p) in data[(h, s)]:
                    # near-homed: home A for A's SMs, home B for B's
                    (near if home_a[ln] == (s not in group_b) else far).append(data[(h, s)][(ln, p)])
        out[p] = (near, far)
    return out, len(sms) - len(group_b), len(group_b), sum(home_a.values()), len(lines)


NAMES = {6: "TMA 2-D from DRAM", 7: "ld.global.cg from DRAM", 0: "TMA 2-D after the helper"}


def summarise(title, data, passes):
    out, na, nb, nha, nl = split(data, passes)
    print(f"## {title}: group A {na} SMs, B {nb}; {nha} of {nl} lines homed in A")
    print("| pass | near-homed p10 / p25 / median / p75 / p90 (mean) | far-homed |")
    print("|---|---|---|")
    for p in passes:
        near, far = out[p]
        print(f"| {p} {NAMES[p]} | {quant(near)} | {quant(far)} |")
    print()


def simulate(binary, step, extra):
    lines = tma_partition.random_lines(192, tma_partition.REGION // 128)
    out = collections.defaultdict(dict)
    for s in range(0, 132, step):
        cold = sim_timeline.run_bare(binary, [tma_partition.program(s, lines, False)], extra)
        warm = sim_timeline.run_bare(binary, [tma_partition.program(0, lines, False),
                                              tma_partition.program(s, lines, False)], extra)
        for p, per, skip in ((6, cold, 0), (0, warm, len(lines) if s == 0 else 0)):
            copies, waits = next(v for (sm, _), v in per.items() if sm == s)
            copies = copies[skip:]
            if len(copies) != len(lines):
                raise SystemExit(f"SM {s}: {len(copies)} copies timed for {len(lines)}")
            for k, (issue, _, done) in enumerate(copies):
                out[(0, s)][(k, p)] = round(sim_timeline.seen(waits, done) - issue + 40)
    return out


def main():
    args = sys.argv[1:]
    if args[:1] == ["--sim"]:
        if len(args) < 2:
            sys.exit(__doc__)
        binary, rest, step = args[1], args[2:], 4
        if rest[:1] == ["--sms"]:
            step, rest = 132 // int(rest[1]), rest[2:]
        summarise(f"model ({binary} {' '.join(rest)})", simulate(binary, step, rest), (6, 0))
        return
    paths = args or data_glob(os.path.join(tma_partition.DATA,
                                          "micro_tma_partition_cold_helper*.csv"))
    for p in paths:
        summarise(os.path.basename(p).removesuffix(".gz"), tma_partition.load(p), (6, 7, 0))


if __name__ == "__main__":
    main()
