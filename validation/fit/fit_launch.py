#!/usr/bin/env python3
"""How the launch parameters are fitted on validation/data/h200/micro_launch.csv (twelfth session).

1. sm.code_fetch_bytes_per_cycle: the launch_code_N kernels (1 CTA, N unrolled fadds: 1408,
   8576, 33152 B of straight-line SASS) run cold (--cache-control all) and warm (none); the cold
   minus warm GPC cycles against the code bytes, least squares: the slope is the cold fetch's
   SM cycles per byte. The 131 KB kernel (launch_code_8192) is left out: warm, it no longer fits
   the instruction cache (12.9 us against 2.8 us for a quarter of the code).
2. sm.kernel_launch_cycles: `asyncsim micro launch` simulates the 30 cold launch_empty and
   launch_store rows (1..16896 CTAs) with the config as it is; the constant added to every
   simulated time that minimises the squared relative error, in SM cycles at the config's clock,
   is added to the config's value.
3. tma.tensor_setup_cycles: launch_tma minus launch_bulk (the same 8 KB by tensor map and by
   cp.async.bulk, cold), measured against simulated; the difference is added to the config's.

  python3 validation/fit/fit_launch.py BUILD/asyncsim [--gpu h100] [--set key=value ...]
Prints each value with the data it came from; changes nothing. --gpu NAME reads
validation/data/NAME/micro_launch.csv (`next_batch.sh launch` on that chip) and simulates with
configs/NAME.yaml.
"""
import csv
import subprocess
import sys

DATA = "validation/data/{}/micro_launch.csv"


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(ln for ln in f if not ln.startswith("#")))


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    asim, extra, gpu = sys.argv[1], [], "h200"
    args = sys.argv[2:]
    for i in range(0, len(args), 2):
        if args[i] not in ("--set", "--gpu") or i + 1 >= len(args):
            raise SystemExit(__doc__)
        if args[i] == "--gpu":
            gpu = args[i + 1]
        else:
            extra += ["--set", args[i + 1]]
    data = DATA.format(gpu)
    extra += ["--gpu", gpu]
    hw = rows(data)
    by = {(r["kernel"], r["grid"], r["threads"], r["cache_control"]): r for r in hw}
    # 1. code fetch rate
    xs, ys = [], []
    for n in (64, 512, 2048):
        cold = by[(f"launch_code_{n}", "1", "32", "all")]
        warm = by[(f"launch_code_{n}", "1", "32", "none")]
        insts = {64: 88, 512: 536, 2048: 2072}[n]  # micro_launch_sass.txt
        xs.append(16 * insts)
        ys.append(float(cold["cycles_median"]) - float(warm["cycles_median"]))
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    print(f"code fetch: cold - warm cycles {ys} for {xs} B: {slope:.4f} cycles/B "
          f"(intercept {my - slope * mx:.0f}) -> sm.code_fetch_bytes_per_cycle = {1 / slope:.1f}")
    # 2. and 3. from the simulated micro
    out = subprocess.run([asim, "micro", "launch", "--compare", data, "--jobs", "2"] + extra,
                         capture_output=True, text=True, check=True).stdout
    sim = {}
    for r in csv.DictReader(ln for ln in out.splitlines() if not ln.startswith("#")):
        sim[(r["kernel"], r["grid"], r["threads"])] = (float(r["measured_kernel_us_median"]),
                                                      float(r["simulated_kernel_us_median"]))
    mhz = None
    for ln in out.splitlines():
        if ln.startswith("# asyncsim micro launch") and "SM clock" in ln:
            mhz = float(ln.split("SM clock")[1].split()[0])
    num = den = 0.0
    for (kernel, _, _), (m, s) in sim.items():
        if kernel in ("launch_empty", "launch_store"):
            num += (s - m) / m ** 2
            den += 1 / m ** 2
    shift = -num / den
    errs = [abs((s + shift - m) / m) * 100 for (k, _, _), (m, s) in sim.items()
            if k in ("launch_empty", "launch_store")]
    print(f"kernel launch: shift {shift:+.4f} us = {shift * mhz:+.0f} SM cycles at {mhz:.0f} MHz "
          f"on {len(errs)} rows (MAPE after {sum(errs) / len(errs):.1f} %, max {max(errs):.1f} %); "
          f"add it to sm.kernel_launch_cycles")
    mb, sb = sim[("launch_bulk", "1", "32")]
    mt, st = sim[("launch_tma", "1", "32")]
    d = (mt - mb) - (st - sb)
    print(f"tensor map first use: measured tma - bulk {mt - mb:.3f} us, simulated {st - sb:.3f} us: "
          f"add {d * mhz:+.0f} SM cycles to tma.tensor_setup_cycles")


if __name__ == "__main__":
    main()
