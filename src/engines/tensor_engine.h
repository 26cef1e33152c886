// The per-SM tensor engine: one pipeline shared by every warpgroup on the SM. A wgmma occupies
// it for FLOPs / rate (m64nNk16 FP16 at 4096 FLOP/cycle: N/2 cycles, the Sim-FA latency law at
// large N) and completes `latency` cycles after its service ends. Service is FIFO in issue
// order, so a group's completion time is known when it is issued.
#pragma once

#include <algorithm>

#include "config/gpu_config.h"
#include "program/ir.h"
#include "util/time.h"

namespace asyncsim {

class TensorEngine {
 public:
  TensorEngine(const TensorParams& params, const ClockDomain& clock)
      : m_params(params), m_clock(clock) {}

  // Issues one m64nNkK instruction at time t; returns its completion time.
  Time issue(program::DType dtype, int n, Time t) {
    const double flops = 2.0 * 64.0 * n * program::wgmma_k(dtype);
    const Time service = m_clock.cycles(flops / rate(dtype));
    const Time start = std::max(t, m_free);
    m_free = start + service;
    m_busy += service;
    m_flops += flops;
    ++m_instructions;
    return m_free + m_clock.cycles(m_params.latency_cycles);
  }

  Time busy_ps() const { return m_busy; }
  double flops() const { return m_flops; }
  uint64_t instructions() const { return m_instructions; }

 private:
  double rate(program::DType dtype) const {
    switch (dtype) {
      case program::DType::kTF32:
      case program::DType::kF32: return m_params.tf32_flops;
      case program::DType::kFP8E4M3:
      case program::DType::kFP8E5M2: return m_params.fp8_flops;
      default: return m_params.fp16_flops;
    }
  }

  const TensorParams& m_params;
  ClockDomain m_clock;
  Time m_free = 0;
  Time m_busy = 0;
  double m_flops = 0;
  uint64_t m_instructions = 0;
};

}  // namespace asyncsim
