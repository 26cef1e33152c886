// Small records of the L2 (src/mem/memory_system.h): a reference to a way of a set, and the
// entries of the request coalescer's two stages (l2.coalescer_entries per GPC or TPC,
// l2.tpc_coalescer_entries per TPC), which hold in-flight reads that later reads of the same line
// from other SMs merge into.
#pragma once

#include <cstdint>

#include "util/time.h"

namespace asyncsim {

// A way of the L2 arrays: its set's row (slice * sets + set) and its place in the set.
struct L2WayRef {
  uint32_t row = 0;         // slice * sets + set
  uint32_t w = UINT32_MAX;  // way in the set; UINT32_MAX: none (a lookup that missed)
  bool found() const { return w != UINT32_MAX; }
};

// An in-flight read of the l2.coalescer_scope stage.
struct L2CoalescerEntry {
  uint64_t line = UINT64_MAX;
  Time ready = 0;
  L2WayRef way;              // the way that served the read: a merged read re-references it
  uint8_t sectors = 0;       // the sectors the in-flight response carries
  uint8_t sms = 1;           // SMs it serves (l2.coalescer_max_sms)
  uint16_t sm = UINT16_MAX;  // the SM whose read went to the L2 (l2.coalesce_same_sm)
};

// An entry of the TPC stage: 16 bytes, four to a host cache line (the table is several MB and
// read at random; a merge there re-references no L2 way, so none is kept).
struct L2TpcEntry {
  L2TpcEntry() = default;
  L2TpcEntry(uint64_t line, Time t, uint8_t sectors, uint16_t sm)
      : tagged(line | static_cast<uint64_t>(sectors) << 56 | static_cast<uint64_t>(sm & 1) << 60),
        ready(t) {}
  uint64_t line() const { return tagged & ((uint64_t{1} << 56) - 1); }
  uint8_t sectors() const { return static_cast<uint8_t>((tagged >> 56) & 0xF); }
  bool from(uint16_t sm) const { return ((tagged >> 60) & 1) == (sm & 1U); }  // that SM's read
  // line (bits 0-55) | sectors << 56 | which SM of the TPC << 60; no line at first
  uint64_t tagged = UINT64_MAX >> 8;
  Time ready = 0;
};

}  // namespace asyncsim
