// l2.hash_odd_by_block under partition granules (l2.partition_granule_bytes): a line's slice
// within its half of the L2, and its set, from its index among the half's own lines. The
// granule's partition is a parity that takes granule-index bit 0, so granules 2j and 2j + 1 go
// one to each half and (j, offset in the granule) numbers the half's lines without gaps.
// - Slice (half-slices = odd x 2^k): the odd part is the residue mod odd of the index's 2^k-line
//   block, rotated by a hash of its run of `odd` blocks (so a stride of odd x 2^k lines does not
//   keep one residue); the 2^k part is an IPOLY remainder of the index (so power-of-two strides
//   still spread).
// - Set: the index's quotient q by the half-slices, its low bits XOR a hash of its block number
//   (q >> set bits).
// Every aligned run of (half-slices x sets) of the half's lines meets each (slice, set) exactly
// once, so a contiguous buffer fills the sets evenly, while a strided pattern's slices and sets
// move at random from run to run instead of in lock-step (validation/README.md, "One half's
// readers and the L2's capacity").
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>

#include "util/fast_div.h"

namespace asyncsim {

class HalfLocalHash {
 public:
  bool on() const { return m_on; }
  // half_slices = odd x 2^k (k <= 10), sets a power of two, granule_shift = log2(lines per
  // granule) >= 1.
  void init(int half_slices, int sets, int granule_shift) {
    static constexpr uint32_t kPoly[] = {0x1,  0x3,  0x7,   0xB,   0x13, 0x25,
                                         0x43, 0x83, 0x11D, 0x211, 0x409};
    m_on = true;
    m_granule_shift = granule_shift;
    m_k = std::countr_zero(static_cast<unsigned>(half_slices));
    if (m_k > 10) {
      m_k = 10;
    }
    m_pow2 = uint32_t{1} << m_k;
    m_odd = FastDiv(static_cast<uint64_t>(half_slices) >> m_k);
    m_slices = FastDiv(static_cast<uint64_t>(half_slices));
    m_set_bits = std::countr_zero(static_cast<unsigned>(sets));
    uint64_t v = 1;
    std::array<uint32_t, 64> power{};  // x^i mod the degree-k polynomial
    for (size_t i = 0; i < 64; ++i) {
      power[i] = m_k == 0 ? 0 : static_cast<uint32_t>(v);
      v <<= 1;
      if (m_k > 0 && ((v >> m_k) & 1) != 0) {
        v ^= kPoly[m_k];
      }
    }
    for (size_t byte = 0; byte < 8; ++byte) {
      for (size_t value = 0; value < 256; ++value) {
        uint32_t r = 0;
        for (size_t bit = 0; bit < 8; ++bit) {
          r ^= ((value >> bit) & 1) != 0 ? power[byte * 8 + bit] : 0;
        }
        m_ipoly[byte * 256 + value] = static_cast<uint16_t>(r);
      }
    }
  }
  // The line's index among its half's lines.
  uint64_t local(uint64_t line) const {
    const uint64_t offset = line & ((uint64_t{1} << m_granule_shift) - 1);
    return ((line >> (m_granule_shift + 1)) << m_granule_shift) | offset;
  }
  int slice(uint64_t local) const {
    uint32_t r = 0;
    for (size_t byte = 0; byte < 8 && (local >> (8 * byte)) != 0; ++byte) {
      r ^= m_ipoly[byte * 256 + ((local >> (8 * byte)) & 0xFF)];
    }
    const uint64_t block = local >> m_k;
    const uint64_t run = m_odd.div(block);  // run 0 keeps the block's own residue
    return static_cast<int>(m_odd.mod(m_odd.mod(block) + m_odd.mod(fibonacci(run, 32))) * m_pow2 +
                            r);
  }
  size_t set(uint64_t local) const {
    if (m_set_bits == 0) {
      return 0;
    }
    const uint64_t q = m_slices.div(local);  // block 0 keeps q's own bits
    return static_cast<size_t>((q ^ fibonacci(q >> m_set_bits, m_set_bits)) &
                               ((uint64_t{1} << m_set_bits) - 1));
  }

 private:
  // Fibonacci hashing: the top `bits` bits of x times 2^64 / golden ratio (0 for x = 0).
  static uint64_t fibonacci(uint64_t x, int bits) {
    return x * 0x9E3779B97F4A7C15ULL >> (64 - bits);
  }
  bool m_on = false;
  int m_granule_shift = 0;
  int m_k = 0;
  uint32_t m_pow2 = 1;
  int m_set_bits = 0;
  FastDiv m_odd;
  FastDiv m_slices;
  std::array<uint16_t, 8 * 256> m_ipoly{};
};

}  // namespace asyncsim
