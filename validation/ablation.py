#!/usr/bin/env python3
"""The ablation table of validation/README.md (Sim-FA Table VI style): every switch below is
turned off (or set back) one at a time, and the calibration rows of gemm.csv and attention.csv
are re-simulated with `asyncsim validate --split calib`.

  python3 validation/ablation.py BUILD/asyncsim [--jobs N] [--gemm-only]

Prints a markdown table: MAPE, bias and max |error| of the cycles, and the DRAM-read MAPE, per
configuration. Attention is simulated only for the switches that can change it (the others
touch memory paths whose traffic the attention rows keep in L2 and have never moved them by
more than 0.2 pp) unless --all-attention is given. Standard library only.
"""
import argparse
import json
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "validation", "data", "h200")

# (label, --set values, simulate attention too)
SWITCHES = [
    ("full model", [], True),
    ("`l2.hash=xor` (Sim-FA's slice hash)", ["l2.hash=xor"], True),
    ("`l2.coalescer=false`", ["l2.coalescer=false"], True),
    ("`l2.coalescer_scope=tpc` (Sim-FA's SM pairs)", ["l2.coalescer_scope=tpc"], True),
    ("`sm.dispatch_order=sm_id`", ["sm.dispatch_order=sm_id"], True),
    ("`tma.dedup=false`", ["tma.dedup=false"], False),
    ("`l2.remote_copy=false`", ["l2.remote_copy=false"], False),
    ("`dram.model=simple`", ["dram.model=simple"], False),
    ("`dram.hash_upper=false`", ["dram.hash_upper=false"], False),
    ("`dram.refresh_per_bank=false`", ["dram.refresh_per_bank=false"], False),
    ("`sm.issue_slots=0`", ["sm.issue_slots=0"], True),
    ("`sm.compute_overlap=true`", ["sm.compute_overlap=true"], True),
    ("`sm.compute_sharing=reserve` (busy-until issue slots and pipes)", ["sm.compute_sharing=reserve"], True),
    ("`sm.compute_sharing=greedy` (gap filling, no fair finish)", ["sm.compute_sharing=greedy"], True),
    ("`tensor.queue_depth=0` (no wgmma queue limit)", ["tensor.queue_depth=0"], True),
    ("`noc.model=latency` (no crossbar port bandwidth)", ["noc.model=latency"], True),
    ("`sm.kernel_launch_cycles=746` (the earlier fit on calib rows)", ["sm.kernel_launch_cycles=746"], True),
]


def run(binary, csv_name, sets, jobs):
    cmd = [binary, "validate", os.path.join(DATA, csv_name), "--split", "calib", "--jobs", str(jobs),
           "--json"]
    for s in sets:
        cmd += ["--set", s]
    rows = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)["rows"]
    rows = [r for r in rows if "simulated_cycles" in r]
    errs = [100.0 * (r["simulated_cycles"] / r["measured_cycles"] - 1) for r in rows]
    dram = [abs(r["dram_error_pct"]) for r in rows if r.get("dram_error_pct") is not None]
    return (sum(abs(e) for e in errs) / len(errs), sum(errs) / len(errs), max(abs(e) for e in errs),
            sum(dram) / len(dram) if dram else float("nan"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--gemm-only", action="store_true")
    ap.add_argument("--all-attention", action="store_true")
    args = ap.parse_args()
    print("| configuration | GEMM MAPE % | bias % | max abs % | DRAM MAPE % | attention MAPE % | bias % | max abs % |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for label, sets, attn in SWITCHES:
        g = run(args.binary, "gemm.csv", sets, args.jobs)
        cells = [f"{g[0]:.2f}", f"{g[1]:+.2f}", f"{g[2]:.1f}", f"{g[3]:.2f}"]
        if (attn or args.all_attention) and not args.gemm_only:
            a = run(args.binary, "attention.csv", sets, args.jobs)
            cells += [f"{a[0]:.2f}", f"{a[1]:+.2f}", f"{a[2]:.1f}"]
        else:
            cells += ["", "", ""]
        print(f"| {label} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
