// L2 geometries at their limits: one set per slice, and less than that (a config error).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "../sim/test_util.h"
#include "mem/memory_system.h"
#include "mem_test_util.h"
#include "util/error.h"

namespace asyncsim {
namespace {

using testing::kNs;
using testing::read;

// One set per slice (l2.bytes = 128 B x 4 slices x 10 ways): the xor set index has no bits to
// fold (its fold never ended), and a slice holds its 10 ways: of 10 lines of one slice in SM 0's
// partition (no near copies) the first is still a hit (200), an 11th evicts the least recently
// used (the second: a miss again, 100 + 1 + 300 + 100).
TEST(MemorySystem, OneSetPerSliceHoldsItsWays) {
  const GpuConfig cfg = testing::simple_gpu({"l2.bytes=5120", "l2.set_index=xor"});
  ASSERT_EQ(cfg.l2_sets(), 1);
  MemorySystem mem(cfg, ClockDomain::from_mhz(1000));
  std::vector<uint64_t> lines;  // lines of one slice next to SM 0
  int slice = -1;
  for (uint64_t l = 1; lines.size() < 11; ++l) {
    if (mem.partition_of_slice(mem.slice_of(l)) != mem.partition_of_sm(0)) {
      continue;
    }
    slice = slice < 0 ? mem.slice_of(l) : slice;
    if (mem.slice_of(l) == slice) {
      lines.push_back(l);
    }
  }
  Time t = 0;
  for (size_t i = 0; i < 10; ++i, t += 10000 * kNs) {
    EXPECT_EQ(mem.access(read(lines[i]), t) - t, 501 * kNs) << i;
  }
  EXPECT_EQ(mem.access(read(lines[0]), t) - t, 200 * kNs);
  t += 10000 * kNs;
  mem.access(read(lines[10]), t);
  t += 10000 * kNs;
  EXPECT_EQ(mem.access(read(lines[1]), t) - t, 501 * kNs);
  EXPECT_EQ(mem.access(read(lines[0]), t + 10000 * kNs) - t - 10000 * kNs, 200 * kNs);
}

// l2.bytes below one set per slice is a config error, not a cache of ways it was not given.
TEST(MemorySystem, AnL2SmallerThanOneSetPerSliceIsAnInputError) {
  try {
    testing::simple_gpu({"l2.bytes=5119"});
    FAIL() << "expected an input error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("l2.bytes 5119 holds less than one set per slice "
                                         "(mem.line_bytes 128 x l2.slices 4 x l2.ways 10 = "
                                         "5120 bytes)"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace asyncsim
