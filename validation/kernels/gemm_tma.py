"""GEMM written exactly to the asyncsim [core] spec.

C[M,N] = A[M,K] . B[N,K]^T ; fp16 in, fp32 accumulate, fp16 out.
A and B are K-contiguous (B stored N x K), C row-major.
Host-side TMA descriptors (triton.tools.tensor_descriptor.TensorDescriptor)
for A, B and C (C written by a descriptor store).
Grid: ceil(M/BM)*ceil(N/BN), 1-D, row-major program order:
    pid_m = pid // ceil(N/BN), pid_n = pid % ceil(N/BN)   (no grouping/swizzle).
K loop: tl.range(..., num_stages=STAGES); tl.dot -> wgmma on sm_90a.

VARIANTS name -> (BM, BN, BK, stages, warps).
"""
import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

VARIANTS = {
    "128x128x64_s3_w4": (128, 128, 64, 3, 4),
    "128x256x64_s3_w8": (128, 256, 64, 3, 8),
}


@triton.jit
def gemm_tile(a_desc, b_desc, c_desc, pid, N, K,
              BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
              STAGES: tl.constexpr, WS: tl.constexpr):
    """One program's output tile (inlined into the kernel; also used by validation/hw/cta_map.py,
    which stamps each program's start and end around it)."""
    num_pid_n = tl.cdiv(N, BN)
    pid_m = pid // num_pid_n
    pid_n = pid % num_pid_n
    off_m = pid_m * BM
    off_n = pid_n * BN
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    k_tiles = tl.cdiv(K, BK)
    for kt in tl.range(0, k_tiles, num_stages=STAGES, warp_specialize=WS):
        a = a_desc.load([off_m, kt * BK])
        b = b_desc.load([off_n, kt * BK])
        acc = tl.dot(a, b.T, acc)
    c_desc.store([off_m, off_n], acc.to(tl.float16))


@triton.jit
def gemm_tma_kernel(a_desc, b_desc, c_desc, M, N, K,
                    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                    STAGES: tl.constexpr, WS: tl.constexpr):
    gemm_tile(a_desc, b_desc, c_desc, tl.program_id(0), N, K, BM, BN, BK, STAGES, WS)


def make_descs(a, b, c, BM, BN, BK):
    a_desc = TensorDescriptor(a, list(a.shape), list(a.stride()), [BM, BK])
    b_desc = TensorDescriptor(b, list(b.shape), list(b.stride()), [BN, BK])
    c_desc = TensorDescriptor(c, list(c.shape), list(c.stride()), [BM, BN])
    return a_desc, b_desc, c_desc


def grid_size(M, N, BM, BN):
    return triton.cdiv(M, BM) * triton.cdiv(N, BN)


def gemm(a, b, c, variant, ws=False):
    """Launch once; returns Triton's compiled kernel object (for .asm)."""
    BM, BN, BK, stages, warps = VARIANTS[variant]
    M, K = a.shape
    N, K2 = b.shape
    assert K == K2 and c.shape == (M, N)
    assert a.dtype == b.dtype == c.dtype == torch.float16
    a_desc, b_desc, c_desc = make_descs(a, b, c, BM, BN, BK)
    grid = (grid_size(M, N, BM, BN),)
    return gemm_tma_kernel[grid](a_desc, b_desc, c_desc, M, N, K,
                                 BM=BM, BN=BN, BK=BK, STAGES=stages, WS=ws,
                                 num_warps=warps, num_stages=stages)
