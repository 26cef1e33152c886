#!/usr/bin/env python3
"""Measured cycles of the kernels whose translated programs are compared in README.md, with the
method of validation/hw/gemm.py (ncu --clock-control none --cache-control all, one launch each;
cycles = gpc__cycles_elapsed.max, sm_clock_mhz = cycles / gpu__time_duration).

  python3 validation/traces/measure_h200.py OUT.csv KIND:M:N:K:VARIANT ...
  KIND: persistent | persistent_ws | gemm   (launchers of asyncsim_frontend.launchers)
Runs on the GPU machine.
"""
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "python"))


def parse(spec):
    kind, m, n, k, variant = spec.split(":")
    return kind, int(m), int(n), int(k), variant


def child(specs):
    import torch
    from asyncsim_frontend import launchers
    for spec in specs:
        kind, M, N, K, variant = parse(spec)
        if kind == "gemm":
            launchers.gemm(M, N, K, variant)
        else:
            launchers.persistent(M, N, K, variant, ws=kind == "persistent_ws")
        torch.cuda.synchronize()
        print(f"child: launched {spec}", flush=True)


def main():
    if sys.argv[1] == "--child":
        return child(sys.argv[2:])
    from validation.hw import common
    out, specs = sys.argv[1], sys.argv[2:]
    prof = common.run_ncu([os.path.abspath(__file__), "--child"] + specs,
                          "^(gemm_tma_kernel|gemm_persistent_kernel)$",
                          os.path.splitext(out)[0] + "_ncu", 300)
    rows = ["spec,cycles,duration_ns,sm_clock_mhz,dram_read_bytes,dram_write_bytes"]
    for spec, p in zip(specs, prof):
        f = common.ncu_fields(p)
        rows.append(f"{spec},{f['cycles']},{f['duration_ns']},{f['sm_clock_mhz']},"
                    f"{f['dram_read_bytes']},{f['dram_write_bytes']}")
    if len(prof) != len(specs):
        rows.append(f"# WARNING {len(prof)} profiled launches for {len(specs)} specs")
    with open(out, "w") as f:
        f.write("\n".join(["# ncu --clock-control none --cache-control all; one launch each"] + rows) + "\n")
    print("\n".join(rows))
    print(json.dumps([p.get("kernel_name") for p in prof]))


if __name__ == "__main__":
    main()
