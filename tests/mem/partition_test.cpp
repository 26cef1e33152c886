// Which L2 partition an SM and a line sit next to, and each SM-slice pair's near round trip
// (micro_l2_partition.csv, micro_l2_partition_contig.csv, micro_sm_map.csv).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "../sim/test_util.h"
#include "mem/memory_system.h"
#include "mem_test_util.h"
#include "util/error.h"

namespace asyncsim {
namespace {

using testing::kNs;
using testing::read;

// l2.partition_granule_bytes = 4096 (the H200 config, micro_l2_partition_contig.csv): the 32
// lines of an aligned 4 KB share a partition, the granules split about evenly between the two,
// and within a partition the lines still reach all 48 of its slices. At 128 (one line), the
// 32 lines of a granule fall in both partitions.
TEST(MemorySystem, PartitionGranuleKeepsAligned4KbInOnePartition) {
  const GpuConfig g4k = load_gpu_config("h200", {"l2.partition_granule_bytes=4096"});
  const GpuConfig g128 = load_gpu_config("h200", {"l2.partition_granule_bytes=128"});
  MemorySystem a(g4k, ClockDomain::from_mhz(1980));
  MemorySystem b(g128, ClockDomain::from_mhz(1980));
  int upper = 0;
  std::set<int> slices0;
  bool mixed128 = false;
  for (uint64_t g = 1000; g < 1400; ++g) {
    std::set<int> parts;
    std::set<int> parts128;
    for (uint64_t l = g * 32; l < g * 32 + 32; ++l) {
      parts.insert(a.partition_of_slice(a.slice_of(l)));
      parts128.insert(b.partition_of_slice(b.slice_of(l)));
      if (a.partition_of_slice(a.slice_of(l)) == 0) {
        slices0.insert(a.slice_of(l));
      }
    }
    ASSERT_EQ(parts.size(), 1u) << "granule " << g;
    upper += *parts.begin();
    mixed128 = mixed128 || parts128.size() == 2;
  }
  EXPECT_GT(upper, 160);  // of 400 granules
  EXPECT_LT(upper, 240);
  EXPECT_EQ(slices0.size(), 48u);
  EXPECT_TRUE(mixed128);
  const GpuConfig bad = load_gpu_config("h200", {"l2.partition_granule_bytes=3000"});
  EXPECT_THROW(MemorySystem(bad, ClockDomain::from_mhz(1980)), InputError);
}

// l2.pair_spread_cycles: each SM-slice pair adds its own share of the spread to the hit round
// trip (0 .. 100 cycles here: 50 each way, MemorySystem::pair_share() of it), the same every
// time; pairs differ. One line on each of the simple GPU's 4 slices, read by SMs 0 and 1.
TEST(MemorySystem, PairSpreadGivesEachSmSlicePairItsOwnHitLatency) {
  const GpuConfig cfg = testing::simple_gpu({"l2.pair_spread_cycles=100"});
  MemorySystem mem(cfg, ClockDomain::from_mhz(1000));
  ASSERT_EQ(mem.num_slices(), 4);
  std::vector<uint64_t> lines(4, UINT64_MAX);
  for (uint64_t l = 0; std::count(lines.begin(), lines.end(), UINT64_MAX) > 0; ++l) {
    auto& at = lines[static_cast<size_t>(mem.slice_of(l))];
    at = std::min(at, l);
  }
  std::set<Time> seen;
  Time t = 10'000 * kNs;
  for (int slice = 0; slice < 4; ++slice) {
    const uint64_t line = lines[static_cast<size_t>(slice)];
    for (uint16_t sm = 0; sm < 2; ++sm) {
      mem.access(read(line, sm), 0);  // resident
      const Time first = mem.access(read(line, sm), t) - t;
      const Time again = mem.access(read(line, sm), t + 1000 * kNs) - (t + 1000 * kNs);
      const auto share =
          static_cast<Time>(MemorySystem::pair_share(sm, slice) * static_cast<double>(50 * kNs));
      EXPECT_EQ(first, 200 * kNs + 2 * share) << "sm " << sm << " slice " << slice;
      EXPECT_EQ(first, again);
      seen.insert(first);
      t += 2000 * kNs;
    }
  }
  EXPECT_EQ(seen.size(), 8u);  // no two of the 8 pairs alike
}

TEST(MemorySystem, PairSharesSpreadEvenlyForEverySm) {
  // Every H200 SM's shares over the 96 slices cover [0, 1) evenly: deciles near 0.1 and 0.9,
  // median near 0.5 (the earlier product hash left SM 0's median at 0.26 and p90 at 0.51).
  for (int sm = 0; sm < 132; ++sm) {
    std::vector<double> v;
    for (int slice = 0; slice < 96; ++slice) {
      const double x = MemorySystem::pair_share(sm, slice);
      ASSERT_GE(x, 0.0);
      ASSERT_LT(x, 1.0);
      v.push_back(x);
    }
    std::sort(v.begin(), v.end());
    EXPECT_LT(v[9], 0.25) << "SM " << sm;
    EXPECT_GT(v[48], 0.3) << "SM " << sm;
    EXPECT_LT(v[48], 0.7) << "SM " << sm;
    EXPECT_GT(v[86], 0.75) << "SM " << sm;
  }
}

// SMs 2t and 2t+1 sit in GPC t mod 8; l2.partition1_gpcs names the GPCs next to partition 1
// (the H200's 102 = GPCs 1, 2, 5, 6); 0 keeps the upper half of the GPCs there.
TEST(MemorySystem, PartitionOfAnSmFollowsItsGpc) {
  const GpuConfig measured = testing::simple_gpu(
      {"sm.count=16", "sm.gpcs=8", "l2.partition1_gpcs=102", "sm.dispatch_side_tpcs=0"});
  const MemorySystem mem(measured, ClockDomain::from_mhz(1000));
  const int want[8] = {0, 1, 1, 0, 0, 1, 1, 0};
  for (int sm = 0; sm < 16; ++sm) {
    EXPECT_EQ(mem.partition_of_sm(sm), want[sm / 2]) << "SM " << sm;
  }
  const GpuConfig halves = testing::simple_gpu(
      {"sm.count=16", "sm.gpcs=8", "l2.partition1_gpcs=0", "sm.dispatch_side_tpcs=0"});
  const MemorySystem old(halves, ClockDomain::from_mhz(1000));
  EXPECT_EQ(old.partition_of_sm(6), 0);  // GPC 3
  EXPECT_EQ(old.partition_of_sm(8), 1);  // GPC 4
  // A side unit of the last 3 TPCs (SMs 10-15) takes its partitions from its own mask (0b010:
  // only its second TPC, SMs 12-13, in partition 1), not from GPCs 5, 6, 7 (1, 1, 0).
  const GpuConfig side = testing::simple_gpu(
      {"sm.count=16", "sm.gpcs=8", "l2.partition1_gpcs=102", "sm.dispatch_order=gpc_major",
       "sm.dispatch_side_tpcs=3", "l2.partition1_side_tpcs=2"});
  const MemorySystem with_side(side, ClockDomain::from_mhz(1000));
  const int want_side[8] = {0, 1, 1, 0, 0, 0, 1, 0};
  for (int sm = 0; sm < 16; ++sm) {
    EXPECT_EQ(with_side.partition_of_sm(sm), want_side[sm / 2]) << "SM " << sm;
  }
}

// The H200 config puts every SM next to the partition micro_l2_partition.csv measured
// (`python3 validation/l2_partition.py`: an SM is far from SM 0's partition when 20+ of its 192
// first reads were far), through sm.tpc_gpcs, l2.partition1_gpcs and the side unit's
// l2.partition1_side_tpcs. With TPC t in GPC t mod 8, 38 SMs (64-131) sat on the wrong side.
TEST(MemorySystem, H200SmsSitNextToTheMeasuredPartition) {
  const GpuConfig h200 = load_gpu_config("h200", {});
  const MemorySystem mem(h200, ClockDomain::from_mhz(1000));
  const std::string measured =
      "001111000011110000111100001111000011110000111100001111000011110011110000111100111100001111"
      "001111000011110011110000111100110000001100";
  ASSERT_EQ(h200.sm.count, static_cast<int>(measured.size()));
  for (int sm = 0; sm < h200.sm.count; ++sm) {
    EXPECT_EQ(mem.partition_of_sm(sm), measured[static_cast<size_t>(sm)] - '0') << "SM " << sm;
  }
}

}  // namespace
}  // namespace asyncsim
