// The result of the closed-form fast path for one workload on one GPU: FLOPs, traffic at L2 and
// DRAM under the ideal-cache and wave models, and roofline times (docs/analytic.md has every
// formula with its Sim-FA equation number).
#pragma once

#include <cstdint>

#include "analytic/occupancy.h"
#include "config/gpu_config.h"

namespace asyncsim::analytic {

struct Estimate {
  // Grid and concurrency.
  int64_t ctas = 0;
  Occupancy occupancy;
  int64_t wave_ctas = 0;  // sm.count × ctas_per_sm: CTAs resident at once
  int64_t waves = 0;      // ceil(ctas / wave_ctas)

  // Work. `flops` counts the useful multiply-adds (Sim-FA Eq. 1; causal: unmasked pairs only);
  // `flops_executed` counts whole tiles as the tensor cores execute them (roofline input).
  double flops = 0;
  double flops_executed = 0;

  // L2 traffic requested by CTAs (Sim-FA Eq. 2 / §VIII "Eq. 8"), in-bounds bytes of each TMA
  // box rounded up to sectors; `_boxes` counts whole boxes including out-of-bounds parts.
  int64_t l2_read_bytes = 0;
  int64_t l2_write_bytes = 0;
  int64_t l2_bytes_boxes = 0;

  // DRAM traffic. Ideal cache (Sim-FA Eq. 3): every input once, output once. Wave model
  // (Sim-FA Eq. 5-6): the reused operand is re-read once per wave that touches it when the
  // reusable working set exceeds analytic.effective_l2_bytes (Sim-FA Eq. 4).
  int64_t dram_read_bytes_ideal = 0;
  int64_t dram_read_bytes_wave = 0;
  int64_t dram_write_bytes = 0;
  int64_t reuse_set_bytes = 0;  // the working set Eq. 4 compares with effective L2
  bool reuse_fits = true;

  int64_t l2_bytes() const { return l2_read_bytes + l2_write_bytes; }
  int64_t dram_bytes_ideal() const { return dram_read_bytes_ideal + dram_write_bytes; }
  int64_t dram_bytes_wave() const { return dram_read_bytes_wave + dram_write_bytes; }
};

// Roofline times in microseconds from the measured ceilings of the config
// (analytic.tensor_tflops, dram.bandwidth_gbs).
struct Roofline {
  double compute_us = 0;
  double memory_us = 0;  // wave-model bytes
  double total_us = 0;   // max of the two
  bool memory_bound = false;
};

Roofline roofline(double flops, int64_t dram_bytes, const GpuConfig& gpu);

// FLOP per DRAM byte; 0 when there is no traffic.
double arithmetic_intensity(double flops, int64_t dram_bytes);

}  // namespace asyncsim::analytic
