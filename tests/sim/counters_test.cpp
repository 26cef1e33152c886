// The memory counters a result reports are its own kernel's: in a sequence the memory system
// counts on, and each result holds what its kernel added (the L2 slices' and the DRAM's alike).
#include <gtest/gtest.h>

#include <vector>

#include "test_util.h"

namespace asyncsim {
namespace {

using testing::map2d;
using testing::one_box_load;
using testing::simple_gpu;
using testing::sum_counter;

// The same two lines read twice: the first kernel misses (8 sectors from DRAM), the second hits
// them all. Until the twenty-third session the second result repeated the first's slice
// counters and DRAM row counts on top of its own.
void expect_second_kernel_hits(const GpuConfig& c, const std::string& what) {
  const program::Kernel k = one_box_load(map2d("T", 2, 64, 2, 64, 1 << 20));
  const std::vector<SimResult> rs = simulate_sequence({&k, &k}, c);
  ASSERT_EQ(rs.size(), 2u);
  EXPECT_EQ(sum_counter(rs[0], ".read_misses"), 8) << what;
  EXPECT_EQ(sum_counter(rs[0], ".read_hits"), 0) << what;
  EXPECT_EQ(rs[0].counters.at("mem.read_requests"), 2) << what;
  EXPECT_EQ(sum_counter(rs[1], ".read_misses"), 0) << what;
  EXPECT_EQ(sum_counter(rs[1], ".read_hits"), 8) << what;
  EXPECT_EQ(rs[1].counters.at("mem.read_requests"), 2) << what;
  EXPECT_EQ(rs[1].dram_read_bytes, 0u) << what;
  if (rs[0].counters.count("dram.activates") != 0) {
    EXPECT_GT(rs[0].counters.at("dram.activates"), 0) << what;
    EXPECT_EQ(rs[1].counters.at("dram.activates"), 0) << what;
    EXPECT_EQ(rs[1].counters.at("dram.row_hits") + rs[1].counters.at("dram.row_misses") +
                  rs[1].counters.at("dram.row_conflicts"),
              0)
        << what;
  }
}

TEST(Counters, EachKernelOfASequenceCountsItsOwnL2Reads) {
  expect_second_kernel_hits(simple_gpu(), "dram.model=simple");
}

TEST(Counters, EachKernelOfASequenceCountsItsOwnDramRows) {
  expect_second_kernel_hits(load_gpu_config("h200"), "h200 (dram.model=hbm)");
}

}  // namespace
}  // namespace asyncsim
