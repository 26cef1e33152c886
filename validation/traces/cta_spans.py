#!/usr/bin/env python3
"""Per-CTA spans of a Proton trace, for validation/traces/record_cost.py.

  python3 validation/traces/cta_spans.py TRACE NAME RECORDS >> spans.csv

One row per (CTA, lead warp of a warpgroup): first record's start and last record's end in SM
cycles from the CTA's first record, and the number of records. Within one CTA Proton's
timestamps are the SM's cycle counter (dur x 1000 = cycles); across CTAs they are not
comparable (each CTA is placed by a global timer), so only spans within a CTA are kept.
"""
import json
import re
import sys


def main():
    path, name, records = sys.argv[1:4]
    d = json.load(open(path))
    per = {}
    for e in d["traceEvents"]:
        if e.get("ph") != "X":
            continue
        w = int(re.search(r"warp (\d+)", e["tid"]).group(1))
        if w % 4:
            continue
        m = re.search(r"Core(\d+)\s+CTA(\d+)", e["pid"])
        key = (int(m.group(1)), int(m.group(2)), w)
        t0, t1 = e["ts"], e["ts"] + e["dur"]
        lo, hi, n = per.get(key, (t0, t1, 0))
        per[key] = (min(lo, t0), max(hi, t1), n + 1)
    first = {}
    for (core, cta, w), (lo, _, _) in per.items():
        first[cta] = min(first.get(cta, lo), lo)
    for (core, cta, w), (lo, hi, n) in sorted(per.items()):
        base = first[cta]
        print(f"{name},{records},{core},{cta},{w},{round((lo - base) * 1000)},"
              f"{round((hi - base) * 1000)},{n}")


if __name__ == "__main__":
    main()
