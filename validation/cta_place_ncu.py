#!/usr/bin/env python3
"""What the L2 slices counted in cta_place.cu's copies (`next_batch.sh placencu`, under Nsight
Compute): validation/data/h200/micro_cta_place_ncu_points.csv (the .cu's own medians, timed under
ncu) and ncu_l2/cta_place_raw.csv (6 launches a set, the first the warm-up; medians of the other
5), and the same counts from the model's second launch (`--sim BUILD/asyncsim`).

  python3 validation/cta_place_ncu.py [--sim BUILD/asyncsim [--set KEY=VALUE ...]]

The question: is the all-132 burst (1339 cycles on the H200 against 1113-1240 for one GPC's
16-18 SMs; the model 1172) bound by its busiest slice? Columns: units = the lts units ncu
counts (sum / avg), sectors = lts__t_sectors_srcunit_tex_op_read over the bytes copied,
max/mean = the busiest unit's sectors over the mean unit's (ncu's .max / .avg; the model: its
busiest slice's sector reads over the mean of its 96), fabric = the share of sectors that
crossed the partitions, xbar = the busiest unit's lts2xbar busy cycles, per sector it served.
Standard library only.
"""
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile

import cta_place
from ncu_raw import ncu_rows

H = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "validation",
                 "data", "h200")
SECT = "lts__t_sectors_srcunit_tex_op_read"


def measured():
    """{(set, size): {metric: median over the 5 timed launches}, ...} and the points' rows."""
    launches = ncu_rows(os.path.join(H, "ncu_l2", "cta_place_raw.csv"))
    points = list(csv.DictReader(line for line in open(os.path.join(
        H, "micro_cta_place_ncu_points.csv")) if not line.startswith("#")))
    if len(launches) != 6 * len(points):
        raise SystemExit(f"{len(launches)} launches for {len(points)} rows: expected 6 a row")
    out = {}
    for i, p in enumerate(points):
        ls = [launches[6 * i + j] for j in range(1, 6)]
        out[(p["set"], int(p["size_bytes"]))] = (
            p, {k: statistics.median(x[k] for x in ls) for k in ls[0]})
    return out


def simulated_spread(binary, sms, size, extra):
    """The model's second launch of the set: its busiest slice's sector reads over the mean."""
    text = cta_place.program(sms, size)
    with tempfile.TemporaryDirectory() as tmp:
        path, stats = os.path.join(tmp, "p.asim"), os.path.join(tmp, "s.json")
        with open(path, "w") as f:
            f.write(text)
        subprocess.run([binary, "run", path, path, "--sm-clock-mhz", "1980", "--stats", stats,
                        *extra], check=True, capture_output=True)
        c = json.load(open(stats))[-1]["counters"]
    per = [c[f"l2.slice[{s}].read_hits"] + c[f"l2.slice[{s}].read_misses"] for s in range(96)]
    return max(per) / (sum(per) / len(per))


def main():
    args = sys.argv[1:]
    binary = None
    if args[:1] == ["--sim"]:
        if len(args) < 2:
            sys.exit(__doc__)
        binary, extra = args[1], args[2:]
    elif args:
        sys.exit(__doc__)
    sets = cta_place.sets()
    head = "| set | SMs | bytes | median cycles | units | sectors | max/mean | fabric | xbar |"
    rule = "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    if binary:
        head += " model max/mean |"
        rule += "---:|"
    print(head)
    print(rule)
    for (name, size), (p, m) in measured().items():
        sec = m[f"{SECT}.sum"]
        units = sec / m[f"{SECT}.avg"] if m[f"{SECT}.avg"] else 0
        row = (f"| {name} | {p['sms']} | {size} | {p['median_cycles']} | {units:.0f} | "
               f"{sec * 32 / (int(p['sms']) * size):.2f} | {m[f'{SECT}.max'] / m[f'{SECT}.avg']:.2f} | "
               f"{m['lts__t_sectors_srcunit_ltcfabric.sum'] / sec:.3f} | "
               f"{m['lts__lts2xbar_cycles_active.max'] / m[f'{SECT}.max']:.2f} |")
        if binary:
            row += f" {simulated_spread(binary, sets[name], size, extra):.2f} |"
        print(row)


if __name__ == "__main__":
    main()
