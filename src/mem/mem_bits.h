// Small bit helpers of the memory system's per-request path.
#pragma once

#include <array>
#include <cstdint>

namespace asyncsim {

// A 64-bit finalizer mix (MurmurHash3's): every input bit moves every output bit.
inline uint64_t mix64(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

// Set bits of a sector mask. std::popcount is a libgcc call on the baseline x86-64 target (no
// POPCNT instruction), a few per cent of a request here.
inline int sector_count(uint8_t mask) {
  static constexpr std::array<uint8_t, 16> kBits{0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};
  return kBits[mask & 0xF] + kBits[mask >> 4];
}

}  // namespace asyncsim
