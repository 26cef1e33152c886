// The per-SM tensor engine: one pipeline shared by every warpgroup on the SM. A wgmma occupies
// it for FLOPs / rate (m64nNk16 FP16 at 4096 FLOP/cycle: N/2 cycles, the Sim-FA latency law at
// large N) and completes `latency` cycles after its service ends. Service is FIFO in issue
// order, so a group's completion time is known when it is issued.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

#include "config/gpu_config.h"
#include "mem/mem_bits.h"
#include "program/ir.h"
#include "util/time.h"

namespace asyncsim {

// tensor.cta_jitter's factor on CTA `cta`'s wgmma service: 1 + jitter * u, u uniform in
// [-1, 1) by a hash of the CTA id (mix64, as the TMA engine's), the same in every run; 1 at 0.
inline double cta_tensor_factor(double jitter, int64_t cta) {
  if (jitter <= 0) {
    return 1.0;
  }
  const uint64_t x = mix64(static_cast<uint64_t>(cta) * 0x9e3779b97f4a7c15ULL);
  return 1.0 + jitter * (static_cast<double>(x >> 11) * 0x1.0p-52 - 1.0);
}

class TensorEngine {
 public:
  static constexpr int kMaxQueue = 64;

  // `slowdown` multiplies every service time (tensor.slow_factor on tensor.slow_gpcs, else 1).
  TensorEngine(const TensorParams& params, double smem_bytes_per_cycle, const ClockDomain& clock,
               double slowdown = 1.0)
      : m_params(params),
        m_smem_bytes_per_cycle(smem_bytes_per_cycle),
        m_clock(clock),
        m_slowdown(slowdown) {}

  // Earliest time at or after t at which one more instruction fits in the pipe's queue: with
  // tensor.queue_depth instructions issued and not yet through the pipe, the next waits until the
  // oldest of them has left it (the end of its service).
  Time accept_time(Time t) const {
    const int depth = m_params.queue_depth;
    if (depth <= 0 || m_instructions < static_cast<uint64_t>(depth)) {
      return t;
    }
    return std::max(t, m_service_end[(m_instructions - depth) % kMaxQueue]);
  }

  // Issues one m64nNkK instruction at time t; returns its completion time. The pipe is held for
  // the longer of the math (FLOPs / rate) and the shared-memory operand fetch: B is N x K, and
  // A (64 x K) too unless it comes from registers (micro_wgmma.csv: N=16 occupies ~20 cycles).
  // `factor` scales this instruction's service (tensor.cta_jitter's per-CTA factor).
  Time issue(program::DType dtype, int n, bool a_in_registers, Time t, double factor = 1.0) {
    const int k = program::wgmma_k(dtype);
    const double flops = 2.0 * 64.0 * n * k;
    const double operand_bytes =
        static_cast<double>((n + (a_in_registers ? 0 : 64)) * k * program::dtype_bytes(dtype));
    const Time service =
        m_clock.cycles(factor * m_slowdown *
                       std::max(flops / rate(dtype), operand_bytes / m_smem_bytes_per_cycle));
    const Time start = std::max(t, m_free);
    m_free = start + service;
    m_busy += service;
    m_flops += flops;
    m_service_end[m_instructions % kMaxQueue] = m_free;
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
      case program::DType::kF32:
        return m_params.tf32_flops;
      case program::DType::kFP8E4M3:
      case program::DType::kFP8E5M2:
        return m_params.fp8_flops;
      default:
        return m_params.fp16_flops;
    }
  }

  const TensorParams& m_params;
  double m_smem_bytes_per_cycle;
  ClockDomain m_clock;
  double m_slowdown;
  Time m_free = 0;
  Time m_busy = 0;
  std::array<Time, kMaxQueue> m_service_end{};  // by issue order, the last kMaxQueue

  double m_flops = 0;
  uint64_t m_instructions = 0;
};

}  // namespace asyncsim
