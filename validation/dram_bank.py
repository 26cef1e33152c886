#!/usr/bin/env python3
"""Decodes validation/hw/micro/dram_bank.cu (micro_dram_bank.csv: k_bytes,rep,sample,cycles): for
each offset k, the median time of the pairs (A, A + k) over all reps, its excess over the median
of all pair offsets (what two lines in different banks cost), and a flag where that excess is a
row cycle's worth (>= THRESHOLD cycles): the offsets whose second line lands in A's bank in
another row. A flag at every k of one residue (mod the interleave granule) says which address
bits pick the bank; no flag below 8 KB and flags only at the large powers of two say contiguous
data spreads over many banks, as the model's 256-B interleave does. Offsets of 2 MiB and more
leave the 2 MiB page of A, so the (unknown) page map places A + k: read them as spreads only.

  python3 validation/dram_bank.py [CSV]          (default: validation/data/h200/micro_dram_bank.csv)
  python3 validation/dram_bank.py --write [CSV]  also writes micro_dram_bank_median.csv beside it
                                                 (k_bytes, samples, median_cycles = v[n / 2] of
                                                 all reps' samples), what `asyncsim micro
                                                 dram_bank --compare` reads

Standard library only.
"""
import collections
import csv
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
THRESHOLD = 60  # SM cycles: ~2/3 of tRAS + tRP (48.8 ns = 97 cycles at 1980 MHz)


def main():
    args = [a for a in sys.argv[1:] if a != "--write"]
    path = args[0] if args else os.path.join(HERE, "data", "h200", "micro_dram_bank.csv")
    if not os.path.exists(path):
        raise SystemExit(f"dram_bank.py: {path} does not exist: not measured yet "
                         "(bash validation/hw/next_batch.sh dram OUT)")
    with open(path) as f:
        lines = f.read().splitlines()
    rows = list(csv.DictReader(line for line in lines if not line.startswith("#")))
    by = collections.OrderedDict()
    for r in rows:
        by.setdefault(int(r["k_bytes"]), []).append(int(r["cycles"]))
    if 0 not in by:
        raise SystemExit("dram_bank.py: no k = 0 rows (one line alone)")
    single = statistics.median(by[0])
    pairs = {k: statistics.median(v) for k, v in by.items() if k > 0}
    if not pairs:
        raise SystemExit("dram_bank.py: no pair rows")
    typical = statistics.median(pairs.values())
    print(f"# one line alone: median {single:.0f} cycles; a pair in other banks (median over "
          f"offsets): {typical:.0f}")
    print("k_bytes,samples,median_cycles,excess_cycles,same_bank_other_row")
    flagged = []
    for k, med in pairs.items():
        excess = med - typical
        flag = excess >= THRESHOLD
        flagged += [k] if flag else []
        print(f"{k},{len(by[k])},{med:.0f},{excess:+.0f},{'yes' if flag else ''}")
    print(f"# {len(flagged)} of {len(pairs)} offsets look like same-bank row conflicts: "
          + (", ".join(str(k) for k in flagged) if flagged else "none"))
    if "--write" in sys.argv[1:]:
        out = os.path.join(os.path.dirname(path), "micro_dram_bank_median.csv")
        text = [l for l in lines if l.startswith("#")] + [
            "# derived: python3 validation/dram_bank.py --write from micro_dram_bank.csv; "
            "median_cycles = v[n / 2] of every rep's samples of the offset",
            "k_bytes,samples,median_cycles"]
        for k, v in by.items():
            text.append(f"{k},{len(v)},{sorted(v)[len(v) // 2]}")
        with open(out, "w") as f:
            f.write("\n".join(text) + "\n")
        print(f"wrote {out}")


if __name__ == "__main__":
    main()
