#!/usr/bin/env python3
"""Read micro_tma_linemap.csv (validation/hw/micro/tma_linemap.cu): every line of a 1 MiB region
([128 x 4096] fp16, 8 KB rows) timed from SM 0 by a 64x1 TMA 2-D box and by a 1-D bulk copy,
every pair of rows by a 64x2 box, every 64x64 box. Prints:
  (The copies run in address order, so a line's index is also its position in the timing
  loop: the slow lines found, every fourth, are the harness's every fourth sample, whose clock
  waits for the load of the next coordinates; validation/README.md, "Near and far lines by TMA".)
  - the share of lines slow by the 64x1 box (above the median of all box1 copies + SLOW cycles
    in both reps) and how many of them are slow by bulk copy too;
  - the parity masks over the line index's 13 bits that are constant on the slow lines (a rule
    of the form "parity(line & m) = c for every m of a subspace"), else the masks whose parity
    agrees best with slowness;
  - the 64x2 boxes with 0 / 1 / 2 slow lines, and the 64x64 boxes against their count of slow
    lines (does a box of several rows pay for them?).

    python3 validation/tma_linemap.py [CSV]   (default: validation/data/h200/micro_tma_linemap.csv)
"""
import collections
import csv
import os
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SLOW = 60  # SM cycles above the median of all 64x1 copies


def load(path):
    with open(path) as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    out = collections.defaultdict(dict)  # (kind, rep) -> {(x, y): cycles}
    for r in rows:
        out[(r["kind"], int(r["rep"]))][(int(r["x"]), int(r["y"]))] = int(r["cycles"])
    return out


def q(xs):
    if len(xs) < 2:
        return f"{xs} (n {len(xs)})"
    s = statistics.quantiles(xs, n=10)
    return f"{s[0]:.0f} / {statistics.median(xs):.0f} / {s[-1]:.0f} (n {len(xs)})"


def parity(v):
    return bin(v).count("1") & 1


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "validation", "data", "h200",
                                                              "micro_tma_linemap.csv")
    d = load(path)
    box1 = [d[("box1", r)] for r in (0, 1)]
    cut = statistics.median(box1[0].values()) + SLOW
    line = lambda xy: xy[1] * 64 + xy[0] // 64  # noqa: E731
    slow = {line(xy) for xy in box1[0] if box1[0][xy] > cut and box1[1][xy] > cut}
    lines = sorted(line(xy) for xy in box1[0])
    print(f"{path}: {len(lines)} lines, {len(slow)} slow by the 64x1 box ({100 * len(slow) / len(lines):.1f} %)")
    print(f"  64x1 box, slow lines: {q([box1[0][xy] for xy in box1[0] if line(xy) in slow])}")
    print(f"  64x1 box, the others: {q([box1[0][xy] for xy in box1[0] if line(xy) not in slow])}")
    bulk = d[("bulk", 0)]
    print(f"  bulk copy, slow lines: {q([bulk[xy] for xy in bulk if line(xy) in slow])}")
    print(f"  bulk copy, the others: {q([bulk[xy] for xy in bulk if line(xy) not in slow])}")
    bits = max(lines).bit_length()
    const = [m for m in range(1, 1 << bits) if slow and len({parity(ln & m) for ln in slow}) == 1]
    if const:
        print(f"  masks constant on the slow lines: {len(const)}: " + ", ".join(
            f"{m:#x}={parity(next(iter(slow)) & m)}" for m in const[:16]))
    elif slow:
        score = []
        for m in range(1, 1 << bits):
            agree = sum(parity(ln & m) == (ln in slow) for ln in lines) / len(lines)
            score.append((abs(agree - 0.5), agree, m))
        score.sort(reverse=True)
        print("  no mask is constant on them; best agreeing masks: " + ", ".join(
            f"{m:#x} ({a:.3f})" for _, a, m in score[:8]))
    by_col = collections.Counter(ln % 64 for ln in slow) or collections.Counter({0: 0})
    by_row = collections.Counter(ln // 64 for ln in slow) or collections.Counter({0: 0})
    print(f"  slow lines per column tile (of its {len(lines) // 64} lines): min {min(by_col.get(c, 0) for c in range(64))}, "
          f"max {max(by_col.values())}; per row (of its 64 lines): min {min(by_row.get(r, 0) for r in range(len(lines) // 64))}, "
          f"max {max(by_row.values())}")
    box2 = d[("box2", 0)]
    groups = collections.defaultdict(list)
    for (x, y), c in box2.items():
        groups[(line((x, y)) in slow) + (line((x, y + 1)) in slow)].append(c)
    for k in sorted(groups):
        if len(groups[k]) > 1:
            print(f"  64x2 boxes with {k} slow line(s): {q(groups[k])}")
    box64 = d[("box64", 0)]
    pts = sorted((sum(line((x, y + r)) in slow for r in range(64)), c) for (x, y), c in box64.items())
    print("  64x64 boxes (slow lines in the box: cycles): " + ", ".join(f"{k}: {c}" for k, c in pts[:4])
          + " ... " + ", ".join(f"{k}: {c}" for k, c in pts[-4:]))


if __name__ == "__main__":
    main()
