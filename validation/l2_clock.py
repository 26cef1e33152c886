#!/usr/bin/env python3
"""The L2's clock and its slices' output rate, read from any Nsight Compute log of a chip
(validation/data/<gpu>/ncu_l2/*_raw.csv) that holds lts__cycles_elapsed.avg with
gpu__time_duration.sum: per file, the launches' L2 clock (lts__cycles_elapsed.avg over the
kernel's duration, min / median / max MHz) and, where lts__lts2xbar_cycles_active.sum was asked,
the most L2 output units busy at once (active cycles over elapsed L2 cycles, the file's highest
three launches) with the tex read sectors each active cycle carried. No launch is filtered.

  python3 validation/l2_clock.py validation/data/h100/ncu_l2/*_raw.csv
  python3 validation/l2_clock.py --gpu h100      # the same: every ncu_l2 file of that chip

Used for configs/h100.yaml's l2.clock_mhz (no GEMM of the H100 was profiled with the L2's clock).
"""
import argparse
import csv
import glob
import io
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SECONDS = {"ns": 1e-9, "nsecond": 1e-9, "us": 1e-6, "usecond": 1e-6, "ms": 1e-3, "msecond": 1e-3,
           "s": 1.0, "second": 1.0}


def launches(path):
    """Per launch, in order: {metric name: (unit, value)}. Reads ncu's long format (--csv
    --print-units base: one row per metric, with "Metric Unit") and its raw page (--page raw: one
    row per launch, the units in the second row); lines before the ID header are skipped. A file
    without units (a reduced log) gives nothing."""
    text = open(path).read().splitlines()
    start = next((i for i, line in enumerate(text) if line.startswith(('"ID"', "ID,"))), None)
    if start is None:
        return []
    rows = list(csv.reader(io.StringIO("\n".join(text[start:]))))
    header = rows[0]
    if "Metric Name" in header:
        if "Metric Unit" not in header:
            return []
        name, unit, value = (header.index(c) for c in ("Metric Name", "Metric Unit", "Metric Value"))
        by = {}
        for r in rows[1:]:
            try:
                by.setdefault(r[0], {})[r[name]] = (r[unit], float(r[value].replace(",", "")))
            except (ValueError, IndexError):
                continue
        return list(by.values())
    units = rows[1] if len(rows) > 1 else []
    out = []
    for r in rows[2:]:
        m = {}
        for col, (metric, unit) in enumerate(zip(header, units)):
            try:
                m[metric] = (unit, float(r[col].replace(",", "")))
            except (ValueError, IndexError):
                continue
        out.append(m)
    return out


def summarize(path):
    """(clock MHz list, [(active units, tex sectors per active cycle)]) of one file."""
    clocks, units = [], []
    for m in launches(path):
        if "lts__cycles_elapsed.avg" not in m or "gpu__time_duration.sum" not in m:
            continue
        unit, duration = m["gpu__time_duration.sum"]
        if unit not in SECONDS or duration <= 0:
            raise SystemExit(f"{path}: gpu__time_duration.sum in unknown unit {unit!r}")
        elapsed = m["lts__cycles_elapsed.avg"][1]
        clocks.append(elapsed / (duration * SECONDS[unit]) / 1e6)
        if "lts__lts2xbar_cycles_active.sum" in m and elapsed > 0:
            active = m["lts__lts2xbar_cycles_active.sum"][1]
            tex = m.get("lts__t_sectors_srcunit_tex_op_read.sum", (None, 0.0))[1]
            units.append((active / elapsed, tex / active if active else 0.0))
    return clocks, units


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*")
    ap.add_argument("--gpu", help="every validation/data/GPU/ncu_l2/*_raw.csv")
    args = ap.parse_args()
    files = list(args.files)
    if args.gpu:
        files += sorted(glob.glob(os.path.join(HERE, "data", args.gpu, "ncu_l2", "*_raw.csv")))
    if not files:
        ap.error("no files (give FILES or --gpu)")
    everything = []
    print("file,launches,l2_mhz_min,l2_mhz_median,l2_mhz_max,busiest_active_units,tex_sectors_per_active_cycle")
    for path in files:
        clocks, units = summarize(path)
        if not clocks:
            continue
        everything += clocks
        top = sorted(units)[-3:]
        print(f"{os.path.basename(path)},{len(clocks)},{min(clocks):.0f},{statistics.median(clocks):.0f},"
              f"{max(clocks):.0f},{' '.join(f'{a:.1f}' for a, _ in top)},"
              f"{' '.join(f'{s:.2f}' for _, s in top)}")
    if not everything:
        sys.exit("no launch with lts__cycles_elapsed.avg and gpu__time_duration.sum")
    print(f"# all {len(everything)} launches: L2 clock {min(everything):.0f} / "
          f"{statistics.median(everything):.0f} / {max(everything):.0f} MHz (min / median / max)")


if __name__ == "__main__":
    main()
