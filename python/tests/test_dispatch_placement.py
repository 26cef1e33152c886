"""Where a single wave's CTAs land: the model's partial dispatch round (src/sim/dispatch_round.h)
against validation/hw/cta_map.py's records of both chips. The rule was read off the H200's
192-CTA launch; the H100's 96-, 128- and 144-CTA launches were measured after it and must land
SM for SM too. Placement does not depend on K, so the model runs each grid with K = 64."""
import collections
import os
import sys

import pytest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "validation"))

import wave_drift  # noqa: E402

BINARY = os.environ.get("ASYNCSIM_BINARY", os.path.join(ROOT, "build", "asyncsim"))
SINGLE_WAVE = [("h100", "384", "8192", "128x128x64_s3_w4"), ("h100", "384", "8192", "128x256x64_s3_w8"),
               ("h100", "1536", "1536", "128x128x64_s3_w4"), ("h100", "1024", "2048", "128x128x64_s3_w4"),
               ("h200", "384", "8192", "128x128x64_s3_w4"), ("h200", "384", "8192", "128x256x64_s3_w8")]


def model_ctas_per_sm(gpu, m, n, variant):
    ctas, _, _ = wave_drift.simulate(BINARY, gpu, (m, n, "64", variant), 1980.0, [])
    return collections.Counter(sm for _, sm, _, _ in ctas)


@pytest.mark.skipif(not os.path.exists(BINARY), reason="asyncsim not built")
@pytest.mark.parametrize("gpu,m,n,variant", SINGLE_WAVE)
def test_single_wave_lands_where_the_chip_put_it(gpu, m, n, variant):
    _, rows = wave_drift.read_file(os.path.join(ROOT, "validation", "data", gpu, "micro_gemm_cta_map.csv"))
    for rep in ("0", "1"):
        chip = collections.Counter(int(r["smid"]) for r in rows
                                   if (r["M"], r["N"], r["variant"], r["rep"]) == (m, n, variant, rep))
        assert sum(chip.values()) > 0
        model = model_ctas_per_sm(gpu, m, n, variant)
        assert model == chip, sorted(s for s in range(132) if model[s] != chip[s])
