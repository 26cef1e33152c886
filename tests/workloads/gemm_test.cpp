// The GEMM generator against the spec's formulas, and the traffic it creates.
#include "workloads/gemm.h"

#include <gtest/gtest.h>

#include "../sim/test_util.h"
#include "mem/memory_system.h"
#include "util/error.h"

namespace asyncsim {
namespace {

using testing::sum_counter;

using workloads::GemmSpec;
using workloads::GemmVariant;

struct Shape {
  int64_t m, n, k;
  const char* tile;
  int warps;
};

class GemmCounts : public ::testing::TestWithParam<Shape> {};

// wgmma instructions, TMA transactions and bytes follow from the spec for every variant:
// tiles x cdiv(K,BK) iterations x (BM/#WG/64)*(BK/16) wgmma per warpgroup; two loads per
// iteration of full boxes (out-of-bounds parts included, as TMA counts them); cdiv(BN,64)
// stores of BM x 64 per tile.
TEST_P(GemmCounts, MatchSpecFormulas) {
  const Shape sh = GetParam();
  const GpuConfig cfg = load_gpu_config("h200");
  for (GemmVariant v :
       {GemmVariant::kPipelined, GemmVariant::kWarpSpecialized, GemmVariant::kPersistent}) {
    GemmSpec s;
    s.m = sh.m;
    s.n = sh.n;
    s.k = sh.k;
    s.warps = sh.warps;
    s.variant = v;
    workloads::parse_tile(sh.tile, s, "--tile");
    const auto c = workloads::gemm_counts(s);
    const int64_t tm = (s.m + s.bm - 1) / s.bm;
    const int64_t tn = (s.n + s.bn - 1) / s.bn;
    const int64_t kt = (s.k + s.bk - 1) / s.bk;
    ASSERT_EQ(c.ctas, tm * tn);
    ASSERT_EQ(c.k_iterations, kt);
    ASSERT_EQ(c.wgmma_per_iteration, (s.bm / (s.warps / 4) / 64) * (s.bk / 16));
    const SimResult r = simulate(workloads::build_gemm(s, cfg), cfg);
    EXPECT_EQ(sum_counter(r, ".tensor.instructions"), static_cast<double>(c.wgmma_instructions));
    EXPECT_EQ(sum_counter(r, ".tma.transactions"), static_cast<double>(c.tma_loads + c.tma_stores));
    EXPECT_EQ(sum_counter(r, ".tma.load_bytes"),
              static_cast<double>(tm * tn * kt * (s.bm + s.bn) * s.bk * 2));
    EXPECT_EQ(sum_counter(r, ".tma.store_bytes"), static_cast<double>(tm * tn * s.bm * s.bn * 2));
    EXPECT_DOUBLE_EQ(r.flops, 2.0 * static_cast<double>(tm * s.bm * tn * s.bn * kt * s.bk));
    EXPECT_EQ(r.tma_requests, r.tma_responses);
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, GemmCounts,
                         ::testing::Values(Shape{256, 256, 256, "128x128x64", 4},
                                           Shape{300, 200, 104, "128x128x64", 4},
                                           Shape{129, 520, 200, "128x256x64", 8},
                                           Shape{512, 384, 1024, "128x128x64", 8}));

// With everything resident in L2, DRAM reads are exactly the in-bounds bytes of A and B once:
// out-of-bounds rows of clipped tiles (M=300, N=200 are not multiples of 128) add none.
TEST(GemmTraffic, ClippedTilesReadEachInBoundsByteOnce) {
  GemmSpec s;
  s.m = 300;
  s.n = 200;
  s.k = 128;
  const GpuConfig cfg = load_gpu_config("h200", {"l2.flush_dirty_at_end=true"});
  const SimResult r = simulate(workloads::build_gemm(s, cfg), cfg);
  EXPECT_EQ(r.dram_read_bytes, static_cast<uint64_t>((300 + 200) * 128 * 2));
  // Out-of-bounds parts of the C tiles are not written: exactly 300 x 200 fp16 reach DRAM.
  EXPECT_EQ(r.dram_write_bytes, static_cast<uint64_t>(300 * 200 * 2));
  EXPECT_GT(sum_counter(r, ".tma.oob_sectors"), 0);
  // DRAM traffic by tensor: A and B read once each, C written once, nothing else.
  EXPECT_EQ(r.counters.at("dram.tensor[A].read_bytes"), 300 * 128 * 2);
  EXPECT_EQ(r.counters.at("dram.tensor[B].read_bytes"), 200 * 128 * 2);
  EXPECT_EQ(r.counters.at("dram.tensor[C].write_bytes"), 300 * 200 * 2);
  EXPECT_EQ(r.counters.at("dram.tensor[C].read_bytes"), 0);
  EXPECT_EQ(r.counters.at("dram.tensor[other].read_bytes"), 0);
  // As Nsight Compute sees it (the H200 default), dirty lines left in L2 are not DRAM writes.
  const GpuConfig h200 = load_gpu_config("h200");
  EXPECT_EQ(simulate(workloads::build_gemm(s, h200), h200).dram_write_bytes, 0u);
}

// Persistent CTAs in Triton's grouped order (GROUP_SIZE_M): with groups of 3 tile rows over 10
// (the last group has one row) every C tile is still written exactly once, so with dirty lines
// flushed the DRAM writes are exactly C; a group size of 0 is refused.
TEST(GemmTraffic, GroupedPersistentOrderWritesEveryTileOnce) {
  GemmSpec s;
  s.m = 1280;
  s.n = 512;
  s.k = 64;
  s.variant = GemmVariant::kPersistent;
  const GpuConfig cfg = load_gpu_config("h200", {"l2.flush_dirty_at_end=true"});
  for (const int group : {1, 3, 8}) {
    s.group_m = group;
    const SimResult r = simulate(workloads::build_gemm(s, cfg), cfg);
    EXPECT_EQ(r.dram_write_bytes, static_cast<uint64_t>(1280 * 512 * 2)) << "group " << group;
    EXPECT_EQ(r.dram_read_bytes, static_cast<uint64_t>((1280 + 512) * 64 * 2)) << "group " << group;
  }
  s.group_m = 0;
  EXPECT_THROW(workloads::build_gemm(s, cfg), InputError);
}

// Triton's persistent kernels keep C's staging buffer apart from the pipeline (the next tile's
// loads run while a tile's C is stored): 3 x 32 KB + 32 KB (+ 1 KB barriers) for 128x128x64 s3,
// as the H200 capture shows (131096 B), so one CTA fits per SM and the grid is one per SM, as the
// tutorial launches it; the non-persistent kernel reuses the pipeline for C (two per SM). An
// explicit CTA count overrides the grid; it is refused without the persistent variant.
TEST(GemmResources, PersistentKeepsCApartAndRunsOneCtaPerSm) {
  const GpuConfig cfg = load_gpu_config("h200");
  GemmSpec s;
  s.m = 4096;
  s.n = 4096;
  EXPECT_EQ(workloads::gemm_smem_bytes(s), 3 * 32768 + 1024);
  EXPECT_EQ(workloads::build_gemm(s, cfg).num_ctas(), 32 * 32);
  s.variant = GemmVariant::kPersistent;
  EXPECT_EQ(workloads::gemm_smem_bytes(s), 3 * 32768 + 32768 + 1024);
  EXPECT_EQ(workloads::build_gemm(s, cfg).num_ctas(), cfg.sm.count);
  s.ctas = 64;
  EXPECT_EQ(workloads::build_gemm(s, cfg).num_ctas(), 64);
  s.variant = GemmVariant::kPipelined;
  EXPECT_THROW(workloads::build_gemm(s, cfg), InputError);
}

TEST(GemmTraffic, SameResultTwice) {
  GemmSpec s;
  s.m = 1024;
  s.n = 512;
  s.k = 512;
  const GpuConfig cfg = load_gpu_config("h200");
  const auto k = workloads::build_gemm(s, cfg);
  EXPECT_EQ(simulate(k, cfg).to_json().dump(), simulate(k, cfg).to_json().dump());
}

TEST(GemmSpecErrors, ImpossibleTilesNameTheFlag) {
  const GpuConfig cfg = load_gpu_config("h200");
  GemmSpec s;
  s.bm = 96;  // not a multiple of 64 rows per warpgroup
  EXPECT_THROW(workloads::build_gemm(s, cfg), InputError);
  GemmSpec odd_k;
  odd_k.k = 100;  // a 200-byte row stride is not TMA-legal
  try {
    workloads::build_gemm(odd_k, cfg);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("16-byte row strides"), std::string::npos) << e.what();
  }
  try {
    workloads::parse_tile("128x128", s, "--tile");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--tile"), std::string::npos);
  }
  GemmSpec big;
  big.bm = 256;
  big.bn = 256;
  big.warps = 8;
  big.stages = 6;  // 6 x 64 KB of stages cannot fit in 227 KB
  try {
    simulate(workloads::build_gemm(big, cfg), cfg);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("shared memory"), std::string::npos) << e.what();
  }
}

// RunOptions::memory_trace records every memory-system request of a run; replayed in order on a
// fresh MemorySystem they reproduce the run's traffic exactly (bench_sim's MemoryReplay times
// the memory system alone this way), and two replays give the same completion times.
TEST(GemmTraffic, RecordedRequestsReplayToTheSameTraffic) {
  GemmSpec s;
  s.m = 512;
  s.n = 384;
  s.k = 512;
  const GpuConfig cfg = load_gpu_config("h200");
  std::vector<MemAccessRecord> trace;
  RunOptions o;
  o.memory_trace = &trace;
  const SimResult r = simulate(workloads::build_gemm(s, cfg), cfg, o);
  ASSERT_EQ(static_cast<double>(trace.size()), r.counters.at("mem.requests"));
  const auto clock = ClockDomain::from_mhz(cfg.sm.clock_mhz);
  std::vector<Time> done[2];
  for (std::vector<Time>& d : done) {
    MemorySystem mem(cfg, clock);
    for (const MemAccessRecord& a : trace) {
      d.push_back(mem.access(a.req, a.t));
    }
    EXPECT_EQ(mem.stats().dram_read_bytes, r.dram_read_bytes);
    EXPECT_EQ(mem.stats().l2_read_bytes, r.l2_read_bytes);
    EXPECT_EQ(mem.stats().l2_write_bytes, r.l2_write_bytes);
    EXPECT_EQ(static_cast<double>(mem.stats().coalescer_merges),
              r.counters.at("mem.coalescer_merges"));
  }
  EXPECT_EQ(done[0], done[1]);
  EXPECT_GT(r.dram_read_bytes, 0u);
}

}  // namespace
}  // namespace asyncsim
