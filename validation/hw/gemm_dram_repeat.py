#!/usr/bin/env python3
"""How repeatable Nsight Compute's DRAM read bytes are for the GEMM calibration rows whose
simulated DRAM reads miss by more than 10 % (validation/README.md, misses 3), with two rows
that do not as controls: each shape launched REPS times in one process (fresh torch.randn
inputs each time), each launch profiled as validation/hw/gemm.py does (ncu --clock-control none
--cache-control all). Runs on the GPU machine:

  ASIM_SCRIPT_REV=<rev> python3 validation/hw/gemm_dram_repeat.py OUT.csv [REPS [SHAPES]]

SHAPES (optional): M,N,K,VARIANT[;M,N,K,VARIANT...] instead of the list below.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "python"))

SHAPES = [(6144, 6144, 2048, "128x128x64_s3_w4"), (6144, 6144, 2048, "128x256x64_s3_w8"),
          (16384, 8192, 1024, "128x256x64_s3_w8"), (384, 8192, 8192, "128x128x64_s3_w4"),
          (2048, 4096, 4096, "128x128x64_s3_w4"), (8192, 4096, 4096, "128x128x64_s3_w4")]


def child(reps, shapes):
    import torch
    from asyncsim_frontend import launchers
    for M, N, K, v in shapes:
        for _ in range(reps):
            launchers.gemm(M, N, K, v)
            torch.cuda.synchronize()


def main():
    from validation.hw import common
    if sys.argv[1] == "--child":
        return child(int(sys.argv[2]),
                     common.parse_shapes(sys.argv[3] if len(sys.argv) > 3 else "", SHAPES))
    out = sys.argv[1]
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    spec = sys.argv[3] if len(sys.argv) > 3 else ""
    shapes = common.parse_shapes(spec, SHAPES)
    info = common.device_info()
    prof = common.run_ncu([os.path.abspath(__file__), "--child", str(reps), spec], "^gemm_tma_kernel$",
                          os.path.splitext(out)[0] + "_ncu", 500)
    method = ("each shape launched REPS times in one process, fresh torch.randn inputs per launch; "
              "ncu --clock-control none --cache-control all, every launch profiled; "
              "cycles=gpc__cycles_elapsed.max dram=dram__bytes_read/write.sum")
    lines = common.header_lines("validation/hw/gemm_dram_repeat.py", method, info)
    lines.append("M,N,K,variant,rep,cycles,duration_ns,sm_clock_mhz,dram_read_bytes,dram_write_bytes,l2_bytes")
    k = 0
    for M, N, K, v in shapes:
        for r in range(reps):
            if k >= len(prof):
                break
            f = common.ncu_fields(prof[k])
            k += 1
            lines.append(f"{M},{N},{K},{v},{r},{f['cycles']},{f['duration_ns']},{f['sm_clock_mhz']},"
                         f"{f['dram_read_bytes']},{f['dram_write_bytes']},{f['l2_bytes']}")
    if k != len(shapes) * reps:
        print(f"WARNING: {len(prof)} profiled launches for {len(shapes) * reps}", file=sys.stderr)
    with open(out, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
