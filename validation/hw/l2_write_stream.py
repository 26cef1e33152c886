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
from validation.hw import common  # noqa: E402

MB = 1 << 20
W_BYTES = 16 * MB
SIZES = [16, 24, 32, 48, 64, 96, 128, 256]
CASES = [(s, wmode, smode) for s in SIZES
         for wmode, smode in (("read", "rd"), ("read", "wr"), ("write", "rd"), ("write", "wr"))]


def child():
    common.w_stream_w_child([(w == "write", s, st == "wr") for s, w, st in CASES], max(SIZES))


def row(case, f):
    s, wmode, smode = case
    return [f"{s},{wmode},{smode},{W_BYTES},{f[3]['dram_read_bytes']},{f[2]['dram_read_bytes']},"
            f"{f[2]['dram_write_bytes']},{f[3]['dram_write_bytes']}"]


if __name__ == "__main__":
    common.sequence_main(
        __file__, child, CASES, 4,
        "torch kernels in sequence, ncu --clock-control none --cache-control none, every kernel profiled; "
        "per case: read 256 MiB (flush); W = 16 MiB read (clean) or written (dirty); a stream of S MiB read "
        "(rd) or written (wr); W read again (measured: its kernel's dram__bytes_read.sum)",
        "stream_mib,w_mode,stream_mode,w_bytes,measured_dram_read_bytes,stream_dram_read_bytes,"
        "stream_dram_write_bytes,measured_dram_write_bytes", row)
