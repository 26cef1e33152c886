// The L2's victim choice (LRU, RRIP, clean-first) and a line's installation in its way: in a
// header, inlined at the request path's callers in memory_system.cpp and l2_arrays.cpp (a
// read miss, a write miss, a near copy), where a call cost ~25 host instructions a request.
#pragma once

#include <algorithm>
#include <bit>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "mem/memory_system.h"

namespace asyncsim {

namespace l2_victim {

// The way among n holding `age`, which is there.
inline uint32_t way_of_age(const uint8_t* ages, uint32_t n, uint8_t age) {
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
inline uint32_t first_empty(const uint8_t* ages, uint32_t n) {
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
inline bool has_clear_bit(const uint8_t* flags, uint32_t n, uint8_t bit) {
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

}  // namespace l2_victim

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

inline bool MemorySystem::clean_first_now() {
  return m_clean_first_threshold == UINT64_MAX ||
         mix64(++m_evictions * 0x9e3779b97f4a7c15ULL) < m_clean_first_threshold;
}

// Inlined at its three callers (a read miss, a write miss, a near copy's insertion): the call
// saved and restored six registers and reloaded the set's block.
[[gnu::always_inline]] inline MemorySystem::WayRef MemorySystem::allocate(uint32_t row,
                                                                          uint64_t line, Time t,
                                                                          uint8_t insert) {
  const auto ways = static_cast<uint32_t>(m_ways);
  const uint8_t* age = age_row(row);
  // Ways fill in order and are never emptied, and each is stamped as it fills (ages start at
  // 1): a set whose last way has an age is full, else its first way without one is empty.
  if (age[ways - 1] == 0) {
    return install({row, l2_victim::first_empty(age, ways)}, line, t, insert);
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
  uint32_t victim = l2_victim::way_of_age(age, ways, static_cast<uint8_t>(ways));
  if (m_random_threshold != 0) [[unlikely]] {
    // l2.random_victim_probability: a draw from a hash of the eviction count, then one of the
    // l2.random_victim_ways oldest (a full set's ages are 1..ways); clean-first still applies.
    const uint64_t draw = mix64(++m_evictions * 0xbf58476d1ce4e5b9ULL);
    if (m_random_threshold == UINT64_MAX || draw < m_random_threshold) {
      const auto age_drawn = static_cast<uint8_t>(ways - mix64(draw) % m_random_ways);
      victim = l2_victim::way_of_age(age, ways, age_drawn);
    }
  }
  // (The draw counts every eviction that has a clean line, the oldest one included.)
  if (m_clean_first_threshold != 0 && l2_victim::has_clear_bit(reused, ways, kReused) &&
      clean_first_now() && (reused[victim] & kReused) != 0) {
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
      victim = l2_victim::way_of_age(age, ways, oldest_clean);
    }
  }
  return install({row, victim}, line, t, insert);
}

}  // namespace asyncsim
