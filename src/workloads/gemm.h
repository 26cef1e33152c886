// The TMA + wgmma GEMM generator. C[M,N] = A[M,K] * B[N,K]^T, fp16 in, fp32 accumulate, fp16
// out; A and B K-contiguous, C row-major; tile BM x BN x BK; CTA pid computes tile
// (pid / cdiv(N,BN), pid % cdiv(N,BN)) in launch order. See docs/workloads.md for the exact
// instruction streams of each variant (they follow what Triton 3.6 emits for Hopper).
#pragma once

#include <cstdint>
#include <string>

#include "config/gpu_config.h"
#include "program/ir.h"

namespace asyncsim::workloads {

enum class GemmVariant : uint8_t { kPipelined, kWarpSpecialized, kPersistent };
enum class WgmmaSerialization : uint8_t { kAuto, kOn, kOff };

struct GemmSpec {
  int64_t m = 4096;
  int64_t n = 4096;
  int64_t k = 4096;
  int bm = 128;
  int bn = 128;
  int bk = 64;
  int stages = 3;
  int warps = 4;  // consumer warps: warps / 4 warpgroups split BM
  GemmVariant variant = GemmVariant::kPipelined;
  program::DType dtype = program::DType::kF16;
  // Whether each wgmma waits for the previous (ptxas serialisation seen in the H200 SASS).
  WgmmaSerialization wgmma_serialization = WgmmaSerialization::kAuto;
  // Persistent variant: tiles in groups of group_m tile rows, as Triton's tutorials order them
  // (GROUP_SIZE_M); 1 is row-major.
  int group_m = 1;
  // Persistent variant: CTAs launched (0: one per free CTA slot of the GPU, at most one per
  // tile; Triton's tutorial launches min(#SMs, tiles)).
  int64_t ctas = 0;
};

// Parses "128x128x64". Throws InputError naming `flag` on a bad tile.
void parse_tile(const std::string& text, GemmSpec& spec, const std::string& flag);
GemmVariant parse_gemm_variant(const std::string& text, const std::string& flag);

// Bytes of the kernel's machine code (its cold fetch at launch, sm.code_fetch_bytes_per_cycle):
// the Triton 3.6 SASS measured for the tutorial kernel (validation/data/h200/sass), and for the
// persistent kernel, whose SASS was not dumped, its PTX size (validation/data/h200/ptx) times
// the tutorial kernel's SASS bytes per PTX character (0.265).
int64_t gemm_code_bytes(const GemmSpec& spec);

// Shared memory and registers per CTA the way Triton allocates them for this tile.
int64_t gemm_smem_bytes(const GemmSpec& spec);
int gemm_regs_per_thread(const GemmSpec& spec);

// Builds the program; `config` sizes the persistent grid. Throws InputError on impossible specs.
program::Kernel build_gemm(const GemmSpec& spec, const GpuConfig& config);

// Instruction counts the spec implies (used by tests and `asyncsim gemm --explain`).
struct GemmCounts {
  int64_t ctas = 0;
  int64_t k_iterations = 0;         // per output tile
  int64_t wgmma_per_iteration = 0;  // per warpgroup
  int64_t tma_loads = 0;            // whole kernel
  int64_t tma_stores = 0;           // whole kernel
  int64_t wgmma_instructions = 0;   // whole kernel
};
GemmCounts gemm_counts(const GemmSpec& spec);

}  // namespace asyncsim::workloads
