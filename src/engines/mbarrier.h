// mbarrier state with PTX semantics: a phase completes when its pending arrivals reach zero and
// its transaction count is back to zero; `wait(parity)` is satisfied once the phase of that
// parity has completed (the current phase's parity differs from it).
#pragma once

#include <cstdint>

namespace asyncsim {

struct Mbarrier {
  int32_t pending = 1;
  int32_t expected = 1;
  int64_t tx = 0;
  uint32_t phase = 0;  // number of completed phases

  bool satisfied(int64_t parity) const { return static_cast<int64_t>(phase & 1u) != (parity & 1); }
  // Each returns true when the call completed the current phase.
  bool arrive(int32_t count) {
    pending -= count;
    return try_complete();
  }
  bool expect_tx(int64_t bytes) {
    tx += bytes;
    return try_complete();
  }
  bool complete_tx(int64_t bytes) {
    tx -= bytes;
    return try_complete();
  }

 private:
  bool try_complete() {
    if (pending > 0 || tx != 0) {
      return false;
    }
    ++phase;
    pending = expected;
    tx = 0;
    return true;
  }
};

// A named barrier (bar.sync / bar.arrive): releases when `expected` threads have arrived.
struct NamedBarrier {
  int32_t arrived = 0;
  int32_t expected = 0;
};

}  // namespace asyncsim
