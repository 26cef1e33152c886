// The memory hierarchy behind the SMs: crossbar latency, sliced sectored L2 (address hash,
// LRU, write-back/write-allocate, in-flight fills merged like MSHRs, a bounded MSHR pool per
// slice, near/far partitions) and DRAM channels with bandwidth and latency.
//
// Contract (the narrow interface the SM side uses): access() takes one line request with a
// sector mask, issued by an SM at time `t`, and returns the time its response is back at the
// SM. Requests must be presented in (approximately) non-decreasing time; each resource keeps
// a reservation horizon, so contention is modelled without per-request events.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "config/gpu_config.h"
#include "mem/hbm.h"
#include "mem/mem_bits.h"
#include "util/fast_div.h"
#include "util/slot_calendar.h"
#include "util/time.h"

namespace asyncsim {

struct MemRequest {
  uint64_t line;    // line index (byte address / line size)
  uint8_t sectors;  // bit i = sector i of the line
  bool write;
  uint16_t sm;
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

struct MemStats {
  uint64_t l2_read_bytes = 0;
  uint64_t l2_write_bytes = 0;
  uint64_t dram_read_bytes = 0;
  uint64_t dram_write_bytes = 0;
  uint64_t requests = 0;
  uint64_t responses = 0;
  uint64_t coalescer_merges = 0;  // reads merged by a TPC's request coalescer
  Time dram_busy_ps = 0;          // summed over channels
};

class MemorySystem {
 public:
  MemorySystem(const GpuConfig& config, const ClockDomain& sm_clock);

  Time access(const MemRequest& req, Time t);
  // Back-pressure (noc.model=ports): the earliest time at or after `t` at which SM `sm` may
  // hand the crossbar another request: its outgoing port has at most noc.queue_bytes queued.
  // Reads send only a request header out; their responses contend for the incoming port but,
  // being reserved ahead in time (a DRAM fill's response slot lies in the future), are no
  // backlog at the SM and do not stall it.
  Time port_accepts(uint16_t sm, bool write, Time t) const {
    if (m_noc_ports && write) {
      return std::max(t, m_sm_out_free[sm] - m_queue_ps);
    }
    return t;
  }
  // Writes back every dirty line (counted as DRAM writes when l2.flush_dirty_at_end is on).
  void flush_dirty(Time end);

  const MemStats& stats() const { return m_stats; }
  // DRAM traffic over time for the timeline's counter tracks: bytes read (counted when the data
  // is back in L2) and written (when the controller accepts them) per bin of `bin_ps`. Off (and
  // free) until enabled.
  void enable_traffic_bins(Time bin_ps) { m_bin_ps = bin_ps; }
  Time traffic_bin_ps() const { return m_bin_ps; }
  const std::vector<uint64_t>& dram_read_bins() const { return m_read_bins; }
  const std::vector<uint64_t>& dram_write_bins() const { return m_write_bins; }
  const std::vector<SliceStats>& slice_stats() const { return m_slice_stats; }
  // DRAM traffic by address range (a kernel's tensors): from now on, bytes read and written in
  // [lo, hi) of each region are counted apart (traffic outside every region in the last entry,
  // named ""). Counts start at zero.
  struct Region {
    std::string name;
    uint64_t lo = 0;
    uint64_t hi = 0;
    uint64_t dram_read_bytes = 0;
    uint64_t dram_write_bytes = 0;
  };
  void set_regions(std::vector<Region> regions);
  const std::vector<Region>& regions() const { return m_regions; }
  int slice_of(uint64_t line) const;
  int partition_of_sm(int sm) const;
  int coalescer_of_sm(int sm) const;  // index of the request coalescer an SM's reads go through
  int partition_of_slice(int slice) const { return slice < m_num_slices / 2 ? 0 : 1; }
  // The share (0 <= share < 1) of l2.pair_spread_cycles an SM-slice pair adds to its round
  // trip: the top bits of a full 64-bit mix of the pair, so every SM's shares over the slices
  // spread evenly (a product of the two ids did not: SM 0's stayed below half).
  static double pair_share(int sm, int slice) {
    const uint64_t x = mix64((static_cast<uint64_t>(sm) << 32) ^ static_cast<uint64_t>(slice) ^
                             0x9E3779B97F4A7C15ULL);
    return static_cast<double>(x >> 40) * 0x1.0p-24;
  }
  int num_slices() const { return m_num_slices; }
  int num_channels() const { return static_cast<int>(m_channel_free.size()); }
  const HbmSystem* hbm() const { return m_hbm.get(); }

 private:
  // Line metadata; tags live in a separate array so a lookup scans 20 tags in 160 bytes.
  struct Way {
    Time fill_time = 0;  // when the last fill of this line completes
    uint32_t lru = 0;
    uint8_t valid = 0;
    uint8_t dirty = 0;
    // Written, a near copy of a written line, or read again after its fill: not a victim of
    // the clean-first preference (l2.clean_first_probability), which takes lines read once.
    uint8_t reused = 0;
    uint8_t rrpv = 0;  // re-reference prediction (l2.replacement=rrip): 0 = soon
  };
  size_t index_of(const Way* way) const { return static_cast<size_t>(way - m_ways_storage.data()); }
  void build_ipoly_tables();
  size_t set_of(uint64_t line) const {
    return m_linear_sets ? m_set_div.mod(m_slice_div.div(line)) : mix_set(line);
  }
  size_t mix_set(uint64_t line) const;
  Way* lookup(int slice, uint64_t line, int& set_out);
  // Starts loading the tags and way metadata of `set` in `slice` into the host's caches, so that
  // the misses on a request's home and proxy sets overlap instead of following one another (a
  // streaming run misses in the host caches on nearly every set). Always inlined: GCC takes a
  // function holding only loads and prefetches for pure and drops the call before inlining.
  [[gnu::always_inline]] void prefetch_set(int slice, size_t set) const {
    const auto ways = static_cast<size_t>(m_ways);
    const size_t base = (static_cast<size_t>(slice) * static_cast<size_t>(m_sets) + set) * ways;
    for (size_t w = 0; w < ways; w += 8) {  // 8 tags per 64-B host cache line
      __builtin_prefetch(&m_tags[base + w]);
    }
    __builtin_prefetch(&m_tags[base + ways - 1]);
    for (size_t w = 0; w < ways; w += 4) {  // 4 ways per line
      __builtin_prefetch(&m_ways_storage[base + w]);
    }
    __builtin_prefetch(&m_ways_storage[base + ways - 1]);
  }
  // Serves a read at `slice` arriving at `arrive`; returns when the data leaves the slice.
  Time read_at_slice(int slice, uint64_t line, uint8_t sectors, Time arrive);
  Time reserve_slice(int slice, Time arrive, int bytes);
  // Where a far line's near copy is, or would go (its set in the proxy slice).
  struct CopySlot {
    Way* way = nullptr;
    int set = 0;
  };
  bool near_copy_serves(int proxy, uint64_t line, uint8_t sectors, Time arrive, Time& ready,
                        CopySlot& slot);
  // Whether this eviction prefers the set's least recently used line read only once
  // (l2.clean_first_probability, drawn from a hash of the eviction count).
  bool clean_first_now();
  void insert_copy(int proxy, uint64_t line, uint8_t sectors, Time now, Time ready, bool reused,
                   const CopySlot* known);
  struct CoalescerEntry {
    uint64_t line = UINT64_MAX;
    Time ready = 0;
    size_t way = 0;  // the way that served the read: a merged read re-references it
  };
  // Makes room for `line` in `set` of `slice` (writing back a dirty victim at t) and returns its
  // empty way; under RRIP the new line starts at prediction `insert`.
  Way& allocate(int slice, int set, uint64_t line, Time t, uint8_t insert);
  Way& install(size_t victim, uint64_t line, Time t, uint8_t insert);
  // A re-reference of `way` (a hit, a merged read): most recently used, and under RRIP
  // predicted at l2.rrip_hit_level (0: re-used soon).
  void touch(Way& way, int slice) {
    way.lru = ++m_lru_clock[static_cast<size_t>(slice)];
    way.rrpv = std::min(way.rrpv, m_hit_level);
  }
  // DRAM read of the sectors in `mask` of `line` arriving at the controller at t: returns when
  // the data is back in L2. Writes are posted (bandwidth only).
  Time dram_read(uint64_t line, uint8_t mask, Time t);
  void dram_write(uint64_t line, uint8_t mask, Time t);
  Time dram_transfer(uint64_t line, int bytes, Time t);  // dram.model=simple: bus time only
  Time wait_for_mshr(int slice, Time t);
  // Queues `bytes` on a crossbar port whose data is ready at `ready`; returns the wait.
  Time port_wait(Time& free, Time ready, Time ps) {
    const Time start = std::max(ready, free);
    free = start + ps;
    return start - ready;
  }
  // The same on a port that keeps a calendar of sector slots (booked at `now`): a packet ready
  // earlier than one booked before it takes the free slots before that one.
  Time port_wait(SlotCalendar& port, Time now, Time ready, int bytes) const {
    return port.book(now, ready, (bytes + m_sector_bytes - 1) / m_sector_bytes);
  }

  const GpuConfig& m_config;
  ClockDomain m_l2_clock;
  ClockDomain m_dram_clock;
  int m_num_slices;
  int m_sets;
  int m_ways;
  int m_sector_bytes;
  int m_sectors_per_line;
  int m_line_bytes;
  bool m_linear_sets = false;
  bool m_rrip = false;
  uint8_t m_rrip_max = 3;     // l2.rrip_levels - 1: distant
  uint8_t m_read_insert = 0;  // RRIP insertion values (0 under LRU, where they are unused)
  uint8_t m_write_insert = 0;
  uint8_t m_hit_level = 0;
  uint64_t m_clean_first_threshold = 0;  // clean-first when hash(evictions) < this (of 2^64)
  uint64_t m_evictions = 0;
  Time m_half_hit;  // one-way SM <-> near slice
  Time m_half_far;  // extra one-way to the far partition
  Time m_write_ack;
  Time m_dram_latency;
  double m_slice_ps_per_byte;
  double m_channel_ps_per_byte;
  std::vector<Way> m_ways_storage;  // [slice][set][way]
  std::vector<uint64_t> m_tags;     // same index; UINT64_MAX = invalid
  std::vector<uint32_t> m_lru_clock;
  std::vector<Time> m_slice_free;
  // Crossbar ports (noc.model=ports): busy-until per SM and per slice, each direction.
  bool m_noc_ports = false;
  double m_sm_port_ps_per_byte = 0;
  double m_slice_port_ps_per_byte = 0;
  double m_slice_in_port_ps_per_byte = 0;
  Time m_queue_ps = 0;
  std::vector<SlotCalendar> m_sm_in;  // response ports, booked ahead of their data
  std::vector<SlotCalendar> m_slice_out;
  std::vector<Time> m_sm_out_free;
  std::vector<Time> m_slice_in_free;
  std::vector<Time> m_channel_free;
  std::unique_ptr<HbmSystem> m_hbm;  // dram.model=hbm
  // Per slice: fill-completion times of outstanding misses, a ring of l2.mshrs_per_slice.
  std::vector<Time> m_mshr_ring;
  std::vector<uint32_t> m_mshr_head;
  std::vector<uint32_t> m_mshr_count;
  std::vector<uint64_t> m_ipoly_table;  // [byte][value] -> remainder, for SliceHash::kIpoly
  uint64_t m_hash_odd = 1;              // odd factor of the slice count
  Time m_pair_spread_ps = 0;            // l2.pair_spread_cycles / 2, one way
  Time pair_extra(int sm, int slice) const {
    if (m_pair_spread_ps == 0) {
      return 0;
    }
    return static_cast<Time>(pair_share(sm, slice) * static_cast<double>(m_pair_spread_ps));
  }
  int m_granule_shift = 0;  // log2(lines per partition granule); 0: the slice hash decides
  FastDiv m_odd_div;        // by m_hash_odd
  FastDiv m_slice_div;      // by the slice count
  FastDiv m_set_div;        // by the sets per slice
  std::vector<CoalescerEntry> m_coalescer;  // [coalescer][entry], direct-mapped by line
  size_t m_served_way = 0;  // index of the way that served the last read (home or near copy)
  void bin(std::vector<uint64_t>& bins, Time t, int bytes);
  MemStats m_stats;
  std::vector<SliceStats> m_slice_stats;
  std::vector<uint8_t> m_sm_partition;   // partition_of_sm, per SM
  std::vector<uint16_t> m_sm_coalescer;  // coalescer_of_sm, per SM
  int place_partition(int sm) const;     // what the two tables hold
  int place_coalescer(int sm) const;
  Region& region_of(uint64_t line);
  std::vector<Region> m_regions;
  Time m_bin_ps = 0;
  std::vector<uint64_t> m_read_bins;
  std::vector<uint64_t> m_write_bins;
};

}  // namespace asyncsim
