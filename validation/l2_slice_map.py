#!/usr/bin/env python3
"""Decodes validation/hw/micro/l2_slice_map.cu (second version): how the H200's L2 slices share
out lines.

  python3 validation/l2_slice_map.py            # print both tables
  python3 validation/l2_slice_map.py --write    # also write micro_l2_slice_spread.csv (the
                                                # set launches, for `asyncsim micro l2_slice_spread`)
  python3 validation/l2_slice_map.py bits       # the pairs over address bits 1-13
                                                # (next_batch.sh slicebits): classes and a test
                                                # of a slice function linear in the bits

Reads validation/data/h200/ncu_l2/l2_slice_map_{set,pair}_{launches,ncu}.csv: what the binary
printed (kind,set,reader_sm,smid,rep,anchor,lines) and what Nsight Compute printed for the same
run (--csv --print-units base, metrics lts__t_requests_srcunit_tex_op_read.sum/.max/.min and
lts__t_requests_srcunit_ltcfabric.sum/.max); the n-th profiled launch of one is the n-th row of
the other.

Set launches read n lines `rep` times each from one SM: sum / rep = n (a check), max / rep = the
most lines one slice received (every read reaches a slice of the reader's partition first),
fabric = requests forwarded to the other partition (a far line's first read).
Pair launches read an anchor 2048 * rep times and test t (t < 11) 2^t * rep times: the anchor's
slice holds the maximum, so bit t of round(max / rep) - 2048 says test t shares the anchor's
slice. The same-slice relation is closed into classes (union-find) and checked: a pair said to
differ must not fall in one class. Standard library only.
"""
import collections
import csv
import os
import sys

from ncu_raw import ncu_rows

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data", "h200")
NCU = os.path.join(DATA, "ncu_l2")
TEX = "lts__t_requests_srcunit_tex_op_read"
FAB = "lts__t_requests_srcunit_ltcfabric"


def launches(path):
    with open(path) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def paired(kind):
    lp = os.path.join(NCU, f"l2_slice_map_{kind}_launches.csv")
    np_ = os.path.join(NCU, f"l2_slice_map_{kind}_ncu.csv")
    if not (os.path.exists(lp) and os.path.exists(np_)):
        raise SystemExit(f"l2_slice_map.py: {os.path.relpath(lp, HERE)} or its ncu file does not "
                         "exist: not measured yet (bash validation/hw/next_batch.sh slices OUT)")
    rows, counts = launches(lp), ncu_rows(np_)
    if len(rows) != len(counts):
        raise SystemExit(f"{np_}: {len(counts)} profiled launches for {len(rows)} in {lp}")
    return list(zip(rows, counts))


def set_name(set_id, lines):
    """stride_j (lines k * 2^j) or random_r, as the .cu builds its sets in order."""
    if not lines:
        return "empty", ""
    if set_id <= 17:
        return "stride", str(set_id - 1)
    return "random", str(set_id - 18)


def sets_table(write):
    out = []
    for row, c in paired("set"):
        lines = [int(x) for x in row["lines"].split(";")] if row["lines"] else []
        rep = int(row["rep"])
        kind, param = set_name(int(row["set"]), lines)
        n = len(lines)
        out.append({"pattern": kind, "param": param, "reader_sm": row["reader_sm"],
                    "smid": row["smid"], "lines": n,
                    "lines_counted": round(c[TEX + ".sum"] / rep),
                    "max_lines": round(c[TEX + ".max"] / rep),
                    "min_lines": round(c[TEX + ".min"] / rep),
                    "fabric_requests": int(c[FAB + ".sum"]),
                    "fabric_max": int(c[FAB + ".max"])})
    cols = list(out[0])
    print(",".join(cols))
    for r in out:
        print(",".join(str(r[k]) for k in cols))
    bad = [r for r in out if r["lines_counted"] != r["lines"]]
    print(f"# {len(out)} set launches; {len(bad)} whose sum / rep differs from their line count")
    if write:
        path = os.path.join(DATA, "micro_l2_slice_spread.csv")
        prov = os.path.join(NCU, "l2_slice_map_provenance.txt")
        head = [line for line in open(prov).read().splitlines() if line.startswith("#")]
        with open(path, "w") as f:
            for line in head:
                f.write(line + "\n")
            f.write("# derived: python3 validation/l2_slice_map.py --write from "
                    "ncu_l2/l2_slice_map_set_{launches,ncu}.csv (max_lines = "
                    f"{TEX}.max / rep)\n")
            f.write("pattern,param,reader_sm,lines,max_lines\n")
            for r in out:
                if r["pattern"] != "empty":
                    f.write(f"{r['pattern']},{r['param']},{r['reader_sm']},{r['lines']},"
                            f"{r['max_lines']}\n")
        print(f"wrote {os.path.relpath(path, os.getcwd())}")


def pairs_table(kind="pair"):
    same, differ = set(), set()
    lines_seen = []
    for row, c in paired(kind):
        rep = int(row["rep"])
        anchor = int(row["anchor"])
        tests = [int(x) for x in row["lines"].split(";")]
        v = round(c[TEX + ".max"] / rep) - 2048
        if v < 0 or v >= 1 << len(tests):
            print(f"# pair launch {row['set']}: max / rep = {v + 2048} is not 2048 + a test mask")
            continue
        for line in [anchor] + tests:
            if line not in lines_seen:
                lines_seen.append(line)
        for t, line in enumerate(tests):
            (same if v >> t & 1 else differ).add((anchor, line))
    parent = {x: x for x in lines_seen}

    def root(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in same:
        parent[root(a)] = root(b)
    clash = [(a, b) for a, b in differ if root(a) == root(b)]
    classes = collections.OrderedDict()
    for x in lines_seen:
        classes.setdefault(root(x), []).append(x)
    label = {r: i for i, r in enumerate(classes)}
    print(f"# {len(lines_seen)} lines in {len(classes)} same-slice classes (read from SM 0); "
          f"{len(same)} pairs share a slice, {len(differ)} do not, {len(clash)} contradictions")
    contiguous = [x for x in lines_seen if x < 64]
    print("# lines 0-63, class of each: " + " ".join(str(label[root(x)]) for x in contiguous))
    print("line,class,class_size")
    for x in lines_seen:
        print(f"{x},{label[root(x)]},{len(classes[root(x)])}")
    if kind == "pairbits":
        # Linear in the address bits (XOR of bit columns) <=> lines x and y share a slice
        # exactly when x ^ y shares line 0's: test it on every pair of one-bit lines.
        def together(x, y):
            return root(x) == root(y)
        ones = [x for x in lines_seen if x and x & (x - 1) == 0]
        zero_bits = [x.bit_length() - 1 for x in ones if together(x, 0)]
        bad = [(a, b) for i, a in enumerate(ones) for b in ones[i + 1:]
               if (a | b) in parent and together(a, b) != together(a | b, 0)]
        print(f"# address bits (line units) whose flip keeps the slice: {zero_bits}")
        print(f"# one-bit pairs where 'same slice' and 'x ^ y with line 0' disagree: {len(bad)} of "
              f"{len(ones) * (len(ones) - 1) // 2}" + (f" (first: {bad[:6]})" if bad else
                                                        " (consistent with a linear function)"))


def main():
    if "bits" in sys.argv[1:]:
        pairs_table("pairbits")
        return
    write = "--write" in sys.argv[1:]
    sets_table(write)
    pairs_table()


if __name__ == "__main__":
    main()
