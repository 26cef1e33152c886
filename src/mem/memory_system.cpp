#include "mem/memory_system.h"

#include <algorithm>
#include <bit>

namespace asyncsim {
namespace {

uint64_t mix64(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

// IPOLY-style hash: the line index reduced modulo an irreducible polynomial over GF(2),
// which spreads power-of-two strides evenly (Rau, ISCA'91).
uint64_t ipoly(uint64_t line) {
  constexpr uint64_t kPoly = 0x1002d;  // x^16 + x^5 + x^3 + x^2 + 1
  uint64_t r = line;
  for (int bit = 63; bit >= 16; --bit) {
    if (r & (uint64_t{1} << bit)) {
      r ^= kPoly << (bit - 16);
    }
  }
  return r;
}

}  // namespace

MemorySystem::MemorySystem(const GpuConfig& config, const ClockDomain& sm_clock)
    : m_config(config),
      m_l2_clock(ClockDomain::from_mhz(config.mem.l2_clock_mhz)),
      m_dram_clock(ClockDomain::from_mhz(config.mem.dram_clock_mhz)),
      m_num_slices(config.mem.l2_slices),
      m_sets(config.l2_sets()),
      m_ways(config.mem.l2_ways),
      m_sector_bytes(config.mem.sector_bytes),
      m_sectors_per_line(config.mem.line_bytes / config.mem.sector_bytes),
      m_line_bytes(config.mem.line_bytes) {
  (void)sm_clock;
  m_half_hit = m_l2_clock.cycles(config.mem.l2_hit_cycles / 2.0);
  m_half_far = m_l2_clock.cycles(config.mem.l2_far_extra_cycles / 2.0);
  m_write_ack = m_l2_clock.cycles(config.mem.l2_write_ack_cycles);
  m_dram_latency = m_dram_clock.cycles(config.mem.dram_latency_cycles);
  m_slice_ps_per_byte = m_l2_clock.period_ps / config.mem.l2_slice_bytes_per_cycle;
  const double channel_bytes_per_ps =
      config.mem.dram_bandwidth_gbs * 1e-3 / config.mem.dram_channels;
  m_channel_ps_per_byte = 1.0 / channel_bytes_per_ps;
  m_ways_storage.resize(static_cast<size_t>(m_num_slices) * m_sets * m_ways);
  m_lru_clock.assign(m_num_slices, 0);
  m_slice_free.assign(m_num_slices, 0);
  m_channel_free.assign(config.mem.dram_channels, 0);
  m_mshr_ring.assign(static_cast<size_t>(m_num_slices) * config.mem.l2_mshrs_per_slice, 0);
  m_mshr_head.assign(m_num_slices, 0);
  m_mshr_count.assign(m_num_slices, 0);
  m_slice_stats.resize(m_num_slices);
}

int MemorySystem::slice_of(uint64_t line) const {
  const auto n = static_cast<uint64_t>(m_num_slices);
  switch (m_config.mem.l2_hash) {
    case SliceHash::kModulo: return static_cast<int>(line % n);
    case SliceHash::kXor: return static_cast<int>((line ^ (line >> 5)) % n);
    case SliceHash::kIpoly: return static_cast<int>(ipoly(line) % n);
  }
  return 0;
}

int MemorySystem::partition_of_sm(int sm) const {
  const int gpc = sm % m_config.sm.gpcs;
  return gpc < m_config.sm.gpcs / 2 ? 0 : 1;
}

MemorySystem::Way* MemorySystem::lookup(int slice, uint64_t line, int& set_out) {
  set_out = static_cast<int>(mix64(line) % static_cast<uint64_t>(m_sets));
  Way* base = &m_ways_storage[(static_cast<size_t>(slice) * m_sets + set_out) * m_ways];
  for (int w = 0; w < m_ways; ++w) {
    if (base[w].tag == line) {
      return &base[w];
    }
  }
  return nullptr;
}

MemorySystem::Way& MemorySystem::allocate(int slice, int set, uint64_t line, Time t) {
  Way* base = &m_ways_storage[(static_cast<size_t>(slice) * m_sets + set) * m_ways];
  Way* victim = base;
  for (int w = 0; w < m_ways; ++w) {
    if (base[w].tag == UINT64_MAX) {
      victim = &base[w];
      break;
    }
    if (base[w].lru < victim->lru) {
      victim = &base[w];
    }
  }
  if (victim->tag != UINT64_MAX && victim->dirty) {
    const int bytes = std::popcount(victim->dirty) * m_sector_bytes;
    m_stats.dram_write_bytes += static_cast<uint64_t>(bytes);
    dram_transfer(victim->tag, bytes, t);
  }
  *victim = Way{line, 0, 0, 0, 0};
  return *victim;
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

Time MemorySystem::wait_for_mshr(int slice, Time t) {
  const auto cap = static_cast<uint32_t>(m_config.mem.l2_mshrs_per_slice);
  Time* ring = &m_mshr_ring[static_cast<size_t>(slice) * cap];
  uint32_t& head = m_mshr_head[slice];
  uint32_t& count = m_mshr_count[slice];
  // Retire fills that completed by t.
  while (count > 0 && ring[head] <= t) {
    head = (head + 1) % cap;
    --count;
  }
  if (count < cap) {
    return t;
  }
  ++m_slice_stats[slice].mshr_stalls;
  const Time freed = ring[head];
  head = (head + 1) % cap;
  --count;
  return std::max(t, freed);
}

Time MemorySystem::access(const MemRequest& req, Time t) {
  ++m_stats.requests;
  ++m_stats.responses;
  const int slice = slice_of(req.line);
  SliceStats& ss = m_slice_stats[slice];
  const bool far = partition_of_slice(slice) != partition_of_sm(req.sm);
  ss.far_accesses += far ? 1 : 0;
  const Time one_way = m_half_hit + (far ? m_half_far : 0);
  const int nsect = std::popcount(req.sectors);
  const int bytes = nsect * m_sector_bytes;
  const Time arrive = t + one_way;
  const Time start = std::max(arrive, m_slice_free[slice]);
  m_slice_free[slice] = start + static_cast<Time>(bytes * m_slice_ps_per_byte + 0.5);
  int set = 0;
  Way* way = lookup(slice, req.line, set);
  if (req.write) {
    m_stats.l2_write_bytes += static_cast<uint64_t>(bytes);
    ss.writes += static_cast<uint64_t>(nsect);
    if (!way) {
      way = &allocate(slice, set, req.line, start);
    }
    way->valid |= req.sectors;
    way->dirty |= req.sectors;
    way->lru = ++m_lru_clock[slice];
    return t + m_write_ack + (far ? 2 * m_half_far : 0);
  }
  m_stats.l2_read_bytes += static_cast<uint64_t>(bytes);
  if (!way) {
    way = &allocate(slice, set, req.line, start);
  }
  way->lru = ++m_lru_clock[slice];
  const uint8_t missing = static_cast<uint8_t>(req.sectors & ~way->valid);
  Time data_ready = start;
  if (missing == 0) {
    ss.read_hits += static_cast<uint64_t>(nsect);
    if (way->fill_time > start) {
      ++ss.mshr_merges;
      data_ready = way->fill_time;
    }
  } else {
    const int miss_bytes = std::popcount(missing) * m_sector_bytes;
    ss.read_misses += static_cast<uint64_t>(std::popcount(missing));
    ss.read_hits += static_cast<uint64_t>(nsect - std::popcount(missing));
    m_stats.dram_read_bytes += static_cast<uint64_t>(miss_bytes);
    const Time issue = wait_for_mshr(slice, start);
    const Time fill = dram_transfer(req.line, miss_bytes, issue) + m_dram_latency;
    const auto cap = static_cast<uint32_t>(m_config.mem.l2_mshrs_per_slice);
    m_mshr_ring[static_cast<size_t>(slice) * cap + (m_mshr_head[slice] + m_mshr_count[slice]) % cap] =
        fill;
    ++m_mshr_count[slice];
    way->valid |= missing;
    way->fill_time = std::max(way->fill_time, fill);
    data_ready = way->fill_time;
  }
  return data_ready + one_way;
}

void MemorySystem::flush_dirty() {
  for (Way& w : m_ways_storage) {
    if (w.tag != UINT64_MAX && w.dirty) {
      m_stats.dram_write_bytes += static_cast<uint64_t>(std::popcount(w.dirty) * m_sector_bytes);
      w.dirty = 0;
    }
  }
}

}  // namespace asyncsim
