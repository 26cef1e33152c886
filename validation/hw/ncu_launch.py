#!/usr/bin/env python3
"""Kernel-only durations of validation/hw/micro/launch.cu's launches, under Nsight Compute.

Profiles the binary twice: `--cache-control all` (ncu flushes the GPU's caches before every
launch, as for gemm.csv, so the code comes from DRAM) and `--cache-control none` (the code stays
cached from the launch before). Writes, per (kernel, grid, threads, cache_control), the median
and minimum over launches 2..6 of gpu__time_duration.sum and the median of
gpc__cycles_elapsed.max.

  BUILD=/tmp/mb MICRO_NAMES=launch bash validation/hw/micro.sh build
  ASIM_SCRIPT_REV=<rev> python3 validation/hw/ncu_launch.py /tmp/mb/launch OUT.csv    # GPU, ~1 min

Columns: kernel,grid,threads,code_insts,cache_control,launches,kernel_us_median,kernel_us_min,
cycles_median,sm_mhz
"""
import collections
import csv
import io
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from validation.hw import common  # noqa: E402

METRICS = ["gpu__time_duration.sum", "gpc__cycles_elapsed.max"]
COLUMNS = ["kernel", "grid", "threads", "code_insts", "cache_control", "launches",
           "kernel_us_median", "kernel_us_min", "cycles_median", "sm_mhz"]


def profile(binary, cache_control):
    cmd = ["ncu", "--clock-control", "none", "--cache-control", cache_control, "--kernel-name",
           "regex:launch_", "--metrics", ",".join(METRICS), "--csv", binary]
    text = subprocess.run(cmd, capture_output=True, text=True, timeout=550, check=True).stdout
    launches = [ln.split(",")[1:] for ln in text.splitlines() if ln.startswith("launch,")]
    rows = list(csv.DictReader(io.StringIO("\n".join(
        ln for ln in text.splitlines() if ln.startswith('"')))))
    per = collections.defaultdict(dict)
    for r in rows:
        per[int(r["ID"])][r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
        per[int(r["ID"])]["name"] = r["Kernel Name"]
        per[int(r["ID"])]["grid"] = r["Grid Size"]
    ids = sorted(per)
    if len(ids) != len(launches):
        raise SystemExit(f"{cache_control}: {len(launches)} launches printed, {len(ids)} profiled")
    groups = collections.OrderedDict()
    for k, (kernel, grid, threads, code) in zip(ids, launches):
        base = "launch_code" if kernel.startswith("launch_code") else kernel
        if base not in per[k]["name"] or per[k]["grid"] != f"({grid}, 1, 1)":
            raise SystemExit(f"{cache_control}: launch {k} is {per[k]['name']} {per[k]['grid']}, "
                             f"expected {kernel} {grid}")
        groups.setdefault((kernel, int(grid), int(threads), int(code)), []).append(per[k])
    out = []
    for (kernel, grid, threads, code), runs in groups.items():
        runs = runs[1:]
        us = [r["gpu__time_duration.sum"] / 1000 for r in runs]
        cyc = statistics.median(r["gpc__cycles_elapsed.max"] for r in runs)
        med = statistics.median(us)
        out.append({"kernel": kernel, "grid": grid, "threads": threads, "code_insts": code,
                    "cache_control": cache_control, "launches": len(runs),
                    "kernel_us_median": f"{med:.3f}", "kernel_us_min": f"{min(us):.3f}",
                    "cycles_median": f"{cyc:.0f}", "sm_mhz": f"{cyc / med:.0f}"})
    return out


def main(binary, out_path):
    lines = profile(binary, "all") + profile(binary, "none")
    method = ("ncu --clock-control none --cache-control all|none --kernel-name regex:launch_ on "
              "validation/hw/micro/launch.cu (launch_empty: no work, grid x 128/256 threads; "
              "launch_store: thread 0 of each CTA stores one int; launch_code_N: 1 CTA x 32 "
              "threads, N unrolled independent fadd.f32 then one store); 6 launches per point back "
              "to back, medians (and min) over launches 2-6 of gpu__time_duration.sum (kernel_us) "
              "and gpc__cycles_elapsed.max; sm_mhz = cycles / duration; cache_control all = caches "
              "flushed before every launch (code from DRAM, as gemm.csv), none = kept")
    common.write_csv(out_path, common.header_lines("validation/hw/ncu_launch.py", method,
                                                   common.device_info()), COLUMNS, lines)
    print(open(out_path).read())


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    main(sys.argv[1], sys.argv[2])
