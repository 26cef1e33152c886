// What a kernel asks of one CTA slot and of the device, checked before anything is built for it:
// shared memory (with sm.smem_reserved_per_cta, mbarriers included), threads, registers, and the
// bytes its tensor maps cover against dram.capacity_bytes. A request no SM or device of the config
// could hold is an InputError naming it (exit 2), not a deadlock or an allocation without end.
#pragma once

#include "config/gpu_config.h"
#include "program/ir.h"

namespace asyncsim {

void check_resources(const program::Kernel& k, const GpuConfig& c);

}  // namespace asyncsim
