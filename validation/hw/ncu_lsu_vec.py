#!/usr/bin/env python3
"""Kernel-only durations of lsu_vec.cu's vector_add launches, under Nsight Compute.

micro_lsu_vec.csv times vector_add with CUDA events (median of 9 launches after a warm-up), which
adds the host's launch and event overhead (2-5 us) to each launch; the simulator's time is the
kernel's. This profiles the same binary with ncu (clocks as found, caches NOT flushed, so the
buffers stay L2-resident between launches as in the event-timed runs) and writes, per
(elements, ctas), the medians over launches 2-10 of the kernel duration, its GPC cycles and the
DRAM bytes.

  BUILD=/tmp/mb MICRO_NAMES=lsu_vec bash validation/hw/micro.sh build
  ASIM_SCRIPT_REV=<rev> python3 validation/hw/ncu_lsu_vec.py /tmp/mb/lsu_vec OUT.csv    # GPU, ~10 s

Columns: elements,ctas,launches,kernel_us_median,cycles_median,sm_mhz,dram_read_bytes,
dram_write_bytes
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

METRICS = ["gpu__time_duration.sum", "gpc__cycles_elapsed.max", "dram__bytes_read.sum",
           "dram__bytes_write.sum"]
# lsu_vec.cu's vector_add points, in its launch order; each is launched 10 times.
POINTS = [(1 << 20, 528), (1 << 20, 1056), (4 << 20, 528), (4 << 20, 1056), (16 << 20, 528),
          (16 << 20, 1056), (64 << 20, 528), (64 << 20, 1056)]
LAUNCHES = 10


def main(binary, out_path):
    cmd = ["ncu", "--clock-control", "none", "--cache-control", "none", "--kernel-name",
           "regex:vector_add", "--metrics", ",".join(METRICS), "--csv", binary]
    text = subprocess.run(cmd, capture_output=True, text=True, timeout=500, check=True).stdout
    rows = list(csv.DictReader(io.StringIO("\n".join(
        ln for ln in text.splitlines() if ln.startswith('"')))))
    per = collections.defaultdict(dict)
    for r in rows:
        per[int(r["ID"])][r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
        per[int(r["ID"])]["grid"] = r["Grid Size"]
    ids = sorted(per)
    if len(ids) != len(POINTS) * LAUNCHES:
        raise SystemExit(f"expected {len(POINTS) * LAUNCHES} vector_add launches, got {len(ids)}")
    method = ("ncu --clock-control none --cache-control none --kernel-name regex:vector_add on "
              "validation/hw/micro/lsu_vec.cu (the vector_add table of micro_lsu_vec.csv: c[i] = "
              "a[i] + b[i] over N fp32, float4 per thread, grid-stride, C CTAs x 256 threads; 10 "
              "launches per point, buffers L2-resident between them as in the event-timed runs); "
              "medians over launches 2-10 of gpu__time_duration.sum (kernel_us), "
              "gpc__cycles_elapsed.max, dram__bytes_read/write.sum; sm_mhz = cycles / duration")
    with open(out_path, "w") as f:
        f.write("\n".join(common.header_lines("validation/hw/ncu_lsu_vec.py", method,
                                              common.device_info())) + "\n")
        f.write("elements,ctas,launches,kernel_us_median,cycles_median,sm_mhz,dram_read_bytes,"
                "dram_write_bytes\n")
        for i, (n, ctas) in enumerate(POINTS):
            runs = [per[k] for k in ids[i * LAUNCHES:(i + 1) * LAUNCHES]]
            if any(r["grid"] != f"({ctas}, 1, 1)" for r in runs):
                raise SystemExit(f"launches {i * LAUNCHES}.. are not the {ctas}-CTA point")
            runs = runs[1:]
            us = statistics.median(r["gpu__time_duration.sum"] / 1000 for r in runs)
            cyc = statistics.median(r["gpc__cycles_elapsed.max"] for r in runs)
            rd = statistics.median(r["dram__bytes_read.sum"] for r in runs)
            wr = statistics.median(r["dram__bytes_write.sum"] for r in runs)
            f.write(f"{n},{ctas},{len(runs)},{us:.2f},{cyc:.0f},{cyc / us:.0f},{rd:.0f},{wr:.0f}\n")
    print(open(out_path).read())


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    main(sys.argv[1], sys.argv[2])
