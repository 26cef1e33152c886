// MemorySystem::lookup(), inline: included at the end of mem/memory_system.h (split from it).
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

#include "mem/memory_system.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace asyncsim {

// In the header, inlined at its callers in memory_system.cpp: one or two searches per request,
// each of which paid a call.
inline MemorySystem::WayRef MemorySystem::lookup(int slice, size_t set, uint64_t line) {
  const WayRef r{row_of(slice, set), UINT32_MAX};
  const uint8_t* fp = fp_row(r.row);
  const size_t base = index({r.row, 0});
  constexpr uint64_t kOnes = 0x0101010101010101ULL;
  constexpr uint64_t kHighs = 0x8080808080808080ULL;
#if defined(__SSE2__)
  if (m_ways <= 32) {
    // Sixteen fingerprints to a compare, exact (no false hits to sort out): the row's first 32
    // bytes lie in its block (at least 64), those past the ways masked off.
    const __m128i want = _mm_set1_epi8(static_cast<char>(fingerprint(line)));
    const auto lo = static_cast<uint32_t>(_mm_movemask_epi8(
        _mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(fp)), want)));
    const auto hi = static_cast<uint32_t>(_mm_movemask_epi8(
        _mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(fp + 16)), want)));
    const auto all = static_cast<uint32_t>((uint64_t{1} << m_ways) - 1);
    for (uint32_t hits = (lo | hi << 16) & all; hits != 0; hits &= hits - 1) {
      const auto i = static_cast<uint32_t>(std::countr_zero(hits));
      if (m_lines[base + i].tag == line) {
        return {r.row, i};
      }
    }
    return r;
  }
#endif
  const uint64_t want = kOnes * fingerprint(line);
  for (size_t w = 0; w < m_fp_stride; w += 8) {
    uint64_t word = 0;
    std::memcpy(&word, fp + w, sizeof word);
    // The bytes equal to the fingerprint are the zero bytes of x: each sets its high bit here
    // (a byte above a zero one may too, falsely; the tag compare sorts those out).
    const uint64_t x = word ^ want;
    for (uint64_t hits = (x - kOnes) & ~x & kHighs; hits != 0; hits &= hits - 1) {
      const size_t i = w + static_cast<size_t>(std::countr_zero(hits)) / 8;
      if (i < static_cast<size_t>(m_ways) && m_lines[base + i].tag == line) {
        return {r.row, static_cast<uint32_t>(i)};
      }
    }
  }
  return r;
}

}  // namespace asyncsim
