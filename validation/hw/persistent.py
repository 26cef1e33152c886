#!/usr/bin/env python3
"""Foreign kernels (Triton tutorial-09-style persistent TMA matmul, warp-specialised
GEMMs) on the H200: same method as gemm.py; writes persistent.csv.

  python3 validation/hw/persistent.py --outdir validation/data/h200 [--smoke]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from validation.hw import gemm  # noqa: E402

if __name__ == "__main__":
    if "--child" not in sys.argv:
        sys.argv[1:1] = ["--family", "persistent"]
    gemm.main()
