// Division by a divisor fixed at run time, by one 128-bit multiply instead of a hardware divide
// (tens of cycles on the memory system's per-request path: slice hash, set index).
#pragma once

#include <cstdint>

namespace asyncsim {

class FastDiv {
 public:
  FastDiv() = default;
  // d >= 1. With m = floor(2^64 / d) + 1, floor(x * m / 2^64) = floor(x / d) for every
  // x < 2^64 / d (the rounding error x (m - 2^64/d) / 2^64 stays below 1/d); line indices are
  // far below that for slice and set counts, and larger x take the hardware divide.
  explicit FastDiv(uint64_t d)
      : m_d(d),
        m_m(d == 1 ? 0 : UINT64_MAX / d + 1),
        m_limit(d == 0 ? 0 : UINT64_MAX / d),
        m_pow2(d != 0 && (d & (d - 1)) == 0) {
    while (m_pow2 && (uint64_t{1} << m_shift) < d) {
      ++m_shift;
    }
  }
  uint64_t div(uint64_t x) const {
    if (m_pow2) {
      return x >> m_shift;
    }
    if (x >= m_limit) [[unlikely]] {
      return x / m_d;
    }
    __extension__ using U128 = unsigned __int128;  // GCC/Clang; -Wpedantic knows no __int128
    return static_cast<uint64_t>((static_cast<U128>(x) * m_m) >> 64);
  }
  uint64_t mod(uint64_t x) const { return m_pow2 ? x & (m_d - 1) : x - div(x) * m_d; }
  uint64_t divisor() const { return m_d; }

 private:
  uint64_t m_d = 1;
  uint64_t m_m = 0;
  uint64_t m_limit = UINT64_MAX;
  bool m_pow2 = true;
  int m_shift = 0;
};

}  // namespace asyncsim
