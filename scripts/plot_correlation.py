#!/usr/bin/env python3
"""Log-log correlation chart of simulated vs measured cycles, one colour per kernel family,
with the y = x line and +-10 % bands. Input: the JSON `asyncsim validate --json` prints.

  python3 scripts/plot_correlation.py RESULTS.json OUT.png
Needs Debian's python3-matplotlib.
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    data = json.load(open(argv[1]))
    rows = [r for r in data["rows"] if "simulated_cycles" in r]
    if not rows:
        print("plot_correlation: no simulated rows", file=sys.stderr)
        return 1
    fig, ax = plt.subplots(figsize=(6.4, 6.0))
    families = sorted({f"{r['kernel']} {r['variant']}" for r in rows})
    markers = {"calib": "o", "test": "^", "sweep": "s", "frontend": "D"}
    for i, fam in enumerate(families):
        colour = plt.cm.tab10(i % 10)
        for split, marker in markers.items():
            pts = [r for r in rows if f"{r['kernel']} {r['variant']}" == fam and r["split"] == split]
            if pts:
                ax.scatter([p["measured_cycles"] for p in pts], [p["simulated_cycles"] for p in pts],
                           color=colour, marker=marker, s=28, alpha=0.85,
                           label=f"{fam} ({split})")
    lo = min(min(r["measured_cycles"], r["simulated_cycles"]) for r in rows) * 0.7
    hi = max(max(r["measured_cycles"], r["simulated_cycles"]) for r in rows) * 1.4
    ax.plot([lo, hi], [lo, hi], "k-", lw=1, label="y = x")
    ax.plot([lo, hi], [lo * 1.1, hi * 1.1], "k:", lw=0.8, label="+-10 %")
    ax.plot([lo, hi], [lo * 0.9, hi * 0.9], "k:", lw=0.8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_xlabel("measured cycles (H200, Nsight Compute gpc__cycles_elapsed.max)")
    ax.set_ylabel("simulated cycles (asyncsim)")
    s = data["summary"].get("all", {})
    ax.set_title(f"asyncsim vs H200: {s.get('rows', 0)} rows, MAPE {s.get('mape', 0):.1f} %, "
                 f"max |e| {s.get('max_abs_error', 0):.0f} %", fontsize=10)
    ax.legend(fontsize=7, loc="upper left")
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(argv[2], dpi=130)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
