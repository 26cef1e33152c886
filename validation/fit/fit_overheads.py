#!/usr/bin/env python3
"""Least-squares fit of the two fixed-cost mechanisms the cycle model cannot derive from first
principles: sm.kernel_launch_cycles (once per kernel: launch, first tensor-map fetch, drain at
the end) and sm.cta_launch_cycles (once per CTA: admission, mbarrier init, prologue issue).

Model: measured = simulated_with_both_zero + kernel_launch + rounds * cta_launch, where rounds is
the number of CTAs one SM runs back to back (ceil(CTAs / (SMs x CTAs per SM))). Fitted by
weighted least squares on the relative error (each row weighted by 1/measured) over the
rows of one split (default calib) of one kernel family, never on split=test.

  python3 validation/fit/fit_overheads.py BUILD/asyncsim validation/data/h200/gemm.csv \
      [--variant 128x128x64_s3_w4]
  python3 validation/fit/fit_overheads.py BUILD/asyncsim validation/data/h200/gemm_ksweep.csv \
      --split ksweep --variant all --fix-cta 200   # how sm.kernel_launch_cycles is fitted
Prints the two values, R^2 of the fit on those rows, and the MAPE before/after.
"""
import argparse
import json
import math
import subprocess
import sys


def occupancy(variant):
    # CTAs per SM for the measured Triton kernels (shared memory from validation/data/h200/ptx).
    return {"128x128x64_s3_w4": 2, "128x256x64_s3_w8": 1}[variant]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("csv")
    ap.add_argument("--variant", default="128x128x64_s3_w4")
    ap.add_argument("--sms", type=int, default=132)
    ap.add_argument("--split", default="calib", help="rows to fit on (never test)")
    ap.add_argument("--fix-cta", type=int, default=None,
                    help="keep sm.cta_launch_cycles at this value and fit the kernel term only")
    args = ap.parse_args()
    cta = 0 if args.fix_cta is None else args.fix_cta
    if args.split == "test":
        sys.exit("fit_overheads.py: refusing to fit on split=test (held-out rows)")
    cmd = [args.binary, "validate", args.csv, "--split", args.split, "--kernel", "gemm", "--json",
           "--set", "sm.kernel_launch_cycles=0", "--set", f"sm.cta_launch_cycles={cta}"]
    data = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    rows = [r for r in data["rows"]
            if (args.variant == "all" or r["variant"] == args.variant) and "simulated_cycles" in r]
    xs, ys, ws = [], [], []
    for r in rows:
        m, n, _k = (int(v) for v in r["shape"].split("x"))
        bm, bn = (int(v) for v in r["variant"].split("_")[0].split("x")[:2])
        ctas = math.ceil(m / bm) * math.ceil(n / bn)
        rounds = math.ceil(ctas / (args.sms * occupancy(r["variant"])))
        xs.append((1.0, float(rounds)))
        ys.append(r["measured_cycles"] - r["simulated_cycles"])
        ws.append(1.0 / r["measured_cycles"])
    # Weighted normal equations for y = a + b * rounds.
    s00 = sum(w * w * x[0] * x[0] for x, w in zip(xs, ws))
    s01 = sum(w * w * x[0] * x[1] for x, w in zip(xs, ws))
    s11 = sum(w * w * x[1] * x[1] for x, w in zip(xs, ws))
    t0 = sum(w * w * x[0] * y for x, y, w in zip(xs, ys, ws))
    t1 = sum(w * w * x[1] * y for x, y, w in zip(xs, ys, ws))
    if args.fix_cta is None:
        det = s00 * s11 - s01 * s01
        if abs(det) < 1e-12 * max(s00 * s11, 1e-300):
            sys.exit("fit_overheads.py: every row has the same number of CTA rounds, so the per-CTA "
                     "term cannot be separated; pass --fix-cta")
        a = (t0 * s11 - t1 * s01) / det
        b = (s00 * t1 - s01 * t0) / det
    else:
        a = t0 / s00
        b = 0.0
    pred = [a + b * x[1] for x in xs]
    mean = sum(w * y for y, w in zip(ys, ws)) / sum(ws)
    ss_res = sum((w * (y - p)) ** 2 for y, p, w in zip(ys, pred, ws))
    ss_tot = sum((w * (y - mean)) ** 2 for y, w in zip(ys, ws))
    r2 = 1 - ss_res / ss_tot if ss_tot > 0 else float("nan")
    before = sum(abs(r["simulated_cycles"] - r["measured_cycles"]) / r["measured_cycles"]
                 for r in rows) / len(rows) * 100
    after = sum(abs(r["simulated_cycles"] + p - r["measured_cycles"]) / r["measured_cycles"]
                for r, p in zip(rows, pred)) / len(rows) * 100
    print(json.dumps({"split": args.split, "variant": args.variant, "rows": len(rows),
                      "kernel_launch_cycles": round(a),
                      "cta_launch_cycles": round(b) if args.fix_cta is None else cta,
                      "r2": round(r2, 4), "mape_before_pct": round(before, 2),
                      "mape_after_pct_linear": round(after, 2)}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
