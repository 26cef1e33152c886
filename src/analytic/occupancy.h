// How many CTAs of a kernel fit on one SM at once, from the per-CTA resource demand and the
// SM limits of the configured GPU. The wave model (wave.h) uses sm.count × this as wave size.
#pragma once

#include <cstdint>

#include "analytic/shapes.h"
#include "config/gpu_config.h"

namespace asyncsim::analytic {

struct CtaResources {
  int64_t smem_bytes = 0;  // dynamic shared memory, before the per-CTA system reserve
  int threads = 0;
  int regs_per_thread = 0;
};

// The limit that decided ctas_per_sm, for reports.
enum class OccupancyLimit : uint8_t { kSharedMemory, kRegisters, kThreads, kCtaSlots };

struct Occupancy {
  int ctas_per_sm = 0;
  OccupancyLimit limit = OccupancyLimit::kCtaSlots;
};

// Registers are allocated per warp in units of 256 (CUDA occupancy calculator, cc 9.0).
constexpr int kRegAllocUnitPerWarp = 256;
// Registers a thread needs beyond its share of the live fp32/fp16 tiles (addresses, loop
// counters, descriptors, softmax row state). Assumption, the same as the GEMM generator's
// (src/workloads/gemm.cpp) so both paths see the same occupancy; overridable with --regs.
constexpr int kRegOverheadPerThread = 40;

// Per-CTA demand of the generated GEMM: the stage ring of A and B tiles; the epilogue C tile
// reuses the ring's space once the K loop is done (Triton's liveness-based allocator), so the
// larger of the two counts. One 8-byte mbarrier per stage.
CtaResources gemm_cta_resources(const GemmShape& shape);

// Per-CTA demand of the attention kernel: the Q tile (the O tile reuses it after the loop) plus
// `stages` buffers each of one K and one V tile; one 8-byte mbarrier per buffer.
CtaResources attention_cta_resources(const AttentionShape& shape);

// CTAs per SM; throws InputError (where = `where`) if one CTA does not fit at all.
Occupancy occupancy(const CtaResources& cta, const GpuConfig& gpu, const char* where);

const char* to_string(OccupancyLimit limit);

}  // namespace asyncsim::analytic
