// Conservation through the memory system: every read sector a slice serves is one hit or one
// miss, every missed sector is read from DRAM once, every written sector reaches a slice.
#include <gtest/gtest.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "config/gpu_config.h"
#include "mem/mem_bits.h"
#include "mem/memory_system.h"

namespace asyncsim {
namespace {

// Conservation through the slices: every read sector is a hit or a miss of the slice that
// serves it, every missed sector is read from DRAM once (whole lines and aligned sector pairs:
// the fetch groups add nothing), every written sector reaches a slice. Once over 20000 lines
// (all cold), once over 3000 re-read lines (hits, near copies); a line's reads lie 900 ns or
// more apart, after its fill, so nothing merges before the L2.
TEST(MemorySystem, ReadAndWrittenSectorsAreConserved) {
  for (const uint64_t span : {50000u, 3000u}) {
    const GpuConfig cfg = load_gpu_config("h200");
    MemorySystem mem(cfg, ClockDomain::from_mhz(1980));
    Time t = 0;
    uint64_t read_bytes = 0;
    uint64_t write_bytes = 0;
    for (uint64_t i = 0; i < 20000; ++i) {
      const auto sectors = static_cast<uint8_t>(i % 3 == 0 ? 0x3 : 0xF);
      const bool write = i % 5 == 0;
      const Time done = mem.access(
          MemRequest{(i * 7919) % span, sectors, write, static_cast<uint16_t>(i % 132)}, t);
      EXPECT_GT(done, t);
      (write ? write_bytes : read_bytes) += static_cast<uint64_t>(sector_count(sectors)) * 32;
      t += 300;
    }
    const MemStats& s = mem.stats();
    uint64_t hits = 0;
    uint64_t misses = 0;
    uint64_t written = 0;
    uint64_t copy_hits = 0;
    for (const SliceStats& x : mem.slice_stats()) {
      hits += x.read_hits;
      misses += x.read_misses;
      written += x.writes;
      copy_hits += x.copy_hits;
    }
    EXPECT_EQ(s.requests, 20000u);
    EXPECT_EQ(s.read_requests, 16000u);
    EXPECT_EQ(s.coalescer_merges, 0u);
    EXPECT_EQ(s.l2_read_bytes, read_bytes) << "span " << span;
    EXPECT_EQ((hits + misses) * 32, read_bytes) << "span " << span;
    EXPECT_EQ(s.dram_read_bytes, misses * 32) << "span " << span;
    EXPECT_EQ(s.l2_write_bytes, write_bytes) << "span " << span;
    EXPECT_EQ(written * 32, write_bytes) << "span " << span;
    if (span == 50000) {
      EXPECT_EQ(hits, 0u);  // every line is new
    } else {
      // 3000 lines: the first touch of each misses (a write allocates without a read).
      EXPECT_GT(hits, misses);
      EXPECT_GT(copy_hits, 0u);
    }
  }
}

// Conservation of time: a read that reaches a slice splits its latency (issue to data at the
// SM) into ReadLatency's parts exactly, a read merged in a request coalescer waits exactly its
// merged_wait, a write adds to neither. One pattern meets every part: a burst of 120000 cold
// lines at once (MSHRs run out, DRAM), each also asked by the next SM of its TPC and by an SM of
// another GPC a little later (merges in the TPC and GPC stages, fills in flight), then re-reads
// of the first 6000 lines (hits, near copies, port queues) with writes among them.
TEST(MemorySystem, ReadLatencyPartsAddUpToEachReadsLatency) {
  const GpuConfig cfg = load_gpu_config("h200");
  MemorySystem mem(cfg, ClockDomain::from_mhz(1980));
  const auto total = [&] {
    Time sum = 0;
    for (const Time p : mem.stats().read_latency.parts()) {
      EXPECT_GE(p, 0);
      sum += p;
    }
    return sum;
  };
  std::vector<std::pair<MemRequest, Time>> reqs;
  for (uint64_t i = 0; i < 120000; ++i) {
    const auto sm = static_cast<uint16_t>((2 * i) % 132);
    reqs.push_back({MemRequest{i, 0xF, false, sm}, static_cast<Time>(i)});
    reqs.push_back(
        {MemRequest{i, 0xF, false, static_cast<uint16_t>(sm + 1)}, static_cast<Time>(i) + 5});
    reqs.push_back({MemRequest{i, 0x3, false, static_cast<uint16_t>((sm + 36) % 132)},
                    static_cast<Time>(i) + 700000});
  }
  std::stable_sort(reqs.begin(), reqs.end(),
                   [](const auto& a, const auto& b) { return a.second < b.second; });
  Time t = reqs.back().second;
  for (uint64_t i = 0; i < 60000; ++i) {
    t += 40;
    reqs.push_back(
        {MemRequest{(i * 7919) % 6000, 0xF, i % 9 == 0, static_cast<uint16_t>(i % 132)}, t});
  }
  uint64_t reads = 0;
  uint64_t merged = 0;
  for (const auto& [req, at] : reqs) {
    const Time before = total();
    const uint64_t merged_before = mem.stats().coalescer_merges;
    const Time done = mem.access(req, at);
    const Time added = total() - before;
    if (req.write) {
      ASSERT_EQ(added, 0) << "line " << req.line;
      continue;
    }
    ASSERT_EQ(added, done - at) << "line " << req.line << " at " << at;
    merged += mem.stats().coalescer_merges - merged_before;
    ++reads;
  }
  const ReadLatency& l = mem.stats().read_latency;
  EXPECT_EQ(l.reads + merged, reads);  // a read reaches a slice or merges, never both
  EXPECT_GT(merged, 0u);
  // Every part was met.
  for (size_t i = 0; i < l.parts().size(); ++i) {
    EXPECT_GT(l.parts()[i], 0) << ReadLatency::kPartNames[i];
  }
}

}  // namespace
}  // namespace asyncsim
