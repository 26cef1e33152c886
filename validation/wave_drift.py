#!/usr/bin/env python3
"""Do a GEMM's waves stay in step, and which GPCs fall behind? (validation/README.md, "8192 x 8192
GEMMs: waves that drift apart"; the per-CTA records of validation/hw/cta_map.py.)

    python3 validation/wave_drift.py FILE.csv [--halves 2,3,4,6] [--sim build/asyncsim
                                              [--sim-mhz F] [--set KEY=VALUE ...]]

FILE.csv is a cta_map.py record (validation/data/h200/micro_gemm_cta_map_8k.csv, ...): per CTA
its SM (%smid), its start and end (%globaltimer ns from the launch's first CTA start) and its
SM cycles (%clock64). For every launch (shape, variant, rep) it prints:
  spread   the start-time spread of each wave of CTAs (max - min, us; a wave is one CTA per
           CTA slot: 132 CTAs for the w8 variant, 264 for w4), the first 12 waves
  per GPC  the mean SM cycles of a CTA, waves 2 on (the first wave starts together, cold),
           GPC of an SM from configs' sm.tpc_gpcs (TPCs 62-65 are the side unit, `side`)
  halves   the same mean over the SMs of each half of the L2 slices, `B` the GPCs in --halves
           (default by the file's device: the H200's 2,3,4,6 from its micro_l2_halfmap.csv, the
           H100's 1,2,3,7 from its own), `A` the rest with the side unit; B/A - 1 in per cent
  by wave  B/A - 1 of each wave's mean CTA cycles (all waves; does one half start slower or
           fall behind as the waves drift?)
  per CTA  median SM cycles (and count) of the CTAs that ran alone on their SM and of those
           that shared it with another CTA for part of their run (all waves)
  wave 1   the s.d. across SMs of each SM's mean CTA cycles in the first wave (all CTAs start
           together, cold): the CTA-to-CTA variation the later waves start from (a model
           without noise varies little; tensor.cta_jitter adds some)
  pairs    (two CTAs an SM only) per wave, the median pid gap between the two CTAs an SM takes
           (its CTAs in start order, 2w and 2w + 1), the first 12 waves; and over the launch the
           share of overlapping CTAs on one SM that work on the same row of C tiles (same
           pid // tiles per row, so they load the same A tile), weighted by their overlap
  rows     per wave (CTAs in launch order, the first 6 waves), the share of pairs of its CTAs
           in one row of C tiles (they load the same A tile) that run on SMs of one GPC (where
           the GPC's request coalescer can merge their reads); and the mean length of the runs
           of consecutive CTAs that go to one GPC, waves 2 on (about 1.14 if the eight GPCs took
           turns at random): slots that free GPC by GPC hand a GPC CTAs in a row
  turnover how a freed slot is refilled and where the slots free: each CTA after an SM's first
           `slots` takes the slot of the SM's resident CTA that ended first; the time from that
           end to its start (median, 5th-95th percentile, ns), the share of consecutive CTAs
           (launch order, waves 2 on) whose slots freed in the opposite order (the block
           scheduler serves freed slots first come, first served if near 0), and the share of
           consecutive CTA ends (in time, the first and last waves' worth left out) on SMs of one
           GPC (about 0.12 if ends fell on the GPCs at random, by their SM counts; higher: a
           GPC's CTAs end together); and of the CTAs from wave 2 on that started within 64 ns of
           each other on two SMs, how far apart they end (median, us) when on one GPC and when
           on two
With --sim, the model's CTA log for each shape (`asyncsim gemm --cta-log`, at the launches' mean SM
clock from the end_clk / end_ns columns, or --sim-mhz; --set passes config overrides) in the same
table (spread from its start cycles), with its cycles and DRAM read bytes.
"""
import argparse
import csv
from collections import Counter
import heapq
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from datafile import open_text  # noqa: E402
from loaded_per_sm import tpc_gpcs  # noqa: E402

# The halves of the slices that serve an SM's hits, by chip (micro_l2_halfmap.csv of each):
# the half without SM 0.
HALF_B = {"H200": "2,3,4,6", "H100": "1,2,3,7"}
WAVES_SHOWN = 12


def read_file(path):
    """(device line, rows) of a cta_map.py CSV."""
    device = ""
    with open_text(path) as f:
        lines = f.readlines()
    for line in lines:
        if line.startswith("# device:"):
            device = line
    rows = list(csv.DictReader(line for line in lines if not line.startswith("#")))
    if not rows or "smid" not in rows[0]:
        raise SystemExit(f"{path}: not a cta_map.py record (no smid column)")
    return device, rows


def record_ctas(rows):
    """A launch's rows of a cta_map.py record as summarize() takes them: (pid, SM, start us,
    SM cycles)."""
    return [(int(r["pid"]), int(r["smid"]), float(r["start_ns"]) / 1000.0,
             int(r["end_clk"]) - int(r["start_clk"])) for r in rows]


def record_spans(rows):
    """A launch's rows as by_sharing() takes them: (SM, start ns, end ns, SM cycles)."""
    return [(int(r["smid"]), float(r["start_ns"]), float(r["end_ns"]),
             int(r["end_clk"]) - int(r["start_clk"])) for r in rows]


def by_sharing(spans):
    """(cycles of the CTAs alone on their SM throughout, cycles of those that overlapped another
    CTA on it); spans: (sm, start, end, cycles), start and end in one time base per launch."""
    on_sm = {}
    for sm, start, end, cycles in spans:
        on_sm.setdefault(sm, []).append((start, end, cycles))
    alone, shared = [], []
    for runs in on_sm.values():
        for i, (start, end, cycles) in enumerate(runs):
            overlaps = any(s < end and start < e for j, (s, e, _) in enumerate(runs) if j != i)
            (shared if overlaps else alone).append(cycles)
    return alone, shared


def sharing_line(alone, shared):
    def part(v):
        return f"{len(v)} x {statistics.median(v):.0f}" if v else "0"
    return f"alone {part(alone)}, shared {part(shared)} (CTAs x median SM cycles)"


def pair_line(runs, tiles_n):
    """runs: (pid, sm, start, end) in one time base. The 'pairs' line (see the docstring)."""
    on_sm = {}
    for pid, sm, start, end in runs:
        on_sm.setdefault(sm, []).append((start, end, pid))
    gaps, same, overlap = [], 0.0, 0.0
    for cs in on_sm.values():
        cs.sort()
        for w in range(len(cs) // 2):
            if w >= len(gaps):
                gaps.append([])
            gaps[w].append(abs(cs[2 * w][2] - cs[2 * w + 1][2]))
        for i, (s0, e0, p0) in enumerate(cs):
            for s1, e1, p1 in cs[i + 1:]:
                if s1 >= e0:
                    break
                both = (min(e0, e1) - s1) / max(e0 - s0, 1e-9)
                overlap += both
                same += both if p0 // tiles_n == p1 // tiles_n else 0.0
    waves = [statistics.median(g) for g in gaps[:WAVES_SHOWN] if len(g) >= len(on_sm) // 2]
    share = f"{100.0 * same / overlap:.1f} %" if overlap > 0 else "n/a"
    return ("pid gap by wave " + " ".join(f"{g:.0f}" for g in waves) +
            f"; same A tile {share} of co-resident time")


def first_wave_line(ctas, per_wave):
    """ctas: (order, sm, start, cycles). The 'wave 1' line: s.d. across SMs of the SMs' mean
    CTA cycles over the first per_wave CTAs in order, in per cent of their mean."""
    on_sm = {}
    for _, sm, _, cycles in sorted(ctas)[:per_wave]:
        on_sm.setdefault(sm, []).append(cycles)
    means = [statistics.mean(v) for v in on_sm.values()]
    mean = statistics.mean(means)
    sd = statistics.pstdev(means)
    return (f"per-SM mean CTA cycles s.d. {100.0 * sd / mean:.1f} % of {mean:.0f} "
            f"over {len(means)} SMs")


def gpc_row_line(ctas, per_wave, gpcs, tiles_n, waves=6):
    """ctas: (order, sm, start, cycles). The 'rows' line (see the docstring)."""
    ctas = sorted(ctas)
    shares = []
    for w in range(0, min(len(ctas) // per_wave, waves)):
        rows = {}
        for order, sm, _, _ in ctas[w * per_wave:(w + 1) * per_wave]:
            rows.setdefault(order // tiles_n, []).append(gpc_name(gpcs, sm))
        pairs = sum(len(g) * (len(g) - 1) // 2 for g in rows.values())
        same = sum(c * (c - 1) // 2 for g in rows.values() for c in Counter(g).values())
        shares.append(same / pairs if pairs else 0.0)
    later = [gpc_name(gpcs, sm) for _, sm, _, _ in ctas[per_wave:]]
    runs = 1 + sum(1 for a, b in zip(later, later[1:]) if a != b) if later else 0
    mean_run = len(later) / runs if runs else 0.0
    return ("same GPC within a row by wave " + " ".join(f"{x:.2f}" for x in shares) +
            f"; runs of one GPC {mean_run:.2f} CTAs")


def turnover_line(runs, slots, per_wave, gpcs, to_ns=1.0):
    """runs: (pid, sm, start, end), times in one base (to_ns: ns per unit). The 'turnover' line
    (see the docstring)."""
    on_sm = {}
    for pid, sm, start, end in runs:
        on_sm.setdefault(sm, []).append((start, end, pid))
    freed = []  # (pid, the end that freed its slot, start)
    for cs in on_sm.values():
        cs.sort()
        resident = [end for _, end, _ in cs[:slots]]
        heapq.heapify(resident)
        for start, end, pid in cs[slots:]:
            freed.append((pid, heapq.heappop(resident), start))
            heapq.heappush(resident, end)
    if len(freed) < 2:
        return "n/a (no CTA after an SM's first)"
    delays = sorted((start - end) * to_ns for _, end, start in freed)
    q = statistics.quantiles(delays, n=20, method="inclusive")
    freed.sort()
    swapped = sum(1 for a, b in zip(freed, freed[1:]) if b[1] < a[1]) / (len(freed) - 1)
    ends = sorted((end, gpc_name(gpcs, sm)) for _, sm, _, end in runs)[per_wave:-per_wave]
    same = (sum(1 for a, b in zip(ends, ends[1:]) if a[1] == b[1]) / (len(ends) - 1)
            if len(ends) > 1 else 0.0)
    later = sorted((start * to_ns, end * to_ns, sm) for pid, sm, start, end in runs
                   if pid >= per_wave)
    apart = {True: [], False: []}
    for i, (s0, e0, sm0) in enumerate(later):
        for s1, e1, sm1 in later[i + 1:]:
            if s1 - s0 > 64.0:
                break
            if sm1 != sm0:
                apart[gpc_name(gpcs, sm0) == gpc_name(gpcs, sm1)].append(abs(e1 - e0) / 1000.0)
    ends_apart = " / ".join(f"{statistics.median(v):.2f}" if v else "n/a"
                            for v in (apart[True], apart[False]))
    return (f"slot freed to next start {statistics.median(delays):.0f} ns "
            f"({q[0]:.0f}-{q[-1]:.0f}); "
            f"freed out of order {swapped:.2f}; consecutive ends on one GPC {same:.2f}; "
            f"co-started CTAs end apart, one / two GPCs, {ends_apart} us")


def gpc_name(gpcs, sm):
    tpc = sm // 2
    return "side" if tpc >= 62 else str(gpcs[tpc])


def slots_of(variant):
    """CTAs per SM: two for the 4-warp variant (128x128 tiles), one for the 8-warp one."""
    return 1 if variant.endswith("_w8") else 2


def summarize(ctas, per_wave, gpcs, half_b):
    """ctas: (order, sm, start, cycles) tuples; returns (spreads, per-GPC means, A, B)."""
    ctas = sorted(ctas)
    spreads = []
    for w in range(0, min(len(ctas), per_wave * WAVES_SHOWN), per_wave):
        starts = [c[2] for c in ctas[w:w + per_wave]]
        spreads.append(max(starts) - min(starts))
    by_gpc = {}
    for _, sm, _, cycles in ctas[per_wave:]:
        by_gpc.setdefault(gpc_name(gpcs, sm), []).append(cycles)
    means = {g: statistics.mean(v) for g, v in by_gpc.items()}
    a = [c for g, v in by_gpc.items() if g not in half_b for c in v]
    b = [c for g, v in by_gpc.items() if g in half_b for c in v]
    return spreads, means, (statistics.mean(a) if a else 0.0), (statistics.mean(b) if b else 0.0)


def halves_by_wave(ctas, per_wave, gpcs, half_b):
    """B/A - 1 (per cent) of each whole wave's mean CTA cycles."""
    ctas = sorted(ctas)
    out = []
    for w in range(0, len(ctas) - per_wave + 1, per_wave):
        a = [c[3] for c in ctas[w:w + per_wave] if gpc_name(gpcs, c[1]) not in half_b]
        b = [c[3] for c in ctas[w:w + per_wave] if gpc_name(gpcs, c[1]) in half_b]
        if a and b:
            out.append((statistics.mean(b) / statistics.mean(a) - 1) * 100)
    return out


def print_launch(label, summary, by_wave=(), sharing=None, pairs=None, first=None, rows=None,
                 turnover=None):
    spreads, means, a, b = summary
    order = sorted(means, key=lambda g: (g == "side", g))
    print(f"{label}")
    print("  spread us: " + " ".join(f"{s:.1f}" for s in spreads))
    print("  per GPC:   " + " ".join(f"{g}:{means[g]:.0f}" for g in order))
    rel = f"{(b / a - 1) * 100:+.1f} %" if a > 0 else "n/a"
    print(f"  halves:    A {a:.0f}  B {b:.0f}  B/A {rel}")
    if by_wave:
        print("  by wave:   " + " ".join(f"{x:+.1f}" for x in by_wave))
    if sharing is not None:
        print("  per CTA:   " + sharing_line(*sharing))
    if first is not None:
        print("  wave 1:    " + first)
    if pairs is not None:
        print("  pairs:     " + pairs)
    if rows is not None:
        print("  rows:      " + rows)
    if turnover is not None:
        print("  turnover:  " + turnover)


def simulate(binary, gpu, shape, mhz, sets):
    """(CTA tuples as summarize() takes them, spans as by_sharing() takes them, the run's JSON
    summary)."""
    m, n, k, variant = shape
    tile = variant.split("_")[0]
    warps = variant.rsplit("_w", 1)[1]
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "cta.csv")
        cmd = [binary, "gemm", "--gpu", gpu, "--m", m, "--n", n, "--k", k, "--tile", tile,
               "--warps", warps, "--sm-clock-mhz", f"{mhz:.2f}", "--cta-log", log, "--json"]
        for s in sets:
            cmd += ["--set", s]
        res = subprocess.run(cmd, capture_output=True, text=True)
        if res.returncode != 0:
            raise SystemExit(f"{' '.join(cmd)} failed: {res.stderr.strip()}")
        with open(log) as f:
            rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    # start_cycle / end_cycle are SM cycles from the launch: spread in us at the run's clock.
    ctas = [(int(r["cta"]), int(r["sm"]), float(r["start_cycle"]) / mhz,
             float(r["end_cycle"]) - float(r["start_cycle"])) for r in rows]
    spans = [(int(r["sm"]), float(r["start_cycle"]), float(r["end_cycle"]),
              float(r["end_cycle"]) - float(r["start_cycle"])) for r in rows]
    return ctas, spans, json.loads(res.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("file")
    ap.add_argument("--halves", help="GPCs of half B (default: by the file's device)")
    ap.add_argument("--gpu", help="config for sm.tpc_gpcs and --sim (default: by the device)")
    ap.add_argument("--sim", metavar="ASYNCSIM", help="also the model's CTA log per shape")
    ap.add_argument("--sim-mhz", type=float, help="the model's SM clock (default: the launches')")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="config override for --sim (repeatable)")
    args = ap.parse_args()
    device, rows = read_file(args.file)
    chip = "H100" if "H100" in device else "H200"
    gpu = args.gpu or chip.lower()
    half_b = set((args.halves or HALF_B[chip]).split(","))
    gpcs = tpc_gpcs(gpu)
    print(f"# {os.path.basename(args.file)} ({chip}); half B = GPCs {','.join(sorted(half_b))}; "
          "per GPC / halves: mean SM cycles of a CTA, waves 2 on")
    launches = {}
    for r in rows:
        key = (r["M"], r["N"], r["K"], r["variant"])
        launches.setdefault(key, {}).setdefault(r["rep"], []).append(r)
    for shape, reps in launches.items():
        slots = slots_of(shape[3])
        per_wave = 132 * slots
        tiles_n = -(-int(shape[1]) // int(shape[3].split("x")[1]))
        mhz_all = []
        for rep, rs in reps.items():
            ctas = record_ctas(rs)
            runs = [(int(r["pid"]), int(r["smid"]), float(r["start_ns"]), float(r["end_ns"]))
                    for r in rs]
            ns = sum(float(r["end_ns"]) - float(r["start_ns"]) for r in rs)
            mhz_all.append(sum(c[3] for c in ctas) / ns * 1000.0 if ns > 0 else 0.0)
            print_launch(f"{'x'.join(shape[:3])} {shape[3]} rep {rep} ({chip})",
                         summarize(ctas, per_wave, gpcs, half_b),
                         halves_by_wave(ctas, per_wave, gpcs, half_b),
                         by_sharing(record_spans(rs)),
                         pair_line(runs, tiles_n) if slots == 2 else None,
                         first_wave_line(ctas, per_wave),
                         gpc_row_line(ctas, per_wave, gpcs, tiles_n),
                         turnover_line(runs, slots, per_wave, gpcs))
        if args.sim:
            mhz = args.sim_mhz or statistics.mean(mhz_all)
            ctas, spans, res = simulate(args.sim, gpu, shape, mhz, args.set)
            runs = [(c[0], c[1], c[2], c[2] + c[3] / mhz) for c in ctas]  # us
            print_launch(f"{'x'.join(shape[:3])} {shape[3]} asyncsim at {mhz:.0f} MHz"
                         f"{' ' + ' '.join(args.set) if args.set else ''}: {res['cycles']} cycles, "
                         f"DRAM read {res['dram_read_bytes'] / 1e9:.2f} GB",
                         summarize(ctas, per_wave, gpcs, half_b),
                         halves_by_wave(ctas, per_wave, gpcs, half_b), by_sharing(spans),
                         pair_line(runs, tiles_n) if slots == 2 else None,
                         first_wave_line(ctas, per_wave),
                         gpc_row_line(ctas, per_wave, gpcs, tiles_n),
                         turnover_line(runs, slots, per_wave, gpcs, 1000.0))


if __name__ == "__main__":
    main()
