// Exact-cycle tests of each primitive on tiny programs, on the round-number GPU of
// tests/data/simple_gpu.yaml (all clocks 1 GHz: 1 cycle = 1 ns). Each expected number is
// derived in the comment above it from the parameters of that file and configs/h200.yaml.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "test_util.h"
#include "util/error.h"

namespace asyncsim {
namespace {

using program::DType;
using program::KernelBuilder;
using testing::map2d;
using testing::one_box_load;
using testing::simple_gpu;

// The box covers the whole 2x64 tensor: two 128-B lines.
TEST(Primitives, OneTmaLoad) {
  const SimResult r = simulate(one_box_load(map2d("T", 2, 64, 2, 64, 1 << 20)), simple_gpu());
  // cycle 0: arrive.expect_tx (1 cycle). cycle 1: TMA accepted; generation starts after
  // launch 40 + tensor-map setup 371 (the map's first use on this SM) = 412. Line 0 is emitted
  // at 412 (4 sectors at 32 B/cycle = 4 cycles), line 1 at 416. Line 0: +100 to the slice (half
  // of the 200-cycle round trip) = 512, miss, DRAM channel busy 1 cycle (128 B at 128 B/cycle)
  // + 300 latency = 813, +100 back = 913. Line 1: slice at 516, channel free at 513 -> 517 +
  // 300 = 817, back at 917. complete_tx at 917; the waiter sees the phase flip after
  // barrier.wake_cycles = 42: 959. EXIT at 959; no exit overhead.
  EXPECT_EQ(r.cycles, 959);
  EXPECT_EQ(r.dram_read_bytes, 256u);
  EXPECT_EQ(r.tma_bytes, 256u);
  EXPECT_EQ(r.tma_requests, r.tma_responses);
}

// tma.tensor_launch_cycles: every tensor copy's launch, not only the map's first, is longer by
// this much than a bulk copy's (the H200 / H100 load the same line 26 cycles later by a tensor
// box than by cp.async.bulk). OneTmaLoad's box takes 959 cycles with 0; with 30 its generation
// starts 30 later (442), and everything after it too: 989. A second box of the same map (its
// descriptor cached) pays the 30 again. A bulk copy of the same 256 B does not pay it.
TEST(Primitives, TensorLaunchCostIsPaidByEveryTensorCopyAndNoBulkCopy) {
  const auto map = map2d("T", 2, 64, 2, 64, 1 << 20);
  const auto two_boxes = [&](bool tensor) {
    KernelBuilder b("two_copies");
    b.add_map(map);
    b.add_barrier("full", 1, 1);
    b.begin_role("main", 1);
    for (int i = 0; i < 2; ++i) {
      b.mb_arrive_expect_tx("full", "0", "256");
      if (tensor) {
        b.tma_load("T", {"0", "0"}, "full", "0");
      } else {
        b.bulk_load(std::to_string(1 << 20), "256", "full", "0");
      }
      b.mb_wait("full", "0", std::to_string(i));
    }
    b.end_role();
    return b.finish();
  };
  EXPECT_EQ(simulate(one_box_load(map), simple_gpu({"tma.tensor_launch_cycles=30"})).cycles,
            959 + 30);
  for (const bool tensor : {true, false}) {
    const int64_t base = simulate(two_boxes(tensor), simple_gpu()).cycles;
    const int64_t slower =
        simulate(two_boxes(tensor), simple_gpu({"tma.tensor_launch_cycles=30"})).cycles;
    EXPECT_EQ(slower - base, tensor ? 60 : 0) << (tensor ? "tensor" : "bulk");
  }
}

// tma.barrier_hold_cycles: the warp's first mbarrier operation after a TMA load waits until the
// hold has passed since the load's issue. OneTmaLoad's data is back at 917; its wait at cycle 45
// (after the 44-cycle issue gap) blocks and resumes at 959. With a hold of 2000, the wait starts
// at 1 + 2000 = 2001, finds the phase complete and returns after try_wait_cycles = 42: 2043.
// A hold shorter than the data's flight changes nothing.
TEST(Primitives, MbarrierOperationWaitsForTheLoadsHold) {
  const auto map = map2d("T", 2, 64, 2, 64, 1 << 20);
  for (const auto& [hold, cycles] :
       std::vector<std::pair<int, int64_t>>{{0, 959}, {500, 959}, {2000, 2043}}) {
    const GpuConfig c = simple_gpu({fmt::format("tma.barrier_hold_cycles={}", hold)});
    const SimResult r = simulate(one_box_load(map), c);
    EXPECT_EQ(r.cycles, cycles) << "hold " << hold;
    // The held attempt is not an instruction: arrive, load, wait, exit.
    EXPECT_EQ(r.counters.at("sm[0].instructions"), 4) << "hold " << hold;
  }
}

// tma.wait_after_issue_cycles: a wait after the warp's own TMA load starts no sooner than the
// load's issue gap (44 on the simple GPU, from its issue at cycle 1) plus this. With 2000 the
// wait starts at 1 + 44 + 2000 = 2045, finds the phase complete and returns after
// try_wait_cycles = 42: 2087. With 500 (545) the data, back at 917, is later: 959 as without it.
TEST(Primitives, WaitAfterALoadWaitsForItsIssue) {
  const auto map = map2d("T", 2, 64, 2, 64, 1 << 20);
  for (const auto& [z, cycles] :
       std::vector<std::pair<int, int64_t>>{{0, 959}, {500, 959}, {2000, 2087}}) {
    const GpuConfig c = simple_gpu({fmt::format("tma.wait_after_issue_cycles={}", z)});
    const SimResult r = simulate(one_box_load(map), c);
    EXPECT_EQ(r.cycles, cycles) << "wait_after_issue " << z;
    EXPECT_EQ(r.counters.at("sm[0].instructions"), 4) << "wait_after_issue " << z;
  }
}

// Generator time of box rows that are not 128-B aligned (micro_tma_align.csv): a load request
// costs its sectors (1 cycle each on the simple GPU) but at least tma.request_cycles (3 here),
// and with tma.split_partial_sectors a sector a row covers only in part is a request of its
// own (ncu_l2/l2_hot_raw.csv). A 2 x 64 fp16 box: row 0 at byte 0 is one 4-sector request (4
// cycles) in every case; row 1 at byte 2048 is the same (total 8, 2 requests); at 2016 it
// straddles two lines, 1 + 3 whole sectors: 3 + 3 (total 10, 3 requests); at 2000 it starts
// 16 B into sector 2 of its first line and ends 16 B into sector 2 of the next: a part of
// sector 2, sector 3, sectors 0-1, a part of sector 2 (total 4 + 4 x 3 = 16, 5 requests), or
// without the split 2 + 3 sectors (total 10, 3 requests).
TEST(Primitives, UnalignedBoxRowsCostGeneratorTime) {
  for (const auto& [cols, split, busy, requests] :
       std::vector<std::tuple<int64_t, bool, double, double>>{
           {1024, true, 8, 2}, {1008, true, 10, 3}, {1000, true, 16, 5}, {1000, false, 10, 3}}) {
    const GpuConfig c =
        simple_gpu({"tma.request_cycles=3", fmt::format("tma.split_partial_sectors={}", split)});
    const SimResult r = simulate(one_box_load(map2d("T", 2, cols, 2, 64, 1 << 20)), c);
    EXPECT_EQ(r.counters.at("sm[0].tma.generator_busy_cycles"), busy) << "row stride " << 2 * cols;
    EXPECT_EQ(r.counters.at("sm[0].tma.requests"), requests) << "row stride " << 2 * cols;
    // The two parts of sector 2 (2000 B, split) are the reads of sectors asked for in part.
    EXPECT_EQ(r.counters.at("mem.partial_sector_reads"), cols == 1000 && split ? 2 : 0)
        << "row stride " << 2 * cols;
  }
}

// Rows narrower than a sector (4 rows of 8 fp16, 16 B apart: 64 contiguous bytes of one line).
// With tma.split_partial_sectors each row is a part of sector 0 or 1; the two parts of a sector
// merge (de-duplication), those of different sectors stay apart: 2 requests. Without it the four
// rows are one line, merged into 1 request.
TEST(Primitives, RowsInsideOneSectorMergeBySector) {
  for (const auto& [split, requests] :
       std::vector<std::pair<bool, double>>{{true, 2}, {false, 1}}) {
    const GpuConfig c = simple_gpu({fmt::format("tma.split_partial_sectors={}", split)});
    const SimResult r = simulate(one_box_load(map2d("T", 4, 8, 4, 8, 1 << 20)), c);
    EXPECT_EQ(r.counters.at("sm[0].tma.requests"), requests) << split;
    EXPECT_EQ(r.l2_read_bytes, 64u) << split;
  }
}

// l2.coalesce_partial_rows: two CTAs on the two SMs of a TPC load the same 2-row box at the same
// time. Rows 2048 B apart: the second CTA's two line reads merge with the first's. Rows 2000 B
// apart (the second row starts 16 B into a sector): nothing merges unless partial rows may;
// then all of the box's requests do, five with tma.split_partial_sectors (line 0, and four
// pieces of the second row in two lines: the coalescer gathers the sectors in flight of a
// line), three without (line 0 and two pieces).
TEST(Primitives, CopiesWithRowsInsideASectorDoNotMerge) {
  const auto merges = [](int64_t cols, bool partial, bool split) {
    const GpuConfig c = simple_gpu({"l2.coalescer=true", "l2.coalescer_scope=tpc",
                                    fmt::format("l2.coalesce_partial_rows={}", partial),
                                    fmt::format("tma.split_partial_sectors={}", split)});
    const SimResult r = simulate(one_box_load(map2d("T", 2, cols, 2, 64, 1 << 20), 2), c);
    return r.counters.at("mem.coalescer_merges");
  };
  EXPECT_EQ(merges(1024, false, true), 2);
  EXPECT_EQ(merges(1000, false, true), 0);
  EXPECT_EQ(merges(1000, true, true), 5);
  EXPECT_EQ(merges(1000, true, false), 3);
}

// The load/store unit: a 2-line LD_GLOBAL that misses, then the same rows again (hits).
TEST(Primitives, GlobalLoadMissThenHit) {
  KernelBuilder b("ldg");
  b.begin_role("main", 1);
  b.ld_global("0", "256");
  b.ld_wait("0");
  b.ld_global("0", "256");
  b.ld_wait("0");
  b.end_role();
  const SimResult r = simulate(b.finish(), simple_gpu());
  // cycle 0: LD_GLOBAL (one issue cycle: 256 B is one warp instruction per warp). The unit
  // starts generating after lsu.latency_cycles = 20: line 0 at 20 (4 sectors at 32 B/cycle),
  // line 1 at 24. Line 0: slice at 120, miss, channel 120-121, +300 = 421, back at 521. Line 1:
  // slice 124, channel 124-125, 425, back at 525. LD_WAIT 0 (cycle 1) ends at 525.
  // Second LD_GLOBAL at 525: lines at 545 and 549, hits at the slice at 645 / 649, back at
  // 745 / 749. EXIT at 749 (waited 524 + 223 cycles).
  EXPECT_EQ(r.cycles, 749);
  EXPECT_EQ(r.stall_cycles.at("main").at("wait_load"), 524 + 223);
  EXPECT_EQ(r.dram_read_bytes, 256u);
  EXPECT_EQ(r.l2_read_bytes, 512u);
  EXPECT_EQ(r.lsu_bytes, 512u);
  EXPECT_EQ(r.lsu_requests, 4u);
  EXPECT_EQ(r.lsu_requests, r.lsu_responses);
}

// RunOptions::first_sm: placement starts at that SM (a one-CTA microbenchmark on a chosen SM),
// wrapping around; an SM the GPU lacks is an input error.
TEST(Primitives, FirstSmPlacesTheFirstCta) {
  KernelBuilder b("one");
  b.set_grid(3);
  b.begin_role("main", 1);
  b.ld_global("cta * 128", "128");
  b.ld_wait("0");
  b.end_role();
  const program::Kernel k = b.finish();
  const GpuConfig c = simple_gpu({"sm.dispatch_order=sm_id", "sm.spread_partial_round=false"});
  RunOptions o;
  o.first_sm = 1;
  const SimResult r = simulate(k, c, o);
  EXPECT_EQ(r.counters.at("sm[1].ctas"), 2);  // CTAs 0 and 2 (the second round wraps to SM 1)
  EXPECT_EQ(r.counters.at("sm[0].ctas"), 1);
  o.first_sm = 2;  // the simple GPU has SMs 0 and 1
  EXPECT_THROW(simulate(k, c, o), InputError);
}

// The access width: a 2 KB LD_GLOBAL is one warp instruction per warp at 16 B per thread (issue
// 1 cycle) and four at 4 B (4 cycles); a 128-bit load's round trip is lsu.wide_load_cycles (7
// here) longer. 16 lines at 4 cycles each: the last leaves 60 cycles after the first, reaches
// its slice 100 later, misses (1 channel cycle + 300) and is back 100 later.
TEST(Primitives, GlobalLoadWidthSetsIssueAndLatency) {
  const GpuConfig c = simple_gpu({"lsu.wide_load_cycles=7"});
  for (const auto& [width, end, waited] :
       std::vector<std::tuple<int, int64_t, int64_t>>{{16, 588, 587}, {4, 581, 577}}) {
    KernelBuilder b("ldg_width");
    b.begin_role("main", 1);
    b.ld_global("0", "2048", "1", "0", std::to_string(width));
    b.ld_wait("0");
    b.end_role();
    const SimResult r = simulate(b.finish(), c);
    // width 16: generation starts at 20 + 7 = 27, last line 87, slice 187, back 588.
    // width 4: starts at 20, last line 80, back 581; LD_WAIT issues at 4 instead of 1.
    EXPECT_EQ(r.cycles, end) << "width " << width;
    EXPECT_EQ(r.stall_cycles.at("main").at("wait_load"), waited) << "width " << width;
  }
}

// LD_WAIT n leaves n loads pending; EXIT waits for the rest (a warp retires once its loads have
// written their registers). Two loads of one line each, 2 KB apart.
TEST(Primitives, GlobalLoadWaitCountsAndExit) {
  KernelBuilder b("ldg2");
  b.begin_role("main", 1);
  b.ld_global("0", "128");
  b.ld_global("2048", "128");
  b.ld_wait("1");
  b.end_role();
  const SimResult r = simulate(b.finish(), simple_gpu());
  // Loads issued at 0 and 1, generated at 20 and 24 (the second waits for the generator's
  // first line: 21 -> ready 21, cursor 24), slices at 120 / 124, channel 120-121 and 124-125,
  // back at 521 and 525. LD_WAIT 1 (cycle 2) ends at 521; EXIT waits for the second: 525.
  EXPECT_EQ(r.cycles, 525);
  EXPECT_EQ(r.stall_cycles.at("main").at("wait_load"), (521 - 2) + (525 - 521));
}

// ST_GLOBAL: the warpgroup does not wait, the unit emits 4 KB at lsu.store_bytes_per_cycle
// (16 B/cycle: 8 cycles a line) and the kernel ends at the last store's acknowledgement.
TEST(Primitives, GlobalStoreRateAndAck) {
  KernelBuilder b("stg");
  b.begin_role("main", 1);
  b.st_global("0", "4096");
  b.end_role();
  const SimResult r = simulate(b.finish(), simple_gpu());
  // Issue 2 cycles (4 KB = two warp instructions per warp); EXIT at 2. Line k is emitted at
  // 20 + 8k; the last (k = 31) at 268, acknowledged l2.write_ack_cycles = 200 later: 468.
  EXPECT_EQ(r.cycles, 468);
  EXPECT_EQ(r.l2_write_bytes, 4096u);
  EXPECT_EQ(r.stall_cycles.at("main").at("wait_load"), 0);
}

// lsu.queue_depth = 4 instructions per SM: the fifth LD_GLOBAL waits until the first completes.
TEST(Primitives, GlobalLoadQueueFullBlocksIssue) {
  KernelBuilder b("ldg_queue");
  b.begin_role("main", 1);
  for (int i = 0; i < 5; ++i) {
    b.ld_global(std::to_string(i * 4096), "128");
  }
  b.ld_wait("0");
  b.end_role();
  const SimResult r = simulate(b.finish(), simple_gpu());
  EXPECT_GT(r.stall_cycles.at("main").at("wait_lsu_queue"), 400);
  EXPECT_EQ(r.lsu_requests, 5u);
  EXPECT_EQ(r.counters.at("sm[0].lsu.instructions"), 5.0);
}

// Two warpgroups ping-pong through named barriers: each runs a 100-cycle COMPUTE, then lets the
// other go. bar.arrive/bar.sync with 256 threads on ids 1 and 2.
TEST(Primitives, NamedBarrierPingPong) {
  KernelBuilder b("pingpong");
  b.begin_role("a", 1);
  b.loop("i", "0", "2");
  KernelBuilder::ComputeOps ops;
  ops.cycles = "100";
  b.compute(ops);
  b.bar_arrive("1", "256");
  b.bar_sync("2", "256");
  b.end_loop();
  b.end_role();
  b.begin_role("b", 1);
  b.loop("i", "0", "2");
  b.bar_sync("1", "256");
  b.compute(ops);
  b.bar_arrive("2", "256");
  b.end_loop();
  b.end_role();
  const SimResult r = simulate(b.finish(), simple_gpu());
  // a: compute 0-100; arrive(1) at 100 completes barrier 1 (b has waited since 0) -> b released
  // at 100+20 = 120; a continues: bar.sync(2) at 101 blocks. b: compute 120-220 (issued at 120),
  // arrive(2) at 220 -> a released at 240. a: compute 240-340, arrive(1) at 340. b, after its
  // arrive at 220, loops: bar.sync(1) at 221 blocks; released at 340+20 = 360; compute 360-460;
  // arrive(2) at 460 releases a at 480. a exits at 480 (after its loop ends) and b at 461.
  EXPECT_EQ(r.cycles, 480);
  EXPECT_EQ(r.stall_cycles.at("a").at("compute"), 200);
  EXPECT_EQ(r.stall_cycles.at("b").at("compute"), 200);
}

// Issue slots: two warpgroups of one CTA each run COMPUTE with 100 per-thread instructions that
// use no pipe (inst=100). A warpgroup's four warps sit on the four sub-partitions, so 100
// instructions take 100 cycles of the SM's issue slots (sm.issue_slots = 4 warp instructions
// per cycle), and the second warpgroup's instructions queue behind the first's.
KernelBuilder compute_pair(const std::string& field, const std::string& count) {
  KernelBuilder b("issue");
  b.begin_role("w", 2);
  KernelBuilder::ComputeOps ops;
  (field == "inst" ? ops.inst : ops.mufu) = count;
  b.compute(ops);
  b.end_role();
  return b;
}

TEST(Primitives, IssueSlotsAreSharedBySmWarpgroups) {
  // wg0 issues at 0 and holds the slots 0-100; wg1 issues at 1 and gets them 100-200; each exits
  // as it wakes, so the kernel ends at 200.
  EXPECT_EQ(simulate(compute_pair("inst", "100").finish(), simple_gpu()).cycles, 200);
  // Without the issue limit such instructions cost nothing: the scheduler issues the four
  // instructions (two COMPUTE, two EXIT) one per cycle, 0 to 3.
  GpuConfig unlimited = simple_gpu();
  unlimited.sm.issue_slots = 0;
  EXPECT_EQ(simulate(compute_pair("inst", "100").finish(), unlimited).cycles, 3);
}

// MUFU work is pipe-bound: 1280 exp2 per warpgroup are 10 instructions per thread (10 cycles of
// issue) but 1280 / 16 = 80 cycles of the SM's MUFU pipe; wg1 queues on the pipe (80-160),
// not on the issue slots, and exits as it wakes at 160.
TEST(Primitives, MufuIsPipeBoundNotIssueBound) {
  EXPECT_EQ(simulate(compute_pair("mufu", "1280").finish(), simple_gpu()).cycles, 160);
}

// A two-stage producer/consumer ring: the producer streams four 128-B bulk loads through
// ring.full; the consumer waits on full, runs one m64n256k16 and releases the slot.
TEST(Primitives, TwoStageRing) {
  KernelBuilder b("ring");
  b.add_ring("ring", 2, 1);
  b.begin_role("producer", 1);
  b.loop("k", "0", "4");
  b.stage_acquire("ring", "k");
  b.mb_arrive_expect_tx("ring.full", "k % 2", "128");
  b.bulk_load("1048576 + k * 128", "128", "ring.full", "k % 2");
  b.end_loop();
  b.end_role();
  b.begin_role("consumer", 1);
  b.loop("k", "0", "4");
  b.stage_wait("ring", "k");
  b.wgmma("256", "1", DType::kF16, false);
  b.wgmma_commit();
  b.wgmma_wait("0");
  b.stage_release("ring", "k");
  b.end_loop();
  b.end_role();
  const SimResult r = simulate(b.finish(), simple_gpu());
  // Producer P, consumer C (GTO prefers the older P when both are ready).
  //  0: P acquires empty[0] (first pass is free): try_wait 42 -> 42. 1: C waits full[0].
  // 42: P arms full[0]. 43: P bulk load 0 (ready 43+40 = 83; P held by the issue gap to 87);
  //     its line reaches L2 at 183, DRAM 184+300 = 484, back at 584.
  // 87: P acquires empty[1] (free) -> 129; arms -> 130; load 1 ready 170 -> back at 671.
  // 174: P acquires empty[0] for k=2 and blocks (C has not released it).
  // 584: full[0] completes; C wakes at 626, wgmma 626..754 (+24) = 778, release at 778 wakes P
  //      at 820. 779: C waits full[1] (complete) -> 821.
  // 820: P arms; 821: P loads 2 (ready 861, back at 1362); C's wgmma at 822 -> 974.
  // 865: P blocks acquiring empty[1]; 974: C releases slot 1 (P wakes 1016), 975: C blocks on
  //      full[0] phase 2. 1017: P loads 3 (ready 1057, back at 1558); 1061: P exits.
  // 1362: full[0] completes, C at 1404: wgmma -> 1556, release; 1557 C blocks on full[1];
  // 1558: full[1] completes, C at 1600: wgmma -> 1752, release at 1752, exit at 1753.
  EXPECT_EQ(r.cycles, 1753);
  EXPECT_EQ(r.dram_read_bytes, 4u * 128);
}

TEST(Primitives, DeterministicJson) {
  KernelBuilder b("det");
  b.add_map(map2d("T", 256, 64, 64, 64, 1 << 20));
  b.add_barrier("full", 2, 1);
  b.begin_role("main", 1);
  b.loop("k", "0", "4");
  b.mb_arrive_expect_tx("full", "k % 2", "8192");
  b.tma_load("T", {"0", "k * 64"}, "full", "k % 2");
  b.mb_wait("full", "k % 2", "(k / 2) % 2");
  b.end_loop();
  b.end_role();
  const program::Kernel k = b.finish();
  const auto a = simulate(k, simple_gpu()).to_json().dump();
  const auto c = simulate(k, simple_gpu()).to_json().dump();
  EXPECT_EQ(a, c);
}

TEST(Primitives, DeadlockIsReportedWithBarrierState) {
  KernelBuilder b("deadlock");
  b.add_barrier("full", 1, 2);  // expects two arrivals but only one warpgroup arrives
  b.begin_role("main", 1);
  b.mb_arrive("full", "0");
  b.mb_wait("full", "0", "0");
  b.end_role();
  try {
    simulate(b.finish(), simple_gpu());
    FAIL() << "expected a deadlock";
  } catch (const DeadlockError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("deadlock"), std::string::npos) << msg;
    EXPECT_NE(msg.find("mbarrier full[0]"), std::string::npos) << msg;
    EXPECT_NE(msg.find("arrivals pending 1 of 2"), std::string::npos) << msg;
    EXPECT_NE(msg.find("role main"), std::string::npos) << msg;
  }
}

// sm.dispatch_order on 8 SMs in 2 GPCs (TPC t = SMs 2t, 2t+1 in GPC t mod 2: GPC 0 holds SMs
// 0, 1, 4, 5). Four CTAs that fill an SM each land on SMs 0-3 by id, on GPC 0's four SMs
// GPC-major, as the H200 places them (micro_sm_map.csv).
// A kernel's code is fetched cold before its first CTA dispatches (resources code=, at
// sm.code_fetch_bytes_per_cycle); CTAs then dispatch one per sm.cta_dispatch_cycles, which may
// be a fraction of a cycle (a CTA enters at the first clock edge at or after its turn).
TEST(Primitives, LaunchFetchesTheCodeThenDispatchesAtAFractionalInterval) {
  auto kernel = [](int64_t ctas, int64_t code_bytes) {
    KernelBuilder b("launch");
    b.set_grid(ctas);
    b.set_resources(32, 0);
    b.set_code_bytes(code_bytes);
    b.begin_role("main", 1);
    KernelBuilder::ComputeOps ops;
    ops.cycles = "1000";
    b.compute(ops);
    b.end_role();
    return b.finish();
  };
  GpuConfig c = simple_gpu();
  c.sm.code_fetch_bytes_per_cycle = 16;
  EXPECT_EQ(simulate(kernel(1, 0), c).cycles, 1000);
  EXPECT_EQ(simulate(kernel(1, 1600), c).cycles, 1100);  // 1600 B at 16 B/cycle first
  c.sm.code_fetch_bytes_per_cycle = 0;                   // 0: no fetch cost
  EXPECT_EQ(simulate(kernel(1, 1600), c).cycles, 1000);
  // Two CTAs, one per SM: the second's turn comes at 2.5 cycles, it enters at edge 3.
  c.sm.cta_dispatch_cycles = 2.5;
  EXPECT_EQ(simulate(kernel(2, 0), c).cycles, 1003);
  c.sm.cta_dispatch_cycles = 2;
  EXPECT_EQ(simulate(kernel(2, 0), c).cycles, 1002);
}

// sm.compute_overlap: one warpgroup's COMPUTE of 12800 FP32 ops (100 cycles of the 128-lane
// pipe, 100 instructions per thread) and 6400 integer ops (100 cycles of the 64-lane pipe, 50
// instructions). One pipe after the other: FP32 0-100, then INT 100-200. Side by side: both
// pipes end at 100, but the 150 instructions hold the issue slots until 150.
TEST(Primitives, ComputeOverlapRunsPipesSideBySide) {
  KernelBuilder b("overlap");
  b.begin_role("w", 1);
  KernelBuilder::ComputeOps ops;
  ops.fp32 = "12800";
  ops.int_ops = "6400";
  b.compute(ops);
  b.end_role();
  const program::Kernel k = b.finish();
  EXPECT_EQ(simulate(k, simple_gpu()).cycles, 200);
  GpuConfig side = simple_gpu();
  side.sm.compute_overlap = true;
  EXPECT_EQ(simulate(k, side).cycles, 150);
}

// sm.compute_sharing with two roles of one warpgroup each, each a COMPUTE of 100 issue-only
// instructions (100 cycles of the SM's issue slots). a books 0-100 at cycle 0, b at cycle 1
// takes 100-200. reserve and greedy: a computes 0-100, b 1-200. fair: b's work overlaps a's
// remaining 99 cycles, so a ends 99 later, at 199 (both finish together, as on the H200).
KernelBuilder two_roles(const KernelBuilder::ComputeOps& a, const KernelBuilder::ComputeOps& b) {
  KernelBuilder k("sharing");
  k.begin_role("a", 1);
  k.compute(a);
  k.end_role();
  k.begin_role("b", 1);
  k.compute(b);
  k.end_role();
  return k;
}

TEST(Primitives, FairComputeSharingEndsOverlappingWorkTogether) {
  KernelBuilder::ComputeOps ops;
  ops.inst = "100";
  const program::Kernel k = two_roles(ops, ops).finish();
  for (const auto& [mode, a_end] : std::vector<std::pair<std::string, int64_t>>{
           {"reserve", 100}, {"greedy", 100}, {"fair", 199}}) {
    const SimResult r = simulate(k, simple_gpu({"sm.compute_sharing=" + mode}));
    EXPECT_EQ(r.cycles, 200) << mode;
    EXPECT_EQ(r.stall_cycles.at("a").at("compute"), a_end) << mode;
    EXPECT_EQ(r.stall_cycles.at("b").at("compute"), 199) << mode;
  }
}

// Greedy and fair booking fill the issue cycles earlier work leaves idle. a: 1280 exp2 (80
// cycles of the 16-lane MUFU pipe, but only 10 of issue: 0-10), then 10 issue-only
// instructions after the MUFU phase (80-90). b at cycle 1: 50 issue-only instructions.
// reserve: b waits for a's last booked slot, 90-140. greedy/fair: b fills 10-60; a still ends at
// 90 (b ended first, so fair sharing delays a only to b's end, 60, which is earlier).
TEST(Primitives, ComputeSharingFillsIdleIssueSlots) {
  KernelBuilder::ComputeOps a;
  a.mufu = "1280";
  a.inst = "10";
  KernelBuilder::ComputeOps b;
  b.inst = "50";
  const program::Kernel k = two_roles(a, b).finish();
  for (const auto& [mode, cycles] : std::vector<std::pair<std::string, int64_t>>{
           {"reserve", 140}, {"greedy", 90}, {"fair", 90}}) {
    const SimResult r = simulate(k, simple_gpu({"sm.compute_sharing=" + mode}));
    EXPECT_EQ(r.cycles, cycles) << mode;
    EXPECT_EQ(r.stall_cycles.at("a").at("compute"), 90) << mode;
  }
}

}  // namespace
}  // namespace asyncsim
