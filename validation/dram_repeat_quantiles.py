#!/usr/bin/env python3
"""Derives validation/data/h200/micro_dram_repeat_quantiles.csv, what `asyncsim micro dram_repeat
--compare` reads, from micro_dram_repeat.csv (every sample of dram_repeat.cu, one row each): per
configuration (pattern, rows, stride_bytes), the p10 / p50 / p90 / p95 / p99 of the cycles of
every sample of its idle runs (background = 0: 6 runs of 64 sets, single 128), as the simulated
micro computes them (p50 = v[n / 2], the others v[int(p (n - 1))] of the sorted samples).

  python3 validation/dram_repeat_quantiles.py          # rewrites the derived CSV
  python3 validation/dram_repeat_quantiles.py --check  # exits 1 if it is not up to date

Standard library only.
"""
import csv
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data", "h200")
SRC = os.path.join(DATA, "micro_dram_repeat.csv")
OUT = os.path.join(DATA, "micro_dram_repeat_quantiles.csv")
QUANTILES = [("p10", 0.10), ("p50", None), ("p90", 0.90), ("p95", 0.95), ("p99", 0.99)]


def derive():
    lines = open(SRC).read().splitlines()
    header = [l for l in lines if l.startswith("#")]
    rows = list(csv.DictReader(l for l in lines if not l.startswith("#")))
    order, samples = [], {}
    for r in rows:
        if r["background"] != "0":
            continue
        key = (r["pattern"], r["rows"], r["stride_bytes"])
        if key not in samples:
            order.append(key)
            samples[key] = []
        samples[key].append(int(r["cycles"]))
    out = header + [
        "# derived: python3 validation/dram_repeat_quantiles.py from micro_dram_repeat.csv, the "
        "idle runs (background = 0); quantile = p10 / p50 / p90 / p95 / p99 of every sample of "
        "every run (p50 = v[n / 2], the others v[int(p (n - 1))] of the sorted samples)",
        "pattern,rows,stride_bytes,quantile,samples,cycles"]
    for key in order:
        v = sorted(samples[key])
        for name, p in QUANTILES:
            x = v[len(v) // 2] if p is None else v[int(p * (len(v) - 1))]
            out.append(",".join(list(key) + [name, str(len(v)), str(x)]))
    return "\n".join(out) + "\n"


def main():
    text = derive()
    if "--check" in sys.argv[1:]:
        ok = os.path.exists(OUT) and open(OUT).read() == text
        print("up to date" if ok else f"{os.path.relpath(OUT)} is stale: rerun without --check")
        sys.exit(0 if ok else 1)
    open(OUT, "w").write(text)
    print(f"wrote {os.path.relpath(OUT)}")


if __name__ == "__main__":
    main()
