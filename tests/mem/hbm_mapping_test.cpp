// HbmSystem's address mapping on the H200 part (docs/memory.md, "DRAM", the mapping): how strides,
// short runs and windows spread over pseudo-channels and banks.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <vector>

#include "mem/hbm.h"
#include "util/error.h"

namespace asyncsim {
namespace {

// ---- Address mapping on the H200 part --------------------------------------------------------

std::vector<int> pc_histogram(const HbmSystem& hbm, uint64_t stride, int n) {
  std::vector<int> count(static_cast<size_t>(hbm.num_pcs()), 0);
  for (int i = 0; i < n; ++i) {
    ++count[static_cast<size_t>(hbm.decode(static_cast<uint64_t>(i) * stride).pc)];
  }
  return count;
}

// Power-of-two strides spread exactly evenly over all 192 pseudo-channels in the long run
// (the 2048-B stride is the one that broke the low-bit L2 hash, issue 4).
TEST(HbmMapping, PowerOfTwoStridesSpreadOverAllPseudoChannels) {
  HbmSystem hbm(HbmParams{});
  ASSERT_EQ(hbm.num_pcs(), 192);
  // With dram.hash_upper every pseudo-channel gets 1024 of 192 * 1024 lines to within 10%.
  for (uint64_t stride : {128ULL, 2048ULL, 8192ULL, 65536ULL, 1ULL << 20, 1ULL << 22}) {
    const std::vector<int> count = pc_histogram(hbm, stride, 192 * 1024);
    const auto [lo, hi] = std::minmax_element(count.begin(), count.end());
    EXPECT_GE(*lo, 1024 * 90 / 100) << "stride " << stride;
    EXPECT_LE(*hi, 1024 * 110 / 100) << "stride " << stride;
  }
  // A non-power-of-two stride still spreads, less evenly.
  const std::vector<int> count = pc_histogram(hbm, 24576, 192 * 1024);
  const auto [lo, hi] = std::minmax_element(count.begin(), count.end());
  EXPECT_LE(*hi, *lo * 6 / 5);
}

TEST(HbmMapping, StridesSpreadOverBanks) {
  HbmSystem hbm(HbmParams{});
  for (uint64_t stride : {2048ULL, 8192ULL, 1ULL << 20}) {
    std::vector<int> count(32, 0);
    for (int i = 0; i < 32 * 256; ++i) {
      ++count[static_cast<size_t>(hbm.decode(static_cast<uint64_t>(i) * stride).bank)];
    }
    const auto [lo, hi] = std::minmax_element(count.begin(), count.end());
    // The bank bits are XORed with a fold of the bits above them: a permutation, so each of
    // the 32 banks takes exactly 256 of the 8192 lines.
    EXPECT_EQ(*lo, 256) << "stride " << stride;
    EXPECT_EQ(*hi, 256) << "stride " << stride;
  }
}

// What micro_tma_stride.csv asks of a short run (docs/memory.md): each 8 KB window spreads over
// its 32 pseudo-channels (a contiguous 16 KB: two windows, 64), and 64 lines 8 KB apart spread
// too (dram.hash_upper); with only the row bits hashed they stayed in one pseudo-channel.
TEST(HbmMapping, ShortRunsSpreadWhateverTheStride) {
  for (const bool hash_upper : {true, false}) {
    HbmParams p;
    p.hash_upper = hash_upper;
    HbmSystem hbm(p);
    const uint64_t base = 0x12345ULL << 20;
    std::vector<int> contiguous;
    for (uint64_t a = base; a < base + 16384; a += 128) {
      contiguous.push_back(hbm.decode(a).pc);
    }
    std::sort(contiguous.begin(), contiguous.end());
    EXPECT_EQ(std::unique(contiguous.begin(), contiguous.end()) - contiguous.begin(),
              hash_upper ? 64 : 32);
    std::vector<int> strided;
    for (int i = 0; i < 64; ++i) {
      strided.push_back(hbm.decode(base + static_cast<uint64_t>(i) * 8192).pc);
    }
    std::sort(strided.begin(), strided.end());
    const auto distinct = std::unique(strided.begin(), strided.end()) - strided.begin();
    if (hash_upper) {
      EXPECT_GE(distinct, 32);
    } else {
      EXPECT_EQ(distinct, 1);
    }
  }
}

// dram.group_per_block: each aligned block of dram.refresh_sync_pcs granules (1 KB) picks its
// group of 32 pseudo-channels by a hash, the slot stays the granule's, so an 8 KB window still
// covers 32 distinct pseudo-channels (a block's 4 in one group, as they refresh together) while
// the windows' blocks land in different groups; a stream still uses every pseudo-channel
// evenly.
TEST(HbmMapping, BlockGroupsKeepAWindowOnDistinctPseudoChannels) {
  HbmParams p;
  p.group_per_block = true;
  p.refresh_sync_pcs = 4;
  HbmSystem hbm(p);
  int windows_over_several_groups = 0;
  for (uint64_t w = 0; w < 256; ++w) {
    const uint64_t base = (0x4321ULL << 20) + w * 8192;
    std::vector<int> pcs;
    std::set<int> groups;
    for (uint64_t a = base; a < base + 8192; a += 256) {
      pcs.push_back(hbm.decode(a).pc);
      groups.insert(pcs.back() / 32);
      if ((a - base) % 1024 != 0) {
        EXPECT_EQ(pcs.back() / 32, pcs[pcs.size() - 2] / 32) << "a 1 KB block in one group";
      }
    }
    std::sort(pcs.begin(), pcs.end());
    EXPECT_EQ(std::unique(pcs.begin(), pcs.end()) - pcs.begin(), 32) << "window " << w;
    windows_over_several_groups += groups.size() > 1 ? 1 : 0;
  }
  EXPECT_GE(windows_over_several_groups, 250);
  // (Blocks of 8 lines drawn at random: over 16384 lines each the spread is a few per cent.)
  const std::vector<int> count = pc_histogram(hbm, 128, 192 * 16384);
  const auto [lo, hi] = std::minmax_element(count.begin(), count.end());
  EXPECT_GE(*lo, 16384 * 90 / 100);
  EXPECT_LE(*hi, 16384 * 110 / 100);
  // A block must be an aligned part of a window.
  for (const int sync : {3, 64}) {
    HbmParams bad = p;
    bad.refresh_sync_pcs = sync;
    EXPECT_THROW(HbmSystem{bad}, InputError) << sync;
  }
}

}  // namespace
}  // namespace asyncsim
