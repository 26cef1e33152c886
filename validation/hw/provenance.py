#!/usr/bin/env python3
"""Print the provenance header ('# date/script/device/method' lines) for a CSV.
  python3 validation/hw/provenance.py --script validation/hw/micro.sh --method "..."
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from validation.hw import common  # noqa: E402

if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--script", required=True)
    ap.add_argument("--method", required=True)
    ap.add_argument("--print-device", action="store_true")
    a = ap.parse_args()
    info = common.device_info(print_it=a.print_device)
    print("\n".join(common.header_lines(a.script, a.method, info)))
