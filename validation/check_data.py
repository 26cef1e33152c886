#!/usr/bin/env python3
"""CI check for the committed H200 ground truth (validation/data/h200/*.csv).

Every CSV must start with the provenance comment lines
  # date: YYYY-MM-DD / # script: validation/hw/<script> @ <hash> / # device: ... / # method: ...
followed by a header row and at least one data row. Kernel files (gemm.csv,
gemm_ksweep.csv, attention.csv, persistent.csv) must have exactly the specified columns, numeric
fields must be numeric, and sm_clock_mhz must equal cycles/duration_ns*1000
within 1%. Micro files (micro_<name>.csv) must have a header and rows of the same
width whose non-label fields are numeric (a label: letters, digits and underscores with at least
one letter or underscore, such as 128x128x64_s3_w4).

  python3 validation/check_data.py [DATA_DIR]      (default: validation/data/h200)
  python3 validation/check_data.py --micro-only DATA_DIR   (no kernel files required: data/h100)
Exit status 0 when all files pass; otherwise 1, with one line per problem.
Python 3 standard library only.
"""
import csv
import os
import re
import sys

from datafile import open_text

GEMM_COLS = ["kernel", "variant", "split", "M", "N", "K", "BM", "BN", "BK", "stages", "warps",
             "cycles", "duration_ns", "sm_clock_mhz", "dram_read_bytes", "dram_write_bytes",
             "l2_bytes", "do_bench_us", "rel_err"]
ATTN_COLS = ["kernel", "variant", "split", "B", "H", "HKV", "S", "SKV", "D", "BM", "BN", "stages", "warps",
             "causal", "cycles", "duration_ns", "sm_clock_mhz", "dram_read_bytes", "dram_write_bytes",
             "l2_bytes", "do_bench_us", "rel_err"]
FAMILIES = {
    "gemm.csv": (GEMM_COLS, {"gemm"}),
    "gemm_ksweep.csv": (GEMM_COLS, {"gemm"}),
    "attention.csv": (ATTN_COLS, {"attention", "attention_ws"}),
    "persistent.csv": (GEMM_COLS + ["grid"], {"gemm_persistent", "gemm_persistent_ws", "gemm_ws"}),
}
LABEL_COLS = {"kernel", "variant", "split"}
SPLITS = {"calib", "test", "sweep", "frontend", "ksweep"}
HEADER_RES = [
    ("date", re.compile(r"^# date: \d{4}-\d{2}-\d{2}$")),
    ("script", re.compile(r"^# script: validation/hw/\S+ @ [0-9a-f]{7,40}$")),
    ("device", re.compile(r"^# device: .+, \d+ SMs, L2 \d+ B, driver \S+, nvcc \S+, triton \S+, torch \S+$")),
    ("method", re.compile(r"^# method: .+$")),
]


def is_num(s):
    try:
        float(s)
        return True
    except ValueError:
        return False


def check_file(path):
    errs = []
    name = os.path.basename(path)
    with open_text(path, newline="") as f:
        lines = f.read().splitlines()
    comments = [ln for ln in lines if ln.startswith("#")]
    body = [ln for ln in lines if ln and not ln.startswith("#")]
    if lines[:len(HEADER_RES)] != comments[:len(HEADER_RES)]:
        errs.append("provenance comment lines must come first")
    for (key, rx), i in zip(HEADER_RES, range(len(HEADER_RES))):
        if i >= len(comments) or not rx.match(comments[i]):
            errs.append(f"header line {i + 1} must match '{rx.pattern}' (got {comments[i] if i < len(comments) else 'nothing'!r})")
    rows = list(csv.reader(body))
    if not rows:
        return errs + ["no CSV header row"]
    hdr, data = rows[0], rows[1:]
    if not data:
        errs.append("no data rows")
    if name in FAMILIES:
        cols, kernels = FAMILIES[name]
        if hdr != cols:
            errs.append(f"columns {hdr} != expected {cols}")
            return errs
        ix = {c: i for i, c in enumerate(hdr)}
        for n, r in enumerate(data, start=2):
            if len(r) != len(hdr):
                errs.append(f"row {n}: {len(r)} fields, expected {len(hdr)}")
                continue
            for c in hdr:
                if c not in LABEL_COLS and not is_num(r[ix[c]]):
                    errs.append(f"row {n}: {c}={r[ix[c]]!r} is not numeric")
            if r[ix["kernel"]] not in kernels:
                errs.append(f"row {n}: kernel {r[ix['kernel']]!r} not in {sorted(kernels)}")
            if r[ix["split"]] not in SPLITS:
                errs.append(f"row {n}: split {r[ix['split']]!r} not in {sorted(SPLITS)}")
            try:
                cyc, dur, mhz = float(r[ix["cycles"]]), float(r[ix["duration_ns"]]), float(r[ix["sm_clock_mhz"]])
                if dur <= 0 or cyc <= 0:
                    errs.append(f"row {n}: non-positive cycles/duration")
                elif abs(mhz - cyc / dur * 1000.0) > 0.01 * (cyc / dur * 1000.0):
                    errs.append(f"row {n}: sm_clock_mhz {mhz} != cycles/duration_ns*1000 = {cyc / dur * 1000.0:.2f}")
                if not float(r[ix["rel_err"]]) < 1e-2:
                    errs.append(f"row {n}: rel_err {r[ix['rel_err']]} >= 1e-2")
            except ValueError:
                pass
    elif name.startswith("micro_"):
        for n, r in enumerate(data, start=2):
            if len(r) != len(hdr):
                errs.append(f"row {n}: {len(r)} fields, expected {len(hdr)}")
                continue
            if not any(is_num(v) for v in r):
                errs.append(f"row {n}: no numeric field")
            for c, v in zip(hdr, r):
                if v != "" and not is_num(v) and not re.match(r"^[A-Za-z0-9_]*[A-Za-z_][A-Za-z0-9_]*$", v):
                    errs.append(f"row {n}: {c}={v!r} is neither numeric nor a label")
    else:
        errs.append("unknown file family (expected gemm.csv, attention.csv, persistent.csv or micro_*.csv)")
    return errs


def main(argv):
    micro_only = "--micro-only" in argv
    argv = [a for a in argv if a != "--micro-only"]
    d = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "h200")
    files = sorted(f for f in os.listdir(d) if f.endswith((".csv", ".csv.gz"))) if os.path.isdir(d) else []
    if not files:
        print(f"{d}: no CSV files")
        return 1
    bad = 0
    for f in files:
        for e in check_file(os.path.join(d, f)):
            print(f"{os.path.join(d, f)}: {e}")
            bad += 1
    required = [] if micro_only else ["gemm.csv", "attention.csv"]
    for r in required:
        if r not in files:
            print(f"{d}: missing {r}")
            bad += 1
    if bad == 0:
        print(f"{d}: {len(files)} CSV files OK")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
