// Small records of the L2 (src/mem/memory_system.h): a reference to a way of a set, and the
// entries of the request coalescer's two stages (l2.coalescer_entries per GPC or TPC,
// l2.tpc_coalescer_entries per TPC), which hold in-flight reads that later reads of the same line
// from other SMs merge into.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "util/fast_div.h"
#include "util/huge_alloc.h"
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

// The TPC stage: per TPC a direct-mapped table of l2.tpc_coalescer_entries in-flight reads (2 MB
// on the H200, read at random), and beside it one byte per entry, a hash of the entry's line
// (130 KB, which stays in the host's cache). A read looks at its entry only when that byte
// matches its own line's: a stream that never merges then only stores to the table, and no
// host cache miss holds up its request (a mismatch proves the entry holds another line, so the
// results are those of the table alone).
class L2TpcStage {
 public:
  void resize(size_t tpcs, size_t entries) {
    m_per_tpc = entries;
    m_div = FastDiv(entries);
    m_entries.assign(tpcs * entries, L2TpcEntry{});
    m_tags.assign(tpcs * entries, tag(L2TpcEntry{}.line()));
  }
  bool empty() const { return m_entries.empty(); }
  // The entry of `line` for `sm`: consecutive lines take consecutive entries (a stream walks the
  // table in order, four entries to a host cache line), and the bits above the table's size fold
  // in, so a box's rows a power of two of lines apart spread over it.
  size_t index(uint64_t line, uint16_t sm) const {
    return static_cast<size_t>(sm / 2) * m_per_tpc + m_div.mod(line ^ (line >> 11) ^ (line >> 22));
  }
  // Entry `i` when it may hold `line`; nullptr when it holds another line.
  const L2TpcEntry* holding(size_t i, uint64_t line) const {
    return m_tags[i] == tag(line) ? &m_entries[i] : nullptr;
  }
  void set(size_t i, const L2TpcEntry& e) {
    m_entries[i] = e;
    m_tags[i] = tag(e.line());
  }
  void prefetch(size_t i) const { __builtin_prefetch(&m_entries[i]); }
  void prefetch_for_store(size_t i) const { __builtin_prefetch(&m_entries[i], 1); }

 private:
  static uint8_t tag(uint64_t line) {
    return static_cast<uint8_t>((line * 0x9E3779B97F4A7C15ULL) >> 56);
  }
  std::vector<L2TpcEntry, HugePageAllocator<L2TpcEntry>> m_entries;
  std::vector<uint8_t> m_tags;
  size_t m_per_tpc = 0;
  FastDiv m_div;
};

}  // namespace asyncsim
