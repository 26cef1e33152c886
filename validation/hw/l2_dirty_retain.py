#!/usr/bin/env python3
"""Does the H200's L2 keep dirty lines longer than clean ones? (issue 5's DRAM misses: the model
evicts by LRU alone.)

For each size Sr of a streaming buffer R, two sequences of torch kernels, profiled by Nsight
Compute without cache control between them (--cache-control none, one pass per kernel):
  dirty: flush (read a 256 MB buffer), W.fill_(1)   (W's 16 MB written: dirty in L2),
         R.sum()  (Sr MB of clean lines stream through L2), W.sum()  (measured)
  clean: flush, W.sum() (W read: clean in L2), R.sum(), W.sum()  (measured)
The measured kernel's dram__bytes_read.sum says how much of W was evicted by R's stream. If the
L2 evicts clean lines first, the dirty sequence re-reads less of W for the same Sr. Runs on the
GPU machine:

  ASIM_SCRIPT_REV=<rev> python3 validation/hw/l2_dirty_retain.py OUT.csv
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from validation.hw import common  # noqa: E402

MB = 1 << 20
W_BYTES = 16 * MB
SIZES = [0, 8, 16, 24, 32, 40, 48, 64, 96]  # Sr in MiB
REPS = 2
CASES = [(rep, sr, mode) for rep in range(REPS) for sr in SIZES for mode in ("dirty", "clean")]


def child():
    common.w_stream_w_child([(mode == "dirty", sr, False) for _, sr, mode in CASES], max(SIZES))


def row(case, f):
    rep, sr, mode = case
    return [f"{rep},{sr},{mode},{W_BYTES},{f[3]['dram_read_bytes']},{f[3]['l2_bytes']},"
            f"{f[2]['dram_read_bytes']},{f[3]['cycles']}"]


if __name__ == "__main__":
    common.sequence_main(
        __file__, child, CASES, 4,
        "torch kernels in sequence, ncu --clock-control none --cache-control none (no flush between "
        "kernels), every kernel profiled; per case: read a 256 MiB buffer (flush), write (dirty) or read "
        "(clean) W = 16 MiB, read R = Sr MiB, read W (measured: dram__bytes_read.sum of that kernel)",
        "rep,sr_mib,mode,w_bytes,measured_dram_read_bytes,measured_l2_bytes,r_dram_read_bytes,cycles", row)
