"""Reads an Nsight Compute `--csv --print-units base` log (the ncu_l2/*_raw.csv and
*_ncu.csv files of validation/data/h200): the lines before its ID header (ncu's ==PROF== and
==WARNING== notes, a reduced file's # comments) are skipped. Standard library only."""
import collections
import csv
import io


def ncu_rows(path):
    """Per profiled launch, in order: {metric name: value}."""
    text = open(path).read().splitlines()
    start = next(i for i, line in enumerate(text) if line.startswith(('"ID"', "ID,")))
    by = collections.OrderedDict()
    for r in csv.DictReader(io.StringIO("\n".join(text[start:]))):
        by.setdefault(r["ID"], {})[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
    return list(by.values())
