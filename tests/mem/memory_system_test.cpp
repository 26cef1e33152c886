// The L2 side of the memory system with exact expectations on the round-number test GPU
// (tests/data/simple_gpu.yaml: L2 and DRAM at 1 GHz, 200-cycle hit round trip, 300-cycle
// DRAM latency, one DRAM channel at 128 B/cycle, no far-partition extra).
#include "mem/memory_system.h"

#include <gtest/gtest.h>

#include <set>

#include "../sim/test_util.h"

namespace asyncsim {
namespace {

constexpr Time kNs = 1000;  // 1 cycle at 1 GHz

MemRequest read(uint64_t line, uint16_t sm = 0) {
  return MemRequest{line, 0xF, false, sm};
}

TEST(MemorySystem, HitMissAndMshrMergeLatencies) {
  const GpuConfig cfg = testing::simple_gpu();
  MemorySystem mem(cfg, ClockDomain::from_mhz(1000));
  // Miss: 100 to the slice, 1 cycle of DRAM transfer + 300 latency, 100 back.
  EXPECT_EQ(mem.access(read(1000), 0), 501 * kNs);
  // A second read of the same line while the fill is in flight merges: it returns with the
  // fill (401) plus the way back (100), not a new DRAM access.
  EXPECT_EQ(mem.access(read(1000), 10 * kNs), 501 * kNs);
  // A hit after the fill: 100 there (+1 cycle of slice time queued behind nothing) and back.
  EXPECT_EQ(mem.access(read(1000), 1000 * kNs), 1200 * kNs);
  EXPECT_EQ(mem.stats().dram_read_bytes, 128u);
  uint64_t merges = 0;
  for (const auto& s : mem.slice_stats()) {
    merges += s.mshr_merges;
  }
  EXPECT_EQ(merges, 1u);
}

TEST(MemorySystem, CoalescerMergesTheTwoSmsOfATpc) {
  const GpuConfig cfg = testing::simple_gpu({"l2.coalescer=true", "sm.count=4"});
  MemorySystem mem(cfg, ClockDomain::from_mhz(1000));
  const Time first = mem.access(read(77, 0), 0);
  EXPECT_EQ(mem.access(read(77, 1), 5 * kNs), first);  // SM 1 shares SM 0's TPC
  EXPECT_EQ(mem.stats().coalescer_merges, 1u);
  mem.access(read(77, 2), 6 * kNs);  // SM 2 is another TPC: goes to L2 (and merges there)
  EXPECT_EQ(mem.stats().coalescer_merges, 1u);
  EXPECT_EQ(mem.stats().l2_read_bytes, 2u * 128);
}

// The 2048-byte stride that broke a low-bit hash in Sim-FA, and the 16 KB row stride of GEMM
// tiles: IPOLY spreads both over every slice; Sim-FA's XOR hash does not for 96 slices.
TEST(MemorySystem, IpolyHashSpreadsPowerOfTwoStrides) {
  for (int stride_lines : {16, 128}) {
    const GpuConfig ip = load_gpu_config("h200", {"l2.hash=ipoly"});
    const GpuConfig xr = load_gpu_config("h200", {"l2.hash=xor"});
    MemorySystem a(ip, ClockDomain::from_mhz(1980));
    MemorySystem b(xr, ClockDomain::from_mhz(1980));
    std::set<int> sa;
    std::set<int> sb;
    for (uint64_t r = 0; r < 384; ++r) {
      sa.insert(a.slice_of(12345 + r * static_cast<uint64_t>(stride_lines)));
      sb.insert(b.slice_of(12345 + r * static_cast<uint64_t>(stride_lines)));
    }
    EXPECT_EQ(sa.size(), 96u) << "stride " << stride_lines;
    EXPECT_LT(sb.size(), 96u) << "stride " << stride_lines;
  }
}

TEST(MemorySystem, EveryRequestGetsOneResponse) {
  const GpuConfig cfg = load_gpu_config("h200");
  MemorySystem mem(cfg, ClockDomain::from_mhz(1980));
  Time t = 0;
  for (uint64_t i = 0; i < 20000; ++i) {
    const Time done = mem.access(
        MemRequest{(i * 7919) % 50000, 0xF, i % 5 == 0, static_cast<uint16_t>(i % 132)}, t);
    EXPECT_GT(done, t);
    t += 300;
  }
  EXPECT_EQ(mem.stats().requests, 20000u);
  EXPECT_EQ(mem.stats().responses, 20000u);
}

}  // namespace
}  // namespace asyncsim
