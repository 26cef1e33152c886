#!/usr/bin/env python3
"""When a TMA GEMM's first pipeline stages arrive, H200 (the Proton excerpts in
validation/traces/excerpts) against asyncsim running the translated programs beside them.

  python3 validation/traces/first_stages.py BUILD/asyncsim [--set KEY=VALUE ...]

Per kernel and round (first round: the CTAs that start with the launch; later: the rest), over
CTAs: the end of the MB_WAIT that consumes stage 0 and stage 1, how long the issue of the
prologue's last copy took, and (H200) when the warp reached its first MB_WAIT, in SM cycles from
the CTA's first TMA copy (p10 / median / p90). A first-round warp that reaches its wait late
was held by its own instructions (cold code), not by the copies: the translated programs carry
the median gaps of all rounds, so their first round starts as early as a later one.
asyncsim runs each program at the SM clock of its kernel's row in validation/data/h200
(gemm.csv / persistent.csv); the H200 captures ran at a clock not recorded, and with Proton's
records (~30 cycles each). The captures' inputs were written by torch.randn just before the
launch (no L2 flush), so their L2 held part of A and B. Standard library only.
"""
import collections
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import sim_timeline  # noqa: E402 (validation/)

HERE = os.path.dirname(os.path.abspath(__file__))
# capture, CTAs in the first round, copies in the prologue (before the first MB_WAIT), clock
COPIES_PER_CTA = 2 * 4096 // 64  # every kernel below has K = 4096
KERNELS = [("gemm_2048x4096x4096_w4", 264, 4, 1491),
           ("gemm_2048x4096x4096_w8", 132, 4, 1653),
           ("gemm_4096x4096x4096_w4", 264, 4, 1470),
           ("persistent_2048x4096x4096_w4", 132, 4, 1660)]


def q(v):
    v = sorted(v)
    return f"{v[len(v) // 10]:.0f} / {v[len(v) // 2]:.0f} / {v[9 * len(v) // 10]:.0f}"


def h200(name, first_round, prologue):
    trace = json.load(gzip.open(os.path.join(HERE, "excerpts", name + ".w0.chrome_trace.gz")))
    per = collections.defaultdict(list)
    for e in trace["traceEvents"]:
        if e.get("ph") == "X" and e["tid"].startswith("warp 0"):
            per[e["pid"]].append(e)
    out = {True: ([], [], [], []), False: ([], [], [], [])}
    for pid, events in per.items():
        cta = int(re.search(r"CTA(\d+)", pid).group(1))
        events.sort(key=lambda e: e["ts"])
        loads = [e for e in events if "|TMA_LOAD|" in e["name"]]
        waits = [e for e in events if "|MB_WAIT|" in e["name"]]
        if len(loads) < prologue or len(waits) < 2:
            continue
        t0 = loads[0]["ts"]
        s0, s1, last, reach = out[cta < first_round]
        reach.append((waits[0]["ts"] - t0) * 1000)
        s0.append((waits[0]["ts"] + waits[0]["dur"] - t0) * 1000)
        s1.append((waits[1]["ts"] + waits[1]["dur"] - t0) * 1000)
        last.append(loads[prologue - 1]["dur"] * 1000)
    return out


def simulated(binary, name, prologue, mhz, extra):
    path = os.path.join(HERE, name + ".asim")
    with tempfile.TemporaryDirectory() as tmp:
        if not os.path.exists(path):
            src = path + ".gz"
            path = os.path.join(tmp, name + ".asim")
            open(path, "wb").write(gzip.open(src).read())
        tl = os.path.join(tmp, "t.json")
        subprocess.run([binary, "run", path, "--sm-clock-mhz", str(mhz), "--timeline", tl,
                        *extra], check=True, capture_output=True)
        per_thread = sim_timeline.threads(tl)
    out = {True: ([], [], []), False: ([], [], [])}
    for copies, waits in per_thread.values():
        # One SM slot runs its CTAs (a persistent CTA its tiles) one after another, each K / 64
        # stages of two copies.
        for i in range(0, len(copies) - prologue - 1, COPIES_PER_CTA):
            cta = copies[i:i + COPIES_PER_CTA]
            t0 = cta[0][0]
            s0, s1, last = out[i == 0]
            for s, col in ((0, s0), (1, s1)):
                col.append(sim_timeline.seen(waits, max(cta[2 * s][2], cta[2 * s + 1][2])) - t0)
            last.append(cta[prologue - 1][1] - cta[prologue - 1][0])
    return out


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    binary, extra = sys.argv[1], sys.argv[2:]
    print("| kernel | round | stage 0 H200 | stage 0 asyncsim | stage 1 H200 | stage 1 asyncsim "
          "| last prologue issue H200 | asyncsim | H200 warp reaches wait 0 |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, first_round, prologue, mhz in KERNELS:
        hw = h200(name, first_round, prologue)
        sim = simulated(binary, name, prologue, mhz, extra)
        for rnd in (True, False):
            if not hw[rnd][0] or not sim[rnd][0]:
                continue
            print(f"| {name} | {'first' if rnd else 'later'} | {q(hw[rnd][0])} | "
                  f"{q(sim[rnd][0])} | {q(hw[rnd][1])} | {q(sim[rnd][1])} | {q(hw[rnd][2])} | "
                  f"{q(sim[rnd][2])} | {q(hw[rnd][3])} |")


if __name__ == "__main__":
    main()
