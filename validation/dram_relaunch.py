#!/usr/bin/env python3
"""Simulated DRAM read bytes of the GEMM calibration rows against both H200 references: the
single launch in gemm.csv and the median of the relaunches in micro_gemm_dram_repeat_calib.csv
(validation/hw/gemm_dram_repeat.py, five launches per row). Prints one line per row and the
summary (MAPE, rows beyond 10 %) for each reference.

  python3 validation/dram_relaunch.py [RESULTS.json [REPEAT.csv]]

RESULTS.json: `asyncsim validate ... --json` output holding the calibration rows (default
validation/results_h200.json).
"""
import csv
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data", "h200")


def rows(path):
    with open(path) as fh:
        return list(csv.DictReader(line for line in fh if not line.startswith("#")))


def key(M, N, K, variant):
    return (int(M), int(N), int(K), variant)


def main(argv):
    results = argv[1] if len(argv) > 1 else os.path.join(HERE, "results_h200.json")
    repeat = argv[2] if len(argv) > 2 else os.path.join(DATA, "micro_gemm_dram_repeat_calib.csv")
    launches = {}
    for r in rows(repeat):
        launches.setdefault(key(r["M"], r["N"], r["K"], r["variant"]), []).append(
            int(r["dram_read_bytes"]))
    single = {key(r["M"], r["N"], r["K"], r["variant"]): float(r["dram_read_bytes"])
              for r in rows(os.path.join(DATA, "gemm.csv")) if r["split"] == "calib"}
    sim = {}
    with open(results) as fh:
        for r in json.load(fh)["rows"]:
            if r["kernel"] == "gemm" and r["split"] == "calib":
                sim[key(*r["shape"].split("x"), r["variant"])] = r["simulated_dram_read_bytes"]
    missing = sorted(set(single) - set(sim) | set(single) - set(launches))
    if missing:
        print(f"dram_relaunch: no simulated or relaunch value for {missing}", file=sys.stderr)
        return 1
    print("| shape | variant | gemm.csv MB | relaunches MB (median) | simulated MB | "
          "error vs gemm.csv | error vs median |")
    print("|---|---|---:|---:|---:|---:|---:|")
    e_single, e_median = [], []
    for k in single:
        v = sorted(launches[k])
        med = statistics.median(v)
        es = 100 * (sim[k] / single[k] - 1)
        em = 100 * (sim[k] / med - 1)
        e_single.append(abs(es))
        e_median.append(abs(em))
        print(f"| {k[0]}x{k[1]}x{k[2]} | {k[3]} | {single[k] / 1e6:.1f} | {v[0] / 1e6:.1f}-"
              f"{v[-1] / 1e6:.1f} ({med / 1e6:.1f}) | {sim[k] / 1e6:.1f} | {es:+.1f} % | {em:+.1f} % |")
    for name, e in (("gemm.csv (one launch)", e_single), ("median of relaunches", e_median)):
        print(f"# against {name}: MAPE {statistics.mean(e):.2f} %, max {max(e):.1f} %, "
              f"{sum(x > 10 for x in e)} of {len(e)} rows beyond 10 %")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
