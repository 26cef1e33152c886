#!/usr/bin/env python3
"""Which L2 partition each SM of the H200 sits next to, and whether far reads leave near copies,
from validation/data/h200/micro_l2_partition.csv (validation/hw/micro/l2_partition.cu) and the
GPCs of micro_sm_map.csv.

  python3 validation/l2_partition.py

Every SM read the same 192 L2-resident lines (placed by a helper on SM 0) twice. A read is far
when it takes more than FAR_CYCLES (near hits take 250-330 cycles, far ones 450-520). Prints
per-GPC partitions, the `l2.partition1_gpcs` bitmask they give (configs/h200.yaml), and the
far counts of both passes. Standard library only.
"""
import collections
import csv
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "validation", "data", "h200")
FAR_CYCLES = 380


def rows(name):
    return list(csv.DictReader(line for line in open(os.path.join(DATA, name)) if not line.startswith("#")))


def main():
    far = collections.defaultdict(lambda: [0, 0])
    lines = collections.defaultdict(set)
    for r in rows("micro_l2_partition.csv"):
        s, p = int(r["smid"]), int(r["pass"])
        if int(r["cycles"]) > FAR_CYCLES:
            far[s][p] += 1
            if p == 0:
                lines[s].add(int(r["line"]))
        else:
            far[s][p] += 0  # every SM gets an entry
    part = {s: 1 if f[0] >= 20 else 0 for s, f in far.items()}
    sets = {frozenset(lines[s]) for s in part if part[s] == 1}
    print(f"SMs next to SM 0's partition: {sum(1 for p in part.values() if p == 0)}, "
          f"the other: {sum(1 for p in part.values() if p == 1)}")
    print(f"pass 0 far reads: SM 0's partition max {max(f[0] for s, f in far.items() if part[s] == 0)}, "
          f"the other min {min(f[0] for s, f in far.items() if part[s] == 1)} max "
          f"{max(f[0] for s, f in far.items() if part[s] == 1)} (of 192; {len(sets)} distinct far-line set(s))")
    print(f"pass 1 far reads (same SM, second read): max {max(f[1] for f in far.values())}")
    # GPCs: SMs that shared a 16-CTA cluster in micro_sm_map.csv are in one GPC; a GPC is
    # named by its lowest SM id's TPC mod 8 (SMs 2t and 2t+1 sit in GPC t mod 8 below SM 64).
    parent = {s: s for s in part}

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    clusters = collections.defaultdict(list)
    for r in rows("micro_sm_map.csv"):
        if r["table"] == "cluster" and r["cluster"] == "16":
            clusters[(r["grid"], r["group"])].append(int(r["smid"]))
    for members in clusters.values():
        for x in members[1:]:
            parent[find(x)] = find(members[0])
    comps = collections.defaultdict(list)
    for s in part:
        comps[find(s)].append(s)
    mask = 0
    for c in sorted(comps.values(), key=min):
        if len(c) < 2:
            continue
        g = (min(c) // 2) % 8
        parts = collections.Counter(part[s] for s in c)
        print(f"GPC {g} ({len(c)} SMs, {sorted(c)[:4]}...): partitions {dict(parts)}")
        if parts[1] > parts[0]:
            mask |= 1 << g
    alone = sorted(s for c in comps.values() if len(c) < 2 for s in c)
    print(f"SMs in no 16-CTA cluster (GPC 0 and the rest): {alone}: partitions "
          f"{''.join(str(part[s]) for s in alone)}")
    print(f"l2.partition1_gpcs = {mask} (0b{mask:08b})")
    order = sorted((r for r in rows("micro_sm_map.csv") if r["table"] == "dispatch" and r["ctas_per_sm"] == "1"),
                   key=lambda r: int(r["cta"]))
    seq = [part[int(r["smid"])] for r in order]
    for g in (33, 66, 132):
        print(f"first {g} CTAs of a one-wave launch: {sum(seq[:g])} next to the other partition")


if __name__ == "__main__":
    main()
