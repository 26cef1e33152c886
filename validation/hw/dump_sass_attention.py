#!/usr/bin/env python3
"""Dump SASS of the project's Triton attention kernel (validation/kernels/attention_tma.py) for
both variants and D = 64, 128, and summarise the main-loop synchronisation opcodes.
Run on the GPU machine:  python3 validation/hw/dump_sass_attention.py OUT_DIR [--causal]
(--causal: the causal builds, files suffixed _causal)."""
import collections
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
import torch  # noqa: E402

from validation.kernels import attention_tma  # noqa: E402


def main(out, causal=False):
    os.makedirs(out, exist_ok=True)
    suffix = "_causal" if causal else ""
    summary = []
    for variant in attention_tma.VARIANTS:
        for d in (64, 128):
            q, k, v = (torch.randn(1, 2, 1024, d, device="cuda", dtype=torch.float16) for _ in range(3))
            o = torch.empty_like(q)
            kern = attention_tma.attention(q, k, v, o, variant, causal=causal)
            torch.cuda.synchronize()
            with tempfile.NamedTemporaryFile(suffix=".cubin", delete=False) as f:
                f.write(kern.asm["cubin"])
            sass = subprocess.run(["cuobjdump", "--dump-sass", f.name], capture_output=True,
                                  text=True).stdout
            name = f"attn_{variant}_d{d}{suffix}"
            open(os.path.join(out, name + ".sass"), "w").write(sass)
            seq = [m.group(1) for m in re.finditer(
                r"/\*[0-9a-f]{4}\*/\s+(?:@!?U?P\w+\s+)?((?:HGMMA|WARPGROUP|BAR|SYNCS|UTMALDG|MUFU)[A-Z0-9_.x]*)", sass)]
            ops = collections.Counter(seq)
            summary.append(f"{name} regs={kern.n_regs} smem={kern.metadata.shared} {sorted(ops.items())}")
            summary.append("  sequence: " + " ".join(s for s in seq if not s.startswith("MUFU"))[:1500])
    open(os.path.join(out, f"attn_sass_summary{suffix}.txt"), "w").write("\n".join(summary) + "\n")
    print("\n".join(summary))


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--causal"]
    main(args[0] if args else "sass_out", causal="--causal" in sys.argv[1:])
