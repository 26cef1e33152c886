#!/usr/bin/env python3
"""Accuracy regression guard (CI): simulate a fixed subset of the calibration rows and fail when
the MAPE rises more than 1 percentage point above the value recorded in
validation/regression_baseline.json. Simulated cycles are deterministic, so this is not a timed
test. After a deliberate model change, re-record with --record and say why in the commit.
The same rows measured on an H100 (validation/data/h100, configs/h100.yaml, nothing fitted on
them) are a second subset with a limit of its own.

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
GEMM_SHAPES = {(128, 128, 2048), (256, 256, 4096), (512, 1024, 2048), (1024, 1024, 1024),
               (2048, 1024, 4096), (4096, 2048, 2048)}
ATTENTION_SHAPES = {(1, 16, 1024, 128), (4, 16, 512, 64)}
# name: (GPU config, measurement CSV, key columns, shapes)
SUBSETS = {
    "gemm": ("h200", os.path.join(HERE, "data", "h200", "gemm.csv"), ("M", "N", "K"), GEMM_SHAPES),
    "attention": ("h200", os.path.join(HERE, "data", "h200", "attention.csv"), ("B", "H", "S", "D"),
                  ATTENTION_SHAPES),
    "gemm_h100": ("h100", os.path.join(HERE, "data", "h100", "gemm.csv"), ("M", "N", "K"),
                  GEMM_SHAPES),
    "attention_h100": ("h100", os.path.join(HERE, "data", "h100", "attention.csv"),
                       ("B", "H", "S", "D"), ATTENTION_SHAPES),
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


def simulate(binary, gpu, names, tmp):
    """(rows selected, the validate summary) of the subsets `names`, on config `gpu`."""
    csvs = []
    n = 0
    for name in names:
        _, source, keys, subset = SUBSETS[name]
        csvs.append(os.path.join(tmp, f"{name}.csv"))
        n += subset_csv(csvs[-1], source, keys, subset)
    res = subprocess.run([binary, "validate", *csvs, "--gpu", gpu, "--json"], capture_output=True,
                         text=True)
    if res.returncode != 0:
        raise SystemExit(res.stderr)
    summary = json.loads(res.stdout)["summary"]["all"]
    if summary["rows"] != n:
        raise SystemExit(f"regression_check: {n} {gpu} rows selected but {summary['rows']} simulated")
    return n, summary["mape"]


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    binary = argv[1]
    gpus = {}
    for name, (gpu, *_rest) in SUBSETS.items():
        gpus.setdefault(gpu, []).append(name)
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for gpu, names in gpus.items():
            results[gpu] = simulate(binary, gpu, names, tmp)
    if "--record" in argv:
        json.dump({"by_gpu": {g: {"rows": n, "mape": round(m, 3)} for g, (n, m) in results.items()},
                   "subsets": {k: {"gpu": v[0], "source": os.path.relpath(v[1], os.path.dirname(HERE)),
                                   "keys": list(v[2]), "shapes": sorted(list(s) for s in v[3])}
                               for k, v in SUBSETS.items()}},
                  open(BASELINE, "w"), indent=1)
        for g, (n, m) in results.items():
            print(f"recorded {g} MAPE {m:.3f} % over {n} rows")
        return 0
    recorded = json.load(open(BASELINE))["by_gpu"]
    failed = 0
    for g, (n, m) in results.items():
        limit = recorded[g]["mape"] + 1.0
        print(f"{g}: subset MAPE {m:.2f} % over {n} rows (recorded {recorded[g]['mape']:.2f} %, "
              f"limit +1 pp)")
        if m > limit:
            print(f"regression_check: {g} accuracy regressed", file=sys.stderr)
            failed += 1
    print(f"{len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
