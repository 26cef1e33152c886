// Which slice a line's address picks: l2.slice_skip_line_bits, the line bits the slice hash
// leaves out (ncu_l2/l2_slice_map_pair_*, l2_slice_map_pairbits_*: on the H200 lines 2k and
// 2k + 1 share a slice, and so do lines x and x ^ 4).
#include <gtest/gtest.h>

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

// Mask 5 (bits 0 and 2): in every aligned 1 KB, lines 0, 1, 4, 5 share one slice and 2, 3,
// 6, 7 another; the two differ (consecutive hash keys have different residues mod 3). With
// mask 0 lines 2k and 2k + 1 never share a slice.
TEST(MemorySystem, SliceSkipBitsKeepLinesOfA1KbInTwoSlices) {
  const GpuConfig c5 = load_gpu_config("h200", {"l2.slice_skip_line_bits=5"});
  const GpuConfig c0 = load_gpu_config("h200", {"l2.slice_skip_line_bits=0"});
  const MemorySystem a(c5, ClockDomain::from_mhz(1980));
  const MemorySystem b(c0, ClockDomain::from_mhz(1980));
  int apart = 0;
  for (uint64_t x = 8 * 5000; x < 8 * 5400; x += 8) {
    for (const uint64_t d : {1, 4, 5}) {
      EXPECT_EQ(a.slice_of(x + d), a.slice_of(x)) << x << " + " << d;
      EXPECT_EQ(a.slice_of(x + 2 + d), a.slice_of(x + 2)) << x << " + 2 + " << d;
    }
    apart += a.slice_of(x) != a.slice_of(x + 2) ? 1 : 0;
    EXPECT_NE(b.slice_of(x), b.slice_of(x + 1)) << x;
  }
  EXPECT_EQ(apart, 400);
}

// The set index takes the bits the slice hash leaves out, so an aligned contiguous range as
// large as the L2 (modulo hash, xor sets: 4 slices x 256 sets x 10 ways) still fills every set
// exactly and its second pass reads nothing from DRAM; with the left-out bits dropped from the
// set index too, four lines would meet in each set and half the range would be read again.
TEST(MemorySystem, SliceSkipBitsKeepTheSetsEven) {
  for (const char* mask : {"0", "1", "5"}) {
    const GpuConfig cfg = testing::simple_gpu(
        {"l2.hash=modulo", "l2.set_index=xor", std::string("l2.slice_skip_line_bits=") + mask});
    MemorySystem mem(cfg, ClockDomain::from_mhz(1000));
    const uint64_t lines = 4 * 256 * 10;
    Time t = 0;
    for (int pass = 0; pass < 2; ++pass) {
      for (uint64_t i = 0; i < lines; ++i) {
        mem.access(read(4096 + i), t);
        t += 10 * kNs;
      }
    }
    EXPECT_EQ(mem.stats().dram_read_bytes, lines * 128) << "mask " << mask;
  }
}

// Left-out bits must lie inside the partition granule (4 KB = 32 lines on the H200: bits 0-4).
TEST(MemorySystem, SliceSkipBitsOutsideThePartitionGranuleAreAnError) {
  const GpuConfig bad = load_gpu_config("h200", {"l2.slice_skip_line_bits=32"});
  try {
    const MemorySystem mem(bad, ClockDomain::from_mhz(1980));
    FAIL() << "no error for mask 32";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("l2.slice_skip_line_bits"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("0x20"), std::string::npos) << e.what();
  }
}

// l2.hash_rotate_residue: on the H200 (96 slices = 3 x 32) the odd part of a line's slice is
// the line mod 3, so lines 6 apart (rows of 768 B) keep residue 0: global slices 0-31, which
// the fold into halves (slice mod 48 in the granule's half) leaves as 32 of each half's 48.
// Rotated by a hash of each aligned 256-line run they reach all 96 over the 96 runs here.
TEST(MemorySystem, RotatedResidueSpreadsAStrideOfTheOddFactor) {
  const MemorySystem plain(load_gpu_config("h200", {"l2.hash_rotate_residue=false"}),
                           ClockDomain::from_mhz(1980));
  const MemorySystem rotated(load_gpu_config("h200", {"l2.hash_rotate_residue=true"}),
                             ClockDomain::from_mhz(1980));
  std::set<int> a;
  std::set<int> b;
  int moved = 0;
  for (uint64_t i = 0; i < 4096; ++i) {
    a.insert(plain.slice_of(6 * i));
    b.insert(rotated.slice_of(6 * i));
    moved += plain.slice_of(6 * i) != rotated.slice_of(6 * i) ? 1 : 0;
  }
  EXPECT_EQ(a.size(), 64U);
  EXPECT_EQ(b.size(), 96U);
  EXPECT_GT(moved, 4096 / 3);  // lines of the ~2/3 of runs whose turn is 1 or 2
}

}  // namespace
}  // namespace asyncsim
