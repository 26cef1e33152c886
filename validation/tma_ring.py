#!/usr/bin/env python3
"""tma_bw's bulk ring copy by copy and CTA by CTA, simulated against
validation/data/h200/micro_tma_ring.csv (validation/hw/micro/tma_ring.cu; twenty-sixth session).

  python3 validation/tma_ring.py BUILD/asyncsim [--csv MEASURED.csv] [--gpu h100] [--set KEY=VALUE ...]

(--csv: another measured file, e.g. validation/data/h100/micro_tma_ring.csv with --gpu h100;
every other argument goes to asyncsim.)

For each point (src=l2: 32 MiB re-read 16 times after a warm-up launch, src=dram: 512 MiB read
once from a cold L2; 8 KB bulk copies, one CTA per SM, S slots) the simulator runs the program
`asyncsim micro tma_bw --emit` writes for it (the same ring, units and warm-up) with a timeline,
and this prints, beside the H200's: the kernel's GB/s; each copy's cycles from its issue to the
wait that saw it complete (the .cu's clock64 before the issue and after that wait), as p10 /
p50 / p90 / mean and the share over 600 cycles (an L2 copy takes ~384 unloaded, a DRAM one
~857: tma_size); and how far the CTAs' run times spread (p10 / p50 / max, µs), since the kernel
ends with its slowest CTA. Without the measured CSV it prints the model's side alone.
Standard library only.
"""
import json
import os
import subprocess
import sys
import tempfile

import sim_timeline

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CSV = os.path.join(ROOT, "validation", "data", "h200", "micro_tma_ring.csv")
MHZ = 1980.0
POINTS = [("l2", 2, 16), ("l2", 4, 16), ("l2", 16, 16), ("dram", 2, 1), ("dram", 4, 1)]


def q(xs, p):
    xs = sorted(xs)
    return xs[int(p * (len(xs) - 1))]


def summary(lat, cta_us, gbps):
    return {"gbps": gbps, "p10": q(lat, 0.1), "p50": q(lat, 0.5), "p90": q(lat, 0.9),
            "mean": sum(lat) / len(lat), "over600": sum(1 for x in lat if x > 600) / len(lat),
            "cta_p10": q(cta_us, 0.1), "cta_p50": q(cta_us, 0.5), "cta_max": max(cta_us)}


def simulate(binary, src, slots, extra):
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([binary, "micro", "tma_bw", "--where", "copy=bulk", "--where", f"src={src}",
                        "--where", f"slots={slots}", "--where", "ctas_per_sm=1", "--where",
                        "wait=try_wait", "--where", "bytes_per_copy=8192", "--max-bytes",
                        "536870912", "--emit", tmp, *extra],
                       check=True, capture_output=True)
        programs = sorted(os.path.join(tmp, f) for f in os.listdir(tmp) if f.endswith(".asim"))
        tl, stats = os.path.join(tmp, "t.json"), os.path.join(tmp, "s.json")
        subprocess.run([binary, "run", *programs, "--sm-clock-mhz", str(MHZ), "--timeline", tl,
                        "--stats", stats, *extra], check=True, capture_output=True)
        kernels = json.load(open(stats))
        kernels = kernels if isinstance(kernels, list) else [kernels]  # one kernel: an object
        start = sum(k["cycles"] for k in kernels[:-1])  # the measured kernel is the last
        last = kernels[-1]
        lat, cta_us = [], []
        for copies, waits in sim_timeline.threads(tl).values():
            mine = [c for c in copies if c[0] >= start]
            seen = [sim_timeline.seen(waits, done) for _, _, done in mine]
            lat += [s - issue for (issue, _, _), s in zip(mine, seen)]
            cta_us.append((seen[-1] - start) / MHZ)
        return summary(lat, cta_us, last["tma_bytes"] / last["time_us"] / 1e3)


def measured(csv):
    rows = sim_timeline.measured_rows(csv)
    out = {}
    for src, slots, passes in POINTS:
        key = (src, str(slots), str(passes))
        ctas = [r for r in rows if r["table"] == "cta" and (r["src"], r["slots"], r["passes"]) == key]
        hist = [r for r in rows if r["table"] == "hist" and (r["src"], r["slots"], r["passes"]) == key]
        if not ctas:
            continue
        lat = [int(h["bin"]) + 25 for h in hist for _ in range(int(h["count"]))]
        s = summary(lat, [(int(r["end_ns"]) - int(r["start_ns"])) / 1e3 for r in ctas],
                    float(ctas[0]["gbps"]))
        # Quantiles and the mean from the per-CTA columns where the bins would round them.
        s["mean"] = sum(float(r["mean"]) * int(r["copies"]) for r in ctas) / sum(
            int(r["copies"]) for r in ctas)
        out[(src, slots)] = s
    return out


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    binary, extra = sys.argv[1], sys.argv[2:]
    csv = CSV
    if "--csv" in extra:
        i = extra.index("--csv")
        csv = extra[i + 1]
        del extra[i:i + 2]
    device = "H100" if "/h100/" in os.path.abspath(csv) else "H200"
    h200 = measured(csv) if os.path.exists(csv) else {}
    print("| src | slots | | GB/s | copy p10 / p50 / p90 / mean (cycles) | copies > 600 | "
          "CTA run p10 / p50 / max (µs) |")
    print("|---|---:|---|---:|---|---:|---|")
    for src, slots, _ in POINTS:
        sides = [("model", simulate(binary, src, slots, extra))]
        if (src, slots) in h200:
            sides.append((device, h200[(src, slots)]))
        for name, s in sides:
            print(f"| {src} | {slots} | {name} | {s['gbps']:.0f} | {s['p10']:.0f} / {s['p50']:.0f} / "
                  f"{s['p90']:.0f} / {s['mean']:.0f} | {100 * s['over600']:.0f} % | "
                  f"{s['cta_p10']:.1f} / {s['cta_p50']:.1f} / {s['cta_max']:.1f} |")
    if not h200:
        print(f"\n{os.path.relpath(csv, ROOT)} not measured yet: "
              "bash validation/hw/next_batch.sh ring OUT on the device")


if __name__ == "__main__":
    main()
