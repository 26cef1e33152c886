// A small GPU for hand-checked cases: the H200 config with a few SMs and round ceilings.
#pragma once

#include <string>
#include <vector>

#include "config/gpu_config.h"

namespace asyncsim::analytic::testing {

inline GpuConfig small_gpu(int sms, int64_t effective_l2) {
  GpuConfig gpu =
      load_gpu_config("h200", {"sm.gpcs=1", "sm.tpc_gpcs=", "sm.count=" + std::to_string(sms),
                               "analytic.effective_l2_bytes=" + std::to_string(effective_l2),
                               "analytic.tensor_tflops=1", "dram.bandwidth_gbs=1000"});
  return gpu;
}

}  // namespace asyncsim::analytic::testing
