#!/usr/bin/env python3
"""Where and when each CTA of the GEMM runs on the H200 (for issue 5's DRAM misses).

The GEMM of validation/kernels/gemm_tma.py (its gemm_tile), unchanged except that each program records, from
its first thread, %smid, %globaltimer and %clock64 before its first instruction of work and
after its C store is issued (six scalar stores per CTA). For each shape: flush the L2 (read
256 MiB), launch once, REPS times. Answers: which SMs get two CTAs when the grid is not a
multiple of 132, in what order the block scheduler places CTAs, and how much longer a CTA
takes on an SM shared with another CTA than on one it has alone (in the simulator the
three readers of a B tile of 384x8192x8192 drift apart by that much and re-read B).

  ASIM_SCRIPT_REV=<rev> python3 validation/hw/cta_map.py OUT.csv [SHAPES [REPS]]

SHAPES (optional): M,N,K,VARIANT[;M,N,K,VARIANT...] instead of the list below.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from validation.hw import common  # noqa: E402

SHAPES = [(384, 8192, 8192, "128x128x64_s3_w4"), (384, 8192, 8192, "128x256x64_s3_w8"),
          (16384, 8192, 1024, "128x128x64_s3_w4"), (16384, 8192, 1024, "128x256x64_s3_w8"),
          (6144, 6144, 2048, "128x128x64_s3_w4"), (2048, 4096, 4096, "128x128x64_s3_w4")]
REPS = 2
COLUMNS = ["M", "N", "K", "variant", "rep", "pid", "smid", "start_ns", "end_ns", "start_clk",
           "end_clk"]


def kernel():
    import triton
    import triton.language as tl
    from validation.kernels.gemm_tma import gemm_tile

    @triton.jit
    def _stamp(rec, slot):
        smid = tl.inline_asm_elementwise("mov.u32 $0, %smid;", "=r", [], dtype=tl.int32,
                                         is_pure=False, pack=1)
        ns = tl.inline_asm_elementwise("mov.u64 $0, %globaltimer;", "=l", [], dtype=tl.int64,
                                       is_pure=False, pack=1)
        clk = tl.inline_asm_elementwise("mov.u64 $0, %clock64;", "=l", [], dtype=tl.int64,
                                        is_pure=False, pack=1)
        tl.store(rec + slot, smid.to(tl.int64))
        tl.store(rec + slot + 1, ns)
        tl.store(rec + slot + 2, clk)

    @triton.jit
    def gemm_stamped(a_desc, b_desc, c_desc, rec, M, N, K,
                     BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                     STAGES: tl.constexpr):
        pid = tl.program_id(0)
        _stamp(rec, pid * 8)
        gemm_tile(a_desc, b_desc, c_desc, pid, N, K, BM, BN, BK, STAGES, False)
        _stamp(rec, pid * 8 + 3)

    return gemm_stamped


def main():
    import torch
    from validation.kernels.gemm_tma import VARIANTS, grid_size, make_descs
    out = sys.argv[1]
    shapes = common.parse_shapes(sys.argv[2] if len(sys.argv) > 2 else "", SHAPES)
    reps = int(sys.argv[3]) if len(sys.argv) > 3 else REPS
    info = common.device_info()
    k = kernel()
    flush = torch.ones(256 * 1024 * 1024 // 4, device="cuda")
    rows = []
    for M, N, K, variant in shapes:
        BM, BN, BK, stages, warps = VARIANTS[variant]
        a = torch.randn(M, K, device="cuda", dtype=torch.float16)
        b = torch.randn(N, K, device="cuda", dtype=torch.float16)
        c = torch.empty(M, N, device="cuda", dtype=torch.float16)
        grid = grid_size(M, N, BM, BN)
        rec = torch.zeros(grid * 8, device="cuda", dtype=torch.int64)
        descs = make_descs(a, b, c, BM, BN, BK)
        run = lambda: k[(grid,)](*descs, rec, M, N, K, BM=BM, BN=BN, BK=BK, STAGES=stages,  # noqa: E731
                                 num_warps=warps, num_stages=stages)
        run()  # compile
        err = common.rel_err(c, (a.float() @ b.float().T))
        common.log(f"{M}x{N}x{K} {variant}: grid {grid}, rel err {err:.2e}")
        for rep in range(reps):
            flush.sum()
            rec.zero_()
            torch.cuda.synchronize()
            run()
            torch.cuda.synchronize()
            r = rec.view(grid, 8).cpu().tolist()
            t0 = min(x[1] for x in r)
            for pid, x in enumerate(r):
                rows.append({"M": M, "N": N, "K": K, "variant": variant, "rep": rep, "pid": pid,
                             "smid": x[0], "start_ns": x[1] - t0, "end_ns": x[4] - t0,
                             "start_clk": x[2], "end_clk": x[5]})
        del a, b, c, rec
    method = ("validation/kernels/gemm_tma.py's GEMM with %smid, %globaltimer and %clock64 read by "
              "each program before its work and after its C store is issued (ns from the "
              "launch's first CTA start; clock64 is per SM); L2 flushed by reading 256 MiB before "
              f"each launch; {reps} launches per shape, no profiler")
    common.write_csv(out, common.header_lines(os.path.relpath(os.path.abspath(__file__), common.REPO),
                                              method, info), COLUMNS, rows)


if __name__ == "__main__":
    main()
