#!/usr/bin/env python3
"""Dump the PTX, SASS and TTGIR of the project's Triton GEMM variants (validation/kernels/
gemm_tma.py) so the per-iteration instruction stream of the compiled kernel can be read off-line.
Run on the GPU machine:  python3 validation/hw/dump_sass.py OUT_DIR
Writes OUT_DIR/gemm_<variant>.{ptx,sass,ttgir} and a summary of the main-loop SASS opcodes."""
import collections
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
import torch  # noqa: E402

from validation.kernels import gemm_tma  # noqa: E402


def main(out):
    os.makedirs(out, exist_ok=True)
    summary = []
    for variant in gemm_tma.VARIANTS:
        a = torch.randn(1024, 1024, device="cuda", dtype=torch.float16)
        b = torch.randn(1024, 1024, device="cuda", dtype=torch.float16)
        c = torch.empty(1024, 1024, device="cuda", dtype=torch.float16)
        k = gemm_tma.gemm(a, b, c, variant)
        torch.cuda.synchronize()
        err = ((c.float() - a.float() @ b.float().T).norm() / (a.float() @ b.float().T).norm()).item()
        for key in ("ptx", "ttgir"):
            open(os.path.join(out, f"gemm_{variant}.{key}"), "w").write(k.asm[key])
        sass = k.asm.get("sass")
        if not sass:
            with tempfile.NamedTemporaryFile(suffix=".cubin", delete=False) as f:
                f.write(k.asm["cubin"])
            sass = subprocess.run(["cuobjdump", "--dump-sass", f.name], capture_output=True,
                                  text=True).stdout
        open(os.path.join(out, f"gemm_{variant}.sass"), "w").write(sass)
        ops = collections.Counter(
            m.group(1) for m in re.finditer(r"/\*[0-9a-f]{4}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]+)", sass))
        interesting = {o: n for o, n in ops.items()
                       if any(t in o for t in ("BAR", "HGMMA", "WARPGROUP", "SYNCS", "UTMALDG",
                                               "UTMASTG", "DEPBAR", "ARRIVE", "ELECT", "WARPSYNC"))}
        summary.append(f"{variant} rel_err={err:.2e} regs={k.n_regs} smem={k.metadata.shared} "
                       f"{sorted(interesting.items())}")
    open(os.path.join(out, "sass_summary.txt"), "w").write("\n".join(summary) + "\n")
    print("\n".join(summary))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "sass_out")
