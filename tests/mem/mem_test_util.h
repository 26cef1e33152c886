// Shared by the memory-system tests: the round-number test GPU's time unit and a full-line
// read request.
#pragma once

#include <cstdint>

#include "mem/memory_system.h"

namespace asyncsim::testing {

constexpr Time kNs = 1000;  // 1 cycle at 1 GHz (tests/data/simple_gpu.yaml)

inline MemRequest read(uint64_t line, uint16_t sm = 0) {
  return MemRequest{line, 0xF, false, sm};
}

}  // namespace asyncsim::testing
