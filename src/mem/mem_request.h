// What crosses the memory system's interface (src/mem/memory_system.h): one line request, the
// record of an access() call (for replays), and the counters the L2 slices and the whole
// system keep.
#pragma once

#include <array>
#include <cstdint>

#include "util/time.h"

namespace asyncsim {

struct MemRequest {
  uint64_t line;    // line index (byte address / line size)
  uint8_t sectors;  // bit i = sector i of the line
  bool write;
  uint16_t sm;
  bool tma = false;  // issued by the SM's TMA engine (else by its LSU)
  // Part of a TMA copy with a row that starts or ends inside a sector: it merges in the request
  // coalescer only with l2.coalesce_partial_rows.
  bool partial_row = false;
  // A single sector the request covers only in part (tma.split_partial_sectors): a read costs
  // its slice l2.partial_sector_cycles more.
  bool partial_sector = false;
};

struct SliceStats {
  uint64_t read_hits = 0;    // sector reads served by valid data (remote copies included)
  uint64_t read_misses = 0;  // sector reads that went to DRAM
  uint64_t mshr_merges = 0;  // line reads that found their fill already in flight
  uint64_t far_accesses = 0;
  uint64_t writes = 0;        // sectors written
  uint64_t mshr_stalls = 0;   // misses that waited for a free MSHR
  uint64_t copy_hits = 0;     // far reads served by a near remote copy held in this slice
  uint64_t copy_inserts = 0;  // remote copies inserted into this slice
};

// Where the reads' time went (ps, summed over reads): each read that reached a slice splits its
// latency, issue to data at the SM, into these parts exactly (test
// MemorySystem.ReadLatencyPartsAddUpToEachReadsLatency); a read merged in a request coalescer
// waits for its leader's response instead.
struct ReadLatency {
  uint64_t reads = 0;    // reads that reached a slice (home or near copy)
  Time fixed = 0;        // the unloaded path: crossbar both ways, tag lookup, far partition
  Time slice_queue = 0;  // for the slice's data path (l2.mshr_queue_lines: behind misses too)
  Time mshr = 0;         // a miss waiting for a free MSHR
  Time dram = 0;         // a miss's fill: MSHR to data back from DRAM
  Time fill = 0;         // waiting on a fill already in flight (an MSHR merge)
  Time slice_port = 0;   // queueing at the serving slice's response port
  Time gpc_port = 0;     // at the GPC's response port (noc.gpc_port_bytes_per_cycle)
  Time sm_port = 0;      // at the SM's response port
  Time merged_wait = 0;  // reads merged in a request coalescer (MemStats::coalescer_merges):
                         // their issue to their leader's data

  // The parts in the order they are reported, with their counter names (mem.read_latency.NAME).
  static constexpr const char* kPartNames[] = {"fixed",    "slice_queue", "mshr",
                                               "dram",     "fill",        "slice_port",
                                               "gpc_port", "sm_port",     "merged_wait"};
  std::array<Time, 9> parts() const {
    return {fixed, slice_queue, mshr, dram, fill, slice_port, gpc_port, sm_port, merged_wait};
  }
  ReadLatency& operator-=(const ReadLatency& o) {
    reads -= o.reads;
    fixed -= o.fixed;
    slice_queue -= o.slice_queue;
    mshr -= o.mshr;
    dram -= o.dram;
    fill -= o.fill;
    slice_port -= o.slice_port;
    gpc_port -= o.gpc_port;
    sm_port -= o.sm_port;
    merged_wait -= o.merged_wait;
    return *this;
  }
};

struct MemStats {
  uint64_t l2_read_bytes = 0;
  uint64_t l2_write_bytes = 0;
  uint64_t dram_read_bytes = 0;
  uint64_t dram_write_bytes = 0;
  uint64_t requests = 0;
  uint64_t read_requests = 0;         // of the requests, the reads (merged ones included)
  uint64_t coalescer_merges = 0;      // reads merged by a TPC's request coalescer
  uint64_t partial_sector_reads = 0;  // reads of a sector asked for in part, served by a slice
  Time dram_busy_ps = 0;              // summed over channels
  ReadLatency read_latency;
};

// One call of MemorySystem::access, as recorded for replaying the memory system alone
// (RunOptions::memory_trace; bench_sim's MemoryReplay).
struct MemAccessRecord {
  MemRequest req;
  Time t = 0;
};

}  // namespace asyncsim
