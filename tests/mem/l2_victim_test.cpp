// The L2's victim choice with exact expectations on the round-number test GPU
// (tests/data/simple_gpu.yaml): clean-first eviction and RRIP (docs/memory.md, the slice).
#include <gtest/gtest.h>

#include <string>

#include "../sim/test_util.h"
#include "mem/memory_system.h"
#include "mem_test_util.h"

namespace asyncsim {
namespace {

using testing::kNs;
using testing::read;

// l2.clean_first_probability = 1: an eviction takes the least recently used line that was read
// only once, if it is among the l2.clean_first_ways oldest, sparing older lines that were
// written or read again; 0 is plain LRU. Lines 7 + 1024 k share slice 3 and set 1 (modulo hash,
// linear sets: slice = line mod 4, set = line / 4 mod 256).
TEST(MemorySystem, CleanFirstEvictsALineReadOnceBeforeOlderReusedOnes) {
  for (const double q : {1.0, 0.0}) {
    const GpuConfig cfg =
        testing::simple_gpu({"l2.hash=modulo", "l2.set_index=linear", "l2.clean_first_ways=5",
                             "l2.clean_first_probability=" + std::to_string(q)});
    MemorySystem mem(cfg, ClockDomain::from_mhz(1000));
    const auto line = [](uint64_t k) { return 7 + 1024 * k; };
    Time t = 0;
    const auto at = [&]() { return t += 1000 * kNs; };
    mem.access(MemRequest{line(0), 0xF, true, 0}, at());  // written (dirty)
    mem.access(read(line(1)), at());                      // read twice
    mem.access(read(line(1)), at());
    for (uint64_t k = 2; k < 10; ++k) {  // read once: the set is full (10 ways)
      mem.access(read(line(k)), at());
    }
    mem.access(read(line(10)), at());  // evicts line 2 (clean-first) or line 0 (LRU)
    const uint64_t before = mem.stats().dram_read_bytes;
    mem.access(read(line(0)), at());
    const bool line0_kept = mem.stats().dram_read_bytes == before;
    EXPECT_EQ(line0_kept, q == 1.0) << "q " << q;
    EXPECT_EQ(mem.stats().dram_write_bytes, q == 1.0 ? 0u : 128u) << "q " << q;
  }
  // A line read once but not among the clean_first_ways oldest stays: LRU decides.
  const GpuConfig near =
      testing::simple_gpu({"l2.hash=modulo", "l2.set_index=linear", "l2.clean_first_ways=1",
                           "l2.clean_first_probability=1"});
  MemorySystem mem(near, ClockDomain::from_mhz(1000));
  Time t = 0;
  for (uint64_t k = 0; k < 10; ++k) {
    mem.access(MemRequest{7 + 1024 * k, 0xF, k < 9, 0}, t += 1000 * kNs);  // 9 written, 1 read
  }
  mem.access(read(7 + 1024 * 10), t += 1000 * kNs);
  EXPECT_EQ(mem.stats().dram_write_bytes, 128u);  // the oldest, written line went
}

// l2.replacement=rrip (SRRIP, 4 levels, new lines at 2): a hit predicts near re-use (level 0),
// so a line read twice outlives younger lines read once, where LRU evicts it as the oldest.
// Same set as above (slice 3, set 1, 10 ways).
TEST(MemorySystem, RripKeepsAReReadLineOverYoungerReadOnceLines) {
  for (const bool rrip : {true, false}) {
    const GpuConfig cfg = testing::simple_gpu(
        {"l2.hash=modulo", "l2.set_index=linear",
         std::string("l2.replacement=") + (rrip ? "rrip" : "lru"), "l2.rrip_read_insert=2",
         "l2.rrip_write_insert=2", "l2.rrip_hit_level=0"});
    MemorySystem mem(cfg, ClockDomain::from_mhz(1000));
    const auto line = [](uint64_t k) { return 7 + 1024 * k; };
    Time t = 0;
    mem.access(read(line(0)), t += 1000 * kNs);  // read twice: predicted near
    mem.access(read(line(0)), t += 1000 * kNs);
    for (uint64_t k = 1; k < 10; ++k) {  // read once; the set is full
      mem.access(read(line(k)), t += 1000 * kNs);
    }
    mem.access(read(line(10)), t += 1000 * kNs);  // evicts line 1 (RRIP) or line 0 (LRU)
    uint64_t before = mem.stats().dram_read_bytes;
    mem.access(read(line(0)), t += 1000 * kNs);
    EXPECT_EQ(mem.stats().dram_read_bytes == before, rrip) << "line 0 kept, rrip " << rrip;
    before = mem.stats().dram_read_bytes;
    mem.access(read(line(2)), t += 1000 * kNs);  // younger than line 1: kept either way
    EXPECT_EQ(mem.stats().dram_read_bytes, before) << "rrip " << rrip;
  }
}

// l2.rrip_write_insert=1 below l2.rrip_read_insert=2: a written line outlives the lines read
// after it until the set has aged it to the read lines' level. With l2.rrip_hit_level=2 a hit
// earns nothing (the re-read line 1 goes first). Each eviction that finds no line at level 3
// ages the set by one: line 10's eviction takes line 1 and lifts lines 2..9 to 3 and line 0 to
// 2; line 1 read again and lines 11..17 take lines 2..9 (level 3, oldest first); line 18 finds
// every line at level 2 and takes the oldest, line 0, writing it back.
TEST(MemorySystem, RripWrittenLinesOutliveReadOnesUntilAged) {
  const GpuConfig cfg = testing::simple_gpu({"l2.hash=modulo", "l2.set_index=linear",
                                             "l2.replacement=rrip", "l2.rrip_read_insert=2",
                                             "l2.rrip_write_insert=1", "l2.rrip_hit_level=2"});
  MemorySystem mem(cfg, ClockDomain::from_mhz(1000));
  const auto line = [](uint64_t k) { return 7 + 1024 * k; };
  Time t = 0;
  mem.access(MemRequest{line(0), 0xF, true, 0}, t += 1000 * kNs);  // written (dirty)
  mem.access(read(line(1)), t += 1000 * kNs);                      // read twice
  mem.access(read(line(1)), t += 1000 * kNs);
  for (uint64_t k = 2; k < 10; ++k) {
    mem.access(read(line(k)), t += 1000 * kNs);
  }
  mem.access(read(line(10)), t += 1000 * kNs);
  uint64_t before = mem.stats().dram_read_bytes;
  mem.access(read(line(1)), t += 1000 * kNs);  // line 1 went (and now takes line 2's place)
  EXPECT_EQ(mem.stats().dram_read_bytes, before + 128);
  for (uint64_t k = 11; k < 18; ++k) {  // take lines 3..9
    mem.access(read(line(k)), t += 1000 * kNs);
  }
  EXPECT_EQ(mem.stats().dram_write_bytes, 0u);  // the written line is still there
  mem.access(read(line(18)), t += 1000 * kNs);  // every line at level 2 now: the oldest goes
  EXPECT_EQ(mem.stats().dram_write_bytes, 128u);
  before = mem.stats().dram_read_bytes;
  mem.access(read(line(18)), t += 1000 * kNs);  // line 18 itself: a hit
  EXPECT_EQ(mem.stats().dram_read_bytes, before);
}

}  // namespace
}  // namespace asyncsim
