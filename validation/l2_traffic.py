#!/usr/bin/env python3
"""Simulated L2 read traffic of the GEMM launches in validation/data/GPU/ncu_l2 against the
chip's tex-sourced L2 read sectors (lts__t_sectors_srcunit_tex_op_read), plus cycles against
validation/data/GPU/gemm.csv where the shape is there.

  python3 validation/l2_traffic.py BUILD/asyncsim [--gpu h200|h100] [--set KEY=VALUE ...]

Prints one line per GEMM launch (measured and simulated read bytes as a share of the bytes the
SMs requested, and the error) and the MAPE of the simulated L2 read bytes. Standard library only.
"""
import csv
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    binary = sys.argv[1]
    sets = []
    gpu = "h200"
    args = sys.argv[2:]
    while args:
        if args[0] not in ("--set", "--gpu") or len(args) < 2:
            sys.exit(f"l2_traffic.py: unexpected argument {args[0]!r}")
        if args[0] == "--gpu":
            gpu = args[1]
        else:
            sets += ["--set", args[1]]
        args = args[2:]
    data = os.path.join(ROOT, "validation", "data", gpu)
    if not os.path.exists(os.path.join(data, "ncu_l2", "l2_cases.json")):
        sys.exit(f"l2_traffic.py: no {data}/ncu_l2/l2_cases.json")
    rows = list(csv.reader(open(os.path.join(data, "ncu_l2", "l2_raw.csv"))))
    head = rows[0]
    cases = json.load(open(os.path.join(data, "ncu_l2", "l2_cases.json")))
    meas = {}
    with open(os.path.join(data, "gemm.csv")) as f:
        for r in csv.DictReader(line for line in f if not line.startswith("#")):
            meas[(r["variant"], int(r["M"]), int(r["N"]), int(r["K"]))] = r

    def metric(r, name):
        return float(r[head.index(name)].replace(",", ""))

    def run(pair):
        c, r = pair
        if c["family"] != "gemm":
            return None
        w8 = c["variant"].endswith("w8")
        m = meas.get((c["variant"], c["M"], c["N"], c["K"]))
        clk = float(m["sm_clock_mhz"]) if m else metric(r, "sm__cycles_elapsed.avg.per_second") / 1e6
        cmd = [binary, "gemm", "--gpu", gpu, "--m", str(c["M"]), "--n", str(c["N"]),
               "--k", str(c["K"]),
               "--tile", "128x256x64" if w8 else "128x128x64", "--stages", "3",
               "--warps", "8" if w8 else "4", "--sm-clock-mhz", f"{clk}", "--json"] + sets
        j = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
        return c, r, j, m

    with ThreadPoolExecutor(os.cpu_count() or 1) as ex:
        res = [x for x in ex.map(run, zip(cases, rows[2:])) if x]
    errs = []
    for c, r, j, m in res:
        tex = metric(r, "lts__t_sectors_srcunit_tex_op_read.sum") * 32
        req = j["tma_bytes"] - j["l2_write_bytes"]
        cyc = f"{100 * (j['cycles'] / float(m['cycles']) - 1):+6.1f}" if m else "     -"
        err = 100 * (j["l2_read_bytes"] / tex - 1)
        if c["M"] * c["N"] > 256 * 256:  # 1-4 CTAs: DRAM fills dominate the L2 traffic
            errs.append(abs(err))
        print(f"{c['variant'][-2:]} {c['M']}x{c['N']}x{c['K']:<6} cycles {cyc} %  L2 read/requested: "
              f"{gpu.upper()} {tex / req:.3f} sim {j['l2_read_bytes'] / req:.3f} ({err:+6.1f} %)")
    print(f"L2 read bytes MAPE over {len(errs)} launches (more than 4 CTAs): {sum(errs) / len(errs):.1f} %")


if __name__ == "__main__":
    main()
