#!/usr/bin/env python3
"""Do written streams crowd resident lines out of the H200's L2 as read streams do? (follow-up to
l2_dirty_retain.py, for issue 5: a GEMM writing a large C keeps its A and B in L2 on the H200,
while the dirty-retention micro shows written lines protected.)

For each stream size S and case, torch kernels in sequence under ncu without cache control:
  flush (read 256 MiB); make W (16 MiB) resident: `read` (W.sum, clean) or `write` (W.fill_, dirty);
  stream S MiB: `rd` (R.sum: clean lines) or `wr` (R.fill_: dirty lines); re-read W (measured).
Cases: read/rd, read/wr, write/rd, write/wr. Runs on the GPU machine:

  ASIM_SCRIPT_REV=<rev> python3 validation/hw/l2_write_stream.py OUT.csv
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

MB = 1 << 20
W_BYTES = 16 * MB
SIZES = [16, 24, 32, 48, 64, 96, 128, 256]
CASES = [("read", "rd"), ("read", "wr"), ("write", "rd"), ("write", "wr")]


def child():
    import torch
    flush = torch.ones(256 * MB // 4, device="cuda")
    w = torch.zeros(W_BYTES // 4, device="cuda")
    big = torch.ones(max(SIZES) * MB // 4, device="cuda")
    torch.cuda.synchronize()
    for s in SIZES:
        for wmode, smode in CASES:
            r = big[: s * MB // 4]
            flush.sum()
            if wmode == "write":
                w.fill_(1.0)
            else:
                w.sum()
            if smode == "wr":
                r.fill_(2.0)
            else:
                r.sum()
            w.sum()
            torch.cuda.synchronize()


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        return child()
    from validation.hw import common
    out = sys.argv[1]
    method = ("torch kernels in sequence, ncu --clock-control none --cache-control none, every kernel profiled; "
              "per case: read 256 MiB (flush); W = 16 MiB read (clean) or written (dirty); a stream of S MiB read "
              "(rd) or written (wr); W read again (measured: its kernel's dram__bytes_read.sum)")
    per = 4
    prof, lines = common.profile_sequence(__file__, out, method, len(SIZES) * len(CASES) * per)
    lines.append("stream_mib,w_mode,stream_mode,w_bytes,measured_dram_read_bytes,stream_dram_read_bytes,"
                 "stream_dram_write_bytes,measured_dram_write_bytes")
    k = 0
    for s in SIZES:
        for wmode, smode in CASES:
            if k + per > len(prof):
                break
            g = prof[k:k + per]
            k += per
            m, st = common.ncu_fields(g[3]), common.ncu_fields(g[2])
            lines.append(f"{s},{wmode},{smode},{W_BYTES},{m['dram_read_bytes']},{st['dram_read_bytes']},"
                         f"{st['dram_write_bytes']},{m['dram_write_bytes']}")
    with open(out, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
