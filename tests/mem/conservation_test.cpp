// Conservation through the memory system: every read sector a slice serves is one hit or one
// miss, every missed sector is read from DRAM once, every written sector reaches a slice.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace asyncsim
