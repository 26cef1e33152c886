#!/usr/bin/env python3
"""Reads validation/data/h200/micro_sm_map.csv (validation/hw/micro/sm_map.cu) and prints the
H200's GPCs (SMs that shared a cluster, joined by union-find) and the order in which a one-wave
launch filled the SMs, in GPC terms.

  python3 validation/sm_map.py [CSV]
Standard library only.
"""
import csv
import os
import sys
from collections import defaultdict


def cluster_groups(rows):
    """SM -> group: SMs that shared a cluster (micro_sm_map.csv's cluster table) joined by
    union-find; groups numbered by their lowest SM. Also used by validation/cta_fill.py."""
    parent = {}

    def find(x):
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    groups = defaultdict(set)
    for r in rows:
        if r["table"] == "cluster":
            groups[int(r["group"])].add(int(r["smid"]))
    for sms in groups.values():
        sms = sorted(sms)
        for s in sms[1:]:
            parent[find(s)] = find(sms[0])
    comps = defaultdict(list)
    for s in sorted({int(r["smid"]) for r in rows}):
        comps[find(s)].append(s)
    return {s: g for g, sms in enumerate(sorted(comps.values(), key=min)) for s in sms}


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "data", "h200", "micro_sm_map.csv")
    rows = list(csv.DictReader(line for line in open(path) if not line.startswith("#")))
    all_sms = sorted({int(r["smid"]) for r in rows})
    gpc_of = cluster_groups(rows)
    gpcs = [sorted(s for s in all_sms if gpc_of[s] == g) for g in range(max(gpc_of.values()) + 1)]
    print(f"{len(all_sms)} SMs in {len(gpcs)} cluster-connected groups (a GPC, or part of one):")
    for g, sms in enumerate(gpcs):
        print(f"  group {g}: {len(sms)} SMs {sms}")
    for per in ("1", "2"):
        order = [int(r["smid"]) for r in rows if r["table"] == "dispatch" and r["ctas_per_sm"] == per]
        runs = []
        for s in order:
            g = gpc_of[s]
            if runs and runs[-1][0] == g:
                runs[-1][1] += 1
            else:
                runs.append([g, 1])
        span = max(int(r["t_ns"]) for r in rows if r["table"] == "dispatch" and r["ctas_per_sm"] == per)
        print(f"dispatch, {per} CTA(s) per SM, {len(order)} CTAs placed within {span} ns: "
              "runs of consecutive CTAs in one group (group x count): "
              + " ".join(f"{g}x{n}" for g, n in runs))


if __name__ == "__main__":
    main()
