#!/usr/bin/env python3
"""Are lines written by TMA bulk-tensor stores kept in the H200's L2 like lines written by
ordinary stores? (issue 5: micro_l2_dirty_retain.csv shows the L2 keeping lines written by a
torch kernel (st.global) over clean ones, yet a GEMM's C tiles, written by TMA stores, do not
push its re-read B out the way a retained dirty stream would.)

Cases, each a sequence of kernels under ncu without cache control between them (one pass each):
  w_retain (W written or read, then a clean stream, then W re-read):
    flush (read 256 MiB), W (16 MiB) written by fill_ (lsu), by a Triton TMA-store kernel
    (tma), or read by sum (read); R.sum() over Sr MiB; W.sum() (measured)
  s_evict (W read, then a written stream, then W re-read):
    flush, W.sum(), the first Sr MiB of a large buffer written by fill_ (lsu) or by the TMA-store
    kernel (tma); W.sum() (measured)
The measured kernel's dram__bytes_read.sum says how much of W was evicted. Runs on the GPU
machine:

  ASIM_SCRIPT_REV=<rev> python3 validation/hw/l2_tma_write_retain.py OUT.csv
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from validation.hw import common  # noqa: E402

MB = 1 << 20
W_BYTES = 16 * MB
COLS = 1024  # fp32 columns of the 2-D view the TMA kernel stores: 4 KiB rows
BM, BN = 64, 128  # TMA box: 64 rows x 512 B
CASES = ([("w_retain", w, sr) for w in ("lsu", "tma", "read") for sr in (16, 24, 32, 48)] +
         [("s_evict", s, sr) for s in ("lsu", "tma") for sr in (16, 24, 32)])
BIG_MIB = 48


def child():
    import torch
    import triton
    import triton.language as tl
    from triton.tools.tensor_descriptor import TensorDescriptor

    @triton.jit
    def tma_fill(desc, n_col_tiles, BM: tl.constexpr, BN: tl.constexpr):
        pid = tl.program_id(0)
        tile = tl.full((BM, BN), 1.0, tl.float32)
        desc.store([(pid // n_col_tiles) * BM, (pid % n_col_tiles) * BN], tile)

    def tma_write(t):
        view = t.view(-1, COLS)
        desc = TensorDescriptor(view, list(view.shape), list(view.stride()), [BM, BN])
        n_col = COLS // BN
        tma_fill[(view.shape[0] // BM * n_col,)](desc, n_col, BM=BM, BN=BN)

    def write(t, how):
        if how == "tma":
            tma_write(t)
        else:
            t.fill_(1.0)

    flush = torch.ones(256 * MB // 4, device="cuda")
    w = torch.zeros(W_BYTES // 4, device="cuda")
    big = torch.ones(BIG_MIB * MB // 4, device="cuda")
    tma_write(w)  # compiles and loads the TMA kernel (4th setup kernel)
    torch.cuda.synchronize()
    for kind, how, sr in CASES:
        flush.sum()
        if kind == "w_retain":
            if how == "read":
                w.sum()
            else:
                write(w, how)
            big[: sr * MB // 4].sum()
        else:
            w.sum()
            write(big[: sr * MB // 4], how)
        w.sum()  # measured
        torch.cuda.synchronize()


def row(case, f):
    kind, how, sr = case
    return [f"{kind},{how},{sr},{W_BYTES},{f[3]['dram_read_bytes']},{f[3]['l2_bytes']},"
            f"{f[1]['dram_write_bytes']},{f[2]['dram_write_bytes']},{f[1]['cycles']},{f[2]['cycles']}"]


if __name__ == "__main__":
    common.sequence_main(
        __file__, child, CASES, 4,
        "torch / Triton kernels in sequence, ncu --clock-control none --cache-control none (no flush "
        "between kernels), every kernel profiled; per case: read a 256 MiB buffer (flush); w_retain: "
        "write W = 16 MiB by fill_ (lsu) or a Triton TMA-store kernel (tma, 64x128 fp32 boxes) or read "
        "it (read), then read Sr MiB; s_evict: read W, then write Sr MiB by fill_ or the TMA kernel; "
        "then read W (measured: dram__bytes_read.sum of that kernel). k1/k2 = the 2nd/3rd kernel",
        "kind,how,sr_mib,w_bytes,measured_dram_read_bytes,measured_l2_bytes,k1_dram_write_bytes,"
        "k2_dram_write_bytes,k1_cycles,k2_cycles", row, setup=4)
