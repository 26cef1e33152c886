#!/usr/bin/env python3
"""What Proton's records cost on the H200, from validation/traces/record_cost.csv
(validation/traces/record_cost_h200.sh: every kernel captured with every op recorded and with
only its first and last op recorded, same run, same buffer).

  python3 validation/traces/record_cost.py [validation/traces/record_cost.csv]

Per kernel: the median CTA span (SM cycles from the first record's start to the last record's
end, lead warp of warpgroup 0) with all records and with the bracket only, their difference per
CTA and per K iteration, and the records per K iteration of one warp. Spans are compared within
one kernel only: the two captures ran back to back on the same inputs.
"""
import collections
import csv
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# K iterations per CTA (K / 64) and warps per CTA of each captured kernel; the persistent kernel
# loops over ~2 tiles of 64 iterations per CTA (256 tiles on 132 CTAs).
KERNELS = {
    "gemm_1024x1024x1024_w4": (16, 4), "gemm_1024x1024x1024_w8": (16, 8),
    "gemm_2048x4096x4096_w4": (64, 4), "gemm_2048x4096x4096_w8": (64, 8),
    "gemm_4096x4096x4096_w8": (64, 8), "persistentws_2048x4096x4096_w8": (256 * 64 / 132, 8),
}


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "record_cost.csv")
    spans, recs = collections.defaultdict(list), collections.defaultdict(list)
    with open(path) as f:
        for r in csv.DictReader(f):
            if r["warp"] != "0":
                continue
            spans[(r["kernel"], r["records"])].append(int(r["end"]) - int(r["start"]))
            recs[(r["kernel"], r["records"])].append(int(r["records_n"]))
    print("| kernel | warps | CTAs | span, all records | span, bracket | records cost per CTA | "
          "per K iteration | scopes per K iteration (one warp) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, (iters, warps) in KERNELS.items():
        a, b = spans.get((name, "all")), spans.get((name, "bracket"))
        if not a or not b:
            print(f"| {name} | {warps} | | missing | | | | |")
            continue
        ma, mb = statistics.median(a), statistics.median(b)
        n = statistics.median(recs[(name, "all")])
        print(f"| {name} | {warps} | {len(a)} | {ma:.0f} | {mb:.0f} | {ma - mb:+.0f} "
              f"({100 * (ma - mb) / mb:+.1f} %) | {(ma - mb) / iters:.0f} | {n / iters:.1f} |")


if __name__ == "__main__":
    main()
