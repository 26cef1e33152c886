// The memory system's DRAM side without the HBM model (src/mem/hbm.cpp): its write path and the
// flat channel model (no `dram.*` timing). Split from memory_system.cpp; neither is inlined
// into access() (each was a call there already).
#include <algorithm>
#include <bit>

#include "mem/memory_system.h"

namespace asyncsim {

void MemorySystem::dram_write(uint64_t line, uint8_t mask, Time t) {
  const int bytes = sector_count(mask) * m_sector_bytes;
  m_stats.dram_write_bytes += static_cast<uint64_t>(bytes);
  if (!m_regions.empty()) {
    region_of(line).dram_write_bytes += static_cast<uint64_t>(bytes);
  }
  if (m_bin_ps > 0) {
    bin(m_write_bins, t, bytes);
  }
  if (m_hbm) {
    const int first = std::countr_zero(mask) * m_sector_bytes;
    m_hbm->access(line * static_cast<uint64_t>(m_line_bytes) + static_cast<uint64_t>(first),
                  std::min(bytes, m_line_bytes - first), true, t);
    return;
  }
  dram_transfer(line, bytes, t);
}

Time MemorySystem::dram_transfer(uint64_t line, int bytes, Time t) {
  const uint64_t granule = line * static_cast<uint64_t>(m_line_bytes) /
                           static_cast<uint64_t>(m_config.mem.dram_interleave_bytes);
  const size_t ch = mix64(granule) % m_channel_free.size();
  const Time start = std::max(t, m_channel_free[ch]);
  const auto busy = static_cast<Time>(bytes * m_channel_ps_per_byte + 0.5);
  m_channel_free[ch] = start + busy;
  m_stats.dram_busy_ps += busy;
  return start + busy;
}

}  // namespace asyncsim
