// The L2's tag and way arrays: which set a line indexes, the search of a set, victim choice
// (LRU, RRIP, clean-first: src/mem/l2_victim.h) and the remote-copy proxy's near copies (Sim-FA
// §IV-C), and the write-back of dirty lines at a kernel's end. The request path that uses them is
// memory_system.cpp.
#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "mem/l2_victim.h"
#include "mem/memory_system.h"
#include "util/error.h"

namespace asyncsim {

// The slice hash's tables (slice_of(), l2.hash=ipoly, in memory_system.cpp).
void MemorySystem::build_ipoly_tables() {
  // Primitive polynomials of degree 0..10 (bit k set = x^k).
  static constexpr uint32_t kPoly[] = {0x1,  0x3,  0x7,   0xB,   0x13, 0x25,
                                       0x43, 0x83, 0x11D, 0x211, 0x409};
  uint64_t n = static_cast<uint64_t>(m_num_slices);
  int k = 0;
  while (n % 2 == 0 && k < 10) {
    n /= 2;
    ++k;
  }
  m_hash_odd = (static_cast<uint64_t>(m_num_slices) >> k);
  m_hash_pow2 = static_cast<uint64_t>(m_num_slices) / m_hash_odd;
  m_odd_div = FastDiv(m_hash_odd);
  m_slice_div = FastDiv(static_cast<uint64_t>(m_num_slices));
  m_set_div = FastDiv(static_cast<uint64_t>(m_sets));
  const uint64_t poly = kPoly[k];
  std::array<uint64_t, 64> power{};  // x^i mod poly
  uint64_t v = 1;
  for (int i = 0; i < 64; ++i) {
    power[static_cast<size_t>(i)] = k == 0 ? 0 : v;
    v <<= 1;
    if (k > 0 && (v >> k) & 1) {
      v ^= poly;
    }
  }
  // The partition is the parity of the granule's address bits but its bits 2 and 4 (see
  // slice_of()): of the line's bits under this mask.
  // The tables see the slice key (slice_key(): the line less l2.slice_skip_line_bits, all of
  // them below the partition granule).
  const uint64_t part_mask =
      m_granule_shift == 0 ? 0 : ~uint64_t{0x14} << (m_granule_shift - m_slice_skip);
  m_ipoly_table.assign(8 * 256, 0);
  m_odd_residue.assign(8 * 256, 0);
  const bool block = m_config.mem.l2_hash_odd_by_block;
  if (block && k > 8) {
    throw_input_error("l2.hash_odd_by_block",
                      "needs at most 2^8 as the power-of-two factor of l2.slices ({} = {} x 2^{})",
                      m_num_slices, m_hash_odd, k);
  }
  for (int byte = 0; byte < 8; ++byte) {
    for (int value = 0; value < 256; ++value) {
      uint64_t r = 0;
      for (int bit = 0; bit < 8; ++bit) {
        if (value & (1 << bit)) {
          r ^= power[static_cast<size_t>(byte * 8 + bit)];
        }
      }
      const uint64_t bits = static_cast<uint64_t>(value) << (8 * byte);
      const auto i = static_cast<size_t>(byte) * 256 + static_cast<size_t>(value);
      m_ipoly_table[i] = static_cast<uint32_t>(r) |
                         static_cast<uint32_t>(__builtin_parityll(bits & part_mask)) << kPartBit;
      // l2.hash_odd_by_block: (line >> k) mod odd, byte by byte (k <= 8: no bit of an upper
      // byte falls below the block index).
      m_odd_residue[i] = static_cast<uint32_t>(m_odd_div.mod(block ? bits >> k : bits));
    }
  }
}

void MemorySystem::fill_slice_hash_slot(uint64_t upper, SliceHashSlot& slot) const {
  uint32_t bits = 0;
  uint32_t residue = 0;
  size_t table = 256;
  for (uint64_t rest = upper; rest != 0; rest >>= 8, table += 256) {
    bits ^= m_ipoly_table[table + (rest & 0xFF)];
    residue += m_odd_residue[table + (rest & 0xFF)];
  }
  slot.upper = upper;
  slot.bits = bits;
  // l2.hash_rotate_residue: a rotation per slot (the slot is the aligned 256-line run), so it
  // costs nothing per request.
  const uint64_t rotation = m_rotate_residue ? m_odd_div.mod(mix64(upper) >> 32) : 0;
  slot.residue = static_cast<uint32_t>(m_odd_div.mod(residue + rotation));
}

size_t MemorySystem::mix_set(uint64_t line) const {
  return static_cast<size_t>(mix64(line) % static_cast<uint64_t>(m_sets));
}

void MemorySystem::write_back(WayRef r, Time t) {
  dram_write(tag(r), dirty(r), t);
  dirty(r) = 0;
}

// Inlined into insert_copy(), its only caller.
[[gnu::always_inline]] inline MemorySystem::WayRef MemorySystem::allocate_copy(uint32_t row,
                                                                               uint64_t line,
                                                                               Time t,
                                                                               uint8_t insert) {
  const auto ways = static_cast<uint32_t>(m_ways);
  if (m_copy_limit < ways) {
    const uint8_t* flags = reused_row(row);
    const uint8_t* age = age_row(row);
    uint32_t copies = 0;
    uint8_t oldest = 0;
    uint32_t victim = 0;
    for (uint32_t w = 0; w < ways; ++w) {
      if ((flags[w] & kCopy) != 0 && age[w] != 0) {
        ++copies;
        if (age[w] > oldest) {
          oldest = age[w];
          victim = w;
        }
      }
    }
    if (copies >= m_copy_limit && copies > 0) {
      return install({row, victim}, line, t, insert);
    }
  }
  return allocate(row, line, t, insert);
}

// Remote-copy proxy: a near slice may hold a clean copy of a far line.
bool MemorySystem::near_copy_serves(int proxy, WayRef slot, uint8_t sectors, Time arrive,
                                    Time& ready) {
  if (!slot.found() || (sectors & ~valid(slot)) != 0) {
    return false;
  }
  const int nsect = sector_count(sectors);
  // (l2.mshr_queue_lines: behind the misses waiting for MSHRs, part of the slice's queue)
  const Time start =
      reserve_slice(proxy, m_queue_lines > 0 ? queue_behind_stalls(proxy, arrive) : arrive, nsect);
  touch(slot);
  reused(slot) |= kReused;
  m_served_way = slot;
  ++m_slice_stats[proxy].copy_hits;
  m_slice_stats[proxy].read_hits += static_cast<uint64_t>(nsect);
  if (m_bin_ps > 0) {
    bin(m_l2_hit_bins, start, nsect * m_sector_bytes);
  }
  ready = std::max(start, fill_time(slot));
  m_stats.read_latency.slice_queue += start - arrive;
  m_stats.read_latency.fill += ready - start;
  return true;
}

void MemorySystem::insert_copy(int proxy, uint64_t line, uint8_t sectors, Time now, Time ready,
                               bool reused_line, WayRef slot) {
  const double p = m_copy_probability;
  if (p < 1.0 && static_cast<double>(mix64(line * 0x9e3779b97f4a7c15ULL) >> 11) * 0x1.0p-53 >= p) {
    return;
  }
  const uint8_t insert = reused_line ? m_write_insert : m_read_insert;
  if (!slot.found()) {
    slot = allocate_copy(slot.row, line, now, insert);  // a dirty victim's write-back starts now
    reused(slot) = kCopy;
    ++m_slice_stats[proxy].copy_inserts;
  }
  valid(slot) |= sectors;
  reused(slot) |= reused_line ? kReused : 0;
  rrpv(slot) = std::min(rrpv(slot), insert);
  stamp(slot);
  fill_time(slot) = std::max(fill_time(slot), ready);
}

// Every dirty line of the arrays written back at `end` (l2.flush_dirty_at_end).
void MemorySystem::flush_dirty(Time end) {
  const auto ways = static_cast<uint32_t>(m_ways);
  const auto rows = static_cast<uint32_t>(m_lines.size() / ways);
  for (uint32_t row = 0; row < rows; ++row) {
    for (uint32_t w = 0; w < ways; ++w) {
      const WayRef r{row, w};
      if (dirty(r) != 0) {
        dram_write(tag(r), dirty(r), end);
        dirty(r) = 0;
      }
    }
  }
}

// The ways that were older than `r` one younger, `r` the oldest of the stamped ways (a way
// without a stamp becomes one more stamped way, the oldest).
void MemorySystem::demote(WayRef r) {
  uint8_t* age = age_row(r.row);
  const uint8_t old = age[r.w];
  uint8_t stamped = 0;
  for (int w = 0; w < m_ways; ++w) {
    stamped = static_cast<uint8_t>(stamped + (age[w] != 0 ? 1 : 0));
    age[w] = static_cast<uint8_t>(age[w] - (old != 0 && age[w] > old ? 1 : 0));
  }
  age[r.w] = old == 0 ? static_cast<uint8_t>(stamped + 1) : stamped;
}

}  // namespace asyncsim
