#include "sim/resource_check.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "util/error.h"

namespace asyncsim {

int64_t cta_registers(const program::Kernel& k) {
  return (k.regs_per_thread * 32 + 255) / 256 * 256 * (k.threads_per_cta() / 32);
}

int64_t cta_shared_memory(const program::Kernel& k, const GpuConfig& c) {
  return k.smem_bytes + c.sm.smem_reserved_per_cta;
}

void check_resources(const program::Kernel& k, const GpuConfig& c) {
  const std::string where = format_location(k.source, 0);
  if (k.smem_bytes > c.sm.smem_per_cta_max) {
    throw_input_error(where, "a CTA needs {} bytes of shared memory; {} allows at most {} per CTA",
                      k.smem_bytes, c.name, c.sm.smem_per_cta_max);
  }
  // An SM admits a CTA only while its shared memory holds it and the system's reserve
  // (sm.smem_bytes may be set below sm.smem_per_cta_max): a larger CTA would wait forever.
  if (cta_shared_memory(k, c) > c.sm.smem_bytes) {
    throw_input_error(where,
                      "a CTA needs {} bytes of shared memory (+ {} reserved, "
                      "sm.smem_reserved_per_cta); an SM has {} (sm.smem_bytes)",
                      k.smem_bytes, c.sm.smem_reserved_per_cta, c.sm.smem_bytes);
  }
  if (k.threads_per_cta() > c.sm.max_threads) {
    throw_input_error(where, "a CTA of {} threads exceeds the {} threads of an SM",
                      k.threads_per_cta(), c.sm.max_threads);
  }
  const int64_t regs = cta_registers(k);
  if (regs > c.sm.registers) {
    throw_input_error(where, "a CTA needs {} registers ({} per thread x {} threads); an SM has {}",
                      regs, k.regs_per_thread, k.threads_per_cta(), c.sm.registers);
  }
  // Each mbarrier is 8 bytes of the CTA's shared memory.
  int64_t barriers = 0;
  for (const auto& b : k.barriers) {
    barriers += b.size;
  }
  if (barriers * 8 > c.sm.smem_per_cta_max) {
    throw_input_error(where,
                      "a CTA's {} mbarriers need {} bytes of shared memory; {} allows at most {} "
                      "per CTA",
                      barriers, barriers * 8, c.name, c.sm.smem_per_cta_max);
  }
  // The tensors must fit in device memory: the bytes the tensor maps cover (their union, so two
  // maps over one buffer count it once).
  if (c.mem.dram_capacity_bytes > 0 && !k.maps.empty()) {
    std::vector<std::pair<uint64_t, uint64_t>> spans;
    for (const program::TensorMap& m : k.maps) {
      const auto extent = static_cast<uint64_t>(m.extent_bytes());
      spans.emplace_back(m.base, m.base + extent < m.base ? UINT64_MAX : m.base + extent);
    }
    std::sort(spans.begin(), spans.end());
    uint64_t covered = 0;
    uint64_t end = 0;
    for (const auto& [lo, hi] : spans) {
      const uint64_t from = std::max(lo, end);
      if (hi > from) {
        covered += hi - from;
        end = hi;
      }
    }
    if (covered > static_cast<uint64_t>(c.mem.dram_capacity_bytes)) {
      throw_input_error(where,
                        "the kernel's tensors cover {} bytes ({:.3g} GB); {} has {} bytes of "
                        "device memory (dram.capacity_bytes)",
                        covered, static_cast<double>(covered) * 1e-9, c.name,
                        c.mem.dram_capacity_bytes);
    }
  }
}

}  // namespace asyncsim
