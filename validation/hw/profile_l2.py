#!/usr/bin/env python3
"""Where the L2 traffic of a GEMM comes from on the H200: Nsight Compute's L2 (lts) counters
split by source unit (SMs via tex vs the inter-partition fabric), by operation, by hit/miss,
plus the L2 clock and the sector throughput peak. Used to check the simulator's request
coalescing and far-partition model (issue 4/5), not to fit anything.

  python3 validation/hw/profile_l2.py --out DIR

Writes DIR/l2_raw.csv (ncu --page raw, one row per launch, base units), DIR/l2_cases.json
(the cases, in launch order), DIR/l2_metrics.txt (the metrics asked for and those the installed
ncu knows), DIR/query_metrics.txt (ncu --query-metrics-mode all for the device's chip).
"""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from validation.hw.common import log  # noqa: E402
from validation.hw.profile_sections import child, profile  # noqa: E402

WANTED = [
    "gpu__time_duration.sum", "gpc__cycles_elapsed.max", "sm__cycles_elapsed.avg.per_second",
    "lts__cycles_elapsed.avg", "lts__cycles_elapsed.avg.per_second",
    "lts__t_bytes.sum", "lts__t_sectors.sum", "lts__t_sectors.sum.peak_sustained", "lts__t_requests.sum",
    "lts__t_sectors_op_read.sum", "lts__t_sectors_op_write.sum",
    "lts__t_sectors_lookup_hit.sum", "lts__t_sectors_lookup_miss.sum",
    "lts__t_sectors_srcunit_tex.sum", "lts__t_sectors_srcunit_tex_op_read.sum",
    "lts__t_sectors_srcunit_tex_op_write.sum", "lts__t_requests_srcunit_tex_op_read.sum",
    "lts__t_requests_srcunit_tex.sum",
    "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum", "lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum",
    "lts__t_sectors_srcunit_ltcfabric.sum", "lts__t_sectors_srcunit_ltcfabric_op_read.sum",
    "lts__t_sectors_srcunit_ltcfabric_lookup_hit.sum", "lts__t_sectors_srcunit_ltcfabric_lookup_miss.sum",
    "lts__t_requests_srcunit_ltcfabric.sum",
    "lts__t_sectors_srcnode_gpc.sum", "lts__t_sectors_srcnode_fbp.sum",
    "lts__d_sectors.sum", "lts__d_sectors_fill_device.sum",
    "lts__t_sectors_srcunit_tex_aperture_device_op_read.sum",
    "lts__ltcfabric2lts_cycles_active.sum", "lts__lts2xbar_cycles_active.sum", "lts__xbar2lts_cycles_active.sum",
    "lts__t_sectors_srcunit_tex.sum.pct_of_peak_sustained_elapsed",
    "lts__throughput.avg.pct_of_peak_sustained_elapsed",
    "dram__bytes_read.sum", "dram__bytes_write.sum",
    "l1tex__m_xbar2l1tex_read_bytes.sum", "sm__ctas_launched.sum",
]


def cases():
    out = []
    for (M, N, K) in [(128, 128, 512), (1024, 1024, 1024), (256, 256, 4096), (2048, 1024, 4096),
                      (4096, 2048, 2048), (5120, 1280, 5120), (8192, 2048, 8192), (4096, 4096, 4096),
                      (3000, 5000, 1000), (384, 8192, 8192), (1024, 2048, 8192)]:
        for v in ("128x128x64_s3_w4", "128x256x64_s3_w8"):
            out.append(dict(family="gemm", kernel="gemm", variant=v, M=M, N=N, K=K))
    for D in (64, 128):
        out.append(dict(family="attention", kernel="attention", variant="bm128_bn64_s3_w8", B=1, H=32, HKV=32,
                        S=4096, SKV=4096, D=D, BM=128, BN=64, stages=3, warps=8, causal=0))
    return out


def known_metrics(out):
    q = subprocess.run(["ncu", "--query-metrics", "--query-metrics-mode", "all", "--chip", "gh100"],
                       capture_output=True, text=True)
    open(os.path.join(out, "query_metrics.txt"), "w").write(q.stdout + q.stderr)
    names = set()
    for line in q.stdout.splitlines():
        tok = line.split()
        if tok:
            names.add(tok[0])
    keep = []
    for m in WANTED:
        base = m.split(".")[0]
        if m in names or base in names:
            keep.append(m)
    return keep


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--child")
    args = ap.parse_args()
    if args.child:
        return child(args.child)
    os.makedirs(args.out, exist_ok=True)
    keep = known_metrics(args.out)
    open(os.path.join(args.out, "l2_metrics.txt"), "w").write(
        "asked:\n" + "\n".join(WANTED) + "\n\nknown to this ncu:\n" + "\n".join(keep) + "\n")
    log(f"metrics known {len(keep)}/{len(WANTED)}: missing {sorted(set(WANTED) - set(keep))}")
    profile(args.out, "l2", cases(), ["--metrics", ",".join(keep)], __file__)


if __name__ == "__main__":
    main()
