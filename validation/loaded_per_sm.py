#!/usr/bin/env python3
"""Do the two L2 partitions' SMs wait alike under load? (thirty-fourth session)

Chip side: a per-SM file of loaded_latency.cu --per-sm (micro_loaded_latency_sm.csv, the DRAM
stream; micro_loaded_latency_hitstream_sm.csv, a stream of L2 hits), its SMs split into the two
partition groups that micro_tma_partition.csv measured on the same chip (validation/tma_partition.py:
group A next to helper SM 0's partition, group B the other). Per point and group: the median over
the group's SMs of each SM's probe median, and the mean of the SMs' stream spans (us).

Model side (--sim BINARY): the same points simulated with --stats; per L2 partition of the model
(each SM's sm[i].l2_partition counter), the mean over its streaming SMs of
sm[i].tma.request_latency_cycles_sum / requests: how long the partition's stream requests take.

  python3 validation/loaded_per_sm.py --per-sm validation/data/h100/micro_loaded_latency_hitstream_sm.csv \
      --partition validation/data/h100/micro_tma_partition.csv [--sim build/asyncsim --gpu h100]

ncu side (--ncu RAW...: next_batch.sh loadedncu / partncu logs, one launch per row): the sectors
the SMs ask of the slices, the share that crosses the fabric between the partitions, and the
busiest slice's requests over the idlest's. If one partition group's SMs (partncu) read only
their own partition's slices, the idlest slice sees only the probes' few requests.

halfmap side (--halfmap FILE --partition TMA_PARTITION_CSV [--sim BINARY --gpu G]: next_batch.sh
halfmap): which SMs read hits from SM 0's half of the slices (the idlest slice stays at the
probes' level when SMs 0 and s share a half), the GPCs of each half under the config's
sm.tpc_gpcs, and how that map agrees with the far-line groups of micro_tma_partition.csv.

stream-sets side (--stream-sets CSV... [--gpu G]: next_batch.sh gpcquiet, per-SM files in which
only some SMs streamed hits): per point, the SMs grouped by whether they streamed and by the half
of the slices that serves their hits (--halves GPCS, default the H100's micro_l2_halfmap.csv
halves: GPCs 0, 4, 5, 6 and the side unit / 1, 2, 3, 7; GPCs from configs/G.yaml's
sm.tpc_gpcs), each group's median over its SMs of their probe p10 / median / p90. With --sim, the
model's rows for the same set (asyncsim micro loaded_latency, probes PROBE_SETbusy /
PROBE_SETquietA / PROBE_SETquietB, SET from the file name): p10 / median / p90 of the pooled
samples of the streaming (S) CTAs and of the quiet ones of each half (qA, qB).
"""
import argparse
import csv
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tma_partition  # noqa: E402


def chip_groups(path):
    """SM id -> 'A' / 'B' from a tma_partition run (helper SM 0's rows, as tma_partition.py)."""
    data = tma_partition.load(path)
    sms = {s: v for (h, s), v in data.items() if h == 0}
    lines = sorted({ln for v in sms.values() for ln, _ in v if ln > 0})
    far = {s for s, v in sms.items()
           if sum(v[(ln, 0)] - v[(ln, 1)] > tma_partition.FAR_GAP for ln in lines) > len(lines) // 5}
    return {s: ("B" if s in far else "A") for s in sms}


def read_rows(path):
    with open(path) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def ncu_summary(paths):
    for path in paths:
        with open(path) as f:
            rows = list(csv.DictReader(line for line in f if line.startswith('"')))
        launches = {}
        for r in rows:
            launches.setdefault(r["ID"], {})[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
        print(f"## {path}")
        print("| launch | SM sectors | fabric / SM sectors | busiest / idlest slice (requests) | us |")
        print("|---:|---:|---:|---:|---:|")
        for i, m in enumerate(launches.values()):
            tex = m["lts__t_sectors_srcunit_tex_op_read.sum"]
            fab = m["lts__t_sectors_srcunit_ltcfabric.sum"]
            hi, lo = m["lts__t_requests_srcunit_tex_op_read.max"], m["lts__t_requests_srcunit_tex_op_read.min"]
            print(f"| {i} | {tex:.3g} | {fab / tex:.4f} | {hi / lo:.3f} | {m['gpu__time_duration.sum'] / 1e3:.1f} |")


def halfmap(path, partition_csv, binary, gpu):
    rows = [r for r in read_rows(path) if r["launch"] == "0"]
    base = min(float(r["req_min"]) for r in rows)
    other = {int(r["sm"]): float(r["req_min"]) > 2 * base for r in rows}
    groups = chip_groups(partition_csv)
    print(f"## {path}: {len(other)} SMs paired with SM 0; idlest slice {base:.0f} (same half) "
          f"or {statistics.median(float(r['req_min']) for r in rows if other[int(r['sm'])]):.0f}")
    print(f"other half: {sorted(s for s, o in other.items() if o)}")
    agree = sum(o == (groups[s] != groups[0]) for s, o in other.items())
    print(f"agreement with micro_tma_partition.csv's far-line groups: {agree} of {len(other)}")
    if binary:
        out = subprocess.run([binary, "params", "--gpu", gpu], capture_output=True, text=True, check=True).stdout
        tpc_gpcs = [int(x) for line in out.splitlines() if line.startswith("sm.tpc_gpcs ")
                    for x in line.split()[1].split(",")]
        by_gpc = {}
        for s, o in other.items():
            by_gpc.setdefault(tpc_gpcs[s // 2], set()).add(o)
        print("GPC -> other half (under the config's sm.tpc_gpcs; TPCs 62-65 are the side unit): "
              + ", ".join(f"{g}: {sorted(v)}" for g, v in sorted(by_gpc.items())))


def tpc_gpcs(gpu):
    """sm.tpc_gpcs of configs/GPU.yaml, or of the config it inherits (base:)."""
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "configs")
    while gpu:
        text = open(os.path.join(here, f"{gpu}.yaml")).read()
        m = re.search(r'tpc_gpcs:\s*\{value:\s*"([0-9,]+)"', text)
        if m:
            return [int(x) for x in m.group(1).split(",")]
        b = re.search(r"^base:\s*(\S+)", text, re.M)
        gpu = b.group(1) if b else None
    raise SystemExit("no sm.tpc_gpcs in the config")


def stream_sets(paths, gpu, halves, binary=None, sets=()):
    gpcs = tpc_gpcs(gpu)
    first = {int(g) for g in halves.split("/")[0].split(",")}
    for path in paths:
        rows = read_rows(path)
        print(f"## {path}: group = S (streamed) / q (quiet) x half of the slices (A: GPCs "
              f"{sorted(first)} and the side unit, B: the others); SMs: p10 / median / p90")
        for probe in sorted({r["probe"] for r in rows}):
            for slots in sorted({int(r["slots"]) for r in rows}):
                groups = {}
                for r in rows:
                    if r["probe"] != probe or int(r["slots"]) != slots:
                        continue
                    sm = int(r["smid"])
                    side = sm // 2 >= len(gpcs) - 4
                    half = "A" if side or gpcs[sm // 2] in first else "B"
                    key = ("S" if float(r["stream_us"]) > 0 else "q") + half
                    groups.setdefault(key, []).append(r)
                cells = []
                for key, g in sorted(groups.items()):
                    med = [statistics.median(int(r[c]) for r in g) for c in ("p10", "median", "p90")]
                    cells.append(f"{key} {len(g)}: {med[0]:.0f} / {med[1]:.0f} / {med[2]:.0f}")
                print(f"{probe} S={slots}: " + " | ".join(cells))
        if binary:
            name = os.path.basename(path)[len("micro_loaded_latency_"):-len(".csv")].split("_")[0]
            probes = ",".join(f"{p}_{name}{w}" for p in ("dram", "l2hot")
                              for w in ("busy", "quietA", "quietB"))
            cmd = [binary, "micro", "loaded_latency", "--gpu", gpu, "--where", f"probe={probes}", "--jobs", "2"]
            for kv in sets:
                cmd += ["--set", kv]
            out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
            model = [r for r in csv.DictReader(line for line in out.splitlines() if not line.startswith("#"))]
            print(f"## model ({' '.join(cmd[1:])}): pooled p10 / median / p90, stream GB/s")
            for r in model:
                who = "S" if r["probe"].endswith("busy") else "q" + r["probe"][-1]
                print(f"{r['probe']} S={r['slots']}: {who} {r['p10']} / {r['median']} / {r['p90']}, "
                      f"{r['stream_gbps']} GB/s")


def chip_table(per_sm_csv, partition_csv):
    groups = chip_groups(partition_csv)
    rows = read_rows(per_sm_csv)
    points = sorted({(r["probe"], int(r["slots"])) for r in rows})
    print(f"## chip: {per_sm_csv} (group A {sum(g == 'A' for g in groups.values())} SMs, "
          f"B {sum(g == 'B' for g in groups.values())})")
    print("| probe | S | A: SM medians (median) | B | A: stream us | B |")
    print("|---|---:|---:|---:|---:|---:|")
    for probe, slots in points:
        cell = {}
        for g in "AB":
            sel = [r for r in rows if r["probe"] == probe and int(r["slots"]) == slots
                   and groups.get(int(r["smid"])) == g]
            cell[g] = (statistics.median(int(r["median"]) for r in sel),
                       statistics.mean(float(r["stream_us"]) for r in sel))
        print(f"| {probe} | {slots} | {cell['A'][0]:.0f} | {cell['B'][0]:.0f} | "
              f"{cell['A'][1]:.1f} | {cell['B'][1]:.1f} |")
    return points


def model_table(points, binary, gpu, sets):
    print(f"\n## model ({gpu}): mean request latency of the stream's TMA requests, by L2 partition")
    print("| probe | S | partition 0 | partition 1 | 1 / 0 |")
    print("|---|---:|---:|---:|---:|")
    for probe, slots in points:
        if slots == 0:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            stats = os.path.join(tmp, "stats.json")
            cmd = [binary, "micro", "loaded_latency", "--gpu", gpu, "--where", f"probe={probe}",
                   "--where", f"slots={slots}", "--stats", stats]
            for s in sets:
                cmd += ["--set", s]
            subprocess.run(cmd, capture_output=True, check=True)
            with open(stats) as f:
                kernels = json.load(f)["points"][0]["kernels"]
        lat = {0: [], 1: []}
        for k in kernels:
            if k["kernel"] != "loaded_latency":
                continue
            c = k["counters"]
            sm = 0
            while f"sm[{sm}].l2_partition" in c:
                total = c.get(f"sm[{sm}].tma.request_latency_cycles_sum", 0.0)
                n = c.get(f"sm[{sm}].tma.requests", 0.0)
                if total > 0 and n > 0:
                    lat[int(c[f"sm[{sm}].l2_partition"])].append(total / n)
                sm += 1
        m0, m1 = statistics.mean(lat[0]), statistics.mean(lat[1])
        print(f"| {probe} | {slots} | {m0:.0f} | {m1:.0f} | {m1 / m0:.2f} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--per-sm", metavar="CSV", help="a loaded_latency.cu --per-sm file")
    mode.add_argument("--ncu", nargs="+", metavar="RAW", help="next_batch.sh loadedncu / partncu logs")
    mode.add_argument("--halfmap", metavar="CSV", help="a next_batch.sh halfmap file")
    mode.add_argument("--stream-sets", nargs="+", metavar="CSV", help="next_batch.sh gpcquiet files")
    ap.add_argument("--halves", default="0,4,5,6/1,2,3,7", help="GPCs of the two halves (--stream-sets)")
    ap.add_argument("--partition", help="micro_tma_partition.csv of the same chip (--per-sm, --halfmap)")
    ap.add_argument("--sim", help="asyncsim binary: the model's side as well")
    ap.add_argument("--gpu", default="h100")
    ap.add_argument("--set", action="append", default=[], help="config override for the model")
    args = ap.parse_args()
    if args.ncu:
        ncu_summary(args.ncu)
        return
    if args.stream_sets:
        stream_sets(args.stream_sets, args.gpu, args.halves, args.sim, args.set)
        return
    if not args.partition:
        ap.error("--partition is required with --per-sm and --halfmap")
    if args.halfmap:
        halfmap(args.halfmap, args.partition, args.sim, args.gpu)
        return
    points = chip_table(args.per_sm, args.partition)
    if args.sim:
        model_table(points, args.sim, args.gpu, args.set)


if __name__ == "__main__":
    main()
