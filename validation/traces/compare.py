#!/usr/bin/env python3
"""Translated programs vs the `asyncsim gemm` generator vs the H200, for the table in README.md.

  PYTHONPATH=python python3 validation/traces/compare.py BUILD/asyncsim [--quick] [--gpu FILE]
      [--set KEY=VALUE ...]        (--gpu/--set are passed to every simulation)

For every row: translate the committed excerpt (validation/traces/excerpts) with its sidecar,
once with the recorded base addresses and once with `--bases packed` (the generator's layout),
simulate both with `asyncsim run --sm-clock-mhz CLK`, simulate the generator's program for the
same shape and variant, and print a markdown table. CLK = the measured row's sm_clock_mhz.
GEMM rows come from validation/data/h200/gemm.csv, persistent rows from measured_h200.csv here.
"""
import csv
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))
from asyncsim_frontend.translate import translate_files  # noqa: E402

SASS = os.path.join(ROOT, "validation", "data", "h200", "sass")
# name, excerpt, sidecar, ptx, sass (None: the sidecar's), M, N, K, variant
ROWS = [
    ("gemm_1024x1024x1024_w4", "gemm_1024x1024x1024_w4", "gemm_128x128x64_s3_w4", 1024, 1024, 1024, "w4"),
    ("gemm_1024x1024x1024_w8", "gemm_1024x1024x1024_w8", "gemm_128x256x64_s3_w8", 1024, 1024, 1024, "w8"),
    ("gemm_2048x4096x4096_w4", None, None, 2048, 4096, 4096, "w4"),
    ("gemm_2048x4096x4096_w8", None, None, 2048, 4096, 4096, "w8"),
    ("gemm_4096x4096x4096_w4", None, None, 4096, 4096, 4096, "w4"),
]
PERSISTENT = [
    # name, measured spec in measured_h200.csv, generator variant (None: no generator equivalent)
    ("persistent_2048x4096x4096_w4", "persistent:2048:4096:4096:128x128x64_s3_w4", "128x128x64", 4),
    ("persistentws_2048x4096x4096_w8", "persistent_ws:2048:4096:4096:128x256x64_s3_w8", "128x256x64", 8),
]
VARIANT = {"w4": ("128x128x64", 4, "128x128x64_s3_w4"), "w8": ("128x256x64", 8, "128x256x64_s3_w8")}


def measured_gemm():
    out = {}
    with open(os.path.join(ROOT, "validation", "data", "h200", "gemm.csv")) as f:
        for r in csv.DictReader(line for line in f if not line.startswith("#")):
            out[(int(r["M"]), int(r["N"]), int(r["K"]), r["variant"])] = r
    return out


def measured_here():
    out = {}
    with open(os.path.join(HERE, "measured_h200.csv")) as f:
        for r in csv.DictReader(line for line in f if not line.startswith("#")):
            out[r["spec"]] = r
    return out


EXTRA = []


def sim(binary, args):
    p = subprocess.run([binary] + args + EXTRA + ["--json"], capture_output=True, text=True)
    if p.returncode != 0:
        return {"cycles": f"error: {p.stderr.strip()[:80]}", "dram_read_bytes": ""}
    return json.loads(p.stdout)


def run_program(binary, trace, side, clk, tmp, ptx=None, sass=None, **kw):
    text, report = translate_files(trace, side, ptx_path=ptx, sass_path=sass, **kw)
    path = os.path.join(tmp, "p.asim")
    with open(path, "w") as f:
        f.write(text)
    return sim(binary, ["run", path, "--sm-clock-mhz", str(clk)]), report


def pct(a, b):
    try:
        return f"{100.0 * (a - b) / b:+.1f}%"
    except (TypeError, ZeroDivisionError):
        return ""


def main():
    binary = sys.argv[1]
    quick = "--quick" in sys.argv
    argv = sys.argv[2:]
    for k, a in enumerate(argv):
        if a == "--gpu":
            EXTRA.extend(["--gpu", argv[k + 1]])
        elif a == "--set":
            EXTRA.append("--set")
            EXTRA.extend(x for x in argv[k + 1:] if not x.startswith("--"))
    meas = measured_gemm()
    tmp = tempfile.mkdtemp()
    print("| shape, variant | translated (recorded bases) | translated (packed bases) | generator | "
          "Δ packed vs generator | DRAM read packed / generator | measured | without PTX/SASS rules |")
    print("|---|---|---|---|---|---|---|---|")
    for name, excerpt_name, sass_name, M, N, K, v in ROWS:
        tile, warps, variant = VARIANT[v]
        trace = os.path.join(HERE, "excerpts", f"{name}.w0.chrome_trace.gz")
        side = os.path.join(HERE, f"{name}.json")
        ptx = os.path.join(SASS, f"{sass_name}.ptx") if sass_name else None
        sass = os.path.join(SASS, f"{sass_name}.sass") if sass_name else None
        m = meas[(M, N, K, variant)]
        clk = m["sm_clock_mhz"]
        rec, _ = run_program(binary, trace, side, clk, tmp, ptx, sass)
        pk, report = run_program(binary, trace, side, clk, tmp, ptx, sass, bases="packed")
        raw = ({"cycles": "-"} if quick else
               run_program(binary, trace, side, clk, tmp, ptx, sass, bases="packed", compiled=False)[0])
        gen = sim(binary, ["gemm", "--m", str(M), "--n", str(N), "--k", str(K), "--tile", tile,
                           "--warps", str(warps), "--stages", "3", "--sm-clock-mhz", clk])
        print(f"| {M}x{N}x{K} {v} | {rec['cycles']} | {pk['cycles']} | {gen['cycles']} | "
              f"{pct(pk['cycles'], gen['cycles'])} | {pk['dram_read_bytes']} / {gen['dram_read_bytes']} "
              f"({pct(pk['dram_read_bytes'], gen['dram_read_bytes'])}) | {m['cycles']} | {raw['cycles']} |",
              flush=True)
        print(f"<!-- {name}: {report[-1]} -->", flush=True)
    here = measured_here()
    print()
    print("| kernel (not ours) | translated (recorded bases) | translated (packed bases) | measured (ncu, today) | "
          "Δ recorded | Δ packed | generator --variant persistent |")
    print("|---|---|---|---|---|---|---|")
    for name, spec, tile, warps in PERSISTENT:
        trace = os.path.join(HERE, "excerpts", f"{name}.w0.chrome_trace.gz")
        side = os.path.join(HERE, f"{name}.json")
        m = here[spec]
        clk = m["sm_clock_mhz"]
        rec, report = run_program(binary, trace, side, clk, tmp)
        pk, _ = run_program(binary, trace, side, clk, tmp, bases="packed")
        _, M, N, K, _ = spec.split(":")
        gen = sim(binary, ["gemm", "--m", M, "--n", N, "--k", K, "--tile", tile, "--warps", str(warps),
                           "--stages", "3", "--variant", "persistent", "--sm-clock-mhz", clk])
        mc = int(m["cycles"])
        print(f"| {name} | {rec['cycles']} | {pk['cycles']} | {mc} | {pct(rec['cycles'], mc)} | "
              f"{pct(pk['cycles'], mc)} | {gen['cycles']} ({pct(gen['cycles'], mc)}) |", flush=True)
        print(f"<!-- {name}: {report[-1]} -->", flush=True)


if __name__ == "__main__":
    main()
