// Where a read waits at its L2 slice, with exact expectations on the round-number test GPU
// (tests/data/simple_gpu.yaml: 1 ns cycles, 200-cycle hit round trip, 300-cycle DRAM latency,
// one DRAM channel at 128 B/cycle): l2.slice_calendar (a read that arrives before one booked
// earlier goes first) and l2.mshr_queue_lines (a read queues behind misses waiting for MSHRs);
// and, past the slice, noc.gpc_port_lsu_first (the GPC's port serves LSU responses first).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../sim/test_util.h"
#include "mem/memory_system.h"
#include "mem_test_util.h"

namespace asyncsim {
namespace {

using testing::kNs;
using testing::read;

// `n` lines homed in one slice.
std::vector<uint64_t> lines_of_one_slice(const MemorySystem& mem, int slice, size_t n) {
  std::vector<uint64_t> out;
  for (uint64_t l = 1; out.size() < n; ++l) {
    if (mem.slice_of(l) == slice) {
      out.push_back(l);
    }
  }
  return out;
}

// A far SM's read and a near SM's (GPCs 4-7 in partition 1), issued at the same time for two
// resident lines of one slice (l2.far_extra_cycles = 100: the far one arrives 50 cycles later; 4 B
// per slice cycle: a line holds the slice 32 cycles). The far read is served first in host order:
// it arrives at 150 and takes the slice until 182. The near read arrives at 100. With a busy-until
// horizon it waits for the far one (start 182, back at 282); with the calendar it takes the idle
// time before it (start 100, back at 200), as a real slice would.
TEST(SliceQueue, ACalendarServesAnEarlierArrivalFirst) {
  for (const bool calendar : {false, true}) {
    const GpuConfig cfg = testing::simple_gpu(
        {"sm.count=16", "sm.gpcs=8", "sm.dispatch_side_tpcs=0", "l2.partition1_gpcs=240",
         "l2.far_extra_cycles=100", "l2.slice_bytes_per_cycle=4",
         std::string("l2.slice_calendar=") + (calendar ? "true" : "false")});
    MemorySystem mem(cfg, ClockDomain::from_mhz(1000));
    ASSERT_EQ(mem.partition_of_sm(0), 0);
    ASSERT_EQ(mem.partition_of_sm(8), 1);  // GPCs 4-7
    const int slice = 0;
    const int near = mem.partition_of_slice(slice) == 0 ? 0 : 8;
    const int far = 8 - near;
    const std::vector<uint64_t> l = lines_of_one_slice(mem, slice, 2);
    mem.access(read(l[0], static_cast<uint16_t>(far)), 0);  // both resident from here on
    mem.access(read(l[1], static_cast<uint16_t>(near)), 0);
    const Time t = 10'000 * kNs;
    EXPECT_EQ(mem.access(read(l[0], static_cast<uint16_t>(far)), t), t + 300 * kNs) << calendar;
    EXPECT_EQ(mem.access(read(l[1], static_cast<uint16_t>(near)), t),
              t + (calendar ? 200 : 282) * kNs)
        << calendar;
  }
}

// l2.partial_sector_cycles under each queue discipline. Three hits on one slice at the same time
// (128 B per slice cycle: a sector's slot is 250 ps), the first two of sectors covered in part
// (0.4 cycles more each). The horizon adds 400 ps after each: the third starts at 1300 ps. The
// calendar books whole slots and carries the rest: the first owes 400 (one slot, 150 left), the
// second 550 (two slots, 50 left), so the third takes slot 5 and starts at 1250 ps. Whole sectors
// alone: the third starts at 500 ps under both.
TEST(SliceQueue, PartialSectorTimeIsOwedInWholeSlotsUnderTheCalendar) {
  for (const bool calendar : {false, true}) {
    for (const bool partial : {false, true}) {
      const GpuConfig cfg =
          testing::simple_gpu({"noc.model=latency", "l2.partial_sector_cycles=0.4",
                               std::string("l2.slice_calendar=") + (calendar ? "true" : "false")});
      MemorySystem mem(cfg, ClockDomain::from_mhz(1000));
      const std::vector<uint64_t> l = lines_of_one_slice(mem, 0, 3);
      for (const uint64_t line : l) {
        mem.access(read(line), 0);
      }
      const Time t = 10'000 * kNs;
      for (size_t i = 0; i < 2; ++i) {
        mem.access(MemRequest{l[i], 0x1, false, 0, true, false, partial}, t);
      }
      const Time expected = !partial ? 500 : calendar ? 1250 : 1300;
      EXPECT_EQ(mem.access(MemRequest{l[2], 0x1, false, 0, true, false, false}, t),
                t + 200 * kNs + expected)
          << calendar << partial;
    }
  }
}

// One MSHR in the slice: misses m1, m2, m3 issued at t arrive at t + 100 (starts 100, 101, 102:
// a line holds the slice one cycle). m1 takes the MSHR (its fill at 401: one cycle of transfer
// and 300); m2 waits for it and gets it at 401 (fill 702), m3 gets it at 702 (fill 1003). A hit
// arriving at 150 passes them with l2.mshr_queue_lines = 0 (back at 250). With 1, m3 (behind m2)
// leaves the queue when m2 does and holds the slice a cycle, and the hit, behind m3 alone, starts
// after it (402, back at 502); with 2 or more the hit leaves when m3 does (702, back at 802).
TEST(SliceQueue, AHitQueuesBehindAtMostMshrQueueLinesWaitingMisses) {
  for (const int queue : {0, 1, 2, 5}) {
    const GpuConfig cfg = testing::simple_gpu(
        {"l2.mshrs_per_slice=1", "l2.mshr_queue_lines=" + std::to_string(queue)});
    MemorySystem mem(cfg, ClockDomain::from_mhz(1000));
    const std::vector<uint64_t> l = lines_of_one_slice(mem, 0, 4);
    mem.access(read(l[3]), 0);  // the hit's line, resident from here on
    const Time t = 10'000 * kNs;
    EXPECT_EQ(mem.access(read(l[0]), t), t + 501 * kNs) << queue;
    EXPECT_EQ(mem.access(read(l[1]), t), t + 802 * kNs) << queue;
    EXPECT_EQ(mem.access(read(l[2]), t), t + 1103 * kNs) << queue;
    const Time hit = mem.access(read(l[3]), t + 50 * kNs);
    const Time expected = queue == 0 ? 250 : queue == 1 ? 502 : 802;
    EXPECT_EQ(hit, t + expected * kNs) << queue;
    EXPECT_EQ(mem.slice_stats()[0].mshr_stalls, 2u) << queue;
  }
}

// noc.gpc_port_lsu_first: GPC 0's port (32 B per cycle: 4 cycles a line) serves LSU responses
// first; an LSU response waits only behind LSU responses, a TMA response behind both. Four lines
// on four slices, made L2 hits, read at t by SMs 0 and 1 of GPC 0: TMA, LSU, LSU, TMA.
TEST(MemorySystem, LsuResponsesGoFirstAtTheGpcPortWhenAsked) {
  for (const bool lsu_first : {false, true}) {
    const GpuConfig cfg = testing::simple_gpu(
        {"sm.count=4", "noc.model=ports", "noc.slice_port_bytes_per_cycle=1024",
         "noc.sm_port_bytes_per_cycle=1024", "noc.gpc_port_bytes_per_cycle=32",
         std::string("noc.gpc_port_lsu_first=") + (lsu_first ? "true" : "false")});
    MemorySystem mem(cfg, ClockDomain::from_mhz(1000));
    const std::vector<uint64_t> lines = testing::hits_on_distinct_slices(mem, 4);
    const Time t = 10'000 * kNs;
    MemRequest tma_first = read(lines[0], 0);
    tma_first.tma = true;
    MemRequest tma_last = read(lines[3], 1);
    tma_last.tma = true;
    EXPECT_EQ(mem.access(tma_first, t), t + 200 * kNs);
    EXPECT_EQ(mem.access(read(lines[1], 1), t), t + (lsu_first ? 200 : 204) * kNs) << lsu_first;
    EXPECT_EQ(mem.access(read(lines[2], 0), t), t + (lsu_first ? 204 : 208) * kNs) << lsu_first;
    EXPECT_EQ(mem.access(tma_last, t), t + 212 * kNs) << lsu_first;
  }
}

}  // namespace
}  // namespace asyncsim
