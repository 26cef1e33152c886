// The L2's tag and way arrays: which set a line indexes, the search of a set, victim choice
// (LRU, RRIP, clean-first) and the remote-copy proxy's near copies (Sim-FA §IV-C). The request
// path that uses them is memory_system.cpp.
#include <algorithm>
#include <array>

#include "mem/memory_system.h"

namespace asyncsim {

size_t MemorySystem::mix_set(uint64_t line) const {
  return static_cast<size_t>(mix64(line) % static_cast<uint64_t>(m_sets));
}

MemorySystem::Way* MemorySystem::lookup(int slice, uint64_t line, int& set_out) {
  set_out = static_cast<int>(set_of(line));
  const size_t base = (static_cast<size_t>(slice) * m_sets + static_cast<size_t>(set_out)) *
                      static_cast<size_t>(m_ways);
  const uint64_t* tags = &m_tags[base];
  for (int w = 0; w < m_ways; ++w) {
    if (tags[w] == line) {
      return &m_ways_storage[base + static_cast<size_t>(w)];
    }
  }
  return nullptr;
}

MemorySystem::Way& MemorySystem::allocate(int slice, int set, uint64_t line, Time t,
                                          uint8_t insert) {
  const size_t base = (static_cast<size_t>(slice) * m_sets + static_cast<size_t>(set)) *
                      static_cast<size_t>(m_ways);
  const size_t end = base + static_cast<size_t>(m_ways);
  size_t victim = base;
  if (m_rrip) {
    // An empty way, else the most distant prediction (the least recently used among equals);
    // the set then ages by what the victim lacked of the most distant value, so the next
    // eviction finds one there when the prediction of no line improved meanwhile.
    uint8_t distant = 0;
    uint32_t oldest = UINT32_MAX;
    bool full = true;
    for (size_t w = base; w < end; ++w) {
      if (m_tags[w] == UINT64_MAX) {
        victim = w;
        full = false;
        break;
      }
      const Way& way = m_ways_storage[w];
      if (way.rrpv > distant || (way.rrpv == distant && way.lru < oldest)) {
        distant = way.rrpv;
        oldest = way.lru;
        victim = w;
      }
    }
    if (full && distant < m_rrip_max) {
      const auto age = static_cast<uint8_t>(m_rrip_max - distant);
      for (size_t w = base; w < end; ++w) {
        m_ways_storage[w].rrpv = static_cast<uint8_t>(m_ways_storage[w].rrpv + age);
      }
    }
    return install(victim, line, t, insert);
  }
  size_t clean = SIZE_MAX;  // the least recently used way read only once (clean-first on)
  bool full = true;
  const bool clean_first = m_clean_first_threshold != 0;
  // The oldest stamps so far live in registers: comparing against the victim's stamp in memory
  // made every way wait for the previous one's compare (a load in the loop-carried chain).
  uint32_t oldest = UINT32_MAX;
  uint32_t oldest_clean = UINT32_MAX;
  for (size_t w = base; w < base + static_cast<size_t>(m_ways); ++w) {
    if (m_tags[w] == UINT64_MAX) {
      victim = w;
      full = false;
      break;
    }
    const Way& way = m_ways_storage[w];
    const uint32_t lru = way.lru;
    if (lru < oldest) {
      oldest = lru;
      victim = w;
    }
    if (clean_first && way.reused == 0 && (clean == SIZE_MAX || lru < oldest_clean)) {
      oldest_clean = lru;
      clean = w;
    }
  }
  if (full && clean != SIZE_MAX && clean_first_now()) {
    // Only a line among the l2.clean_first_ways least recently used: one just filled, whose
    // other readers are still on their way, stays.
    int older = 0;
    for (size_t w = base; w < base + static_cast<size_t>(m_ways); ++w) {
      older += m_ways_storage[w].lru < m_ways_storage[clean].lru ? 1 : 0;
    }
    if (older < m_config.mem.l2_clean_first_ways) {
      victim = clean;
    }
  }
  return install(victim, line, t, insert);
}

MemorySystem::Way& MemorySystem::install(size_t victim, uint64_t line, Time t, uint8_t insert) {
  if (m_tags[victim] != UINT64_MAX && m_ways_storage[victim].dirty) {
    dram_write(m_tags[victim], m_ways_storage[victim].dirty, t);
  }
  m_tags[victim] = line;
  m_ways_storage[victim] = Way{};
  m_ways_storage[victim].rrpv = insert;
  return m_ways_storage[victim];
}

bool MemorySystem::clean_first_now() {
  return m_clean_first_threshold == UINT64_MAX ||
         mix64(++m_evictions * 0x9e3779b97f4a7c15ULL) < m_clean_first_threshold;
}

// Remote-copy proxy: a near slice may hold a clean copy of a far line.
bool MemorySystem::near_copy_serves(int proxy, uint64_t line, uint8_t sectors, Time arrive,
                                    Time& ready, CopySlot& slot) {
  Way* way = lookup(proxy, line, slot.set);
  slot.way = way;
  if (!way || (sectors & ~way->valid) != 0) {
    return false;
  }
  const Time start = reserve_slice(proxy, arrive, sector_count(sectors) * m_sector_bytes);
  touch(*way, proxy);
  way->reused = 1;
  m_served_way = index_of(way);
  ++m_slice_stats[proxy].copy_hits;
  m_slice_stats[proxy].read_hits += static_cast<uint64_t>(sector_count(sectors));
  ready = std::max(start, way->fill_time);
  return true;
}

void MemorySystem::insert_copy(int proxy, uint64_t line, uint8_t sectors, Time now, Time ready,
                               bool reused, const CopySlot* known) {
  const double p = m_config.mem.l2_remote_copy_probability;
  if (p < 1.0 && static_cast<double>(mix64(line * 0x9e3779b97f4a7c15ULL) >> 11) * 0x1.0p-53 >= p) {
    return;
  }
  int set = 0;
  Way* way = nullptr;
  if (known) {  // the proxy's set was searched for this line already, and has not changed since
    set = known->set;
    way = known->way;
  } else {
    way = lookup(proxy, line, set);
  }
  const uint8_t insert = reused ? m_write_insert : m_read_insert;
  if (!way) {
    way = &allocate(proxy, set, line, now, insert);  // a dirty victim's write-back starts now
    ++m_slice_stats[proxy].copy_inserts;
  }
  way->valid |= sectors;
  way->reused |= reused ? 1 : 0;
  way->rrpv = std::min(way->rrpv, insert);
  way->lru = ++m_lru_clock[proxy];
  way->fill_time = std::max(way->fill_time, ready);
}

}  // namespace asyncsim
