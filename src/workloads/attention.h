// Attention forward generators: O = softmax(Q K^T * scale) V per (batch, head), fp16 in, fp32
// softmax and accumulation, fp16 out; GQA (kv_heads divides heads) and decode (seq = 1, long
// seq_kv) shapes. Two structures, documented instruction by instruction in docs/workloads.md:
//  - kTriton: validation/kernels/attention_tma.py as Triton 3.6 compiles it for Hopper (no warp
//    specialisation): warps/4 warpgroups split the BM query rows and run the same stream; one
//    thread issues the TMA loads of K and V `stages - 1` iterations ahead.
//  - kFa3: FlashAttention-3's warp-specialised structure (Sim-FA §VI-B): one producer warpgroup
//    filling K and V full/empty rings, two consumer warpgroups (64 query rows each) whose QK^T
//    issue alternates through named barriers (ping-pong).
// Work off the tensor/TMA path (softmax, masking, normalisation) is COMPUTE with operation
// counts per unit, so the configured GPU's unit throughputs turn it into cycles.
#pragma once

#include <cstdint>
#include <string>

#include "config/gpu_config.h"
#include "program/ir.h"

namespace asyncsim::workloads {

enum class AttentionVariant : uint8_t { kTriton, kFa3 };

struct AttentionSpec {
  int64_t batch = 1;
  int64_t heads = 16;
  int64_t kv_heads = 0;  // 0: same as heads
  int64_t seq = 1024;    // query rows per head
  int64_t seq_kv = 0;    // key/value rows per head; 0: same as seq
  int head_dim = 128;
  int bm = 128;
  int bn = 0;      // 0: the variant's default (triton 64; fa3 by head_dim, see attention_defaults)
  int stages = 0;  // 0: the variant's default (triton 3, fa3 2)
  int warps = 8;   // triton: warps per CTA; fa3 always has 12 (producer + 2 consumers)
  bool causal = false;
  AttentionVariant variant = AttentionVariant::kTriton;
  bool intra_overlap = false;  // fa3: issue PV of tile j-1 with QK^T of tile j (FA3 §3.2)
  bool pingpong = true;        // fa3: consumers take turns on the tensor core (named barriers)
};

AttentionVariant parse_attention_variant(const std::string& text, const std::string& flag);
const char* attention_variant_name(AttentionVariant v);

// The spec with every 0 default filled in (kv_heads, seq_kv, bn, stages).
AttentionSpec attention_defaults(const AttentionSpec& spec);

// Bytes of the kernel's machine code (its cold fetch at launch, sm.code_fetch_bytes_per_cycle):
// the Triton 3.6 SASS measured for the forward kernel with BM 128, 8 warps and BN 64 / 128
// (validation/data/h200/sass: 12.5-22.9 KB by BN, head dim and causal); other tiles take the
// nearest measured BN, FA3 (not measured) the Triton kernel's size for its head dim.
int64_t attention_code_bytes(const AttentionSpec& spec);

// Shared memory and registers per CTA as the compiler allocates them (docs/workloads.md).
int64_t attention_smem_bytes(const AttentionSpec& spec);
int attention_regs_per_thread(const AttentionSpec& spec);

// Operation counts of the non-matrix work of one warpgroup on one TM x TN score tile.
struct SoftmaxCounts {
  int64_t fp32 = 0;
  int64_t mufu = 0;
  int64_t cvt = 0;
  int64_t int_ops = 0;
  int64_t inst = 0;  // other instructions per thread (issue slots only)
};
// Sim-FA §VI-B: rowmax TM*TN FP32, exp2 TM*TN MUFU, rowsum TM*TN FP32, P to fp16 TM*TN CVT,
// O rescale TM*D FP32. The Triton kernel adds the scale multiply and the max subtraction (TM*TN
// FP32 each: its source scales before the row max). A masked tile adds TM*TN FP32 selects and
// TM*TN integer compares (FA3, Triton's ragged-only mask) or 3*TM*TN integer operations
// (Triton's causal mask: index, two compares, their AND; ncu instruction counts). `inst` counts the
// instructions per thread that take issue slots but no modelled pipe: the 8 shuffles of the two row
// reductions (FA3, no SASS at hand), or, for Triton, the 96 per K/V iteration read off the H200
// SASS (see kTritonScalarInstr).
SoftmaxCounts softmax_counts(AttentionVariant v, int tm, int tn, int head_dim, bool masked,
                             bool causal = false);
// Final normalisation O / l (TM*D FP32, TM reciprocals on MUFU) and conversion to fp16.
SoftmaxCounts epilogue_counts(int tm, int head_dim);

// Builds the program. Throws InputError naming the flag on impossible tiles or shared memory
// beyond the GPU's per-CTA limit.
program::Kernel build_attention(const AttentionSpec& spec, const GpuConfig& config);

// What the spec implies, for tests and docs.
struct AttentionCounts {
  int64_t ctas = 0;
  int64_t kv_tiles = 0;            // K/V tiles processed, summed over CTAs
  int64_t masked_tiles = 0;        // of which charged masking work
  int64_t wgmma_instructions = 0;  // whole kernel
  int64_t tma_loads = 0;           // TMA copies (a 128-byte-wide box each)
  int64_t tma_stores = 0;
  int64_t load_bytes = 0;   // shared-memory bytes delivered, out-of-bounds fill included
  int64_t store_bytes = 0;  // box bytes stored (TMA clips out-of-bounds rows)
  double flops = 0;         // 4 * rows * D per K/V tile row, as the tensor cores execute it
};
AttentionCounts attention_counts(const AttentionSpec& spec);

}  // namespace asyncsim::workloads
