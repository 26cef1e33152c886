"""The GEMM prologue on every SM at once (validation/first_round.py, the mirror of
validation/hw/micro/first_round.cu): stage 0 of the GEMM's shared tensor-map tiles, cold and warm,
132 CTAs, against the H200's medians in validation/data/h200/micro_first_round.csv (1934 and
1243 cycles), within 10 %; and the warm start must be faster than the cold one."""
import csv
import os
import statistics
import sys

import pytest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "validation"))

import first_round  # noqa: E402

BINARY = os.environ.get("ASYNCSIM_BINARY", os.path.join(ROOT, "build", "asyncsim"))


def measured(state):
    path = os.path.join(ROOT, "validation", "data", "h200", "micro_first_round.csv")
    for r in csv.DictReader(line for line in open(path) if not line.startswith("#")):
        if (r["tensor"], r["shared"], r["state"], r["grid"], r["first_launch"]) == (
                "tensor", "gemm", state, "132", "0"):
            return int(r["stage0_median"])
    raise AssertionError(f"no tensor/gemm/{state}/132 row in {path}")


@pytest.mark.skipif(not os.path.exists(BINARY), reason="asyncsim not built")
def test_gemm_prologue_stage0_matches_the_h200():
    stage0 = {}
    for state in ("cold", "warm"):
        cols = first_round.simulate(BINARY, True, True, 132, state, [])
        stage0[state] = statistics.median(cols[4])
        h200 = measured(state)
        assert abs(stage0[state] - h200) <= 0.1 * h200, (state, stage0[state], h200)
    assert stage0["warm"] < stage0["cold"]
