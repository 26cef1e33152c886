// Simulated time. The global time base is integer picoseconds, so clock domains (SM, L2/NoC,
// DRAM) of unrelated frequencies share one event queue exactly and deterministically.
#pragma once

#include <cstdint>

namespace asyncsim {

using Time = int64_t;  // picoseconds
inline constexpr Time kTimeNever = INT64_MAX / 4;

// One clock domain: converts between its cycles and picoseconds.
struct ClockDomain {
  double mhz = 1000.0;
  double period_ps = 1000.0;

  static ClockDomain from_mhz(double f) { return ClockDomain{f, 1.0e6 / f}; }
  Time cycles(double n) const { return static_cast<Time>(n * period_ps + 0.5); }
  double to_cycles(Time t) const { return static_cast<double>(t) / period_ps; }
  // Index of the first clock edge at or after t, and its time. Edges are cycles(k) exactly.
  int64_t edge_index_at_or_after(Time t) const {
    auto k = static_cast<int64_t>(static_cast<double>(t) / period_ps);
    while (cycles(static_cast<double>(k)) < t) {
      ++k;
    }
    while (k > 0 && cycles(static_cast<double>(k - 1)) >= t) {
      --k;
    }
    return k;
  }
  Time edge_at_or_after(Time t) const {
    return cycles(static_cast<double>(edge_index_at_or_after(t)));
  }
};

}  // namespace asyncsim
