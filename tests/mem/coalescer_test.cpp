// The L2 request coalescer (Sim-FA's LRC; validation/README.md, "Shared tiles" and "Groups of
// SMs reading the same tiles"): which reads merge, at the TPC and the GPC stage, for how long,
// and how many SMs one in-flight read serves, on the round-number test GPU
// (tests/data/simple_gpu.yaml).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "../sim/test_util.h"
#include "mem/memory_system.h"
#include "mem_test_util.h"

namespace asyncsim {
namespace {

using testing::kNs;
using testing::read;

TEST(MemorySystem, CoalescerMergesTheTwoSmsOfATpc) {
  const GpuConfig cfg =
      testing::simple_gpu({"l2.coalescer=true", "l2.coalescer_scope=tpc", "sm.count=4"});
  MemorySystem mem(cfg, ClockDomain::from_mhz(1000));
  const Time first = mem.access(read(77, 0), 0);
  EXPECT_EQ(mem.access(read(77, 1), 5 * kNs), first);  // SM 1 shares SM 0's TPC
  EXPECT_EQ(mem.stats().coalescer_merges, 1u);
  // SM 2 is another TPC: its read goes on to the slice, finds the fill in flight (an MSHR
  // merge) and leaves with it.
  EXPECT_EQ(mem.access(read(77, 2), 6 * kNs), first);
  EXPECT_EQ(mem.stats().coalescer_merges, 1u);
  EXPECT_EQ(mem.stats().l2_read_bytes, 2u * 128);
  EXPECT_EQ(mem.stats().dram_read_bytes, 128u);
  uint64_t mshr_merges = 0;
  for (const SliceStats& s : mem.slice_stats()) {
    mshr_merges += s.mshr_merges;
  }
  EXPECT_EQ(mshr_merges, 1u);
}

// l2.tpc_coalescer_entries: a TPC's own stage in front of a GPC coalescer of one entry. SM 0
// reads lines 77 then 78 (78 takes the GPC entry). SM 1, the other SM of TPC 0, still merges
// with 77 in the TPC stage, leaving the GPC entry to 78, so SM 2 (TPC 1, same GPC) merges its
// read of 78 there: 2 merges, 2 lines read at L2. Without the TPC stage SM 1's read goes to L2
// and takes the GPC entry, and SM 2's read of 78 goes to L2 too.
TEST(MemorySystem, TpcStageMergesThePairBeforeTheGpcStage) {
  const auto run = [](int tpc_entries) {
    const GpuConfig cfg = testing::simple_gpu(
        {"l2.coalescer=true", "l2.coalescer_scope=gpc", "l2.coalescer_entries=1", "sm.count=4",
         "sm.gpcs=1", "sm.tpc_gpcs=", fmt::format("l2.tpc_coalescer_entries={}", tpc_entries)});
    MemorySystem mem(cfg, ClockDomain::from_mhz(1000));
    mem.access(read(77, 0), 0);
    mem.access(read(78, 0), 1 * kNs);
    mem.access(read(77, 1), 5 * kNs);
    mem.access(read(78, 2), 6 * kNs);
    return std::make_pair(mem.stats().coalescer_merges, mem.stats().l2_read_bytes);
  };
  EXPECT_EQ(run(64), std::make_pair(uint64_t{2}, uint64_t{2 * 128}));
  EXPECT_EQ(run(0), std::make_pair(uint64_t{0}, uint64_t{4 * 128}));
}

// The TPC stage looks at an entry only when its tag byte matches the read's line. Of the lines
// that share entry 0 of a 4-entry stage with line 0, the ones whose byte matches too (about
// 1 in 256) are handed the entry and told apart by its line; those whose byte differs are not
// handed it. Either way no other line's read merges with line 0's.
TEST(L2TpcStage, ATagByteMatchIsCheckedAgainstTheLine) {
  L2TpcStage stage;
  stage.resize(1, 4);
  const size_t at = stage.index(0, 0);
  stage.set(at, L2TpcEntry(0, 100, 0xF, 0));
  ASSERT_NE(stage.holding(at, 0), nullptr);
  EXPECT_EQ(stage.holding(at, 0)->line(), 0u);
  int same_byte = 0;
  int other_byte = 0;
  for (uint64_t line = 1; line < 200000; ++line) {
    if (stage.index(line, 1) != at) {  // SM 1: the same TPC's table
      continue;
    }
    const L2TpcEntry* e = stage.holding(at, line);
    if (e != nullptr) {
      EXPECT_NE(e->line(), line);
      ++same_byte;
    } else {
      ++other_byte;
    }
  }
  EXPECT_GT(same_byte, 0);
  EXPECT_GT(other_byte, 100 * same_byte);
}

// l2.coalescer_max_sms: eight SMs of one GPC (four TPCs) read line 77 while the first read is in
// flight. Without a cap one read reaches the L2 and serves all eight. With a cap of 4 SMs the
// entry fills after SMs 0-3 (SM 1 joins through its TPC stage and counts too); SM 4 finds it full,
// goes to the L2 and starts a new entry that SMs 5-7 join: two reads reach the L2.
TEST(MemorySystem, CoalescerEntryServesAtMostTheCappedSms) {
  const auto l2_reads = [](int cap) {
    const GpuConfig cfg =
        testing::simple_gpu({"l2.coalescer=true", "l2.coalescer_scope=gpc", "sm.count=8",
                             "sm.gpcs=1", "sm.tpc_gpcs=", "l2.tpc_coalescer_entries=64",
                             fmt::format("l2.coalescer_max_sms={}", cap)});
    MemorySystem mem(cfg, ClockDomain::from_mhz(1000));
    for (uint16_t sm = 0; sm < 8; ++sm) {
      mem.access(read(77, sm), sm * kNs);
    }
    return std::make_pair(mem.stats().l2_read_bytes / 128, mem.stats().coalescer_merges);
  };
  EXPECT_EQ(l2_reads(0), std::make_pair(uint64_t{1}, uint64_t{7}));
  EXPECT_EQ(l2_reads(4), std::make_pair(uint64_t{2}, uint64_t{6}));
  EXPECT_EQ(l2_reads(1), std::make_pair(uint64_t{4}, uint64_t{4}));  // TPC pairs only
}

// l2.coalesce_same_sm: SM 0 reads line 77 (a miss) and, 5 ns later, again (another CTA of the
// SM). Merging the same SM's reads, the second takes the first's response. Without, it goes on
// to the slice, where it finds the line's fill in flight (no second DRAM read) and waits for it:
// the same response time on this latency-only crossbar, but a second L2 read (the slice's time);
// SM 1, the TPC partner, still merges into SM 0's first read, which both stages keep.
TEST(MemorySystem, SameSmReadsGoToTheSliceUnlessAllowedToMerge) {
  for (const bool same : {true, false}) {
    const GpuConfig cfg =
        testing::simple_gpu({"l2.coalescer=true", "l2.coalescer_scope=gpc", "sm.count=4",
                             "sm.gpcs=1", "sm.tpc_gpcs=", "l2.tpc_coalescer_entries=64",
                             fmt::format("l2.coalesce_same_sm={}", same)});
    MemorySystem mem(cfg, ClockDomain::from_mhz(1000));
    const Time first = mem.access(read(77, 0), 0);
    const Time second = mem.access(read(77, 0), 5 * kNs);
    const Time partner = mem.access(read(77, 1), 6 * kNs);
    EXPECT_EQ(second, first) << same;
    EXPECT_EQ(partner, first) << same;
    EXPECT_EQ(mem.stats().dram_read_bytes, 128u) << same;
    EXPECT_EQ(mem.stats().coalescer_merges, same ? 2u : 1u);
    EXPECT_EQ(mem.stats().l2_read_bytes, same ? 128u : 256u);
  }
}

// The coalescer merges only a read whose sectors the in-flight response carries: SM 1's read of
// sector 0 of the line SM 0 is reading sector 0 of merges, its read of sector 3 goes on to L2
// and (single-sector fetches) to DRAM.
TEST(MemorySystem, CoalescerMergesOnlyTheSectorsInFlight) {
  const GpuConfig cfg = testing::simple_gpu(
      {"l2.coalescer=true", "l2.coalescer_scope=tpc", "sm.count=4", "l2.fetch_sectors=1"});
  MemorySystem mem(cfg, ClockDomain::from_mhz(1000));
  const Time first = mem.access(MemRequest{77, 0x1, false, 0}, 0);
  EXPECT_EQ(mem.access(MemRequest{77, 0x1, false, 1}, 5 * kNs), first);
  EXPECT_EQ(mem.stats().coalescer_merges, 1u);
  // Sector 3 misses at the slice and takes a DRAM read of its own, as unloaded as the first.
  EXPECT_EQ(mem.access(MemRequest{77, 0x8, false, 1}, 6 * kNs), 6 * kNs + first);
  EXPECT_EQ(mem.stats().coalescer_merges, 1u);
  EXPECT_EQ(mem.stats().dram_read_bytes, 64u);
}

// l2.coalescer_scope=gpc: TPC t sits in GPC t mod sm.gpcs, so with 4 GPCs SMs 0 and 8 (TPCs 0
// and 4) share GPC 0's coalescer and SM 2 (TPC 1, GPC 1) does not. A merge needs the first
// read still in flight; after its response the same line goes to L2 again.
TEST(MemorySystem, GpcScopeCoalescerMergesAcrossTpcsOfOneGpc) {
  const GpuConfig cfg = testing::simple_gpu(
      {"l2.coalescer=true", "l2.coalescer_scope=gpc", "sm.count=16", "sm.gpcs=4"});
  MemorySystem mem(cfg, ClockDomain::from_mhz(1000));
  const Time first = mem.access(read(77, 0), 0);
  EXPECT_EQ(mem.access(read(77, 8), 5 * kNs), first);  // TPC 4: GPC 0 as well
  EXPECT_EQ(mem.stats().coalescer_merges, 1u);
  mem.access(read(77, 2), 6 * kNs);  // TPC 1: GPC 1, its own coalescer
  EXPECT_EQ(mem.stats().coalescer_merges, 1u);
  mem.access(read(77, 1), first + 1);  // GPC 0 again, but the first read has returned
  EXPECT_EQ(mem.stats().coalescer_merges, 1u);
  EXPECT_EQ(mem.stats().l2_read_bytes, 3u * 128);
  // The same pair under TPC scope (Sim-FA's SM pairs): no merge.
  const GpuConfig tpc = testing::simple_gpu(
      {"l2.coalescer=true", "l2.coalescer_scope=tpc", "sm.count=16", "sm.gpcs=4"});
  MemorySystem m2(tpc, ClockDomain::from_mhz(1000));
  m2.access(read(77, 0), 0);
  m2.access(read(77, 8), 5 * kNs);
  EXPECT_EQ(m2.stats().coalescer_merges, 0u);
}

}  // namespace
}  // namespace asyncsim
