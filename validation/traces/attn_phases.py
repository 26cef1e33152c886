#!/usr/bin/env python3
"""Steady-state phase timing of the Triton attention kernel on the H200, from the third round of
Proton traces (validation/traces/round3: warp 0 of each warpgroup, 40 CTAs per capture over all
four rounds of CTAs; sidecars with the site table).

  python3 validation/traces/attn_phases.py [ROUND3_DIR]

Per capture, medians over the loop iterations of CTAs after the first round (start >= 60000
cycles), skipping each CTA's first two and last two iterations. All in SM cycles as Proton
records them (dur x 1000); every recorded scope carries ~28-36 cycles of instrumentation.

  period       QK^T issue of one iteration to the next (warp 0)
  qk_issue     the WGMMA scope of QK^T (issue of its wgmma instructions)
  qk_done      QK^T issue start to the end of its wait_group 0
  softmax      wait_group end to the PV WGMMA scope start (holds one MB_WAIT record, for V)
  pv_issue     the WGMMA scope of PV
  pv_skew      PV start of warpgroup 1 minus warpgroup 0, same CTA and iteration
  k_ready      K tile TMA_LOAD start to the end of the MB_WAIT that consumes it
  k_wait       that MB_WAIT scope
Standard library only.
"""
import collections
import glob
import gzip
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def iterations(seq, sites):
    """Per iteration: (qk, qk_wait, pv, k_load, k_wait) events of one warp's loop."""
    wg = [i for i, e in enumerate(seq) if sites[e[0]]["op"] == "WGMMA"]
    out = []
    for j in range(1, len(wg) // 2 - 1):
        q, p, qn = wg[2 * j], wg[2 * j + 1], wg[2 * j + 2]
        k_load = next((seq[i] for i in range(p, qn) if sites[seq[i][0]]["op"] == "TMA_LOAD"
                       and "desc_k" in sites[seq[i][0]].get("desc", "")), None)
        out.append((seq[q], seq[q + 1], seq[p], k_load, seq[qn - 1], seq[qn]))
    return out


def analyse(trace, side):
    sites = {s["site"]: s for s in side["ttgir_sites"]["sites"]}
    d = json.load(gzip.open(trace))
    by = collections.defaultdict(lambda: collections.defaultdict(list))
    for e in d["traceEvents"]:
        site = int(e["name"].split("site=")[1])
        by[e["pid"]][e["tid"]].append((site, e["ts"] * 1000, e["dur"] * 1000))
    m = collections.defaultdict(list)
    for warps in by.values():
        its = {}
        for tid, seq in warps.items():
            seq.sort(key=lambda x: x[1])
            if seq[0][1] < 60000:
                break
            its[tid] = iterations(seq, sites)[1:-1]
        if len(its) != 2:
            continue
        for w, rows in its.items():
            for qk, wait, pv, k_load, k_wait, qk_next in rows:
                m["period"].append(qk_next[1] - qk[1])
                m["qk_issue"].append(qk[2])
                m["qk_done"].append(wait[1] + wait[2] - qk[1])
                m["softmax"].append(pv[1] - wait[1] - wait[2])
                m["pv_issue"].append(pv[2])
                m["k_wait"].append(k_wait[2])
                if k_load:
                    m["k_ready"].append(k_wait[1] + k_wait[2] - k_load[1])
        a, b = its.get("warp 0", []), its.get("warp 4", [])
        for ra, rb in zip(a, b):
            m["pv_skew"].append(rb[2][1] - ra[2][1])
    return {k: round(statistics.median(v)) for k, v in m.items() if v}


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "round3")
    keys = ["period", "qk_issue", "qk_done", "softmax", "pv_issue", "pv_skew", "k_ready", "k_wait"]
    print("| capture | " + " | ".join(keys) + " |")
    print("|---|" + "---:|" * len(keys))
    for trace in sorted(glob.glob(os.path.join(root, "*.w0.chrome_trace.gz"))):
        name = os.path.basename(trace).replace(".w0.chrome_trace.gz", "")
        side = json.load(open(os.path.join(root, name + ".json")))
        r = analyse(trace, side)
        print(f"| {name.replace('attn_b1h16s4096', '')} | " +
              " | ".join(str(r.get(k, "")) for k in keys) + " |")


if __name__ == "__main__":
    main()
