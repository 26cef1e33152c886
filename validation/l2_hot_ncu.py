#!/usr/bin/env python3
"""What reached the L2 in each point of micro_l2_hot.csv: reads Nsight Compute's counters of the
same run (validation/data/h200/ncu_l2/l2_hot_raw.csv: `L2HOT_NCU=1 ncu --csv --print-units base
--metrics ...` over the l2_hot binary, a warm-up launch and the measured launch per point) and
prints, per point: bytes the SMs received over bytes read at the L2 (tex read sectors x 32: what
the request coalescer merged), L2 tex read sectors per slice per L2 cycle (the chip config's l2.slices, 96 on the H200; peak 1.96),
sectors per request, the L2 hit rate, far-partition (ltcfabric) sectors per read sector, and the
SM clock.

  python3 validation/l2_hot_ncu.py            # micro_l2_hot.csv with ncu_l2/l2_hot_raw.csv
  python3 validation/l2_hot_ncu.py slots      # micro_l2_hot_slots.csv with ncu_l2/l2_hot_slots_raw.csv
  python3 validation/l2_hot_ncu.py pairs      # micro_l2_pairs.csv with ncu_l2/l2_pairs_raw.csv
                                              # (validation/hw/micro/l2_pairs.cu, once measured)
  python3 validation/l2_hot_ncu.py ceiling    # micro_l2_ceiling.csv with ncu_l2/l2_ceiling_raw.csv
                                              # (l2_pairs.cu with L2PAIRS_POINTS, next_batch.sh ceiling)
  python3 validation/l2_hot_ncu.py mem_bw     # micro_mem_bw.csv's read points with
                                              # ncu_l2/mem_bw_raw.csv (MEMBW_NCU=1, once measured)
  python3 validation/l2_hot_ncu.py mem_bw --data validation/data/h100   # another chip's files
  python3 validation/l2_hot_ncu.py tma_bw     # micro_tma_bw.csv's l2 points with
                                              # ncu_l2/tma_bw_raw.csv (6 launches a point: the
                                              # warm-up and 5 timed; the last is printed)
  python3 validation/l2_hot_ncu.py tma_bw_dram  # the same with dram__bytes_read.sum
                                              # (ncu_l2/tma_bw_dram_raw.csv, next_batch.sh tmabwdram)

With dram__bytes_read.sum among the metrics it also prints the DRAM bytes read per L2 read
sector byte (0 where a re-read stream stays in the L2).
"""
import csv
import os
import re
import sys

from ncu_raw import ncu_rows

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data", "h200")


# The columns that name a point, per micro.
KEYS = {"l2_hot": ["pitch_bytes", "ctas_per_sm", "slots", "group", "members", "region_bytes"],
        "l2_pairs": ["layout", "ctas_per_sm", "slots", "skew_copies", "groups", "sms_per_group",
                     "active_sms"],
        "l2_ceiling": ["layout", "ctas_per_sm", "slots", "skew_copies", "groups", "sms_per_group",
                       "active_sms"],
        "mem_bw": ["test", "buffer_bytes"],
        "tma_bw": ["copy", "src", "wait", "ctas_per_sm", "bytes_per_copy", "slots"]}
# Points of the micro's CSV that launch no profiled kernel (mem_bw's copy runs copy_kernel; ncu
# is asked for read_kernel only).
SKIP = {"mem_bw": ("test", "dram_copy_rw"), "tma_bw": ("src", "dram")}
# Profiled launches per point (the measured one last).
PER_POINT = {"tma_bw": 6}


def l2_slices(chip):
    """l2.slices of configs/CHIP.yaml, or of the config it names as its base."""
    path = os.path.join(HERE, "..", "configs", f"{chip}.yaml")
    if not os.path.exists(path):
        raise SystemExit(f"l2_hot_ncu.py: no config for the data's chip: {os.path.relpath(path)}")
    text = open(path).read()
    m = re.search(r"^l2:\n(?:  .*\n)*?  slices: \{value: (\d+)", text, re.M)
    if m:
        return int(m.group(1))
    base = re.search(r"^base: (\S+)", text, re.M)
    if not base:
        raise SystemExit(f"l2_hot_ncu.py: {os.path.relpath(path)} has no l2.slices")
    return l2_slices(os.path.splitext(os.path.basename(base.group(1)))[0])


def main():
    global DATA
    args = sys.argv[1:]
    if "--data" in args:
        i = args.index("--data")
        if i + 1 >= len(args):
            raise SystemExit("l2_hot_ncu.py: --data needs a directory")
        DATA = os.path.abspath(args[i + 1])
        del args[i:i + 2]
    arg = args[0] if args else ""
    slices = l2_slices(os.path.basename(os.path.normpath(DATA)))
    raw_tag = ""
    if arg in ("pairs", "mem_bw", "tma_bw", "ceiling"):
        name, tag = {"pairs": "l2_pairs", "ceiling": "l2_ceiling"}.get(arg, arg), ""
    elif arg == "tma_bw_dram":  # tma_bw's points, a second ncu run with the DRAM counter
        name, tag, raw_tag = "tma_bw", "", "_dram"
    else:
        name, tag = "l2_hot", "_" + arg if arg else ""
    raw = os.path.join(DATA, "ncu_l2", f"{name}{tag}{raw_tag}_raw.csv")
    if not os.path.exists(raw):
        raise SystemExit(f"l2_hot_ncu.py: {os.path.relpath(raw, HERE)} does not exist: not measured "
                         "yet (validation/README.md, Shared tiles, has the ncu command)")
    launches = ncu_rows(raw)
    with open(os.path.join(DATA, f"micro_{name}{tag}.csv")) as f:
        pts = list(csv.DictReader(line for line in f if not line.startswith("#")))
    if name in SKIP:
        col, value = SKIP[name]
        pts = [p for p in pts if p[col] != value]
    per = PER_POINT.get(name, 2)
    if len(launches) != per * len(pts):
        raise SystemExit(f"{len(launches)} profiled launches for {len(pts)} points (expected {per} each)")
    dram = "dram__bytes_read.sum" in launches[0]
    print(",".join(KEYS[name]) + ",delivered_over_l2,"
          "read_sectors_per_slice_cycle,sectors_per_request,hit_rate,far_per_read,sm_mhz" +
          (",dram_read_over_l2" if dram else ""))
    for i, p in enumerate(pts):
        m = launches[per * i + per - 1]
        rd = m["lts__t_sectors_srcunit_tex_op_read.sum"]
        print(",".join(p[k] for k in KEYS[name]) +
              ",%.2f,%.2f,%.2f,%.3f,%.3f,%.0f" % (
                  m["l1tex__m_xbar2l1tex_read_bytes.sum"] / (rd * 32),
                  rd / slices / m["lts__cycles_elapsed.avg"],
                  rd / m["lts__t_requests_srcunit_tex_op_read.sum"],
                  m["lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum"] / rd,
                  m["lts__t_sectors_srcunit_ltcfabric.sum"] / rd,
                  m["sm__cycles_elapsed.avg.per_second"] / 1e6) +
              (",%.3f" % (m["dram__bytes_read.sum"] / (rd * 32)) if dram else ""))


if __name__ == "__main__":
    main()
