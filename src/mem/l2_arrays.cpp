// The L2's tag and way arrays: which set a line indexes, the search of a set, victim choice
// (LRU, RRIP, clean-first) and the remote-copy proxy's near copies (Sim-FA §IV-C). The request
// path that uses them is memory_system.cpp.
#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "mem/memory_system.h"

namespace asyncsim {

namespace {

// The way among n holding `age`, which is there.
uint32_t way_of_age(const uint8_t* ages, uint32_t n, uint8_t age) {
  uint32_t w = 0;
#if defined(__SSE2__)
  const __m128i want = _mm_set1_epi8(static_cast<char>(age));
  for (; w + 16 <= n; w += 16) {
    const auto hits = static_cast<uint32_t>(_mm_movemask_epi8(
        _mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(ages + w)), want)));
    if (hits != 0) {
      return w + static_cast<uint32_t>(std::countr_zero(hits));
    }
  }
#endif
  while (ages[w] != age) {
    ++w;
  }
  return w;
}

// The first of n ages that is 0, which is there. (A set fills while a stream first passes
// through the L2: a search by byte took ten host instructions per way filled.)
uint32_t first_empty(const uint8_t* ages, uint32_t n) {
#if defined(__SSE2__)
  if (n <= 32) {
    // The block has room for 32 ages (see MemorySystem::stamp()); lanes past the n ways come
    // after the zero at n - 1 or earlier.
    const __m128i zero = _mm_setzero_si128();
    const auto lo = static_cast<uint32_t>(_mm_movemask_epi8(
        _mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(ages)), zero)));
    const auto hi = static_cast<uint32_t>(_mm_movemask_epi8(
        _mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(ages + 16)), zero)));
    return static_cast<uint32_t>(std::countr_zero(lo | hi << 16));
  }
#endif
  uint32_t w = 0;
  while (ages[w] != 0) {
    ++w;
  }
  (void)n;
  return w;
}

// Whether one of n flags lacks `bit`: 8 at a time, the last word overlapping the one before.
bool has_clear_bit(const uint8_t* flags, uint32_t n, uint8_t bit) {
  const uint64_t ones = 0x0101010101010101ULL * bit;
  if (n < 8) {
    for (uint32_t w = 0; w < n; ++w) {
      if ((flags[w] & bit) == 0) {
        return true;
      }
    }
    return false;
  }
  uint64_t all = ones;
  for (uint32_t w = 0;; w += 8) {
    const uint32_t at = std::min(w, n - 8);
    uint64_t word = 0;
    std::memcpy(&word, flags + at, sizeof word);
    all &= word;
    if (at == n - 8) {
      break;
    }
  }
  return (all & ones) != ones;
}

}  // namespace

size_t MemorySystem::mix_set(uint64_t line) const {
  return static_cast<size_t>(mix64(line) % static_cast<uint64_t>(m_sets));
}

void MemorySystem::write_back(WayRef r, Time t) {
  dram_write(tag(r), dirty(r), t);
  dirty(r) = 0;
}

inline MemorySystem::WayRef MemorySystem::install(WayRef r, uint64_t line, Time t, uint8_t insert) {
  uint8_t* b = bytes(r.row);
  if (b[m_off_dirty + r.w] != 0) [[unlikely]] {  // an empty way is never dirty
    write_back(r, t);
  }
  m_lines[index(r)] = Line{line, 0};
  b[r.w] = fingerprint(line);
  b[m_off_valid + r.w] = 0;
  b[m_off_rrpv + r.w] = insert;
  b[m_off_reused + r.w] = 0;
  // The age stays: the stamp() that follows every install makes the way the most recent,
  // keeping the set's ages 1..k (zeroing it would leave a gap above it).
  return r;
}

MemorySystem::WayRef MemorySystem::allocate(uint32_t row, uint64_t line, Time t, uint8_t insert) {
  const auto ways = static_cast<uint32_t>(m_ways);
  const uint8_t* age = age_row(row);
  // Ways fill in order and are never emptied, and each is stamped as it fills (ages start at
  // 1): a set whose last way has an age is full, else its first way without one is empty.
  if (age[ways - 1] == 0) {
    return install({row, first_empty(age, ways)}, line, t, insert);
  }
  if (m_rrip) {
    // The most distant prediction (the least recently used among equals); the set then ages by
    // what the victim lacked of the most distant value, so the next eviction finds one there
    // when the prediction of no line improved meanwhile.
    uint8_t* rrpv = rrpv_row(row);
    uint8_t distant = 0;
    uint8_t oldest = 0;
    uint32_t victim = 0;
    for (uint32_t w = 0; w < ways; ++w) {
      if (rrpv[w] > distant || (rrpv[w] == distant && age[w] > oldest)) {
        distant = rrpv[w];
        oldest = age[w];
        victim = w;
      }
    }
    if (distant < m_rrip_max) {
      const auto gap = static_cast<uint8_t>(m_rrip_max - distant);
      for (uint32_t w = 0; w < ways; ++w) {
        rrpv[w] = static_cast<uint8_t>(rrpv[w] + gap);
      }
    }
    return install({row, victim}, line, t, insert);
  }
  // Least recently used: in a full set the ages are 1..l2.ways, the oldest at l2.ways. The
  // oldest line read only once is looked for only when clean-first is drawn and the oldest
  // line is a reused one (under half the evictions with l2.clean_first_probability = 0.5).
  const uint8_t* reused = reused_row(row);
  uint32_t victim = way_of_age(age, ways, static_cast<uint8_t>(ways));
  // (The draw counts every eviction that has a clean line, the oldest one included.)
  if (m_clean_first_threshold != 0 && has_clear_bit(reused, ways, kReused) && clean_first_now() &&
      (reused[victim] & kReused) != 0) {
    uint8_t oldest_clean = 0;
    for (uint32_t w = 0; w < ways; ++w) {
      if ((reused[w] & kReused) == 0) {
        oldest_clean = std::max(oldest_clean, age[w]);
      }
    }
    // Only a line among the l2.clean_first_ways least recently used: one just filled, whose
    // other readers are still on their way, stays. (The ways older than it are those of the
    // ages above its own.)
    if (static_cast<int>(ways - oldest_clean) < m_clean_first_ways) {
      victim = way_of_age(age, ways, oldest_clean);
    }
  }
  return install({row, victim}, line, t, insert);
}

bool MemorySystem::clean_first_now() {
  return m_clean_first_threshold == UINT64_MAX ||
         mix64(++m_evictions * 0x9e3779b97f4a7c15ULL) < m_clean_first_threshold;
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
  const Time start = reserve_slice(proxy, arrive, nsect);
  touch(slot);
  reused(slot) |= kReused;
  m_served_way = slot;
  ++m_slice_stats[proxy].copy_hits;
  m_slice_stats[proxy].read_hits += static_cast<uint64_t>(nsect);
  ready = std::max(start, fill_time(slot));
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

}  // namespace asyncsim
