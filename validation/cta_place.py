#!/usr/bin/env python3
"""A CTA's first bulk copy from L2 on chosen sets of SMs, simulated against
validation/data/h200/micro_cta_place.csv (validation/hw/micro/cta_place.cu): one CTA per SM, the
CTAs on the set's SMs copy their own S bytes (at sm * S) and time it, the others exit; a
warm-up launch, then the measured one (`asyncsim run P P`, the L2 carrying over, the second
launch timed).

  python3 validation/cta_place.py BUILD/asyncsim [--set KEY=VALUE ...]

The sets are cta_place.cu's, built from the same GPC table (configs/h200.yaml sm.tpc_gpcs).
Simulated at 1980 MHz with the kernel and CTA launch costs off; the time from the copy's issue
to the end of its wait plus 40 cycles for the clock read and the arrive, as cta_start.py does.
Standard library only.
"""
import os
import statistics
import sys

import sim_timeline

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CSV = os.path.join(ROOT, "validation", "data", "h200", "micro_cta_place.csv")
SMS = 132
BASE = 1 << 32


def gpc_of_tpc():
    g = [-1] * (SMS // 2)
    for t in range(32):
        g[t] = t % 8
    for t in range(32, 60):
        g[t] = 1 + (t - 32) % 7
    g[60], g[61] = 6, 7
    return g


def sets():
    g = gpc_of_tpc()
    tpcs = lambda k: [t for t in range(len(g)) if g[t] == k]  # noqa: E731
    both = lambda ts, n=None: [s for t in ts[:n] for s in (2 * t, 2 * t + 1)]  # noqa: E731
    gpc1 = tpcs(1)
    return dict([
        ("one", [0]), ("tpc", [0, 1]), ("side_8", list(range(124, 132))),
        ("side_4_one_per_tpc", [124, 126, 128, 130]),
        ("gpc1_8_one_per_tpc", [2 * t for t in gpc1[:8]]),
        ("gpc1_16", both(gpc1, 8)), ("gpc1_all", both(gpc1)), ("gpc0_8", both(tpcs(0))),
        ("spread_8_one_per_gpc", [2 * t for t in range(8)]),
        ("spread_16_two_per_gpc", [2 * t for t in range(16)]),
        ("spread_32_four_per_gpc", [2 * t for t in range(32)]),
        ("all", list(range(SMS))),
        # twenty-sixth session: the curve within one GPC, and the side unit beside GPC 0
        ("gpc1_4", both(gpc1, 2)), ("gpc1_12", both(gpc1, 6)), ("gpc6_18", both(tpcs(6), 9)),
        ("gpc0_and_side_16", both(tpcs(0), 4) + list(range(124, 132))),
        ("gpc0_and_gpc1_16", both(tpcs(0), 4) + both(gpc1, 4))])


def program(sms, size):
    cond = " || ".join(f"sm == {s}" for s in sms)
    return (f"kernel cta_place\ngrid {SMS}\nresources regs=32 smem=204800\n"
            f"mbarrier full[1] arrivals=1\nrole main warpgroups=1\n"
            f"  if {cond}\n"
            f"    MB_ARRIVE_EXPECT_TX full[0] bytes={size}\n"
            f"    BULK_LOAD addr=({BASE} + sm * {size}) bytes={size} bar=full[0]\n"
            f"    MB_WAIT full[0] parity=0\n"
            f"  end\nend\n")


def simulate(binary, sms, size, extra):
    text = program(sms, size)
    times = [t + 40 for t in
             sim_timeline.last_copy_cycles(sim_timeline.run_bare(binary, [text, text], extra))]
    if len(times) != len(sms):
        raise SystemExit(f"{len(times)} copies timed for {len(sms)} SMs")
    return statistics.median(times), max(times)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    binary, extra = sys.argv[1], sys.argv[2:]
    measured = {(r["set"], int(r["size_bytes"])): r for r in sim_timeline.measured_rows(CSV)}
    print("| set | SMs | bytes | H200 median / max | simulated median / max | error (median) |")
    print("|---|---:|---:|---|---|---:|")
    for size in (32768, 8192):
        for name, sms in sets().items():
            med, mx = simulate(binary, sms, size, extra)
            m = measured.get((name, size))
            hw = f"{m['median_cycles']} / {m['max_cycles']}" if m else "not measured"
            err = f"{100 * (med / float(m['median_cycles']) - 1):+.1f} %" if m else ""
            print(f"| {name} | {len(sms)} | {size} | {hw} | {med:.0f} / {mx:.0f} | {err} |")


if __name__ == "__main__":
    main()
