#!/usr/bin/env python3
"""Where the L2 keeps a line: l2_half.cu's reader sets under ncu (validation/README.md, "One half's
readers and the L2's capacity"; validation/hw/next_batch.sh l2half).

    python3 validation/l2_half.py [DIR] [--tag fine] [--sim build/bench/l2_repeat --gpu h100
                                                      [--set KEY=VALUE ...]]

DIR (default validation/data/h100) holds micro_l2_half.csv (timed), micro_l2_half_ncu_points.csv
and ncu_l2/l2_half_raw.csv (every launch under ncu, in the points' order). For each fill row
(a reader set alone reads F bytes, `passes` times in one launch) it prints:
  hit      lts__t_sectors_srcunit_tex_op_read_lookup_hit / ..._read: lookups that hit at the
           slices the readers ask (their own half's)
  dram     dram__bytes_read / (32 x read sectors)
  fabric   lts__t_sectors_srcunit_ltcfabric / read sectors: sectors the other half sent over
  served   the share the L2 (either half) served in steady state: each profiled launch's first
           pass reads its buffer from DRAM (dram = 1/passes while the buffer fits), so
           served = 1 - (dram - 1/passes) / (1 - 1/passes)
  gbps     the timed run's rate (micro_l2_half.csv, no ncu)
With --sim, the model's steady-state hit rate for the same readers and sizes from
build/bench/l2_repeat (the memory system alone; hits at any slice, home or near copy), the
quantity `served` estimates.
"""
import argparse
import csv
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from datafile import open_text  # noqa: E402


def rows_of(path):
    with open_text(path) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def ncu_launches(path):
    """Per launch (in order), metric name -> value."""
    with open_text(path) as f:
        rows = list(csv.DictReader(line for line in f if line.startswith('"')))
    order, by = [], {}
    for r in rows:
        if r["ID"] not in by:
            by[r["ID"]] = {}
            order.append(r["ID"])
        by[r["ID"]][r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
    return [by[i] for i in order]


def reader_sets(provenance):
    """The reader sets L2HALF_A .. L2HALF_D the run used, from its provenance file (the method
    line names them); without one, those validation/hw/next_batch.sh sets for the H100."""
    sets = {}
    if os.path.exists(provenance):
        with open(provenance) as f:
            for token in f.read().replace(";", " ").split():
                for name in "ABCD":
                    if token.startswith(f"L2HALF_{name}="):
                        sets[name] = token.split("=", 1)[1]
        if len(sets) == 4:
            return sets
    with open(os.path.join(HERE, "hw", "next_batch.sh")) as f:
        for line in f:
            line = line.strip()
            for name in "ABCD":
                key = f"export L2HALF_{name}="
                if line.startswith(key) and name not in sets:
                    sets[name] = line[len(key):]
    return sets


def simulate(sim, gpu, readers, mibs, overrides):
    cmd = [sim, "--gpu", gpu, "--mib", ",".join(str(m) for m in mibs)] + overrides
    if readers:
        cmd += ["--readers", readers]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    rates = {}
    for line in out.splitlines():
        if line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split(",")]
        rates[int(parts[0])] = float(parts[-1])
    return rates


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir", nargs="?", default=os.path.join(HERE, "data", "h100"))
    ap.add_argument("--sim", help="build/bench/l2_repeat, for the model's hit rates")
    ap.add_argument("--gpu", default="h100")
    ap.add_argument("--tag", default="", help="read the files named l2_half_TAG (e.g. fine)")
    ap.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE",
                    help="with --sim: config overrides for the model")
    a = ap.parse_args()
    tag = f"_{a.tag}" if a.tag else ""
    points = rows_of(os.path.join(a.dir, f"micro_l2_half{tag}_ncu_points.csv"))
    launches = ncu_launches(os.path.join(a.dir, "ncu_l2", f"l2_half{tag}_raw.csv"))
    if len(points) != len(launches):
        sys.exit(f"l2_half.py: {len(points)} points but {len(launches)} ncu launches")
    timed = {(r["test"], r["readers"], r["buffer_bytes"]): r["gbps"]
             for r in rows_of(os.path.join(a.dir, f"micro_l2_half{tag}.csv"))}
    sets = reader_sets(os.path.join(a.dir, "ncu_l2", f"l2_half{tag}_provenance.txt"))
    fills = [(p, m) for p, m in zip(points, launches) if p["test"] == "fill"]
    sim = {}
    if a.sim:
        mibs = sorted({int(p["buffer_bytes"]) >> 20 for p, _ in fills})
        for readers in sorted({p["readers"] for p, _ in fills}):
            sim[readers] = simulate(a.sim, a.gpu, "" if readers == "all" else sets[readers], mibs,
                                    a.set)
    print("readers  MiB passes   hit%  dram  fabric%  served%" + ("  model%" if sim else "") + "    GB/s")
    for p, m in sorted(fills, key=lambda pm: (pm[0]["readers"] != "all", pm[0]["readers"],
                                               int(pm[0]["buffer_bytes"]))):
        sectors = m["lts__t_sectors_srcunit_tex_op_read.sum"]
        passes = int(p["passes"])
        dram = m["dram__bytes_read.sum"] / (32 * sectors)
        served = 1 - (dram - 1 / passes) / (1 - 1 / passes)
        mib = int(p["buffer_bytes"]) >> 20
        model = f"  {100 * sim[p['readers']][mib]:6.1f}" if sim else ""
        print(f"{p['readers']:7s} {mib:4d} {passes:6d} "
              f"{100 * m['lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum'] / sectors:6.1f} "
              f"{dram:5.3f} {100 * m['lts__t_sectors_srcunit_ltcfabric.sum'] / sectors:8.1f} "
              f"{100 * min(1.0, served):8.1f}{model} "
              f"{timed.get(('fill', p['readers'], p['buffer_bytes']), '-'):>8s}")


if __name__ == "__main__":
    main()
