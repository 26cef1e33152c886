#!/usr/bin/env python3
"""What a K/V tile costs the Triton attention kernel with and without the causal mask, H200
(the third round of Proton traces, validation/traces/round3) against asyncsim.

  python3 validation/traces/attn_causal.py BUILD/asyncsim [--sm-clock-mhz F] [--set K=V ...]

Per build (B=1 H=16 S=4096, D = 128 / 64, BN = 128 / 64): the cycles a CTA spends per K/V
tile. Without the mask every CTA runs S/BN tiles: span / tiles (median over CTAs). With it CTA
m runs (m + 1) BM/BN tiles: the least-squares slope of span against tiles (the intercept is the
CTA's start-up and epilogue). H200: a CTA's span is its first to last Proton record (warp 0 of
each warpgroup, 40 CTAs per capture; every record carries ~28-36 cycles of instrumentation, so
the H200 columns are a few per cent high, the causal - plain difference much less so).
asyncsim: `asyncsim attention ... --cta-log` at --sm-clock-mhz (default 1770, the clock of
attention.csv's S=4096 rows). Standard library only.
"""
import csv
import glob
import gzip
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
BUILDS = [(128, 128, 2), (128, 64, 3), (64, 128, 2), (64, 64, 3)]  # D, BN, stages


def per_tile(points, causal):
    """points: (tiles, span) per CTA -> (cycles per tile, intercept or None)."""
    if not causal:
        return statistics.median(s / t for t, s in points), None
    mx = statistics.mean(t for t, _ in points)
    my = statistics.mean(s for _, s in points)
    slope = (sum((t - mx) * (s - my) for t, s in points) /
             sum((t - mx) ** 2 for t, _ in points))
    return slope, my - slope * mx


def h200(d, bn, st, causal):
    name = f"attn_b1h16s4096d{d}_bm128_bn{bn}_s{st}_w8{'_causal' if causal else ''}"
    path = os.path.join(HERE, "round3", name + ".w0.chrome_trace.gz")
    per = {}
    for e in json.load(gzip.open(path))["traceEvents"]:
        if e.get("ph") == "X":
            per.setdefault(e["pid"], []).append(e)
    points = []
    for events in per.values():
        warp0 = [e for e in events if e["tid"].startswith("warp 0")]
        # Two WGMMA scopes (QK^T, PV) per tile on warp 0.
        tiles = sum(1 for e in warp0 if "|WGMMA|" in e["name"]) // 2
        t0 = min(e["ts"] for e in events)
        t1 = max(e["ts"] + e["dur"] for e in events)
        points.append((tiles, (t1 - t0) * 1000))
    return per_tile(points, causal)


def model(binary, d, bn, st, causal, extra):
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "ctas.csv")
        subprocess.run([binary, "attention", "--heads", "16", "--seq", "4096", "--head-dim",
                        str(d), "--block-n", str(bn), "--stages", str(st), "--cta-log", log] +
                       (["--causal"] if causal else []) + extra, check=True, capture_output=True)
        points = []
        for r in csv.DictReader(line for line in open(log) if not line.startswith("#")):
            m = int(r["cta"]) % (4096 // 128)
            tiles = (m + 1) * (128 // bn) if causal else 4096 // bn
            points.append((tiles, float(r["end_cycle"]) - float(r["start_cycle"])))
    return per_tile(points, causal)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    binary, extra = sys.argv[1], sys.argv[2:]
    if "--sm-clock-mhz" not in extra:
        extra += ["--sm-clock-mhz", "1770"]
    print("| build | H200 plain | H200 causal | difference | asyncsim plain | asyncsim causal "
          "| difference |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for d, bn, st in BUILDS:
        hp, _ = h200(d, bn, st, False)
        hc, _ = h200(d, bn, st, True)
        mp, _ = model(binary, d, bn, st, False, extra)
        mc, _ = model(binary, d, bn, st, True, extra)
        print(f"| D={d} BN={bn} s{st} | {hp:.0f} | {hc:.0f} | {hc - hp:+.0f} | {mp:.0f} | "
              f"{mc:.0f} | {mc - mp:+.0f} |")


if __name__ == "__main__":
    main()
