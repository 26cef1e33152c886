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

MB = 1 << 20
W_BYTES = 16 * MB
CHUNKS = [4, 8, 16, 24, 32, 40, 48]
ROUNDS = 6
MODES = ["wr", "rd"]


def child():
    import torch
    flush = torch.ones(256 * MB // 4, device="cuda")
    w = torch.zeros(W_BYTES // 4, device="cuda")
    big = torch.ones(max(CHUNKS) * ROUNDS * MB // 4, device="cuda")
    torch.cuda.synchronize()
    for c in CHUNKS:
        for mode in MODES:
            flush.sum()
            w.sum()
            for k in range(ROUNDS):
                chunk = big[k * c * MB // 4:(k + 1) * c * MB // 4]
                if mode == "wr":
                    chunk.fill_(3.0)
                else:
                    chunk.sum()
                w.sum()
            torch.cuda.synchronize()


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        return child()
    from validation.hw import common
    out = sys.argv[1]
    method = ("torch kernels in sequence, ncu --clock-control none --cache-control none, every kernel profiled; "
              "per case: read 256 MiB (flush), read W = 16 MiB, then ROUNDS x (write or read a fresh chunk of C MiB, "
              "read W: measured, its kernel's dram__bytes_read.sum)")
    per = 2 + 2 * ROUNDS
    prof, lines = common.profile_sequence(__file__, out, method, len(CHUNKS) * len(MODES) * per)
    lines.append("chunk_mib,stream_mode,round,w_bytes,measured_dram_read_bytes,chunk_dram_read_bytes,chunk_dram_write_bytes")
    k = 0
    for c in CHUNKS:
        for mode in MODES:
            if k + per > len(prof):
                break
            g = prof[k:k + per]
            k += per
            for r in range(ROUNDS):
                ch, m = common.ncu_fields(g[2 + 2 * r]), common.ncu_fields(g[3 + 2 * r])
                lines.append(f"{c},{mode},{r},{W_BYTES},{m['dram_read_bytes']},{ch['dram_read_bytes']},"
                             f"{ch['dram_write_bytes']}")
    with open(out, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
