#!/usr/bin/env python3
"""Where the time goes on the H200, per kernel: Nsight Compute's scheduler, warp-state
(stall reasons), instruction-mix, pipe-utilisation and speed-of-light sections for a few
attention and GEMM cases of validation/data/h200/{attention,gemm}.csv. Used to decide which
mechanisms the simulator lacks (issue 5), not to fit anything.

  python3 validation/hw/profile_sections.py --out DIR

Writes DIR/sections_raw.csv (ncu --page raw, one row per launch, base units) and
DIR/sections_cases.json (the cases, in launch order).
"""
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from validation.hw import attention as attn  # noqa: E402
from validation.hw import gemm as gm  # noqa: E402
from validation.hw.common import NCU_FLAGS, log  # noqa: E402

SECTIONS = ["SpeedOfLight", "ComputeWorkloadAnalysis", "InstructionStats", "SchedulerStats",
            "WarpStateStats", "Occupancy", "LaunchStats", "MemoryWorkloadAnalysis"]


def cases():
    out = []
    for (B, H, S, D) in [(1, 32, 4096, 64), (1, 32, 4096, 128)]:
        for v, (BM, BN, st, w) in [("bm128_bn64_s3_w8", (128, 64, 3, 8)),
                                   ("bm128_bn128_s2_w8", (128, 128, 2, 8))]:
            for causal in (0, 1):
                out.append(dict(family="attention", kernel="attention", variant=v, B=B, H=H, HKV=H, S=S,
                                SKV=S, D=D, BM=BM, BN=BN, stages=st, warps=w, causal=causal))
    for (M, N, K) in [(256, 256, 4096), (128, 128, 512), (1024, 1024, 1024), (4096, 4096, 4096)]:
        for v in ("128x128x64_s3_w4", "128x256x64_s3_w8"):
            out.append(dict(family="gemm", kernel="gemm", variant=v, M=M, N=N, K=K))
    return out


def child(path):
    import torch
    cs = json.load(open(path))
    num_sms = torch.cuda.get_device_properties(0).multi_processor_count
    for c in cs:
        if c["family"] == "attention":
            q, k, v, o = attn.inputs(c)
            torch.cuda.synchronize()
            attn.launch(c, q, k, v, o)
        else:
            a, b, o = gm.inputs(c)
            torch.cuda.synchronize()
            gm.launch(c, a, b, o, num_sms)
        torch.cuda.synchronize()
    print("child: done", flush=True)


def profile(out, stem, cs, ncu_args, script):
    """Writes OUT/<stem>_cases.json, runs `script --child` (which launches every case once)
    under ncu with `ncu_args`, and writes the raw page as OUT/<stem>_raw.csv."""
    cpath = os.path.join(out, f"{stem}_cases.json")
    json.dump(cs, open(cpath, "w"), indent=1)
    rep = os.path.join("/tmp", stem)
    cmd = ["ncu"] + NCU_FLAGS + ncu_args + [
        "--kernel-name", "regex:^(attn_fwd_kernel|gemm_tma_kernel)$", "--force-overwrite", "-o", rep,
        sys.executable, os.path.abspath(script), "--out", out, "--child", cpath]
    log("RUN " + " ".join(cmd))
    p = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, PYTHONUNBUFFERED="1"))
    log((p.stdout + p.stderr)[-4000:])
    imp = subprocess.run(["ncu", "--import", rep + ".ncu-rep", "--csv", "--page", "raw", "--print-units",
                          "base"], capture_output=True, text=True)
    open(os.path.join(out, f"{stem}_raw.csv"), "w").write(imp.stdout)
    log(f"raw rows: {imp.stdout.count(chr(10))} {imp.stderr[-500:]}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--child")
    args = ap.parse_args()
    if args.child:
        return child(args.child)
    os.makedirs(args.out, exist_ok=True)
    profile(args.out, "sections", cases(), sum([["--section", s] for s in SECTIONS], []), __file__)


if __name__ == "__main__":
    main()
