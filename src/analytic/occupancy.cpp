#include "analytic/occupancy.h"

#include <algorithm>
#include <utility>

#include "util/error.h"

namespace asyncsim::analytic {
namespace {

constexpr int64_t kMbarrierBytes = 8;
constexpr int kFp32PerReg = 1;
constexpr int kFp16PerReg = 2;

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

// Live-tile registers per thread rounded up to the allocation granule of 8, plus the overhead,
// capped at the architectural 255.
int estimated_regs(int64_t tile_regs_total, int threads) {
  const int64_t per_thread = ceil_div(tile_regs_total, threads) + kRegOverheadPerThread;
  return static_cast<int>(std::min<int64_t>(255, ceil_div(per_thread, 8) * 8));
}

}  // namespace

CtaResources gemm_cta_resources(const GemmShape& s) {
  const int64_t ring = s.stages * (int64_t{s.block_m} + s.block_n) * s.block_k * kFp16Bytes;
  const int64_t epilogue = int64_t{s.block_m} * s.block_n * kFp16Bytes;
  CtaResources r;
  r.smem_bytes = std::max(ring, epilogue) + s.stages * kMbarrierBytes;
  r.threads = s.warps * 32;
  const int64_t acc_regs = int64_t{s.block_m} * s.block_n / kFp32PerReg;
  r.regs_per_thread =
      s.regs_per_thread != 0 ? s.regs_per_thread : estimated_regs(acc_regs, r.threads);
  return r;
}

CtaResources attention_cta_resources(const AttentionShape& s) {
  const int64_t q_tile = int64_t{s.block_m} * s.head_dim * kFp16Bytes;
  const int64_t kv_ring = s.stages * 2 * int64_t{s.block_n} * s.head_dim * kFp16Bytes;
  CtaResources r;
  r.smem_bytes = q_tile + kv_ring + s.stages * 2 * kMbarrierBytes;
  r.threads = s.warps * 32;
  // O accumulator and S = QKᵀ in fp32, P in fp16 (the A operand of the P·V wgmma).
  const int64_t live = int64_t{s.block_m} * s.head_dim / kFp32PerReg +
                       int64_t{s.block_m} * s.block_n / kFp32PerReg +
                       int64_t{s.block_m} * s.block_n / kFp16PerReg;
  r.regs_per_thread = s.regs_per_thread != 0 ? s.regs_per_thread : estimated_regs(live, r.threads);
  return r;
}

Occupancy occupancy(const CtaResources& cta, const GpuConfig& gpu, const char* where) {
  if (cta.smem_bytes > gpu.sm.smem_per_cta_max) {
    throw_input_error(where, "shared memory per CTA {} B exceeds sm.smem_per_cta_max {} B",
                      cta.smem_bytes, gpu.sm.smem_per_cta_max);
  }
  const int64_t warps = ceil_div(cta.threads, 32);
  const int64_t regs_per_warp =
      ceil_div(int64_t{cta.regs_per_thread} * 32, kRegAllocUnitPerWarp) * kRegAllocUnitPerWarp;
  const int64_t smem_per_cta = cta.smem_bytes + gpu.sm.smem_reserved_per_cta;
  const int64_t by_smem = smem_per_cta > 0 ? gpu.sm.smem_bytes / smem_per_cta : gpu.sm.max_ctas;
  const int64_t by_regs = gpu.sm.registers / (regs_per_warp * warps);
  const int64_t by_threads = gpu.sm.max_threads / cta.threads;
  Occupancy o{gpu.sm.max_ctas, OccupancyLimit::kCtaSlots};
  // The smallest limit decides; on a tie the one listed first is reported.
  const std::pair<int64_t, OccupancyLimit> limits[] = {{by_smem, OccupancyLimit::kSharedMemory},
                                                       {by_regs, OccupancyLimit::kRegisters},
                                                       {by_threads, OccupancyLimit::kThreads}};
  for (const auto& [count, limit] : limits) {
    if (count < o.ctas_per_sm) {
      o = {static_cast<int>(count), limit};
    }
  }
  if (o.ctas_per_sm < 1) {
    throw_input_error(
        where, "one CTA does not fit on an SM ({} limit: {} B shared, {} threads, {} regs/thread)",
        to_string(o.limit), cta.smem_bytes, cta.threads, cta.regs_per_thread);
  }
  return o;
}

const char* to_string(OccupancyLimit limit) {
  switch (limit) {
    case OccupancyLimit::kSharedMemory:
      return "shared_memory";
    case OccupancyLimit::kRegisters:
      return "registers";
    case OccupancyLimit::kThreads:
      return "threads";
    case OccupancyLimit::kCtaSlots:
      return "cta_slots";
  }
  return "?";
}

}  // namespace asyncsim::analytic
