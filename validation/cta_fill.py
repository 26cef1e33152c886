#!/usr/bin/env python3
"""Reads validation/data/h200/micro_cta_fill.csv (validation/hw/micro/cta_fill.cu) and
  - prints, for each dispatch launch, the order in which the H200 filled its SMs in units of
    the cluster groups of micro_sm_map.csv (validation/sm_map.py), and how many CTAs each SM
    had among the first N;
  - writes the l2_read table's summary, one row per number of working CTAs, to
    validation/data/h200/micro_cta_fill_l2.csv (the CSV `asyncsim micro cta_fill` compares with):
      working_ctas      G: CTAs 0..G-1 load (buffer = G x 4 KB), the other 1056 - G only loop
      max_ctas_per_sm   working CTAs on the busiest SM
      kernel_us         CUDA events, median of the 3 launches
      sm_pass_ns        the slowest working CTA's entry-to-exit time / passes, median of launches

  python3 validation/cta_fill.py [CSV]
Standard library only.
"""
import csv
import os
import statistics
import sys
from collections import Counter

from sm_map import cluster_groups

HERE = os.path.dirname(os.path.abspath(__file__))
PASSES = 2048  # cta_fill.cu


def sm_groups():
    """SM -> cluster group, as validation/sm_map.py derives it from micro_sm_map.csv."""
    rows = list(csv.DictReader(
        line for line in open(os.path.join(HERE, "data", "h200", "micro_sm_map.csv"))
        if not line.startswith("#")))
    return cluster_groups(rows)


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        HERE, "data", "h200", "micro_cta_fill.csv")
    rows = list(csv.DictReader(line for line in open(path) if not line.startswith("#")))
    # The source's date/script/device lines carry over; the method line says how
    # the table was derived (validation/check_data.py wants all four first).
    prov = [line.rstrip("\n") for line in open(path) if line.startswith("#")][:3]
    group = sm_groups()
    for launch in sorted({r["launch"] for r in rows if r["table"] == "dispatch"}):
        d = sorted((r for r in rows if r["table"] == "dispatch" and r["launch"] == launch),
                   key=lambda r: int(r["cta"]))
        runs = []
        for r in d:
            g = group[int(r["smid"])]
            if runs and runs[-1][0] == g:
                runs[-1][1] += 1
            else:
                runs.append([g, 1])
        print(f"dispatch launch {launch}, {d[0]['k_or_bytes']} per SM, {len(d)} CTAs: "
              + " ".join(f"{g}x{n}" for g, n in runs))
        for first in (132, 264, 512):
            if first < len(d):
                per_sm = Counter(int(r["smid"]) for r in d[:first])
                hist = sorted(Counter(per_sm.values()).items())
                print(f"  first {first}: SMs with n CTAs: "
                      + ", ".join(f"{n}: {c}" for n, c in hist)
                      + f" (none: {132 - len(per_sm)})")
    out = os.path.join(os.path.dirname(path), "micro_cta_fill_l2.csv")
    lines = []
    for size in sorted({int(r["k_or_bytes"]) for r in rows if r["table"] == "l2_read"}):
        g = size // 4096
        kern, slow, busiest = [], [], 0
        for launch in sorted({r["launch"] for r in rows if r["table"] == "l2_read"}):
            x = [r for r in rows if r["table"] == "l2_read" and int(r["k_or_bytes"]) == size
                 and r["launch"] == launch]
            work = [r for r in x if int(r["cta"]) < g]
            kern.append(float(x[0]["kernel_us"]))
            slow.append(max(int(r["end_ns"]) - int(r["start_ns"]) for r in work) / PASSES)
            busiest = max(busiest, max(Counter(int(r["smid"]) for r in work).values()))
        lines.append(f"{g},{size},{PASSES},{busiest},{statistics.median(kern):.2f},"
                     f"{statistics.median(slow):.1f}")
    with open(out, "w") as f:
        f.write("\n".join(prov) + "\n")
        f.write(f"# method: derived by validation/cta_fill.py from {os.path.basename(path)} "
                "table=l2_read: per working-CTA count, kernel_us = median over launches of the "
                "CUDA-event time, sm_pass_ns = median over launches of the slowest working CTA's "
                "(end_ns - start_ns) / passes, max_ctas_per_sm = most working CTAs on one SM\n")
        f.write("working_ctas,buffer_bytes,passes,max_ctas_per_sm,kernel_us,sm_pass_ns\n")
        f.write("\n".join(lines) + "\n")
    print(f"wrote {out}")
    print(open(out).read())


if __name__ == "__main__":
    main()
