// Wave arithmetic shared by the GEMM and attention models: CTAs are dispatched in pid order and
// `wave_ctas` of them are resident at once, so pid p runs in wave p / wave_ctas.
#pragma once

#include <cstdint>

namespace asyncsim::analytic {

constexpr int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

// Rounds a row segment of `bytes` up to whole sectors (TMA requests whole 32-byte sectors;
// segments start sector-aligned because tile offsets are multiples of 16 elements).
constexpr int64_t sector_round(int64_t bytes, int64_t sector) {
  return ceil_div(bytes, sector) * sector;
}

// Number of waves a contiguous pid range [first, first + count) touches.
constexpr int64_t waves_spanned(int64_t first, int64_t count, int64_t wave_ctas) {
  return count <= 0 ? 0 : (first + count - 1) / wave_ctas - first / wave_ctas + 1;
}

// The part of [first, first + count) that falls in the wave holding pid `first`:
// returns its length.
constexpr int64_t prefix_in_wave(int64_t first, int64_t count, int64_t wave_ctas) {
  const int64_t wave_end = (first / wave_ctas + 1) * wave_ctas;
  return wave_end - first < count ? wave_end - first : count;
}

}  // namespace asyncsim::analytic
