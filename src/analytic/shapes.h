// Workload descriptions the closed-form model reads. They mirror the flags of the cycle-level
// generators (`asyncsim gemm`, `asyncsim attention`) so one command line drives both paths.
#pragma once

#include <cstdint>

namespace asyncsim::analytic {

// C[M,N] = A[M,K] · B[N,K]ᵀ, fp16 in and out, one BM×BN output tile per CTA, CTAs in row-major
// pid order (pid_m = pid / ceil(N/BN)), exactly as src/workloads and
// validation/kernels/gemm_tma.py.
struct GemmShape {
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  int block_m = 128;
  int block_n = 128;
  int block_k = 64;
  int stages = 3;
  int warps = 4;
  int regs_per_thread = 0;  // 0: estimated from the accumulator tile (occupancy.h)
};

// Forward attention, FlashAttention-2 tiling: one Q tile of BM rows per CTA, a loop over K/V
// tiles of BN rows; grid (ceil(S/BM), B·H) with axis 0 fastest
// (validation/kernels/attention_tma.py). GQA: query head h reads kv head h / (H/HKV). Causal
// masking is top-left aligned: Q tile m visits K/V rows below min((m+1)·BM, SKV), as the measured
// kernel does.
struct AttentionShape {
  int64_t batch = 1;
  int64_t heads = 0;
  int64_t kv_heads = 0;  // 0: same as heads
  int64_t seq = 0;
  int64_t seq_kv = 0;  // 0: same as seq
  int64_t head_dim = 0;
  int block_m = 128;
  int block_n = 64;
  int stages = 3;
  int warps = 8;
  bool causal = false;
  int regs_per_thread = 0;  // 0: estimated from the live tiles (occupancy.h)
};

constexpr int64_t kFp16Bytes = 2;

// Throw InputError (where = "analyze gemm" / "analyze attention") naming the first bad field.
void validate(const GemmShape& shape);
void validate(const AttentionShape& shape);

// The same shapes with defaults resolved (kv_heads, seq_kv).
AttentionShape resolved(AttentionShape shape);

}  // namespace asyncsim::analytic
