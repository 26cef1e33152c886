#include "analytic/estimate.h"

#include <algorithm>

namespace asyncsim::analytic {

Roofline roofline(double flops, int64_t dram_bytes, const GpuConfig& gpu) {
  Roofline r;
  // TFLOP/s = 1e6 FLOP/us; GB/s = 1e3 B/us.
  r.compute_us = flops / (gpu.analytic.tensor_tflops * 1e6);
  r.memory_us = static_cast<double>(dram_bytes) / (gpu.mem.dram_bandwidth_gbs * 1e3);
  r.total_us = std::max(r.compute_us, r.memory_us);
  r.memory_bound = r.memory_us > r.compute_us;
  return r;
}

double arithmetic_intensity(double flops, int64_t dram_bytes) {
  return dram_bytes > 0 ? flops / static_cast<double>(dram_bytes) : 0.0;
}

}  // namespace asyncsim::analytic
