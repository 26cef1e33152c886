#!/usr/bin/env python3
"""What the L2 counted while 1-132 CTAs each made their first bulk copy at kernel start
(validation/hw/micro/cta_start.cu under Nsight Compute, `next_batch.sh burst`, twenty-fifth
session): validation/data/h200/micro_cta_start_ncu_points.csv (the .cu's own medians, timed
under ncu) and ncu_l2/cta_start_raw.csv (6 launches a row, the first the .cu's warm-up; medians
of the other 5).

  python3 validation/cta_start_ncu.py

Only the l2 rows are read: ncu replays a launch for its second counter pass, so a dram row's
counters (and its timing, 1332 against 2778 cycles without ncu) come from a warm L2. Columns:
sectors = lts__t_sectors_srcunit_tex_op_read over the bytes copied (1.00: every byte looked up
once, nothing merged), hit = its lookup_hit share, fabric = lts__t_sectors_srcunit_ltcfabric over
it (reads that crossed to the other partition), xbar = lts__lts2xbar_cycles_active per sector,
rate = sectors per L2 cycle over the time the copies add to a lone 4 KB copy (the row's median
minus 1 CTA x 4 KB's, SM cycles at 1980 MHz to L2 cycles at 1700), against the 188 a cycle that
ncu's peak gives (ncu_l2/README.md). Standard library only.
"""
import csv
import os
import statistics

from ncu_raw import ncu_rows

H = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "validation",
                 "data", "h200")
PEAK = 188


def main():
    launches = ncu_rows(os.path.join(H, "ncu_l2", "cta_start_raw.csv"))
    points = list(csv.DictReader(line for line in open(os.path.join(
        H, "micro_cta_start_ncu_points.csv")) if not line.startswith("#")))
    if len(launches) != 6 * len(points):
        raise SystemExit(f"{len(launches)} launches for {len(points)} rows: expected 6 a row")
    base = {}
    print("| place | CTAs | bytes | median cycles | sectors | hit | fabric | xbar | rate (of 188) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for i, p in enumerate(points):
        if p["state"] != "l2":
            continue
        ls = [launches[6 * i + j] for j in range(1, 6)]

        def med(k):
            return statistics.median(x[k] for x in ls)
        nbytes = int(p["ctas"]) * int(p["size_bytes"])
        sec = med("lts__t_sectors_srcunit_tex_op_read.sum")
        cyc = int(p["median_cycles"])
        base.setdefault(p["place"], cyc)  # the first l2 row: 1 CTA, 4 KB
        extra = (cyc - base[p["place"]]) / 1980 * 1700
        rate = f"{sec / extra:.0f}" if extra > 50 else "-"
        print(f"| {p['place']} | {p['ctas']} | {p['size_bytes']} | {cyc} | {sec * 32 / nbytes:.2f} | "
              f"{med('lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum') / sec:.3f} | "
              f"{med('lts__t_sectors_srcunit_ltcfabric.sum') / sec:.3f} | "
              f"{med('lts__lts2xbar_cycles_active.sum') / sec:.2f} | {rate} |")


if __name__ == "__main__":
    main()
