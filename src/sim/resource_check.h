// What a kernel asks of one CTA slot and of the device, checked before anything is built for it:
// shared memory (with sm.smem_reserved_per_cta, mbarriers included), threads, registers, and the
// bytes its tensor maps cover against dram.capacity_bytes. A request no SM or device of the config
// could hold is an InputError naming it (exit 2), not a deadlock or an allocation without end.
#pragma once

#include <cstdint>

#include "config/gpu_config.h"
#include "program/ir.h"

namespace asyncsim {

// What one resident CTA takes of its SM, as the SM admits it and as the checks judge it:
// registers allocated per warp in units of 256 (CUDA occupancy calculator), shared memory with
// the system's reserve.
int64_t cta_registers(const program::Kernel& k);
int64_t cta_shared_memory(const program::Kernel& k, const GpuConfig& c);

void check_resources(const program::Kernel& k, const GpuConfig& c);

}  // namespace asyncsim
