#!/usr/bin/env python3
"""Decodes validation/hw/micro/l2_slice_map.cu: which L2 slice served each line.

  python3 validation/l2_slice_map.py LAUNCHES.csv NCU.csv [LAUNCHES.csv NCU.csv ...]

LAUNCHES.csv is what the binary printed (set,reader_sm,smid,lines), NCU.csv what Nsight Compute
printed for the same run (--csv --print-metric-instances values, metric
lts__t_requests_srcunit_tex_op_read.sum, --kernel-name probe): the n-th probe launch of one is the
n-th of the other. In each launch line i of the set was read 32 << i times, so a slice's count
minus the empty launch's, divided by 32 and rounded, has bit i set when the slice served line i.
Prints line,reader_sm,slice for every decoded line, then per reader: lines decoded, slices seen,
and how evenly the contiguous lines and each power-of-two stride spread over them. Standard
library only.
"""
import collections
import csv
import io
import re
import sys

REP = 32


def ncu_counts(path):
    """Per profiled launch (in order), the per-instance values of the metric."""
    text = open(path).read().splitlines()
    start = next(i for i, line in enumerate(text) if line.startswith('"ID"'))
    out = collections.OrderedDict()
    for r in csv.DictReader(io.StringIO("\n".join(text[start:]))):
        if "lts__t_requests_srcunit_tex_op_read" not in r.get("Metric Name", ""):
            continue
        # The instance values: the ';'-separated list (inside parentheses when ncu puts the
        # aggregate in front of it) with the most entries.
        best = []
        for v in r.values():
            v = v or ""
            if ";" not in v:
                continue
            inner = re.search(r"\(([^()]*;[^()]*)\)", v)
            part = inner.group(1) if inner else v
            nums = [x.strip().replace(",", "") for x in part.split(";")]
            if all(re.fullmatch(r"-?\d+(?:\.\d+)?", x) for x in nums) and len(nums) > len(best):
                best = nums
        if not best:
            raise SystemExit(f"{path}: launch {r['ID']} has no per-instance values "
                             "(run ncu with --print-metric-instances values)")
        out[r["ID"]] = [float(x) for x in best]
    return list(out.values())


def main():
    args = sys.argv[1:]
    if len(args) < 2 or len(args) % 2:
        sys.exit(__doc__)
    decoded = collections.defaultdict(dict)  # reader -> line -> slice
    problems = 0
    for launches_path, ncu_path in zip(args[::2], args[1::2]):
        with open(launches_path) as f:
            launches = list(csv.DictReader(line for line in f if not line.startswith("#")))
        counts = ncu_counts(ncu_path)
        if len(counts) != len(launches):
            raise SystemExit(f"{ncu_path}: {len(counts)} profiled launches for "
                             f"{len(launches)} in {launches_path}")
        base = {}
        for row, c in zip(launches, counts):
            if row["lines"] == "":
                base[row["reader_sm"]] = c
        for row, c in zip(launches, counts):
            if row["lines"] == "":
                continue
            lines = [int(x) for x in row["lines"].split(";")]
            b = base.get(row["reader_sm"], [0.0] * len(c))
            seen = 0
            for s, (v, v0) in enumerate(zip(c, b)):
                w = round((v - v0) / REP)
                for i, line in enumerate(lines):
                    if w >> i & 1:
                        decoded[row["reader_sm"]][line] = s
                        seen |= 1 << i
            missing = [lines[i] for i in range(len(lines)) if not seen >> i & 1]
            if missing:
                problems += 1
                print(f"# set {row['set']} reader {row['reader_sm']}: no slice for lines {missing}",
                      file=sys.stderr)
    print("line,reader_sm,slice")
    for reader in sorted(decoded):
        for line in sorted(decoded[reader]):
            print(f"{line},{reader},{decoded[reader][line]}")
    for reader in sorted(decoded):
        d = decoded[reader]
        contig = collections.Counter(d[line] for line in range(2048) if line in d)
        print(f"# reader SM {reader}: {len(d)} lines, {len(set(d.values()))} slices; lines 0-2047 "
              f"over {len(contig)} slices, {min(contig.values(), default=0)}-"
              f"{max(contig.values(), default=0)} lines each", file=sys.stderr)
        for j in range(4, 23):
            ls = [m << j for m in range(1, 25) if (m << j) in d]
            if ls:
                print(f"#   stride 2^{j} lines: {len(ls)} lines over "
                      f"{len(set(d[x] for x in ls))} slices", file=sys.stderr)
    if problems:
        print(f"# {problems} launches left lines undecoded", file=sys.stderr)


if __name__ == "__main__":
    main()
