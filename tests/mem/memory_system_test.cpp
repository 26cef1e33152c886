// The L2 side of the memory system with exact expectations on the round-number test GPU
// (tests/data/simple_gpu.yaml: L2 and DRAM at 1 GHz, 200-cycle hit round trip, 300-cycle
// DRAM latency, one DRAM channel at 128 B/cycle, no far-partition extra).
#include "mem/memory_system.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "../sim/test_util.h"
#include "mem/mem_bits.h"
#include "mem_test_util.h"
#include "util/error.h"

namespace asyncsim {
namespace {

using testing::kNs;
using testing::read;

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

// l2.mshrs_per_slice = 2 and two DRAM channels (dram.model=simple: a line's channel is a hash of
// its 256-B granule). Two misses of one slice, X on a channel that 100 lines of other slices
// keep busy first, then Y on the idle one. The fillers of each slice wait for its two MSHRs, so
// their transfers are booked on X's channel over ~8 us, and X's fill is back at 8650 ns, long
// after Y's (502 ns). A third miss
// of the slice arriving between the two fills takes Y's MSHR at once (an MSHR comes free when
// its own fill returns, not when the oldest miss's does) and costs an unloaded miss: 100 to the
// slice, 1 cycle of transfer + 300, 100 back.
TEST(MemorySystem, AnMshrComesFreeWhenItsOwnFillReturns) {
  const GpuConfig cfg =
      testing::simple_gpu({"l2.mshrs_per_slice=2", "dram.channels=2", "dram.bandwidth_gbs=256"});
  MemorySystem mem(cfg, ClockDomain::from_mhz(1000));
  const auto channel = [](uint64_t line) { return mix64(line / 2) % 2; };
  const int slice = mem.slice_of(1);
  std::vector<uint64_t> mine[2];
  std::vector<uint64_t> fillers;
  for (uint64_t l = 1; mine[0].size() < 2 || mine[1].size() < 2 || fillers.size() < 100; ++l) {
    if (mem.slice_of(l) == slice) {
      mine[channel(l)].push_back(l);
    } else if (channel(l) == 0) {
      fillers.push_back(l);
    }
  }
  fillers.resize(100);
  for (const uint64_t l : fillers) {
    mem.access(read(l), 0);
  }
  const Time x = mem.access(read(mine[0][0]), 0);
  const Time y = mem.access(read(mine[1][0]), 0);
  EXPECT_EQ(x, 8650 * kNs);  // X waited behind the fillers' transfers
  EXPECT_EQ(y, 502 * kNs);   // Y: one cycle of slice time behind X
  const Time z = mem.access(read(mine[1][1]), 350 * kNs);
  EXPECT_EQ(z, (350 + 501) * kNs);
  // (The fillers wait for MSHRs of their own slices.)
  EXPECT_EQ(mem.slice_stats()[static_cast<size_t>(slice)].mshr_stalls, 0u);
}

// l2.fetch_sectors = 2 (the H200's): a miss on sector 0 fetches the 64-B pair, so sector 1 asked
// for while the fill is in flight merges with it and reads no DRAM bytes, while sector 3 needs a
// fill of its own (the other pair). With 1, each missing sector is fetched alone.
TEST(MemorySystem, ReadMissesFetchAlignedSectorGroups) {
  for (const int group : {1, 2, 4}) {
    GpuConfig cfg = testing::simple_gpu();
    cfg.mem.l2_fetch_sectors = group;
    MemorySystem mem(cfg, ClockDomain::from_mhz(1000));
    mem.access(MemRequest{1000, 0x1, false, 0}, 0);
    EXPECT_EQ(mem.stats().dram_read_bytes, static_cast<uint64_t>(32 * group)) << group;
    mem.access(MemRequest{1000, 0x2, false, 0}, 10 * kNs);
    EXPECT_EQ(mem.stats().dram_read_bytes, group == 1 ? 64u : static_cast<uint64_t>(32 * group))
        << group;
    mem.access(MemRequest{1000, 0x8, false, 0}, 20 * kNs);
    EXPECT_EQ(mem.stats().dram_read_bytes, group == 4 ? 128u : 32u * (group == 1 ? 3 : 4)) << group;
  }
  GpuConfig bad = testing::simple_gpu();
  bad.mem.l2_fetch_sectors = 3;
  EXPECT_THROW(MemorySystem(bad, ClockDomain::from_mhz(1000)), InputError);
}

// Two lines of one slice, both L2 hits (a hit round trip is 200 cycles; the slice serves
// 128 B per cycle, so it spaces the two by 1 cycle on its own).
std::pair<uint64_t, uint64_t> two_lines_of_one_slice(const MemorySystem& mem) {
  const int slice = mem.slice_of(1);
  for (uint64_t l = 2;; ++l) {
    if (mem.slice_of(l) == slice) {
      return {1, l};
    }
  }
}

TEST(MemorySystem, SlicePortSerializesResponsesByBytesOverBandwidth) {
  // Slice port 16 B/cycle: a 128-B response holds it 8 cycles; the SM ports are fast.
  const GpuConfig cfg = testing::simple_gpu(
      {"noc.model=ports", "noc.slice_port_bytes_per_cycle=16", "noc.sm_port_bytes_per_cycle=1024"});
  MemorySystem mem(cfg, ClockDomain::from_mhz(1000));
  const auto [a, b] = two_lines_of_one_slice(mem);
  mem.access(read(a, 0), 0);
  mem.access(read(b, 1), 0);
  // The port books time in slots of one line (8 cycles here), so t + 100, when the first
  // response leaves the slice, is put on a slot boundary (10'104 = 8 * 1263).
  const Time t = 10'004 * kNs;
  // The first hit is not delayed (the crossbar latency holds one packet already): 100 there,
  // 100 back. The second, from another SM, reaches the slice 1 cycle later (slice bandwidth)
  // and then waits for the port until the first response's 8 cycles are over.
  EXPECT_EQ(mem.access(read(a, 0), t), t + 200 * kNs);
  EXPECT_EQ(mem.access(read(b, 1), t), t + 208 * kNs);
  // With the latency-only crossbar only the slice's own bandwidth separates them.
  // MemorySystem keeps a reference to its config: the config must outlive it.
  const GpuConfig latency_cfg = testing::simple_gpu({"noc.model=latency"});
  MemorySystem lat(latency_cfg, ClockDomain::from_mhz(1000));
  lat.access(read(a, 0), 0);
  lat.access(read(b, 1), 0);
  EXPECT_EQ(lat.access(read(a, 0), t), t + 200 * kNs);
  EXPECT_EQ(lat.access(read(b, 1), t), t + 201 * kNs);
}

// l2.partial_sector_cycles: a read of a sector covered only in part (tma.split_partial_sectors)
// holds its slice that much longer. Two hits on one slice at the same time: the second waits
// for the first's slice time, a quarter cycle for one sector (128 B/cycle), plus 5 if partial.
TEST(MemorySystem, PartialSectorReadsHoldTheirSliceLonger) {
  for (const bool partial : {false, true}) {
    const GpuConfig cfg = testing::simple_gpu({"noc.model=latency", "l2.partial_sector_cycles=5"});
    MemorySystem mem(cfg, ClockDomain::from_mhz(1000));
    const auto [a, b] = two_lines_of_one_slice(mem);
    mem.access(read(a, 0), 0);
    mem.access(read(b, 1), 0);
    const Time t = 10'000 * kNs;
    EXPECT_EQ(mem.access(MemRequest{a, 0x1, false, 0, true, false, partial}, t), t + 200 * kNs);
    EXPECT_EQ(mem.access(read(b, 1), t), t + (partial ? 205'250 : 200'250)) << partial;
    EXPECT_EQ(mem.stats().partial_sector_reads, partial ? 1u : 0u);
  }
}

// Response ports keep calendars: a miss booked first holds the SM port from when its DRAM fill
// returns (t + 100 to the slice, 300 DRAM + 1 channel cycle, 100 back: t + 501), so a hit to
// the same SM processed after it but ready at t + 200 goes first, undelayed. A busy-until port
// made the hit wait until the miss's data had passed (t + 505).
TEST(MemorySystem, ResponsePortsLetEarlierDataPassLaterBookings) {
  const GpuConfig cfg = testing::simple_gpu(
      {"noc.model=ports", "noc.sm_port_bytes_per_cycle=32", "noc.slice_port_bytes_per_cycle=1024"});
  MemorySystem mem(cfg, ClockDomain::from_mhz(1000));
  const auto [hit, miss] = two_lines_of_one_slice(mem);
  mem.access(read(hit, 0), 0);
  const Time t = 10'000 * kNs;
  EXPECT_EQ(mem.access(read(miss + 4096, 0), t), t + 501 * kNs);
  EXPECT_EQ(mem.access(read(hit, 0), t), t + 200 * kNs);
}

// Store data enters a slice through its incoming port (noc.slice_in_port_bytes_per_cycle, 16 B
// per cycle here: 8 cycles per 128-B line) and a store is acknowledged once the slice has taken
// it. Two SMs store one line each into one slice at the same time: the first is acknowledged
// after the 200-cycle round trip, the second waits 8 cycles at the port.
TEST(MemorySystem, StoresQueueAtTheSlicesIncomingPortAndAckAfterIt) {
  const GpuConfig cfg = testing::simple_gpu(
      {"noc.model=ports", "noc.slice_in_port_bytes_per_cycle=16",
       "noc.slice_port_bytes_per_cycle=1024", "noc.sm_port_bytes_per_cycle=1024"});
  MemorySystem mem(cfg, ClockDomain::from_mhz(1000));
  const auto [a, b] = two_lines_of_one_slice(mem);
  const Time t = 10'000 * kNs;
  EXPECT_EQ(mem.access(MemRequest{a, 0xF, true, 0}, t), t + 200 * kNs);
  EXPECT_EQ(mem.access(MemRequest{b, 0xF, true, 1}, t), t + 208 * kNs);
  // At the port's default rate (128 B/cycle) the second waits only for the slice (1 cycle).
  const GpuConfig fast_cfg =
      testing::simple_gpu({"noc.model=ports", "noc.slice_port_bytes_per_cycle=1024",
                           "noc.sm_port_bytes_per_cycle=1024"});
  MemorySystem fast(fast_cfg, ClockDomain::from_mhz(1000));
  EXPECT_EQ(fast.access(MemRequest{a, 0xF, true, 0}, t), t + 200 * kNs);
  EXPECT_EQ(fast.access(MemRequest{b, 0xF, true, 1}, t), t + 201 * kNs);
}

TEST(MemorySystem, SmPortSerializesAndBackPressures) {
  // SM port 32 B/cycle: 4 cycles per 128-B response; queue of 256 B = 8 cycles of backlog.
  const GpuConfig cfg =
      testing::simple_gpu({"noc.model=ports", "noc.sm_port_bytes_per_cycle=32",
                           "noc.slice_port_bytes_per_cycle=1024", "noc.queue_bytes=256"});
  MemorySystem mem(cfg, ClockDomain::from_mhz(1000));
  const Time t = 10'000 * kNs;
  std::vector<uint64_t> lines;
  for (uint64_t l = 0; lines.size() < 4; ++l) {  // four lines on four different slices
    bool fresh = true;
    for (const uint64_t x : lines) {
      fresh = fresh && mem.slice_of(x) != mem.slice_of(l);
    }
    if (fresh) {
      lines.push_back(l);
      mem.access(read(l, 0), 0);
    }
  }
  EXPECT_EQ(mem.port_accepts(0, true, t), t);  // an idle port takes a store at once
  // Same SM, different slices, same time: responses queue at the SM port, 4 cycles apart.
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(mem.access(read(lines[static_cast<size_t>(i)], 0), t), t + (200 + 4 * i) * kNs);
  }
  // Reads do not back-pressure (their responses are reserved ahead in time); writes do: four
  // 128-B stores hold the outgoing port 16 cycles, 8 of backlog are allowed. (A read is always
  // accepted at once: port_accepts(sm, false, t) is t by construction.)
  EXPECT_EQ(mem.port_accepts(0, true, t), t);
  for (int i = 0; i < 4; ++i) {
    mem.access(MemRequest{lines[static_cast<size_t>(i)], 0xF, true, 0}, t);
  }
  EXPECT_EQ(mem.port_accepts(0, true, t), t + 8 * kNs);
  EXPECT_EQ(mem.port_accepts(1, true, t), t);
}

// noc.gpc_port_bytes_per_cycle (micro_cta_place.csv: 16 SMs of one GPC each copying 32 KB take
// 1174 cycles, one SM 628, 16 SMs spread two per GPC 645): the SMs of a GPC share one response
// port. Four SMs, TPC t in GPC t mod 2: SMs 0 and 1 in GPC 0, SMs 2 and 3 in GPC 1. At 32 B
// per cycle a 128-B line holds the GPC's port 4 cycles; the slice and SM ports are fast.
TEST(MemorySystem, SmsOfOneGpcShareItsResponsePort) {
  for (const double gpc_port : {32.0, 0.0}) {
    const GpuConfig cfg = testing::simple_gpu(
        {"sm.count=4", "noc.model=ports", "noc.slice_port_bytes_per_cycle=1024",
         "noc.sm_port_bytes_per_cycle=1024",
         "noc.gpc_port_bytes_per_cycle=" + std::to_string(static_cast<int>(gpc_port))});
    MemorySystem mem(cfg, ClockDomain::from_mhz(1000));
    const std::vector<uint64_t> lines = testing::hits_on_distinct_slices(mem, 3);
    const Time t = 10'000 * kNs;
    const int held = gpc_port > 0 ? 4 : 0;
    EXPECT_EQ(mem.access(read(lines[0], 0), t), t + 200 * kNs);
    EXPECT_EQ(mem.access(read(lines[1], 1), t), t + (200 + held) * kNs) << gpc_port;
    EXPECT_EQ(mem.access(read(lines[2], 2), t), t + 200 * kNs) << gpc_port;  // GPC 1
  }
}

// noc.gpc_hol_slack_cycles: a slice's output queue serves every GPC in order, so responses that
// GPC 0's port (32 B per cycle: 4 cycles a line) cannot take hold the slice for the rest of their
// wait, and a read of GPC 1 (SM 2) from the same slice waits behind them. Four lines on one
// slice, made L2 hits; the slice serves a line a cycle (128 B per cycle), so the four reads at t
// are ready to leave it at t + 200, 201, 202, 203; GPC 0's three take its port at 200, 204, 208
// (waits 0, 3, 6 cycles).
TEST(MemorySystem, ACongestedGpcPortHoldsItsSlicesOutputWhenAsked) {
  for (const int slack : {-1, 0, 2}) {
    const GpuConfig cfg =
        testing::simple_gpu({"sm.count=4", "noc.model=ports", "noc.slice_port_bytes_per_cycle=1024",
                             "noc.sm_port_bytes_per_cycle=1024", "noc.gpc_port_bytes_per_cycle=32",
                             "noc.gpc_hol_slack_cycles=" + std::to_string(slack)});
    MemorySystem mem(cfg, ClockDomain::from_mhz(1000));
    std::vector<uint64_t> lines;  // four lines on slice 0
    for (uint64_t l = 0; lines.size() < 4; ++l) {
      if (mem.slice_of(l) == 0) {
        lines.push_back(l);
        mem.access(read(l, 0), 0);
      }
    }
    const Time t = 10'000 * kNs;
    EXPECT_EQ(mem.access(read(lines[0], 0), t), t + 200 * kNs);
    EXPECT_EQ(mem.access(read(lines[1], 1), t), t + 204 * kNs);
    EXPECT_EQ(mem.access(read(lines[2], 0), t), t + 208 * kNs);
    // Off: GPC 1's read leaves the slice at 203 and its own port is idle. Slack 0: the second
    // response holds the slice's output 3 cycles from 201 (to 204), so the third leaves at 204,
    // waits ~4 more at GPC 0's port and holds the output to ~208: GPC 1's read waits to ~208.
    // Slack 2: holds of 1 cycle (201-202) and ~4 (202-206): to ~206. Holds are whole sector
    // slots of the slice's port (31 ps at 1024 B per cycle), hence the picoseconds past the cycle.
    const Time expected = slack < 0 ? 203'000 : slack == 0 ? 208'139 : 206'124;
    EXPECT_EQ(mem.access(read(lines[3], 2), t), t + expected) << slack;
  }
}

// The 2048-byte stride that broke a low-bit hash in Sim-FA, and the 16 KB row stride of GEMM
// tiles: IPOLY spreads both over every slice; Sim-FA's XOR hash does not for 96 slices.
TEST(MemorySystem, IpolyHashSpreadsPowerOfTwoStrides) {
  for (int stride_lines : {16, 128}) {
    // Per line (no 256-B granules), as the strides are counted in lines; the hash alone (no
    // rotation of its odd residue per 256-line run, which draws the residues of a run's lines).
    const GpuConfig ip = load_gpu_config(
        "h200", {"l2.hash=ipoly", "l2.slice_skip_line_bits=0", "l2.hash_rotate_residue=false"});
    const GpuConfig xr = load_gpu_config("h200", {"l2.hash=xor", "l2.slice_skip_line_bits=0"});
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

// DRAM bytes read by two passes over `n` lines `first`, `first + stride`, ... (one read every
// `gap`) through a fresh L2: what the second pass could not find is read again.
uint64_t two_pass_dram_bytes(const GpuConfig& cfg, uint64_t first, uint64_t n, uint64_t stride,
                             Time gap) {
  MemorySystem mem(cfg, ClockDomain::from_mhz(1000));
  Time t = 0;
  for (int pass = 0; pass < 2; ++pass) {
    for (uint64_t i = 0; i < n; ++i) {
      mem.access(read(first + i * stride), t);
      t += gap;
    }
  }
  return mem.stats().dram_read_bytes;
}

// l2.set_index=linear: the sets of a slice take consecutive lines in turn, so a contiguous
// range as large as the L2 (modulo hash: 4 slices x 256 sets x 10 ways) fills every set exactly
// and a second pass hits everywhere; hashed sets overflow some sets at the same size.
TEST(MemorySystem, LinearSetIndexFillsTheSetsEvenly) {
  const uint64_t lines = 4 * 256 * 10;
  const GpuConfig linear = testing::simple_gpu({"l2.hash=modulo", "l2.set_index=linear"});
  EXPECT_EQ(two_pass_dram_bytes(linear, 5000, lines, 1, 10 * kNs), lines * 128);
  const GpuConfig hashed = testing::simple_gpu({"l2.hash=modulo", "l2.set_index=hashed"});
  EXPECT_GT(two_pass_dram_bytes(hashed, 5000, lines, 1, 10 * kNs), lines * 128 * 11 / 10);
}

// l2.set_index=xor: within each aligned block of 256 consecutive indices it is a permutation, so
// an L2-sized contiguous range starting on a block (line 4096: index 1024) fills every set as
// linear does and a second pass hits everywhere (a range that starts inside a block ends in a
// different block whose sets the first partial block's do not complement); lines 1024 k
// (modulo hash: all in slice 0), which linear sets put into set 0 alone, spread over 256 sets:
// 20 of them (twice the ways) are all kept by xor, and all read again by linear (LRU in one
// 10-way set).
TEST(MemorySystem, XorSetIndexSpreadsStridedLinesAndKeepsAlignedContiguousOnesEven) {
  for (const char* index : {"xor", "linear"}) {
    const GpuConfig cfg =
        testing::simple_gpu({"l2.hash=modulo", std::string("l2.set_index=") + index});
    const bool x = std::string(index) == "xor";
    const uint64_t lines = 4 * 256 * 10;
    EXPECT_EQ(two_pass_dram_bytes(cfg, 4096, lines, 1, 10 * kNs), lines * 128) << index;
    EXPECT_EQ(two_pass_dram_bytes(cfg, 1024, 20, 1024, 1000 * kNs), (x ? 20u : 40u) * 128) << index;
  }
}

// l2.remote_copy_tma_writes: a write from the far partition leaves a near copy when it came from
// the LSU, and from the TMA engine only if this is on.
TEST(MemorySystem, TmaStoresLeaveNearCopiesOnlyWhenAsked) {
  for (const bool tma_copies : {false, true}) {
    const GpuConfig cfg = testing::simple_gpu(
        {"sm.count=16", "sm.gpcs=8", "sm.dispatch_side_tpcs=0", "l2.partition1_gpcs=240",
         "l2.remote_copy=true", "l2.remote_copy_writes=true", "l2.hash=modulo",
         std::string("l2.remote_copy_tma_writes=") + (tma_copies ? "true" : "false")});
    MemorySystem mem(cfg, ClockDomain::from_mhz(1000));
    ASSERT_EQ(mem.partition_of_sm(8), 1);
    ASSERT_EQ(mem.partition_of_slice(0), 0);
    mem.access(MemRequest{1024, 0xF, true, 8, false}, 0);         // LSU store, far
    mem.access(MemRequest{2048, 0xF, true, 8, true}, 100 * kNs);  // TMA store, far
    mem.access(MemRequest{3072, 0xF, true, 0, true}, 200 * kNs);  // TMA store, near
    uint64_t inserts = 0;
    for (const auto& sl : mem.slice_stats()) {
      inserts += sl.copy_inserts;
    }
    EXPECT_EQ(inserts, tma_copies ? 2u : 1u);
  }
}

// l2.copy_hit_touches_home: line 0 (slice 0, set 0) is read by a far SM (home filled, near copy
// in slice 2), then nine other lines fill slice 0's set 0, the far SM reads line 0 again (a copy
// hit), an eleventh line evicts the set's least recently used, and a near SM reads line 0: with
// the copy hit counted at the home, the victim was line 1024 and line 0 hits (11 lines from
// DRAM); without it line 0 was the victim and is read again (12).
TEST(MemorySystem, CopyHitsRefreshTheHomeLineWhenAsked) {
  // l2.home_refresh_needs_home_ref: the refresh counts only once an SM of the home partition
  // referenced the line, so line 0, read only by the far SM, is the victim again (12 lines);
  // had near SM 0 read it first (one more DRAM read it would not add: the far read then hits
  // the home), the copy hit refreshes it and it survives (11).
  const auto dram_lines = [](bool touch, bool home_ref_only, bool near_first) {
    const GpuConfig cfg = testing::simple_gpu(
        {"sm.count=16", "sm.gpcs=8", "sm.dispatch_side_tpcs=0", "l2.partition1_gpcs=240",
         "l2.remote_copy=true", "l2.hash=modulo", "l2.set_index=linear",
         "l2.clean_first_probability=0",
         std::string("l2.copy_hit_touches_home=") + (touch ? "true" : "false"),
         std::string("l2.home_refresh_needs_home_ref=") + (home_ref_only ? "true" : "false")});
    MemorySystem mem(cfg, ClockDomain::from_mhz(1000));
    EXPECT_EQ(mem.partition_of_sm(8), 1);
    EXPECT_EQ(mem.partition_of_slice(0), 0);
    Time t = 0;
    auto at = [&t](int steps) { return t += steps * 1000 * kNs; };
    if (near_first) {
      mem.access(read(0, 0), at(1));
    }
    mem.access(read(0, 8), at(1));
    for (uint64_t k = 1; k <= 9; ++k) {
      mem.access(read(1024 * k, 0), at(1));
    }
    mem.access(read(0, 8), at(1));
    mem.access(read(1024 * 10, 0), at(1));
    mem.access(read(0, 0), at(1));
    return mem.stats().dram_read_bytes / 128;
  };
  EXPECT_EQ(dram_lines(true, false, false), 11u);
  EXPECT_EQ(dram_lines(false, false, false), 12u);
  EXPECT_EQ(dram_lines(true, true, false), 12u);
  EXPECT_EQ(dram_lines(true, true, true), 11u);
}

// l2.far_miss_fills_home: line 0 (home slice 0, partition 0) is read from DRAM by far SM 8,
// then again by SM 8 (its near copy serves it either way), then by near SM 0. Filled at home,
// SM 0 hits there (one DRAM read); with the switch off only the copy holds the line, so SM 0's
// read goes to DRAM again (two), and that read fills the home line for the next (still two).
TEST(MemorySystem, FarMissesCanLeaveTheHomeLineUnfilled) {
  const auto dram_lines = [](bool fill_home) {
    const GpuConfig cfg = testing::simple_gpu(
        {"sm.count=16", "sm.gpcs=8", "sm.dispatch_side_tpcs=0", "l2.partition1_gpcs=240",
         "l2.remote_copy=true", "l2.hash=modulo", "l2.set_index=linear",
         std::string("l2.far_miss_fills_home=") + (fill_home ? "true" : "false")});
    MemorySystem mem(cfg, ClockDomain::from_mhz(1000));
    EXPECT_EQ(mem.partition_of_sm(8), 1);
    EXPECT_EQ(mem.partition_of_slice(0), 0);
    std::vector<uint64_t> after;
    Time t = 0;
    for (const uint16_t sm : std::vector<uint16_t>{8, 8, 0, 0}) {
      mem.access(read(0, sm), t += 1000 * kNs);
      after.push_back(mem.stats().dram_read_bytes / 128);
    }
    return after;
  };
  EXPECT_EQ(dram_lines(true), (std::vector<uint64_t>{1, 1, 1, 1}));
  EXPECT_EQ(dram_lines(false), (std::vector<uint64_t>{1, 1, 2, 2}));
}

// l2.far_home_fill_lru: slice 0's set 0 (partition 0, 10 ways) holds lines 1024 k. Near SM 0
// reads k = 1..9, then far SM 8 reads k = 10 (home filled in that set, near copy in slice 2),
// then SM 0 reads k = 11, which evicts the set's least recently used way: line 1024 (k = 1) as
// configured, so SM 0's read of it goes to DRAM again (12 lines in all); with the switch the
// far-read home (k = 10), which no SM of partition 0 referenced, so line 1024 still hits (11)
// and SM 8's second read of k = 10 is served by its copy either way. Had SM 0 read k = 10
// first, the home would count as referenced from its own partition and stay (12).
TEST(MemorySystem, AFarReadsHomeGoesFirstWhenAsked) {
  const auto dram_lines = [](bool lru, bool near_first) {
    const GpuConfig cfg =
        testing::simple_gpu({"sm.count=16", "sm.gpcs=8", "sm.dispatch_side_tpcs=0",
                             "l2.partition1_gpcs=240", "l2.remote_copy=true", "l2.hash=modulo",
                             "l2.set_index=linear", "l2.clean_first_probability=0",
                             std::string("l2.far_home_fill_lru=") + (lru ? "true" : "false")});
    MemorySystem mem(cfg, ClockDomain::from_mhz(1000));
    EXPECT_EQ(mem.partition_of_sm(8), 1);
    EXPECT_EQ(mem.partition_of_slice(0), 0);
    Time t = 0;
    const auto at = [&](uint64_t k, uint16_t sm) {
      mem.access(read(1024 * k, sm), t += 1000 * kNs);
    };
    if (near_first) {
      at(10, 0);
    }
    for (uint64_t k = 1; k <= 9; ++k) {
      at(k, 0);
    }
    at(10, 8);
    at(11, 0);
    at(1, 0);
    at(10, 8);
    return mem.stats().dram_read_bytes / 128;
  };
  EXPECT_EQ(dram_lines(false, false), 12u);
  EXPECT_EQ(dram_lines(true, false), 11u);
  EXPECT_EQ(dram_lines(true, true), 12u);
}

// A set search compares one-byte fingerprints of the tags first and confirms equal ones against
// the full tag: lines of one set that share their fingerprint (here 0, which is also what the
// padding after the 10 ways holds) stay distinct, and LRU still picks the victim among them.
TEST(MemorySystem, LinesSharingAFingerprintStayDistinctInTheirSet) {
  const GpuConfig cfg = testing::simple_gpu({"l2.hash=modulo", "l2.set_index=linear"});
  MemorySystem mem(cfg, ClockDomain::from_mhz(1000));
  // Slice 0, set 0 of 4 slices x 256 sets: lines 1024 k.
  std::vector<uint64_t> lines;
  for (uint64_t k = 1; lines.size() < 11; ++k) {
    if (MemorySystem::fingerprint(1024 * k) == 0) {
      lines.push_back(1024 * k);
    }
  }
  Time t = 0;
  auto read_all = [&](size_t from, size_t to) {
    for (size_t i = from; i < to; ++i) {
      mem.access(read(lines[i]), t);
      t += 1000 * kNs;
    }
  };
  read_all(0, 10);  // fills the set's 10 ways
  EXPECT_EQ(mem.stats().dram_read_bytes, 10u * 128);
  read_all(0, 10);  // every one a hit
  EXPECT_EQ(mem.stats().dram_read_bytes, 10u * 128);
  read_all(10, 11);  // an 11th evicts the least recently used, lines[0]
  read_all(1, 10);
  EXPECT_EQ(mem.stats().dram_read_bytes, 11u * 128);
  read_all(0, 1);
  EXPECT_EQ(mem.stats().dram_read_bytes, 12u * 128);
}

// l2.remote_copy_writes: a write from an SM in the far partition leaves a clean copy in the near
// slice (as a far read does), so a written stream takes as much of the L2 as a read one.
TEST(MemorySystem, FarWritesLeaveANearCopy) {
  for (const bool copies : {true, false}) {
    const GpuConfig cfg =
        testing::simple_gpu({"sm.count=16", "sm.gpcs=8", "sm.dispatch_side_tpcs=0",
                             "l2.partition1_gpcs=240", "l2.remote_copy=true",
                             std::string("l2.remote_copy_writes=") + (copies ? "true" : "false")});
    MemorySystem mem(cfg, ClockDomain::from_mhz(1000));
    uint64_t far_line = 0;  // a line in partition 0's slices, written by SM 8 (GPC 4, partition 1)
    while (mem.partition_of_slice(mem.slice_of(far_line)) != 0) {
      ++far_line;
    }
    ASSERT_EQ(mem.partition_of_sm(8), 1);
    mem.access(MemRequest{far_line, 0xF, true, 8}, 0);
    uint64_t inserts = 0;
    for (const auto& s : mem.slice_stats()) {
      inserts += s.copy_inserts;
    }
    EXPECT_EQ(inserts, copies ? 1u : 0u);
    // A read of it from the same SM is served by the copy, or else by the far home slice.
    mem.access(read(far_line, 8), 1000 * kNs);
    uint64_t copy_hits = 0;
    for (const auto& s : mem.slice_stats()) {
      copy_hits += s.copy_hits;
    }
    EXPECT_EQ(copy_hits, copies ? 1u : 0u);
    EXPECT_EQ(mem.stats().dram_read_bytes, 0u);
  }
}

// l2.remote_copy_occupancy (Sim-FA's occupancy threshold): near copies may hold that share of a
// set's ways; beyond it a new copy replaces the set's least recently used copy, not a line of
// the set's own. Eight lines homed in slice 0, set 0, read by an SM of the other partition,
// leave their copies in set 0 of proxy slice 2 (10 ways): all eight stay without a limit, the
// last five with a limit of 0.5, so reading them again (newest first) finds 8 or 5 copies.
TEST(MemorySystem, RemoteCopyOccupancyCapsTheCopiesOfASet) {
  for (const bool capped : {false, true}) {
    const GpuConfig cfg = testing::simple_gpu(
        {"sm.count=16", "sm.gpcs=8", "sm.dispatch_side_tpcs=0", "l2.partition1_gpcs=240",
         "l2.remote_copy=true", "l2.hash=modulo", "l2.set_index=linear",
         std::string("l2.remote_copy_occupancy=") + (capped ? "0.5" : "1")});
    MemorySystem mem(cfg, ClockDomain::from_mhz(1000));
    ASSERT_EQ(mem.partition_of_sm(8), 1);
    ASSERT_EQ(mem.partition_of_slice(0), 0);
    Time t = 0;
    for (int pass = 0; pass < 2; ++pass) {
      for (int i = 0; i < 8; ++i) {
        const uint64_t k = pass == 0 ? static_cast<uint64_t>(i) : static_cast<uint64_t>(7 - i);
        mem.access(read(1024 * k, 8), t);  // slice 0, set 0
        t += 1000 * kNs;
      }
    }
    uint64_t copy_hits = 0;
    uint64_t inserts = 0;
    for (const auto& sl : mem.slice_stats()) {
      copy_hits += sl.copy_hits;
      inserts += sl.copy_inserts;
    }
    EXPECT_EQ(copy_hits, capped ? 5u : 8u);
    EXPECT_EQ(inserts, capped ? 11u : 8u);  // capped: the three re-read lines copied again
    EXPECT_EQ(mem.stats().dram_read_bytes, 8u * 128);  // the homes keep every line
  }
}

}  // namespace
}  // namespace asyncsim
