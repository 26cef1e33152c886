#!/usr/bin/env python3
"""Accuracy regression guard (CI): simulate a fixed subset of the calibration rows and fail when
the MAPE rises more than 1 percentage point above the value recorded in
validation/regression_baseline.json. Simulated cycles are deterministic, so this is not a timed
test. After a deliberate model change, re-record with --record and say why in the commit.

  python3 validation/regression_check.py BUILD/asyncsim [--record]
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
BASELINE = os.path.join(HERE, "regression_baseline.json")
# Calibration rows that simulate in seconds: (M, N, K) of gemm.csv and (B, H, S, D) of
# attention.csv, every variant (and causal flag) of each.
SUBSETS = {
    "gemm": (os.path.join(HERE, "data", "h200", "gemm.csv"), ("M", "N", "K"),
             {(128, 128, 2048), (256, 256, 4096), (512, 1024, 2048), (1024, 1024, 1024),
              (2048, 1024, 4096), (4096, 2048, 2048)}),
    "attention": (os.path.join(HERE, "data", "h200", "attention.csv"), ("B", "H", "S", "D"),
                  {(1, 16, 1024, 128), (4, 16, 512, 64)}),
}


def subset_csv(path, source, keys, subset):
    lines = open(source).read().splitlines()
    header = None
    out = []
    for line in lines:
        if line.startswith("#"):
            out.append(line)
            continue
        if header is None:
            header = line.split(",")
            out.append(line)
            continue
        row = dict(zip(header, line.split(",")))
        if row["split"] == "calib" and tuple(int(row[k]) for k in keys) in subset:
            out.append(line)
    open(path, "w").write("\n".join(out) + "\n")
    return len(out) - sum(1 for l in out if l.startswith("#")) - 1


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    binary = argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        csvs = []
        n = 0
        for name, (source, keys, subset) in SUBSETS.items():
            csvs.append(os.path.join(tmp, f"{name}.csv"))
            n += subset_csv(csvs[-1], source, keys, subset)
        res = subprocess.run([binary, "validate", *csvs, "--json"], capture_output=True, text=True)
        if res.returncode != 0:
            print(res.stderr, file=sys.stderr)
            return 1
    summary = json.loads(res.stdout)["summary"]["all"]
    if summary["rows"] != n:
        print(f"regression_check: {n} rows selected but {summary['rows']} simulated", file=sys.stderr)
        return 1
    mape = summary["mape"]
    if "--record" in argv:
        json.dump({"rows": n, "mape": round(mape, 3),
                   "subsets": {k: {"source": os.path.relpath(v[0], os.path.dirname(HERE)),
                                   "keys": list(v[1]), "shapes": sorted(list(s) for s in v[2])}
                               for k, v in SUBSETS.items()}},
                  open(BASELINE, "w"), indent=1)
        print(f"recorded MAPE {mape:.3f} % over {n} rows")
        return 0
    recorded = json.load(open(BASELINE))["mape"]
    print(f"subset MAPE {mape:.2f} % over {n} rows (recorded {recorded:.2f} %, limit +1 pp)")
    if mape > recorded + 1.0:
        print("regression_check: accuracy regressed", file=sys.stderr)
        return 1
    print("1 passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
