// FastDiv: the multiply-shift divide used on the memory system's per-request path must give
// exactly what / and % give, for the slice and set counts of every config and line indices of
// any address below 2^57 bytes.
#include "util/fast_div.h"

#include <gtest/gtest.h>

#include <random>

namespace asyncsim {
namespace {

TEST(FastDiv, MatchesHardwareDivisionOnLineIndices) {
  std::mt19937_64 rng(7);
  for (const uint64_t d :
       {1ULL, 2ULL, 3ULL, 5ULL, 7ULL, 48ULL, 96ULL, 100ULL, 188ULL, 256ULL, 320ULL, 1000003ULL}) {
    const FastDiv f(d);
    for (int i = 0; i < 100000; ++i) {
      const uint64_t x = i < 1000 ? static_cast<uint64_t>(i) : rng() >> 14;  // < 2^50 lines
      ASSERT_EQ(f.div(x), x / d) << x << " / " << d;
      ASSERT_EQ(f.mod(x), x % d) << x << " % " << d;
    }
    // Around multiples of d, where rounding would show first.
    for (uint64_t q : {1ULL, 12345ULL, (1ULL << 40) / d, (1ULL << 50) / d}) {
      for (const uint64_t x : {q * d - 1, q * d, q * d + 1}) {
        ASSERT_EQ(f.div(x), x / d) << x << " / " << d;
        ASSERT_EQ(f.mod(x), x % d) << x << " % " << d;
      }
    }
  }
}

}  // namespace
}  // namespace asyncsim
