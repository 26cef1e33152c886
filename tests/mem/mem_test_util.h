// Shared by the memory-system tests: the round-number test GPU's time unit, a full-line read
// request, and lines made L2 hits on distinct slices.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "mem/memory_system.h"

namespace asyncsim::testing {

constexpr Time kNs = 1000;  // 1 cycle at 1 GHz (tests/data/simple_gpu.yaml)

inline MemRequest read(uint64_t line, uint16_t sm = 0) {
  return MemRequest{line, 0xF, false, sm};
}

// The first `n` lines homed on `n` different slices, each read once by SM 0 at time 0 (so L2
// hits from then on).
inline std::vector<uint64_t> hits_on_distinct_slices(MemorySystem& mem, size_t n) {
  std::vector<uint64_t> lines;
  for (uint64_t l = 0; lines.size() < n; ++l) {
    if (std::none_of(lines.begin(), lines.end(),
                     [&](uint64_t x) { return mem.slice_of(x) == mem.slice_of(l); })) {
      lines.push_back(l);
      mem.access(read(l, 0), 0);
    }
  }
  return lines;
}

}  // namespace asyncsim::testing
