"""Attention forward (FlashAttention-2 style) with TMA descriptors, written to the
asyncsim issue-3 description; modelled on Triton tutorial 06 (Hopper path).

Per program: one Q tile of BM rows (one descriptor load), a loop over K/V tiles of
BN rows (descriptor loads), S = Q K^T by tl.dot (wgmma), online softmax with exp2
(softmax scale folded together with log2(e)), O += P V by tl.dot, final
normalisation by the row sum, O written by a descriptor store.
Grid (ceil(S/BM), B*H), axis 0 fastest; Q/K/V/O viewed as 2-D (B*H*S, D) fp16.

CAUSAL=1 restricts the K/V loop to tiles up to the diagonal and masks inside the
loop (one loop, mask applied on every tile; no separate diagonal stage).
When S is not a multiple of BM and BN (RAGGED), keys >= S are masked and O is
stored through a 3-D (B*H, S, D) descriptor so the TMA store clips rows >= S
(a 2-D store would spill into the next head); loads stay 2-D.
WS=True asks Triton for warp specialisation of the K/V loop
(tl.range(..., warp_specialize=True)).

VARIANTS name -> (BM, BN, stages, warps).
"""
import math

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

VARIANTS = {
    "bm128_bn64_s3_w8": (128, 64, 3, 8),
    "bm128_bn128_s2_w8": (128, 128, 2, 8),
}


@triton.jit
def attn_fwd_kernel(desc_q, desc_k, desc_v, desc_o, qk_scale, S,
                    D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
                    STAGES: tl.constexpr, CAUSAL: tl.constexpr,
                    RAGGED: tl.constexpr, WS: tl.constexpr):
    start_m = tl.program_id(0)
    bh = tl.program_id(1)
    row0 = bh * S
    offs_m = start_m * BM + tl.arange(0, BM)
    offs_n = tl.arange(0, BN)
    m_i = tl.full([BM], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([BM], dtype=tl.float32)
    acc = tl.zeros([BM, D], dtype=tl.float32)
    q = desc_q.load([row0 + start_m * BM, 0])
    if CAUSAL:
        hi = tl.minimum((start_m + 1) * BM, S)
    else:
        hi = S
    for start_n in tl.range(0, hi, BN, num_stages=STAGES, warp_specialize=WS):
        start_n = tl.multiple_of(start_n, BN)
        k = desc_k.load([row0 + start_n, 0])
        qk = tl.dot(q, k.T) * qk_scale
        if CAUSAL or RAGGED:
            cols = start_n + offs_n
            mask = cols[None, :] < S
            if CAUSAL:
                mask = mask & (offs_m[:, None] >= cols[None, :])
            qk = tl.where(mask, qk, -1.0e6)
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = desc_v.load([row0 + start_n, 0])
        acc = tl.dot(p.to(tl.float16), v, acc)
        m_i = m_ij
    acc = acc / l_i[:, None]
    o = acc.to(tl.float16)
    if RAGGED:
        desc_o.store([bh, start_m * BM, 0], tl.expand_dims(o, 0))
    else:
        desc_o.store([row0 + start_m * BM, 0], o)


def is_ragged(S, BM, BN):
    return (S % BM != 0) or (S % BN != 0)


def attention(q, k, v, o, variant, causal=False, ws=False, sm_scale=None):
    """q, k, v, o: (B, H, S, D) fp16 contiguous. Launches once, returns the
    compiled kernel object."""
    BM, BN, stages, warps = VARIANTS[variant]
    B, H, S, D = q.shape
    assert k.shape == v.shape == o.shape == q.shape
    for t in (q, k, v, o):
        assert t.dtype == torch.float16 and t.is_contiguous()
    if sm_scale is None:
        sm_scale = 1.0 / math.sqrt(D)
    rows = B * H * S
    q2, k2, v2, o2 = (t.view(rows, D) for t in (q, k, v, o))
    desc_q = TensorDescriptor(q2, [rows, D], [D, 1], [BM, D])
    desc_k = TensorDescriptor(k2, [rows, D], [D, 1], [BN, D])
    desc_v = TensorDescriptor(v2, [rows, D], [D, 1], [BN, D])
    ragged = is_ragged(S, BM, BN)
    if ragged:
        o3 = o.view(B * H, S, D)
        desc_o = TensorDescriptor(o3, [B * H, S, D], [S * D, D, 1], [1, BM, D])
    else:
        desc_o = TensorDescriptor(o2, [rows, D], [D, 1], [BM, D])
    grid = (triton.cdiv(S, BM), B * H)
    qk_scale = sm_scale * 1.4426950408889634  # log2(e)
    return attn_fwd_kernel[grid](desc_q, desc_k, desc_v, desc_o, qk_scale, S,
                                 D=D, BM=BM, BN=BN, STAGES=stages,
                                 CAUSAL=causal, RAGGED=ragged, WS=ws,
                                 num_warps=warps, num_stages=stages)


def reference(q, k, v, causal=False, sm_scale=None, q_chunk=4096):
    """float32 reference, chunked over (b, h) and query rows to bound memory."""
    B, H, S, D = q.shape
    if sm_scale is None:
        sm_scale = 1.0 / math.sqrt(D)
    out = torch.empty((B, H, S, D), device=q.device, dtype=torch.float32)
    for b in range(B):
        for h in range(H):
            kf = k[b, h].float()
            vf = v[b, h].float()
            for s0 in range(0, S, q_chunk):
                s1 = min(S, s0 + q_chunk)
                qf = q[b, h, s0:s1].float()
                sc = (qf @ kf.T) * sm_scale
                if causal:
                    rows = torch.arange(s0, s1, device=q.device)[:, None]
                    cols = torch.arange(S, device=q.device)[None, :]
                    sc = sc.masked_fill(cols > rows, float("-inf"))
                out[b, h, s0:s1] = torch.softmax(sc, dim=-1) @ vf
    return out
