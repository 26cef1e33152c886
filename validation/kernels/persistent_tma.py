"""Kernels the project did not design: written after Triton tutorial
09-persistent-matmul's TMA variant (matmul_kernel_tma_persistent, host-side
TensorDescriptor), for frontend validation. Grid = min(#SMs, #tiles); each program
loops over tiles pid, pid+NUM_SMS, ...; tiles are ordered in GROUP_SIZE_M=8 groups
as in the tutorial (unlike gemm_tma.py); EPILOGUE_SUBTILE=False.
C[M,N] = A[M,K] . B[N,K]^T, fp16 in / fp32 acc / fp16 out.

WS=True sets warp_specialize=True on the tile loop (tutorial; on Hopper the
tutorial then uses flatten=False). The non-persistent warp-specialised GEMM is
gemm_tma.gemm(..., ws=True) (warp_specialize on the K loop).
"""
import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

from .gemm_tma import VARIANTS

GROUP_SIZE_M = 8


@triton.jit
def _compute_pid(tile_id, num_pid_in_group, num_pid_m, GROUP_SIZE_M: tl.constexpr):
    group_id = tile_id // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = tl.minimum(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + (tile_id % group_size_m)
    pid_n = (tile_id % num_pid_in_group) // group_size_m
    return pid_m, pid_n


@triton.jit
def gemm_persistent_kernel(a_desc, b_desc, c_desc, M, N, K,
                           BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                           GROUP_SIZE_M: tl.constexpr, NUM_SMS: tl.constexpr,
                           FLATTEN: tl.constexpr, WS: tl.constexpr):
    start_pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BM)
    num_pid_n = tl.cdiv(N, BN)
    k_tiles = tl.cdiv(K, BK)
    num_tiles = num_pid_m * num_pid_n
    tile_id_c = start_pid - NUM_SMS
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    for tile_id in tl.range(start_pid, num_tiles, NUM_SMS, flatten=FLATTEN, warp_specialize=WS):
        pid_m, pid_n = _compute_pid(tile_id, num_pid_in_group, num_pid_m, GROUP_SIZE_M)
        offs_am = pid_m * BM
        offs_bn = pid_n * BN
        accumulator = tl.zeros((BM, BN), dtype=tl.float32)
        for ki in range(k_tiles):
            offs_k = ki * BK
            a = a_desc.load([offs_am, offs_k])
            b = b_desc.load([offs_bn, offs_k])
            accumulator = tl.dot(a, b.T, accumulator)
        tile_id_c += NUM_SMS
        pid_m, pid_n = _compute_pid(tile_id_c, num_pid_in_group, num_pid_m, GROUP_SIZE_M)
        c_desc.store([pid_m * BM, pid_n * BN], accumulator.to(tl.float16))


def persistent_grid(M, N, variant, num_sms):
    BM, BN, BK, stages, warps = VARIANTS[variant]
    return min(num_sms, triton.cdiv(M, BM) * triton.cdiv(N, BN))


def gemm_persistent(a, b, c, variant, num_sms, ws=False):
    BM, BN, BK, stages, warps = VARIANTS[variant]
    M, K = a.shape
    N, _ = b.shape
    a_desc = TensorDescriptor(a, list(a.shape), list(a.stride()), [BM, BK])
    b_desc = TensorDescriptor(b, list(b.shape), list(b.stride()), [BN, BK])
    c_desc = TensorDescriptor(c, list(c.shape), list(c.stride()), [BM, BN])
    grid = (persistent_grid(M, N, variant, num_sms),)
    return gemm_persistent_kernel[grid](a_desc, b_desc, c_desc, M, N, K,
                                        BM=BM, BN=BN, BK=BK, GROUP_SIZE_M=GROUP_SIZE_M,
                                        NUM_SMS=num_sms, FLATTEN=not ws, WS=ws,
                                        num_warps=warps, num_stages=stages)
