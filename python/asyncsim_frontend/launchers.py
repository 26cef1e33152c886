"""Launchers for the project's measured Triton kernels (validation/kernels), one launch each.

Used as --launcher asyncsim_frontend.launchers:NAME with --kw KEY=VALUE. A user's own launcher
is any function that builds inputs and launches the kernel exactly once.
"""
import os
import sys

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)


def _gemm_inputs(M, N, K):
    import torch
    a = torch.randn((M, K), device="cuda", dtype=torch.float16)
    b = torch.randn((N, K), device="cuda", dtype=torch.float16)
    c = torch.empty((M, N), device="cuda", dtype=torch.float16)
    return a, b, c


def gemm(M, N, K, variant="128x128x64_s3_w4", ws=False):
    from validation.kernels.gemm_tma import gemm as launch
    a, b, c = _gemm_inputs(M, N, K)
    launch(a, b, c, variant, ws=bool(ws))


def persistent(M, N, K, variant="128x128x64_s3_w4", ws=False):
    import torch
    from validation.kernels.persistent_tma import gemm_persistent
    a, b, c = _gemm_inputs(M, N, K)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    gemm_persistent(a, b, c, variant, sms, ws=bool(ws))


def attention(B, H, S, D, variant="bm128_bn64_s3_w8", causal=False):
    import torch
    from validation.kernels.attention_tma import attention as launch
    q, k, v = (torch.randn((B, H, S, D), device="cuda", dtype=torch.float16) for _ in range(3))
    o = torch.empty_like(q)
    launch(q, k, v, o, variant, causal=bool(causal))
