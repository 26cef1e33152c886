#!/usr/bin/env python3
"""Markdown tables for validation/README.md from `asyncsim validate --json` output.

  build/asyncsim validate validation/data/h200/gemm.csv validation/data/h200/persistent.csv \
      validation/data/h200/attention.csv --split calib,test,frontend --json > validation/results_h200.json
  python3 validation/report.py validation/results_h200.json            # summary table
  python3 validation/report.py validation/results_h200.json --rows gemm # per-row table of a kernel

The summary groups are fixed (they are the ones issue 5 judges), so the README cannot drift
from the JSON it was made from.
"""
import argparse
import json


def stats(rows):
    e = [r["error_pct"] for r in rows]
    d = [r["dram_error_pct"] for r in rows if r.get("dram_error_pct") is not None]
    n = len(e)
    if n == 0:
        return None
    return dict(n=n, mape=sum(abs(x) for x in e) / n, bias=sum(e) / n, max=max(abs(x) for x in e),
                within=100.0 * sum(abs(x) <= 10 for x in e) / n,
                dmape=sum(abs(x) for x in d) / len(d) if d else float("nan"),
                dmax=max(abs(x) for x in d) if d else float("nan"),
                dwithin=100.0 * sum(abs(x) <= 10 for x in d) / len(d) if d else float("nan"))


def d_of(r):
    return int(r["shape"].split("x")[3].split()[0]) if r["kernel"].startswith("attention") else None


GROUPS = [
    ("GEMM calib, both tiles", lambda r: r["kernel"] == "gemm" and r["split"] == "calib"),
    ("GEMM calib 128x128x64 w4", lambda r: r["kernel"] == "gemm" and r["split"] == "calib" and "w4" in r["variant"]),
    ("GEMM calib 128x256x64 w8", lambda r: r["kernel"] == "gemm" and r["split"] == "calib" and "w8" in r["variant"]),
    ("GEMM held-out test", lambda r: r["kernel"] == "gemm" and r["split"] == "test"),
    ("Persistent tutorial GEMM (not ours)", lambda r: r["kernel"].startswith("gemm_persistent")),
    ("Attention calib, both variants", lambda r: r["kernel"] == "attention" and r["split"] == "calib"),
    ("Attention held-out test", lambda r: r["kernel"] == "attention" and r["split"] == "test"),
    ("Attention D=128", lambda r: r["kernel"] == "attention" and d_of(r) == 128),
    ("Attention D=64", lambda r: r["kernel"] == "attention" and d_of(r) == 64),
    ("Attention causal", lambda r: r["kernel"] == "attention" and "causal" in r["shape"]),
]


def summary(rows):
    out = ["| rows | n | MAPE % | bias % | max abs % | within 10 % | DRAM MAPE % | DRAM max % | DRAM within 10 % |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name, pred in GROUPS + [(f"all {len(rows)} rows", lambda r: True)]:
        s = stats([r for r in rows if pred(r)])
        if s:
            out.append(f"| {name} | {s['n']} | {s['mape']:.1f} | {s['bias']:+.1f} | {s['max']:.1f} | "
                       f"{s['within']:.0f} % | {s['dmape']:.1f} | {s['dmax']:.1f} | {s['dwithin']:.0f} % |")
    return "\n".join(out)


def per_row(rows, kernel):
    out = ["| kernel | variant | split | shape | MHz | measured | simulated | err % | DRAM err % |",
           "|---|---|---|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        if r["kernel"] != kernel:
            continue
        de = r.get("dram_error_pct")
        out.append(f"| {r['kernel']} | {r['variant']} | {r['split']} | {r['shape']} | {r['sm_clock_mhz']:.0f} | "
                   f"{r['measured_cycles']} | {r['simulated_cycles']} | {r['error_pct']:+.1f} | "
                   f"{'' if de is None else f'{de:+.1f}'} |")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("json")
    ap.add_argument("--rows", metavar="KERNEL", help="per-row table of this kernel (gemm, attention, ...)")
    a = ap.parse_args()
    rows = json.load(open(a.json))["rows"]
    print(per_row(rows, a.rows) if a.rows else summary(rows))


if __name__ == "__main__":
    main()
