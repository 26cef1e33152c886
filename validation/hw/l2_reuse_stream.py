#!/usr/bin/env python3
"""Does a written stream evict a clean set that keeps being re-read? (follow-up to
l2_write_stream.py for issue 5: in a GEMM, A and B are re-read while C streams out dirty.)

For each chunk size C, torch kernels in sequence under ncu without cache control: flush (read
256 MiB); read W (16 MiB, clean); then ROUNDS times: write a fresh C-MiB chunk of a large buffer
(dirty), read W (measured). Also with the chunks read instead of written (clean stream). If
the L2 evicts clean lines first whatever their recency, W is re-read from DRAM every round once
C is large enough; if recency wins, W survives while W + C fits. Runs on the GPU machine:

  ASIM_SCRIPT_REV=<rev> python3 validation/hw/l2_reuse_stream.py OUT.csv
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from validation.hw import common  # noqa: E402

MB = 1 << 20
W_BYTES = 16 * MB
CHUNKS = [4, 8, 16, 24, 32, 40, 48]
ROUNDS = 6
CASES = [(c, mode) for c in CHUNKS for mode in ("wr", "rd")]


def child():
    import torch
    flush = torch.ones(256 * MB // 4, device="cuda")
    w = torch.zeros(W_BYTES // 4, device="cuda")
    big = torch.ones(max(CHUNKS) * ROUNDS * MB // 4, device="cuda")
    torch.cuda.synchronize()
    for c, mode in CASES:
        flush.sum()
        w.sum()
        for k in range(ROUNDS):
            common.touch(big[k * c * MB // 4:(k + 1) * c * MB // 4], mode == "wr")
            w.sum()  # measured
        torch.cuda.synchronize()


def row(case, f):
    c, mode = case
    return [f"{c},{mode},{r},{W_BYTES},{f[3 + 2 * r]['dram_read_bytes']},{f[2 + 2 * r]['dram_read_bytes']},"
            f"{f[2 + 2 * r]['dram_write_bytes']}" for r in range(ROUNDS)]


if __name__ == "__main__":
    common.sequence_main(
        __file__, child, CASES, 2 + 2 * ROUNDS,
        "torch kernels in sequence, ncu --clock-control none --cache-control none, every kernel profiled; "
        "per case: read 256 MiB (flush), read W = 16 MiB, then ROUNDS x (write or read a fresh chunk of C MiB, "
        "read W: measured, its kernel's dram__bytes_read.sum)",
        "chunk_mib,stream_mode,round,w_bytes,measured_dram_read_bytes,chunk_dram_read_bytes,chunk_dram_write_bytes",
        row)
