#!/usr/bin/env python3
"""How do strided lines spread over the H200's L2 sets? (issue 5's DRAM rows: a GEMM's operand
tiles are strided rows of a 2-D array; the model's linear set index piles some strides into few
sets and re-reads lines the H200 keeps.)

For each case (width_lines W, pitch_lines P, footprint F): a 2-D region of rows of W lines
(W * 128 B), P lines apart, F MiB in all, inside one 4 GiB buffer. Kernels in sequence under ncu
without cache control between them (one pass each): flush (read a 256 MiB buffer), read the
region (warm), read it again (measured). A Triton program reads rows pid, pid + grid, ... (grid =
8 programs per SM), one W-line row per load, and stores one float. The measured kernel's
dram__bytes_read.sum is what the L2 could not keep of the region: with a set index that mixes
every address bit it depends on F alone, with one that ignores the bits the slice hash used it
rises at some pitches far below the L2's capacity. Runs on the GPU machine:

  ASIM_SCRIPT_REV=<rev> python3 validation/hw/l2_stride_retain.py OUT.csv
  (STRIDE_SHAPES="W:P,P,...;W:P,..." STRIDE_MIB="F,..." for other rows and footprints)
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from validation.hw import common  # noqa: E402

MB = 1 << 20
LINE = 128
SPAN = 4 << 30  # the region buffer; cases wider than it are not run
SHAPES = [(1, (16, 32, 128)), (4, (16, 32, 128, 512)), (16, (16, 32, 128, 512, 2048))]
FOOTPRINTS = (16, 24, 32)
# Other cases without editing: STRIDE_SHAPES="W:P,P,...;W:P,..." and STRIDE_MIB="F,F,...".
if os.environ.get("STRIDE_SHAPES"):
    SHAPES = [(int(w), tuple(int(p) for p in ps.split(",")))
              for w, ps in (s.split(":") for s in os.environ["STRIDE_SHAPES"].split(";"))]
if os.environ.get("STRIDE_MIB"):
    FOOTPRINTS = tuple(int(f) for f in os.environ["STRIDE_MIB"].split(","))
REPS = 2
CASES = [(rep, p, w, f) for rep in range(REPS) for f in FOOTPRINTS for w, ps in SHAPES
         for p in ps]


def rows_of(w, f):
    return f * MB // (w * LINE)


def child():
    import torch
    import triton
    import triton.language as tl

    @triton.jit
    def stride_read(ptr, out, rows, pitch, W: tl.constexpr):
        pid = tl.program_id(0)
        nprog = tl.num_programs(0)
        offs = tl.arange(0, W)
        acc = tl.zeros((W,), tl.float32)
        for r in range(pid, rows, nprog):
            acc += tl.load(ptr + r.to(tl.int64) * pitch + offs)
        tl.store(out + pid, tl.sum(acc, axis=0))

    grid = torch.cuda.get_device_properties(0).multi_processor_count * 8
    flush = torch.ones(256 * MB // 4, device="cuda")
    buf = torch.ones(SPAN // 4, device="cuda")
    out = torch.empty(grid, device="cuda")

    def read(p, w, f):
        stride_read[(grid,)](buf, out, rows_of(w, f), p * LINE // 4, W=w * LINE // 4)

    # Setup kernels: the fills (2 on the H200; the H100's torch split one, 3), this read and one
    # per width, each compiling its W before the cases. Rows are taken from the last kernel
    # back, so a warning of more setup kernels than expected is harmless.
    read(16, 1, 1)
    for w, _ in SHAPES:
        read(w, w, 1)
    torch.cuda.synchronize()
    for _, p, w, f in CASES:
        assert rows_of(w, f) * p * LINE <= SPAN
        flush.sum()
        read(p, w, f)
        read(p, w, f)  # measured
        torch.cuda.synchronize()


def row(case, f):
    rep, p, w, fp = case
    return [f"{rep},{p},{w},{fp},{rows_of(w, fp) * w * LINE},{f[2]['dram_read_bytes']},"
            f"{f[1]['dram_read_bytes']},{f[2]['cycles']}"]


if __name__ == "__main__":
    common.sequence_main(
        __file__, child, CASES, 3,
        "torch / Triton kernels in sequence, ncu --clock-control none --cache-control none (no flush "
        "between kernels), every kernel profiled; per case: read a 256 MiB buffer (flush), read a "
        "strided region (rows of width_lines x 128 B, pitch_lines x 128 B apart, footprint_mib MiB "
        "in all; a Triton kernel of 8 programs per SM, program i reading rows i, i + grid, ...), read "
        "it again (measured: dram__bytes_read.sum of that kernel)"
        + "".join(f"; {k}={os.environ[k]}" for k in ("STRIDE_SHAPES", "STRIDE_MIB")
                  if os.environ.get(k)),
        "rep,pitch_lines,width_lines,footprint_mib,region_bytes,measured_dram_read_bytes,"
        "warm_dram_read_bytes,cycles", row, setup=3 + len(SHAPES))
