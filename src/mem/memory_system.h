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
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "config/gpu_config.h"
#include "mem/coalescer_entry.h"
#include "mem/half_hash.h"
#include "mem/hbm.h"
#include "mem/mem_bits.h"
#include "mem/mem_request.h"
#include "util/fast_div.h"
#include "util/huge_alloc.h"
#include "util/slot_calendar.h"
#include "util/time.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace asyncsim {

class MemorySystem {
 public:
  MemorySystem(const GpuConfig& config, const ClockDomain& sm_clock);

  Time access(const MemRequest& req, Time t);
  // From now on every access() call is appended to `out` (nullptr: none). Replaying the calls in
  // order on a fresh MemorySystem of the same config gives the same results: access() depends
  // on nothing else.
  void record_accesses(std::vector<MemAccessRecord>* out) { m_record = out; }
  // A read of `line` by `sm` is coming soon: start fetching its TPC coalescer entry, a random
  // host line of a table of several MB (the TMA generator calls this a few requests ahead).
  void prefetch_coalescer(uint64_t line, uint16_t sm) const {
    if (!m_tpc_stage.empty()) {
      m_tpc_stage.prefetch(m_tpc_stage.index(line, sm));
    }
  }
  // Back-pressure (noc.model=ports): the earliest time at or after `t` at which SM `sm` may
  // hand the crossbar another request (its outgoing port holds at most noc.queue_bytes). Reads
  // send only a header out; their responses, booked ahead on the incoming port, do not stall it.
  Time port_accepts(uint16_t sm, bool write, Time t) const {
    if (m_noc_ports && write) {
      return std::max(t, m_sm_out_free[sm] - m_queue_ps);
    }
    return t;
  }
  // Writes back every dirty line (counted as DRAM writes when l2.flush_dirty_at_end is on).
  void flush_dirty(Time end);

  const MemStats& stats() const { return m_stats; }
  // Traffic over time for the timeline's counter tracks, per bin of `bin_ps`: DRAM bytes read
  // (counted when the data is back in L2) and written (when the controller accepts them); L2
  // bytes the slices read for SMs, those already there (hits, near copies included) apart from
  // those that wait for DRAM (misses), and the bytes SMs wrote into them, each counted when its
  // slice serves it. Off (and free) until enabled.
  void enable_traffic_bins(Time bin_ps) { m_bin_ps = bin_ps; }
  Time traffic_bin_ps() const { return m_bin_ps; }
  const std::vector<uint64_t>& dram_read_bins() const { return m_read_bins; }
  const std::vector<uint64_t>& dram_write_bins() const { return m_write_bins; }
  const std::vector<uint64_t>& l2_hit_bins() const { return m_l2_hit_bins; }
  const std::vector<uint64_t>& l2_miss_bins() const { return m_l2_miss_bins; }
  const std::vector<uint64_t>& l2_write_bins() const { return m_l2_write_bins; }
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
  // One byte of a line's tag (a multiplicative hash: all of the line's bits reach it) that the
  // set search compares eight at a time; equal bytes are confirmed against the full tag.
  static uint8_t fingerprint(uint64_t line) {
    return static_cast<uint8_t>((line * 0x9E3779B97F4A7C15ULL) >> 56);
  }
  int partition_of_sm(int sm) const;
  int coalescer_of_sm(int sm) const;  // index of the request coalescer an SM's reads go through
  int partition_of_slice(int slice) const { return slice < m_half_slices ? 0 : 1; }
  // The slice in the other partition at the same position: where a far line's near copy goes.
  int proxy_of(int slice) const {
    const int proxy = slice + m_half_slices;
    return proxy >= m_num_slices ? proxy - m_num_slices : proxy;
  }
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
  // The L2's line metadata, by set. Each set's small fields (tag fingerprints, valid and dirty
  // masks, LRU ages, RRIP predictions, reused flags) lie together in one block of whole
  // 64-byte host lines (two for 20 ways), what a set search and a victim choice read; tags
  // and fill times, read only at the way found, live in arrays of their own. A streaming run
  // misses in the host's caches on nearly every set: it waits for two prefetched lines per
  // set instead of the eight its 20 tags and 20 24-byte way records took.
  using WayRef = L2WayRef;
  uint32_t row_of(int slice, size_t set) const {
    return static_cast<uint32_t>(static_cast<size_t>(slice) * static_cast<size_t>(m_sets) + set);
  }
  size_t index(WayRef r) const { return static_cast<size_t>(r.row) * m_ways + r.w; }
  // The set's block; its bytes are read as unsigned char (which may alias the uint32_t storage).
  uint32_t* block(uint32_t row) { return m_meta + static_cast<size_t>(row) * m_block_words; }
  const uint32_t* block(uint32_t row) const {
    return m_meta + static_cast<size_t>(row) * m_block_words;
  }
  uint8_t* bytes(uint32_t row) { return reinterpret_cast<uint8_t*>(block(row)); }
  uint8_t* fp_row(uint32_t row) { return bytes(row); }
  uint8_t* valid_row(uint32_t row) { return bytes(row) + m_off_valid; }
  uint8_t* dirty_row(uint32_t row) { return bytes(row) + m_off_dirty; }
  uint8_t* rrpv_row(uint32_t row) { return bytes(row) + m_off_rrpv; }
  uint8_t* reused_row(uint32_t row) { return bytes(row) + m_off_reused; }
  uint8_t* age_row(uint32_t row) { return bytes(row) + m_off_age; }
  uint8_t& valid(WayRef r) { return valid_row(r.row)[r.w]; }
  uint8_t& dirty(WayRef r) { return dirty_row(r.row)[r.w]; }
  uint8_t& rrpv(WayRef r) { return rrpv_row(r.row)[r.w]; }
  uint8_t& reused(WayRef r) { return reused_row(r.row)[r.w]; }
  uint64_t& tag(WayRef r) { return m_lines[index(r)].tag; }
  Time& fill_time(WayRef r) { return m_lines[index(r)].fill; }
  void build_ipoly_tables();
  // What the set index is taken from: the slice key's quotient by the slice count, with the
  // bits the key left out (l2.slice_skip_line_bits) below it.
  uint64_t slice_quotient(uint64_t line) const {
    return (m_slice_div.div(slice_key(line)) << m_slice_skip) | m_slice_skip_low[line & 0xFF];
  }
  size_t set_of(uint64_t line) const {
    if (m_half_hash.on()) [[unlikely]] {
      return m_half_hash.set(m_half_hash.local(line));
    }
    switch (m_set_index) {
      case L2SetIndex::kLinear:
        return m_set_div.mod(slice_quotient(line));
      case L2SetIndex::kXor: {
        uint64_t q = slice_quotient(line);
        uint64_t set = q;  // (one set per slice: no fold, it would never end)
        while (m_set_bits != 0 && (q >>= m_set_bits) != 0) {
          set ^= q;
        }
        return static_cast<size_t>(set) & (static_cast<size_t>(m_sets) - 1);
      }
      case L2SetIndex::kHashed:
        break;
    }
    return mix_set(line);
  }
  size_t mix_set(uint64_t line) const;
  // The way holding `line` in `set` of `slice`, or a WayRef of that set that is not found().
  WayRef lookup(int slice, size_t set, uint64_t line);
  // Starts loading the block of `set` in `slice` into the host's caches, so that the misses on
  // a request's home and proxy sets overlap instead of following one another. Always inlined:
  // GCC takes a function holding only loads and prefetches for pure and drops the call before
  // inlining.
  [[gnu::always_inline]] void prefetch_set(int slice, size_t set) const {
    const uint32_t row = row_of(slice, set);
    // The tags and fill times too: the victim's are written, and a store that misses holds up
    // the stores after it.
    const auto* l = reinterpret_cast<const char*>(&m_lines[index({row, 0})]);
    if (m_ways20) {  // the H200's 20 ways: counts known here, no jumps (~20 host instructions)
      prefetch_lines<0>(reinterpret_cast<const char*>(block(row)), 2);
      prefetch_lines<1>(l, 5);
      __builtin_prefetch(l + 19 * sizeof(Line), 1);
      return;
    }
    prefetch_lines<0>(reinterpret_cast<const char*>(block(row)), m_block_lines);
    prefetch_lines<1>(l, m_line_prefetches);
    __builtin_prefetch(l + (static_cast<size_t>(m_ways) - 1) * sizeof(Line), 1);
  }
  // Prefetches n host lines from p on. Unrolled through a jump: the counts are fixed per run but
  // not known to the compiler, and a loop cost four host instructions a line.
  template <int Write>
  [[gnu::always_inline]] static void prefetch_lines(const char* p, uint32_t n) {
    switch (n) {
      default:
        for (uint32_t i = 8; i < n; ++i) {
          __builtin_prefetch(p + 64 * static_cast<size_t>(i), Write);
        }
        [[fallthrough]];
      case 8:
        __builtin_prefetch(p + 448, Write);
        [[fallthrough]];
      case 7:
        __builtin_prefetch(p + 384, Write);
        [[fallthrough]];
      case 6:
        __builtin_prefetch(p + 320, Write);
        [[fallthrough]];
      case 5:
        __builtin_prefetch(p + 256, Write);
        [[fallthrough]];
      case 4:
        __builtin_prefetch(p + 192, Write);
        [[fallthrough]];
      case 3:
        __builtin_prefetch(p + 128, Write);
        [[fallthrough]];
      case 2:
        __builtin_prefetch(p + 64, Write);
        [[fallthrough]];
      case 1:
        __builtin_prefetch(p, Write);
        [[fallthrough]];
      case 0:
        break;
    }
  }
  // Serves a read of `line` (in `set`, `nsect` sectors in `sectors`) at `slice` arriving at
  // `arrive`; returns when the data leaves the slice. read_past_home: l2.far_miss_fills_home off.
  Time read_at_slice(int slice, size_t set, uint64_t line, uint8_t sectors, int nsect, Time arrive);
  Time read_past_home(int slice, size_t set, uint64_t line, uint8_t sectors, int nsect, Time t);
  // Books `nsect` sectors' time on the slice from `arrive` on; returns their start.
  Time reserve_slice(int slice, Time arrive, int nsect) {
    if (!m_slice_cal.empty()) {
      // l2.slice_calendar: a read arriving before one booked earlier takes the idle time
      // before it (requests are booked when issued, and a far SM's arrive later than a near
      // one's issued at the same time).
      const Time wait = m_slice_cal[static_cast<size_t>(slice)].book(m_now, arrive, nsect);
      return arrive + wait;
    }
    const Time start = std::max(arrive, m_slice_free[slice]);
    m_slice_free[slice] = start + m_slice_busy[static_cast<size_t>(nsect)];
    return start;
  }
  // Holds `slice` `extra` longer after a read arriving at `arrive` (l2.partial_sector_cycles).
  void hold_slice_longer(int slice, Time extra, Time arrive);
  // Whether the near copy of a far line in `proxy` (`slot`: its way there, or its set when it
  // has none) serves this read: then `ready` is when its data leaves the proxy slice.
  bool near_copy_serves(int proxy, WayRef slot, uint8_t sectors, Time arrive, Time& ready);
  // Whether this eviction prefers the set's least recently used line read only once
  // (l2.clean_first_probability, drawn from a hash of the eviction count).
  bool clean_first_now();
  // Puts (or refreshes) the near copy of `line` in `proxy`; `slot` is the result of a lookup
  // of the line there (its set has not changed since).
  void insert_copy(int proxy, uint64_t line, uint8_t sectors, Time now, Time ready, bool reused,
                   WayRef slot);
  using CoalescerEntry = L2CoalescerEntry;
  // Makes room for `line` in the set `row` (writing back a dirty victim at t) and returns its
  // empty way; under RRIP the new line starts at prediction `insert`.
  WayRef allocate(uint32_t row, uint64_t line, Time t, uint8_t insert);
  // A near copy's way in set `row`: under l2.remote_copy_occupancy, the least recently used
  // copy once copies hold their share of the set, else allocate's victim.
  WayRef allocate_copy(uint32_t row, uint64_t line, Time t, uint8_t insert);
  // Bits of the reused byte: 1 = reused (see m_meta), 2 = the line is a near copy.
  static constexpr uint8_t kReused = 1;
  static constexpr uint8_t kCopy = 2;
  static constexpr uint8_t kHomeRef = 4;  // an SM of the home partition referenced it
  uint32_t m_copy_limit = UINT32_MAX;     // ways of a set near copies may hold
  WayRef install(WayRef r, uint64_t line, Time t, uint8_t insert);
  void write_back(WayRef r, Time t);  // a dirty victim's sectors, to DRAM at t
  // Makes way `r` its set's most recently used: age 1, and each way that was more recent than
  // it (every stamped way, when `r` had no stamp) one older. The ages of a set's stamped ways
  // thus stay 1..k (k of them), in the order per-slice stamp counts gave them (the uint32_t
  // stamps these replace took a fourth host line per set); a set that is full has its least
  // recently used way at age l2.ways.
  void stamp(WayRef r) {
    uint8_t* age = age_row(r.row);
    // Younger than `r`: (age - 1) < (old - 1), unsigned, so an age of 0 (no stamp) never is,
    // and every stamped way is when `r` has none (old - 1 = 255).
    if (age[r.w] == 1) {
      return;  // already the most recent (a GEMM's hits often are)
    }
    const auto limit = static_cast<uint8_t>(age[r.w] - 1);
#if defined(__SSE2__)
    if (m_ways <= 32) {
      // 32 ages at once (the block has room; lanes past the ways, other fields, kept).
      const __m128i one = _mm_set1_epi8(1);
      const __m128i lim = _mm_set1_epi8(static_cast<char>(limit));
      const __m128i zero = _mm_setzero_si128();
      for (int half = 0; half < 2; ++half) {
        auto* p = reinterpret_cast<__m128i*>(age + 16 * half);
        const __m128i v = _mm_loadu_si128(p);
        // a < lim (unsigned) exactly when lim - a, saturated at 0, is not 0.
        const __m128i younger = _mm_andnot_si128(
            _mm_cmpeq_epi8(_mm_subs_epu8(lim, _mm_sub_epi8(v, one)), zero),
            _mm_loadu_si128(reinterpret_cast<const __m128i*>(kAgeLanes + 32 + 16 * half - m_ways)));
        _mm_storeu_si128(p, _mm_sub_epi8(v, younger));  // younger lanes are -1
      }
      age[r.w] = 1;
      return;
    }
#endif
    for (int w = 0; w < m_ways; ++w) {
      age[w] = static_cast<uint8_t>(age[w] + (static_cast<uint8_t>(age[w] - 1) < limit ? 1 : 0));
    }
    age[r.w] = 1;
  }
  // 32 lanes on, 32 off: the 16 bytes from kAgeLanes + 32 - ways mask the first 16 ways.
  static constexpr uint8_t kAgeLanes[64] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                                            0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                                            0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                                            0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
  // Makes way `r` its set's least recently used (l2.far_home_fill_lru; l2_arrays.cpp).
  void demote(WayRef r);
  // A re-reference of way `r` (a hit, a merged read): most recently used, and under RRIP
  // predicted at l2.rrip_hit_level (0: re-used soon).
  void touch(WayRef r) {
    stamp(r);
    rrpv(r) = std::min(rrpv(r), m_hit_level);
  }
  // DRAM read of the sectors in `mask` of `line` arriving at the controller at t: returns when
  // the data is back in L2. Writes are posted (bandwidth only).
  Time dram_read(uint64_t line, uint8_t mask, Time t);
  void dram_write(uint64_t line, uint8_t mask, Time t);
  Time dram_transfer(uint64_t line, int bytes, Time t);  // dram.model=simple: bus time only
  Time wait_for_mshr(int slice, Time t);
  // l2.mshr_queue_lines: when a read arriving at `slice` at t leaves the slice's input queue,
  // behind at most that many misses still waiting for an MSHR.
  Time queue_behind_stalls(int slice, Time t) const;
  void hold_mshr(int slice, Time back);
  // Queues `bytes` on a crossbar port whose data is ready at `ready`; returns the wait.
  Time port_wait(Time& free, Time ready, Time ps) {
    const Time start = std::max(ready, free);
    free = start + ps;
    return start - ready;
  }
  // The same on a port that keeps a calendar of sector slots (booked at `now`) for a packet of
  // `sectors` sectors: a packet ready earlier than one booked before it takes the free slots
  // before that one.
  Time port_wait(SlotCalendar& port, Time now, Time ready, int sectors) const {
    return port.book(now, ready, sectors);
  }

  const GpuConfig& m_config;
  ClockDomain m_l2_clock;
  ClockDomain m_dram_clock;
  int m_num_slices;
  int m_half_slices;  // m_num_slices / 2 (a signed division took three host instructions)
  int m_sets;
  int m_ways;
  int m_sector_bytes;
  int m_sectors_per_line;
  int m_line_bytes;
  L2SetIndex m_set_index = L2SetIndex::kHashed;
  int m_set_bits = 0;  // log2 of the set count (l2.set_index=xor)
  bool m_rrip = false;
  // l2.* flags and counts the request path reads, here rather than behind m_config: each read
  // there is a pointer load, and the compiler reloads it after every store it cannot rule out.
  bool m_remote_copy = false;            // l2.remote_copy
  bool m_copy_writes = false;            // l2.remote_copy_writes
  bool m_copy_tma_writes = false;        // l2.remote_copy_tma_writes
  bool m_copy_hit_touches_home = false;  // l2.copy_hit_touches_home
  bool m_home_ref_only = false;          // l2.home_refresh_needs_home_ref
  bool m_far_home_lru = false;           // l2.far_home_fill_lru
  bool m_track_home_ref = false;         // kHomeRef kept (either of the two above)
  bool m_far_fills_home = true;          // l2.far_miss_fills_home
  bool m_merge_partial_rows = true;      // l2.coalesce_partial_rows
  using TpcEntry = L2TpcEntry;           // the TPC stage's (coalescer_entry.h)
  L2TpcStage m_tpc_stage;                // l2.tpc_coalescer_entries per TPC
  double m_copy_probability = 1.0;       // l2.remote_copy_probability
  int m_clean_first_ways = 0;            // l2.clean_first_ways
  uint32_t m_mshr_cap = 1;               // l2.mshrs_per_slice
  int m_fetch_sectors = 1;               // l2.fetch_sectors
  // The sectors a read miss on `missing` fetches: every sector of each aligned group of
  // l2.fetch_sectors that holds a missing one.
  uint8_t fetch_group(uint8_t missing) const {
    if (m_fetch_sectors == 1) {
      return missing;
    }
    if (m_fetch_sectors == 2) {
      return static_cast<uint8_t>(missing | ((missing & 0x5U) << 1) | ((missing & 0xAU) >> 1));
    }
    return missing != 0 ? uint8_t{0xF} : uint8_t{0};
  }
  uint8_t m_rrip_max = 3;     // l2.rrip_levels - 1: distant
  uint8_t m_read_insert = 0;  // RRIP insertion values (0 under LRU, where they are unused)
  uint8_t m_write_insert = 0;
  uint8_t m_hit_level = 0;
  uint64_t m_clean_first_threshold = 0;  // clean-first when hash(evictions) < this (of 2^64)
  uint64_t m_evictions = 0;
  uint64_t m_random_threshold = 0;  // l2.random_victim_probability, as the threshold above
  uint32_t m_random_ways = 0;       // l2.random_victim_ways (at most l2.ways; 0: l2.ways)
  Time m_half_hit;                  // one-way SM <-> near slice
  Time m_half_far;                  // extra one-way to the far partition
  Time m_write_ack;
  Time m_dram_latency;
  double m_slice_ps_per_byte;
  Time m_partial_sector_ps = 0;  // l2.partial_sector_cycles
  // A slice's time for n sectors (n <= 8, a mask's bits), rounded as bytes * ps/byte once was:
  // a table, not a floating-point product per request.
  std::array<Time, 9> m_slice_busy{};
  double m_channel_ps_per_byte;
  // Per set, its block: fingerprints (m_fp_stride bytes: l2.ways rounded up to whole 8-byte
  // words), then valid sector masks, dirty (written) sector masks (for 20 ways, the first host
  // line: a lookup's), LRU ages (see stamp(); 0 before the first), RRIP predictions (0 = re-used
  // soon), reused flags (written, a near copy of a written line, or read again after its fill:
  // not a victim of the clean-first preference, l2.clean_first_probability, which takes lines
  // read once), padded to 64 bytes, with room for stamp()'s 32-byte access to the ages.
  std::vector<uint32_t, HugePageAllocator<uint32_t>> m_meta_storage;
  uint32_t* m_meta = nullptr;  // m_meta_storage's first 64-byte boundary
  size_t m_block_words = 0;
  uint32_t m_block_lines = 0;      // m_block_words in host lines (64 bytes)
  uint32_t m_line_prefetches = 0;  // host lines a set's Lines start before its last one's
  bool m_ways20 = false;           // l2.ways = 20: 2 block lines, 5 + 1 Line prefetches
  size_t m_fp_stride = 8;
  size_t m_off_valid = 0;  // byte offsets in the block
  size_t m_off_dirty = 0;
  size_t m_off_age = 0;
  size_t m_off_rrpv = 0;
  size_t m_off_reused = 0;
  struct Line {
    uint64_t tag = UINT64_MAX;  // UINT64_MAX: empty
    Time fill = 0;              // when the last fill of the line completes
  };
  std::vector<Line, HugePageAllocator<Line>> m_lines;  // [slice][set][way]
  std::vector<Time> m_slice_free;
  // l2.slice_calendar: each slice's data path as a calendar of sector slots; m_now is the
  // issue time of the request being served (the calendars' booking time).
  std::vector<SlotCalendar> m_slice_cal;
  std::vector<Time> m_partial_owed;  // per slice: l2.partial_sector_cycles not yet a whole slot
  Time m_slice_slot_ps = 0;          // a sector's time on a slice, under l2.slice_calendar
  Time m_now = 0;
  // Crossbar ports (noc.model=ports): busy-until per SM and per slice, each direction.
  bool m_noc_ports = false;
  double m_sm_port_ps_per_byte = 0;
  double m_slice_port_ps_per_byte = 0;
  double m_slice_in_port_ps_per_byte = 0;
  Time m_queue_ps = 0;
  Time m_gpc_hol_slack_ps = -1;       // noc.gpc_hol_slack_cycles (negative: off)
  Time m_slice_slot_out_ps = 1;       // one sector's time on a slice's output port
  std::vector<SlotCalendar> m_sm_in;  // response ports, booked ahead of their data
  std::vector<SlotCalendar> m_slice_out;
  std::vector<SlotCalendar> m_gpc_in;  // by GPC (empty: none), then its LSU responses' if first
  bool m_gpc_lsu_first = false;        // noc.gpc_port_lsu_first
  std::vector<uint16_t> m_gpc_of_sm;
  std::vector<Time> m_sm_out_free;
  std::vector<Time> m_slice_in_free;
  std::vector<Time> m_channel_free;
  std::unique_ptr<HbmSystem> m_hbm;  // dram.model=hbm
  // Per slice: fill-completion times of outstanding misses, a ring of l2.mshrs_per_slice in
  // ascending order.
  std::vector<Time> m_mshr_ring;
  std::vector<uint32_t> m_mshr_head;
  std::vector<uint32_t> m_mshr_count;
  // l2.mshr_queue_lines: per slice, the times at which its latest misses that found every MSHR
  // taken got one (non-decreasing), a ring of m_queue_ring entries, and how many there were.
  int m_queue_lines = 0;
  uint32_t m_queue_ring = 0;  // a power of two, 16384 or 4x l2.mshr_queue_lines
  std::vector<Time> m_stall_issue;
  std::vector<uint64_t> m_stall_count;
  // SliceHash::kIpoly: what slice_of() needs of a line is linear in its bytes. The IPOLY
  // remainder (bits 0-15) and the partition's parity (bit 16) are XORs of one entry per byte,
  // [byte][value]; the residue modulo the odd factor is a sum of one per byte.
  std::vector<uint32_t> m_ipoly_table;
  std::vector<uint32_t> m_odd_residue;  // [byte][value] -> (value << 8 byte) mod m_hash_odd
  static constexpr uint32_t kPartBit = 16;
  // The upper seven bytes' share of a line's hash, by line / 256 (direct-mapped): consecutive
  // lines share it, and a request's slice then costs the low byte's two entries.
  struct SliceHashSlot {
    uint64_t upper = UINT64_MAX;  // line >> 8 (never UINT64_MAX); UINT64_MAX: empty
    uint32_t bits = 0;            // XOR of the upper bytes' m_ipoly_table entries
    uint32_t residue = 0;         // (upper << 8) mod m_hash_odd, + l2.hash_rotate_residue's turn
  };
  static constexpr size_t kSliceHashSlots = 64;
  mutable std::vector<SliceHashSlot> m_slice_hash_slots =
      std::vector<SliceHashSlot>(kSliceHashSlots);
  void fill_slice_hash_slot(uint64_t upper, SliceHashSlot& slot) const;
  int ipoly_slice(uint64_t line) const;  // slice_of() under l2.hash=ipoly
  SliceHash m_hash = SliceHash::kIpoly;  // l2.hash
  uint64_t m_hash_odd = 1;               // odd factor of the slice count
  uint64_t m_hash_pow2 = 1;              // the slice count / m_hash_odd
  size_t m_coalescer_entries = 0;        // l2.coalescer_entries
  int m_coalescer_max_sms = 0;           // l2.coalescer_max_sms (0: no limit)
  bool m_same_sm_merges = true;          // l2.coalesce_same_sm
  FastDiv m_coalescer_div;               // by l2.coalescer_entries
  Time m_pair_spread_ps = 0;             // l2.pair_spread_cycles / 2, one way
  // What an SM-slice pair adds one way, by [sm][slice]: a table, as every request needs two
  // (a hash and a floating-point product each cost ~25 host instructions).
  std::vector<Time> m_pair_extra;
  Time pair_extra(int sm, int slice) const {
    return m_pair_extra[static_cast<size_t>(sm) * static_cast<size_t>(m_num_slices) +
                        static_cast<size_t>(slice)];
  }
  int m_granule_shift = 0;        // log2(lines per partition granule); 0: the slice hash decides
  HalfLocalHash m_half_hash;      // l2.hash_odd_by_block under partition granules
  bool m_rotate_residue = false;  // l2.hash_rotate_residue
  // l2.slice_skip_line_bits: the slice hash sees the line with those bits left out (its key);
  // the low byte's kept and left-out bits, packed, by value.
  int m_slice_skip = 0;  // how many bits are left out
  std::array<uint8_t, 256> m_slice_key_low{};
  std::array<uint8_t, 256> m_slice_skip_low{};
  uint64_t slice_key(uint64_t line) const {
    return ((line >> 8) << (8 - m_slice_skip)) | m_slice_key_low[line & 0xFF];
  }
  FastDiv m_odd_div;                        // by m_hash_odd
  FastDiv m_slice_div;                      // by the slice count
  FastDiv m_set_div;                        // by the sets per slice
  std::vector<CoalescerEntry> m_coalescer;  // [coalescer][entry], direct-mapped by line
  WayRef m_served_way;                      // the way that served the last read (home or near copy)
  // Host-side only (no effect on simulated time): a read's DRAM bank state is prefetched as
  // soon as the request arrives while reads keep missing in L2 (a saturating count, +1 per miss,
  // -1 per hit, above kMissRunEarly), else only once its lookup missed: decoding the DRAM
  // address of every read cost a GEMM, whose reads mostly hit, 14 % of its host instructions,
  // while a stream keeps the early prefetch it was measured faster with (docs/memory.md).
  static constexpr int kMissRunEarly = 32;
  int m_miss_run = 0;
  bool m_bank_prefetched = false;
  // Host-side only, too: while requests come at a steady line stride (a stream), each works out
  // the next one's slice and set and prefetches its sets and bank, a whole request ahead of
  // their use (its own prefetches come only a few hundred host instructions early). A request
  // that is not the predicted one costs the stride check alone.
  void look_ahead(const MemRequest& req);
  uint64_t m_prev_line = 0;
  uint64_t m_prev_stride = 0;
  uint64_t m_ahead_line = UINT64_MAX;  // the predicted next request's line; none: UINT64_MAX
  int m_ahead_slice = 0;
  size_t m_ahead_set = 0;
  bool m_ahead_bank = false;  // whether its bank state was prefetched
  void bin(std::vector<uint64_t>& bins, Time t, int bytes);
  MemStats m_stats;
  std::vector<MemAccessRecord>* m_record = nullptr;  // record_accesses
  std::vector<SliceStats> m_slice_stats;
  std::vector<uint8_t> m_sm_partition;    // partition_of_sm, per SM
  std::vector<uint8_t> m_sm_reader_half;  // l2.reader_half1_gpcs, per SM
  std::vector<uint16_t> m_sm_coalescer;   // coalescer_of_sm, per SM
  // What the tables hold: partition 1's GPCs and side TPCs by bitmask.
  int place_partition(int sm, int gpcs, int side_tpcs) const;
  int place_coalescer(int sm) const;
  Region& region_of(uint64_t line);
  std::vector<Region> m_regions;
  Time m_bin_ps = 0;
  std::vector<uint64_t> m_read_bins;
  std::vector<uint64_t> m_write_bins;
  std::vector<uint64_t> m_l2_hit_bins;
  std::vector<uint64_t> m_l2_miss_bins;
  std::vector<uint64_t> m_l2_write_bins;
};

}  // namespace asyncsim

#include "mem/l2_lookup.h"  // MemorySystem::lookup(), inline
