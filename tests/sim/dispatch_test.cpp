// Where the block scheduler places a launch's CTAs: GPC-major order, the partial-round spread
// over TPCs, and the H200's side unit (micro_sm_map.csv, micro_gemm_cta_map.csv,
// micro_cta_fill.csv, micro_lsu_placed.csv).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/dispatch_round.h"
#include "test_util.h"

namespace asyncsim {
namespace {

using program::KernelBuilder;
using testing::simple_gpu;

// A grid of `grid` CTAs, each a 10-cycle COMPUTE (a second one for CTAs below `working`),
// `per_sm` of them fitting an SM by shared memory; returns counter `what` (sm[i].what) of
// every SM.
std::vector<int> per_sm_counter(const GpuConfig& c, int grid, int per_sm, int working,
                                const std::string& what) {
  KernelBuilder b("place");
  b.set_grid(grid);
  b.set_resources(32, c.sm.smem_bytes / per_sm - 4096);
  b.begin_role("main", 1);
  KernelBuilder::ComputeOps ops;
  ops.cycles = "10";
  b.compute(ops);
  if (working > 0) {
    b.if_(fmt::format("cta < {}", working));
    b.compute(ops);
    b.end_if();
  }
  b.end_role();
  const SimResult r = simulate(b.finish(), c);
  std::vector<int> v;
  for (int sm = 0; sm < c.sm.count; ++sm) {
    v.push_back(static_cast<int>(r.counters.at(fmt::format("sm[{}].{}", sm, what))));
  }
  return v;
}

// `grid` CTAs of `threads` threads and 200000 B of shared memory (one fits an SM), each one
// COMPUTE of `cycles`.
program::Kernel one_compute_per_cta(int grid, int threads, const std::string& cycles) {
  KernelBuilder b("place");
  b.set_grid(grid);
  b.set_resources(threads, 200000);
  b.begin_role("main", 1);
  KernelBuilder::ComputeOps ops;
  ops.cycles = cycles;
  b.compute(ops);
  b.end_role();
  return b.finish();
}

// sm.smem_reserved_per_cta counts against an SM's shared memory for every resident CTA (the CUDA
// occupancy rule): two CTAs per SM of (smem_bytes - 1024) / 2 B each run side by side without the
// reserve (one 1000-cycle COMPUTE's time) and one after the other with 1024 B reserved each.
TEST(Dispatch, ReservedSharedMemoryDecidesWhetherTwoCtasShareAnSm) {
  const auto cycles = [](int reserve) {
    const GpuConfig c = simple_gpu({fmt::format("sm.smem_reserved_per_cta={}", reserve)});
    KernelBuilder b("pair");
    b.set_grid(2 * c.sm.count);
    b.set_resources(32, (c.sm.smem_bytes - 1024) / 2);
    b.begin_role("main", 1);
    KernelBuilder::ComputeOps ops;
    ops.cycles = "1000";
    b.compute(ops);
    b.end_role();
    return simulate(b.finish(), c).cycles;
  };
  const int64_t shared = cycles(0);
  const int64_t apart = cycles(1024);
  EXPECT_LT(shared, 1100) << shared;  // both CTAs of an SM at once
  EXPECT_GE(apart, 2000) << apart;    // the second waits for the first's slot
}

TEST(Dispatch, DispatchOrderFillsOneGpcFirst) {
  const program::Kernel k = one_compute_per_cta(4, 128, "10");
  const auto ctas_on = [&](const GpuConfig& c) {
    const SimResult r = simulate(k, c);
    std::vector<int> on;
    for (int sm = 0; sm < 8; ++sm) {
      if (r.counters.at(fmt::format("sm[{}].ctas", sm)) > 0) {
        on.push_back(sm);
      }
    }
    return on;
  };
  // (Four CTAs on eight SMs are a partial round: sm.spread_partial_round, tested below, would
  // give each TPC one first.)
  GpuConfig c = simple_gpu(
      {"sm.count=8", "sm.gpcs=2", "sm.dispatch_order=sm_id", "sm.spread_partial_round=false"});
  EXPECT_EQ(ctas_on(c), (std::vector<int>{0, 1, 2, 3}));
  c.sm.dispatch_order = DispatchOrder::kGpcMajor;
  EXPECT_EQ(ctas_on(c), (std::vector<int>{0, 1, 4, 5}));
}

// sm.spread_partial_round on 4 SMs in 2 TPCs, two CTAs per SM: 6 CTAs fill every SM once,
// then the last 2 (fewer than the 4 SMs with room) go to one SM of each TPC (0 and 2) instead
// of both SMs of TPC 0, as the H200 placed 384x8192x8192's last 60 CTAs
// (micro_gemm_cta_map.csv). A partial first round likewise: 2 CTAs on 4 SMs use both TPCs.
TEST(Dispatch, PartialRoundSpreadsOverTpcs) {
  const auto per_sm = [](int ctas, const GpuConfig& c) {
    return per_sm_counter(c, ctas, 2, 0, "ctas");
  };
  GpuConfig c = simple_gpu(
      {"sm.count=4", "sm.gpcs=1", "sm.dispatch_order=sm_id", "sm.spread_partial_round=true"});
  EXPECT_EQ(per_sm(6, c), (std::vector<int>{2, 1, 2, 1}));
  EXPECT_EQ(per_sm(2, c), (std::vector<int>{1, 0, 1, 0}));
  c.sm.spread_partial_round = false;
  EXPECT_EQ(per_sm(6, c), (std::vector<int>{2, 2, 1, 1}));
  EXPECT_EQ(per_sm(2, c), (std::vector<int>{1, 1, 0, 0}));
}

// The partial round on its own (sim/dispatch_round.h): 8 SMs in 4 TPCs, the last TPC (SMs 6, 7)
// the side unit, listed first. Every SM holds one CTA but SM 3, which holds none: a round serves
// the lowest level first, so SM 3 alone takes one even with 5 CTAs left. Once all hold one, 5
// CTAs go to both side SMs, then one SM of each TPC by id (0, 2, 4); 4 CTAs stop at SM 2.
TEST(Dispatch, PartialRoundServesTheFewestThenTheSideUnitThenTpcsById) {
  std::vector<RoundSm> order{{6, true, 1}, {7, true, 1}, {4, true, 1}, {5, true, 1},
                             {0, true, 1}, {1, true, 1}, {2, true, 1}, {3, true, 0}};
  const auto ids = [](const std::vector<char>& chosen) {
    std::vector<int> v;
    for (size_t i = 0; i < chosen.size(); ++i) {
      if (chosen[i]) {
        v.push_back(static_cast<int>(i));
      }
    }
    return v;
  };
  EXPECT_EQ(ids(choose_round(order, 8, 6, 5, true, true)), (std::vector<int>{3}));
  order.back().live = 1;
  EXPECT_EQ(ids(choose_round(order, 8, 6, 5, true, true)), (std::vector<int>{0, 2, 4, 6, 7}));
  EXPECT_EQ(ids(choose_round(order, 8, 6, 4, true, true)), (std::vector<int>{0, 2, 6, 7}));
  // 7 CTAs: the side's two, TPCs 0-2 one each, then TPC 0's and TPC 1's other SMs.
  EXPECT_EQ(ids(choose_round(order, 8, 6, 7, true, true)), (std::vector<int>{0, 1, 2, 3, 4, 6, 7}));
  // Enough for every SM at the level: all of them, whatever the order.
  EXPECT_EQ(ids(choose_round(order, 8, 6, 8, true, true)).size(), 8u);
  // Without the spread every SM with room, even for fewer CTAs (the caller stops at the grid).
  EXPECT_EQ(ids(choose_round(order, 8, 6, 2, false, true)).size(), 8u);
}

// On the H200 config, 192 CTAs of two per SM (384x8192x8192 w4, micro_gemm_cta_map.csv) put
// one CTA on every SM and a second on the 8 side-unit SMs (124-131) and on SM 2t of TPCs 0-51,
// as the chip did in both launches.
TEST(Dispatch, H200PlacesASecondPartialRoundOnTheSideUnitAndLowTpcs) {
  const GpuConfig c = load_gpu_config("h200");
  const std::vector<int> ctas = per_sm_counter(c, 192, 2, 0, "ctas");
  for (int sm = 0; sm < c.sm.count; ++sm) {
    SCOPED_TRACE(sm);
    EXPECT_EQ(ctas[static_cast<size_t>(sm)], sm >= 124 || (sm <= 102 && sm % 2 == 0) ? 2 : 1);
  }
}

// sm.dispatch_side_tpcs on 12 SMs in 2 GPCs (TPC t in GPC t mod 2) whose last TPC (SMs 10, 11)
// is the side unit, visited first and before every 2nd GPC visit (period 2), 3 CTAs per SM,
// 36 CTAs. Visits: side (CTAs 0-1 on SMs 10, 11), GPC 0 (2-7 on 0, 1, 4, 5, 8, 9), side (8-9),
// GPC 1 (10-13 on 2, 3, 6, 7), GPC 0 (14-19), side (20-21): of the first 22 CTAs the side SMs
// hold 3, GPC 0's 2 and GPC 1's 1 (micro_cta_fill.csv: the H200's SMs 124-131 hold 6 of the
// first 512 of 1056 CTAs, the others 3-4).
TEST(Dispatch, SideUnitFillsFaster) {
  const auto working = [](const GpuConfig& c) {
    const std::vector<int> with = per_sm_counter(c, 36, 3, 22, "instructions");
    const std::vector<int> without = per_sm_counter(c, 36, 3, 0, "instructions");
    std::vector<int> n;
    for (size_t i = 0; i < with.size(); ++i) {
      n.push_back(with[i] - without[i]);
    }
    return n;
  };
  GpuConfig c = simple_gpu({"sm.count=12", "sm.gpcs=2", "sm.dispatch_order=gpc_major",
                            "sm.spread_partial_round=true", "sm.dispatch_side_tpcs=1",
                            "sm.dispatch_side_period=2"});
  EXPECT_EQ(working(c), (std::vector<int>{2, 2, 1, 1, 2, 2, 1, 1, 2, 2, 3, 3}));
  // TPC 5 back in GPC 1: two rounds of GPC 0 (0, 1, 4, 5, 8, 9), then GPC 1 (2, 3, 6, 7, 10,
  // 11) hold 24 CTAs, so SMs 10 and 11 get the fewest.
  c.sm.dispatch_side_tpcs = 0;
  EXPECT_EQ(working(c), (std::vector<int>{2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1}));
}

// The unit-by-unit fill stops at an SM's even share of the grid (micro_lsu_placed.csv: 264 CTAs
// with room for 8 per SM land 2 on each of the H200's SMs). 24 CTAs on 12 SMs with room for 3:
// the side unit (SMs 10, 11) comes first and again before the second GPC visit, yet holds 2.
// Without the cap it would take 3 and SMs 2, 3, 6, 7 would take 1.
TEST(Dispatch, SideUnitTakesNoMoreThanItsShare) {
  GpuConfig c = simple_gpu({"sm.count=12", "sm.gpcs=2", "sm.dispatch_order=gpc_major",
                            "sm.spread_partial_round=true", "sm.dispatch_side_tpcs=1",
                            "sm.dispatch_side_period=2"});
  const auto ctas = [&](int grid) { return per_sm_counter(c, grid, 3, 0, "ctas"); };
  EXPECT_EQ(ctas(24), std::vector<int>(12, 2));
  EXPECT_EQ(ctas(36), std::vector<int>(12, 3));
}

// RunOptions::record_ctas (--cta-log) keeps where and when each CTA ran. 5 CTAs of one 100-cycle
// COMPUTE on 2 SMs (1 GHz, every launch/exit overhead 0, one CTA per SM): CTAs 0 and 1 run at
// 0-100 on the two SMs, 2 and 3 take their slots at 100 when the first two leave, 4 at 200 on
// the SM that CTA 2 left. Without the option nothing is kept.
TEST(Dispatch, CtaRecordsSayWhereAndWhenEachCtaRan) {
  const program::Kernel k = one_compute_per_cta(5, 32, "100");
  const GpuConfig c = simple_gpu({"sm.dispatch_side_tpcs=0", "sm.dispatch_order=sm_id"});
  RunOptions o;
  o.record_ctas = true;
  const SimResult r = simulate(k, c, o);
  ASSERT_EQ(r.cta_records.size(), 5u);
  const std::vector<int> sm{0, 1, 0, 1, 0};
  const std::vector<double> start{0, 0, 100, 100, 200};
  for (size_t i = 0; i < 5; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(r.cta_records[i].cta, static_cast<int64_t>(i));
    EXPECT_EQ(r.cta_records[i].sm, sm[i]);
    EXPECT_DOUBLE_EQ(r.cta_records[i].start_cycle, start[i]);
    EXPECT_DOUBLE_EQ(r.cta_records[i].end_cycle, start[i] + 100);
  }
  EXPECT_TRUE(simulate(k, c).cta_records.empty());
}

}  // namespace
}  // namespace asyncsim
