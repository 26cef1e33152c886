// The halves of the L2 as its readers see them (validation/README.md, "One half's readers and the
// L2's capacity"; validation/data/h100/micro_l2_half.csv): which half an SM reads through
// (l2.reader_half1_gpcs), and a slice hash whose sets fill evenly (l2.hash_odd_by_block).
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "mem/half_hash.h"
#include "mem/memory_system.h"
#include "mem_test_util.h"

namespace asyncsim {
namespace {

using testing::read;

// Every aligned run of half-slices x sets of a half's own lines meets each (slice, set) once:
// the H200's half (48 slices = 3 x 16) and the H100's (40 = 5 x 8), 256 sets, 32-line granules.
TEST(HalfLocalHash, AnAlignedRunMeetsEverySliceAndSetOnce) {
  for (const int half : {48, 40}) {
    HalfLocalHash h;
    h.init(half, 256, 5);
    for (const uint64_t run : {0, 7}) {
      std::set<std::pair<int, size_t>> seen;
      const uint64_t n = static_cast<uint64_t>(half) * 256;
      for (uint64_t local = run * n; local < (run + 1) * n; ++local) {
        const int s = h.slice(local);
        ASSERT_GE(s, 0);
        ASSERT_LT(s, half);
        seen.insert({s, h.set(local)});
      }
      EXPECT_EQ(seen.size(), n) << half << " slices, run " << run;
    }
  }
}

// A stride of 96 half-local lines (the H200's 48 half-slices x 2: a GEMM's rows of 1536 fp16 x
// 8) keeps one residue mod 3 under the block's own residue, a third of the slices; rotated by a
// hash of the run it reaches every slice.
TEST(HalfLocalHash, AStrideOfWholeRunsReachesEverySlice) {
  HalfLocalHash h;
  h.init(48, 256, 5);
  std::set<int> slices;
  std::set<int> residues;
  for (uint64_t i = 0; i < 2048; ++i) {
    const int s = h.slice(i * 96);
    slices.insert(s);
    residues.insert(s / 16);
  }
  EXPECT_EQ(residues.size(), 3u);
  EXPECT_EQ(slices.size(), 48u);
}

// Granules 2j and 2j + 1 (one in each half) number their lines alike; other lines differ.
TEST(HalfLocalHash, TheTwoGranulesOfAPairShareTheirIndices) {
  HalfLocalHash h;
  h.init(48, 256, 5);
  std::set<uint64_t> seen;
  for (uint64_t j = 100; j < 104; ++j) {
    for (uint64_t o = 0; o < 32; ++o) {
      EXPECT_EQ(h.local(j * 64 + o), h.local(j * 64 + 32 + o));
      seen.insert(h.local(j * 64 + o));
    }
  }
  EXPECT_EQ(seen.size(), 4u * 32);
}

// The H200 config with `sets` and no near copies; one SM reads `percent` % of the L2's size of
// consecutive lines twice. The share of the second pass's bytes read from DRAM.
double second_pass_dram(std::vector<std::string> sets, uint64_t percent) {
  sets.push_back("l2.remote_copy=false");
  const GpuConfig cfg = load_gpu_config("h200", sets);
  MemorySystem mem(cfg, ClockDomain::from_mhz(cfg.sm.clock_mhz));
  const uint64_t lines = static_cast<uint64_t>(cfg.mem.l2_bytes) / 128 * percent / 100;
  Time t = 0;
  uint64_t before = 0;
  for (int pass = 0; pass < 2; ++pass) {
    before = mem.stats().dram_read_bytes;
    for (uint64_t l = 0; l < lines; ++l) {
      mem.access(read((uint64_t{1} << 22) + l, 0), t);
      t += 100;
    }
  }
  return static_cast<double>(mem.stats().dram_read_bytes - before) /
         static_cast<double>(lines * 128);
}

// A buffer of 95 % of the H200's L2, read twice by one SM (no near copies): with the sets
// filled evenly the second pass reads nothing from DRAM; with the line-based odd part some sets
// get more lines than ways and miss on every pass.
TEST(MemorySystem, EvenSetsHoldABufferJustUnderTheL2sSize) {
  EXPECT_EQ(second_pass_dram({"l2.hash_odd_by_block=true"}, 95), 0.0);
  EXPECT_GT(second_pass_dram({"l2.hash_odd_by_block=false"}, 95), 0.05);
}

// l2.random_victim_probability: a buffer of 1.25x the L2, read round and round by one SM into
// evenly filled sets. Least recently used, every set holds the lines read longest ago, so the
// second pass hits nothing; with every victim drawn at random part of the buffer stays, and
// drawn among the one least recently used way it is LRU again.
TEST(MemorySystem, RandomVictimsKeepPartOfALoopLargerThanTheL2) {
  const std::string even = "l2.hash_odd_by_block=true";
  EXPECT_EQ(second_pass_dram({even, "l2.random_victim_probability=0"}, 125), 1.0);
  EXPECT_LT(second_pass_dram({even, "l2.random_victim_probability=1"}, 125), 0.7);
  // Drawn among the one oldest way (l2.random_victim_ways=1), the victim is LRU's.
  EXPECT_EQ(
      second_pass_dram({even, "l2.random_victim_probability=1", "l2.random_victim_ways=1"}, 125),
      1.0);
}

// l2.reader_half1_gpcs: SM 0 (GPC 0, next to partition 0 by l2.partition1_gpcs) set to read
// through partition 1. A line homed in partition 0 then gets a near copy in partition 1, one
// homed in partition 1 none; by default the other way round.
TEST(MemorySystem, TheReaderHalfDecidesWhichLinesGetNearCopies) {
  const auto copies = [](const std::vector<std::string>& sets, int home) {
    const GpuConfig cfg = load_gpu_config("h200", sets);
    MemorySystem mem(cfg, ClockDomain::from_mhz(cfg.sm.clock_mhz));
    uint64_t line = 1000;
    while (mem.partition_of_slice(mem.slice_of(line)) != home) {
      ++line;
    }
    mem.access(read(line, 0), 0);
    uint64_t n = 0;
    for (const SliceStats& s : mem.slice_stats()) {
      n += s.copy_inserts;
    }
    return n;
  };
  EXPECT_EQ(copies({}, 0), 0u);
  EXPECT_EQ(copies({}, 1), 1u);
  const std::vector<std::string> half1 = {"l2.reader_half1_gpcs=1", "l2.reader_half1_side_tpcs=0"};
  EXPECT_EQ(copies(half1, 0), 1u);
  EXPECT_EQ(copies(half1, 1), 0u);
}

}  // namespace
}  // namespace asyncsim
