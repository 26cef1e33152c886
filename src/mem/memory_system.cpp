#include "mem/memory_system.h"

#include <algorithm>
#include <array>
#include <bit>

#include "mem/hbm_path.h"
#include "mem/l2_victim.h"
#include "util/error.h"

namespace asyncsim {

[[gnu::always_inline]] inline int MemorySystem::ipoly_slice(uint64_t line) const {
  // N = odd * 2^k slices: the odd factor from the line index modulo it (2^j strides cycle
  // through every residue), the 2^k part from an IPOLY remainder (irreducible polynomial
  // over GF(2), Rau ISCA'91), so power-of-two strides spread over every slice.
  // Both are linear in the line's bytes (see m_ipoly_table): the upper bytes' share from
  // their slot, the low byte's from the tables.
  line = slice_key(line);  // l2.slice_skip_line_bits
  const uint64_t upper = line >> 8;
  SliceHashSlot& slot = m_slice_hash_slots[upper & (kSliceHashSlots - 1)];
  if (slot.upper != upper) {
    fill_slice_hash_slot(upper, slot);
  }
  const auto low = static_cast<size_t>(line & 0xFF);
  const uint32_t bits = slot.bits ^ m_ipoly_table[low];
  uint32_t residue = slot.residue + m_odd_residue[low];  // < 2 odd
  if (residue >= m_hash_odd) {
    residue -= static_cast<uint32_t>(m_hash_odd);
  }
  const auto slice =
      static_cast<int>(residue * m_hash_pow2 + (bits & ((uint32_t{1} << kPartBit) - 1)));
  if (m_granule_shift == 0) {
    return slice;
  }
  // l2.partition_granule_bytes: the granule's hash picks the partition (micro_l2_partition_
  // contig.csv: on the H200 every aligned 4 KB lies in one partition), the line's slice
  // within it; the halves (slice mod N/2) stay balanced for N = 3 * 2^k.
  const int half = m_half_slices;
  // The partition is the parity of the granule's address bits but its bits 2 and 4 (the
  // pattern micro_l2_partition_contig.csv shows over 32 consecutive 4 KB granules: F..FF..F,
  // inverted, repeated; bits above 8 are not observed and all taken): bit kPartBit of bits.
  const auto part = static_cast<int>(bits >> kPartBit);
  if (m_half_hash.on()) [[unlikely]] {
    return part * half + m_half_hash.slice(m_half_hash.local(line));
  }
  return part * half + (slice >= half ? slice - half : slice);  // slice < 2 half
}

int MemorySystem::slice_of(uint64_t line) const {
  const auto n = static_cast<uint64_t>(m_num_slices);
  const uint64_t key = slice_key(line);  // l2.slice_skip_line_bits
  switch (m_hash) {
    case SliceHash::kModulo:
      return static_cast<int>(key % n);
    case SliceHash::kXor:
      return static_cast<int>((key ^ (key >> 5)) % n);
    case SliceHash::kIpoly:  // ipoly_slice() makes the key itself
      return ipoly_slice(line);
  }
  return 0;
}

// SMs pair up into TPCs (2t, 2t+1); TPC t sits in GPC sm.tpc_gpcs[t] (t mod sm.gpcs when the
// list is empty). Each GPC sits next to one
// L2 partition: those of l2.partition1_gpcs next to partition 1 (0: the upper half of the GPCs).
// The side unit's TPCs (sm.dispatch_side_tpcs, gpc_major) sit where l2.partition1_side_tpcs says.
int MemorySystem::coalescer_of_sm(int sm) const {
  return m_sm_coalescer[static_cast<size_t>(sm)];
}

int MemorySystem::partition_of_sm(int sm) const {
  return m_sm_partition[static_cast<size_t>(sm)];
}

MemorySystem::Region& MemorySystem::region_of(uint64_t line) {
  const uint64_t addr = line * static_cast<uint64_t>(m_line_bytes);
  for (size_t i = 0; i + 1 < m_regions.size(); ++i) {
    if (addr >= m_regions[i].lo && addr < m_regions[i].hi) {
      return m_regions[i];
    }
  }
  return m_regions.back();
}

void MemorySystem::bin(std::vector<uint64_t>& bins, Time t, int bytes) {
  const auto i = static_cast<size_t>(t / m_bin_ps);
  if (i >= bins.size()) {
    bins.resize(i + 1 + bins.size() / 2, 0);
  }
  bins[i] += static_cast<uint64_t>(bytes);
}

// Inlined into read_at_slice(), its only caller (as is wait_for_mshr()): GCC left both calls
// on every missing read.
[[gnu::always_inline]] inline Time MemorySystem::dram_read(uint64_t line, uint8_t mask, Time t) {
  const int bytes = sector_count(mask) * m_sector_bytes;
  m_stats.dram_read_bytes += static_cast<uint64_t>(bytes);
  if (!m_regions.empty()) {
    region_of(line).dram_read_bytes += static_cast<uint64_t>(bytes);
  }
  Time done;
  if (m_hbm) {
    // One access per line: from the first missing sector, as many bursts as sectors missing.
    const uint64_t addr = line * static_cast<uint64_t>(m_line_bytes) +
                          static_cast<uint64_t>(std::countr_zero(mask) * m_sector_bytes);
    const int fit = std::min(bytes, m_line_bytes - std::countr_zero(mask) * m_sector_bytes);
    done = m_hbm->read_access(addr, fit, t, m_now);
  } else {
    done = dram_transfer(line, bytes, t) + m_dram_latency;
  }
  if (m_bin_ps > 0) {
    bin(m_read_bins, done, bytes);
  }
  return done;
}

// A slice's outstanding fills are a ring of their completion times kept in ascending order: an
// MSHR comes free when its own fill returns, whichever miss was issued first. Fills mostly
// return in the order their misses left, so an insertion moves few entries.
[[gnu::always_inline]] inline Time MemorySystem::wait_for_mshr(int slice, Time t) {
  const uint32_t cap = m_mshr_cap;
  const Time* ring = &m_mshr_ring[static_cast<size_t>(slice) * cap];
  // Head and count in locals, stored once: as references of one type they could alias each
  // other, so the compiler would store and reload both on every retirement.
  uint32_t head = m_mshr_head[slice];
  uint32_t count = m_mshr_count[slice];
  // Retire fills that completed by t (the earliest first).
  while (count > 0 && ring[head] <= t) {
    head = head + 1 == cap ? 0 : head + 1;
    --count;
  }
  Time issue = t;
  if (count >= cap) {
    ++m_slice_stats[slice].mshr_stalls;
    issue = ring[head];
    head = head + 1 == cap ? 0 : head + 1;
    --count;
    if (m_queue_lines > 0) [[unlikely]] {
      uint64_t& n = m_stall_count[static_cast<size_t>(slice)];
      m_stall_issue[static_cast<size_t>(slice) * m_queue_ring + (n & (m_queue_ring - 1))] = issue;
      ++n;
    }
  }
  m_mshr_head[slice] = head;
  m_mshr_count[slice] = count;
  return issue;
}

// The misses that found every MSHR taken leave the slice's input queue in order, at the times
// wait_for_mshr() gave them (non-decreasing); a read arriving at t is behind those still
// waiting, but at most l2.mshr_queue_lines of them: it leaves with the last of those.
Time MemorySystem::queue_behind_stalls(int slice, Time t) const {
  const uint64_t n = m_stall_count[static_cast<size_t>(slice)];
  const Time* ring = &m_stall_issue[static_cast<size_t>(slice) * m_queue_ring];
  const uint64_t mask = m_queue_ring - 1;
  if (n == 0 || ring[(n - 1) & mask] <= t) {
    return t;  // no miss waits
  }
  // The first still waiting (issue > t), by bisection over the ring's entries.
  uint64_t lo = n > m_queue_ring ? n - m_queue_ring : 0;
  uint64_t hi = n - 1;
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (ring[mid & mask] > t) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  const uint64_t last = std::min(n - 1, lo + static_cast<uint64_t>(m_queue_lines) - 1);
  return ring[last & mask];
}

// Holds an MSHR of `slice` until `back` (after wait_for_mshr() made room): inserted in order.
[[gnu::always_inline]] inline void MemorySystem::hold_mshr(int slice, Time back) {
  const uint32_t cap = m_mshr_cap;
  Time* ring = &m_mshr_ring[static_cast<size_t>(slice) * cap];
  const uint32_t head = m_mshr_head[slice];
  const uint32_t count = m_mshr_count[slice];
  uint32_t pos = head + count;  // < 2 cap
  pos = pos >= cap ? pos - cap : pos;
  for (uint32_t k = count; k > 0; --k) {
    const uint32_t prev = pos == 0 ? cap - 1 : pos - 1;
    if (ring[prev] <= back) {
      break;
    }
    ring[pos] = ring[prev];
    pos = prev;
  }
  ring[pos] = back;
  m_mshr_count[slice] = count + 1;
}

// Inlined into access(), its only caller.
[[gnu::always_inline]] inline Time MemorySystem::read_at_slice(int slice, size_t set, uint64_t line,
                                                               uint8_t sectors, int nsect,
                                                               Time arrive) {
  SliceStats& ss = m_slice_stats[slice];
  // (l2.mshr_queue_lines: behind the misses waiting for MSHRs, part of the slice's queue)
  const Time start =
      reserve_slice(slice, m_queue_lines > 0 ? queue_behind_stalls(slice, arrive) : arrive, nsect);
  WayRef way = lookup(slice, set, line);
  if (!way.found()) {
    m_miss_run = std::min(m_miss_run + 1, 2 * kMissRunEarly);
    if (m_hbm && !m_bank_prefetched) {
      m_hbm->prefetch(line * static_cast<uint64_t>(m_line_bytes));
    }
    way = allocate(way.row, line, start, m_read_insert);
  } else if (m_miss_run > 0) {
    --m_miss_run;
  }
  stamp(way);
  uint8_t& valid_sectors = valid(way);
  const auto missing = static_cast<uint8_t>(sectors & ~valid_sectors);
  if ((sectors & valid_sectors) != 0) {
    reused(way) |= kReused;
    rrpv(way) = std::min(rrpv(way), m_hit_level);
  }
  m_served_way = way;
  ReadLatency& lat = m_stats.read_latency;
  lat.slice_queue += start - arrive;
  Time& fill = fill_time(way);
  if (m_bin_ps > 0) {
    const int nmiss = sector_count(missing);
    bin(m_l2_hit_bins, start, (nsect - nmiss) * m_sector_bytes);
    bin(m_l2_miss_bins, start, nmiss * m_sector_bytes);
  }
  if (missing == 0) {
    ss.read_hits += static_cast<uint64_t>(nsect);
    if (fill > start) {
      ++ss.mshr_merges;
      lat.fill += fill - start;
      return fill;
    }
    return start;
  }
  const int nmiss = sector_count(missing);
  ss.read_misses += static_cast<uint64_t>(nmiss);
  ss.read_hits += static_cast<uint64_t>(nsect - nmiss);
  const Time issue = wait_for_mshr(slice, start);
  // l2.fetch_sectors: the fill brings the missing sectors' aligned groups (the H200 fetches
  // 64-B sector pairs: micro_dram_sector.csv), all but the sectors already valid or in flight.
  const auto fetch = static_cast<uint8_t>(fetch_group(missing) & ~valid_sectors);
  const Time back = dram_read(line, fetch, issue);
  hold_mshr(slice, back);
  lat.mshr += issue - start;
  lat.dram += back - issue;
  valid_sectors |= fetch;
  fill = std::max(fill, back);
  lat.fill += fill - back;
  return fill;
}

// l2.far_miss_fills_home off: a far read looks up its home slice, which serves it if it holds
// the line; a miss sends the data from DRAM on to the reader's near copy (the caller inserts it)
// and allocates nothing at home.
[[gnu::noinline, gnu::cold]] Time MemorySystem::read_past_home(int slice, size_t set, uint64_t line,
                                                               uint8_t sectors, int nsect,
                                                               Time arrive) {
  if (lookup(slice, set, line).found()) {
    return read_at_slice(slice, set, line, sectors, nsect, arrive);
  }
  SliceStats& ss = m_slice_stats[slice];
  const Time start = reserve_slice(slice, arrive, nsect);
  m_miss_run = std::min(m_miss_run + 1, 2 * kMissRunEarly);
  ss.read_misses += static_cast<uint64_t>(nsect);
  if (m_bin_ps > 0) {
    bin(m_l2_miss_bins, start, nsect * m_sector_bytes);
  }
  const Time issue = wait_for_mshr(slice, start);
  const Time back = dram_read(line, fetch_group(sectors), issue);
  hold_mshr(slice, back);
  m_served_way = WayRef{};  // nothing at home for a merged read to re-reference
  ReadLatency& lat = m_stats.read_latency;
  lat.slice_queue += start - arrive;
  lat.mshr += issue - start;
  lat.dram += back - issue;
  return back;
}

// Inlined into access(), its only caller: the call saved and restored six registers.
[[gnu::always_inline]] inline void MemorySystem::look_ahead(const MemRequest& req) {
  const uint64_t stride = req.line - m_prev_line;
  m_prev_line = req.line;
  if (stride != m_prev_stride || m_miss_run <= kMissRunEarly) {
    m_prev_stride = stride;
    m_ahead_line = UINT64_MAX;
    return;
  }
  // The same stride three requests in a row, and reads missing in L2: the next request is
  // likely this one's line plus the stride (its SM is not known, so the proxy's set is fetched
  // too). Only while reads miss: a GEMM's reads mostly hit, and many of them merge in a
  // coalescer before they reach a slice, which a prediction spent ~100 host instructions on
  // in vain.
  const uint64_t next = req.line + stride;
  m_ahead_line = next;
  m_ahead_slice = m_hash == SliceHash::kIpoly ? ipoly_slice(next) : slice_of(next);
  m_ahead_set = set_of(next);
  prefetch_set(m_ahead_slice, m_ahead_set);
  if (m_remote_copy) {
    prefetch_set(proxy_of(m_ahead_slice), m_ahead_set);
  }
  m_ahead_bank = m_hbm && !req.write;
  if (m_ahead_bank) {
    m_hbm->prefetch(next * static_cast<uint64_t>(m_line_bytes));
  }
}

void MemorySystem::hold_slice_longer(int slice, Time extra, Time arrive) {
  const auto s = static_cast<size_t>(slice);
  if (m_slice_cal.empty()) {
    m_slice_free[s] += extra;
    return;
  }
  // l2.slice_calendar books whole sector slots: the time is owed until it makes one (the mean
  // holds; the slot goes next to the read's own, at its arrival).
  m_partial_owed[s] += extra;
  if (m_partial_owed[s] >= m_slice_slot_ps) {
    const auto n = static_cast<int>(m_partial_owed[s] / m_slice_slot_ps);
    m_partial_owed[s] -= static_cast<Time>(n) * m_slice_slot_ps;
    m_slice_cal[s].book(m_now, arrive, n);
  }
}

Time MemorySystem::access(const MemRequest& req, Time t) {
  if (m_record != nullptr) [[unlikely]] {
    m_record->push_back({req, t});
  }
  ++m_stats.requests;
  m_now = t;
  m_stats.read_requests += req.write ? 0 : 1;
  const int nsect = sector_count(req.sectors);
  const int bytes = nsect * m_sector_bytes;
  CoalescerEntry* merge_slot = nullptr;
  // l2.coalesce_partial_rows (micro_l2_hot.csv): on the H200 the reads of boxes with rows that
  // start 16 B into a line do not merge, those of boxes whose rows all start on a sector do.
  // The TPC's stage first (l2.tpc_coalescer_entries): the reads of its two SMs merge there
  // whenever one finds the other's response in flight; a read that passes it goes on to the
  // l2.coalescer_scope stage and is recorded in both.
  bool tpc_read = false;  // the read passes the TPC stage: its entry tpc_at is rewritten
  size_t tpc_at = 0;
  const TpcEntry* tpc_held = nullptr;  // that entry, when it may hold this line
  // l2.coalesce_same_sm off: a read finding its own SM's read in flight (another CTA's) passes
  // the stages and goes on to its slice; the entries keep serving the other SMs.
  bool keep_tpc = false;
  bool keep_gpc = false;
  if (!req.write && !m_tpc_stage.empty() && (m_merge_partial_rows || !req.partial_row)) {
    tpc_read = true;
    tpc_at = m_tpc_stage.index(req.line, req.sm);
    tpc_held = m_tpc_stage.holding(tpc_at, req.line);
    if (tpc_held == nullptr) {
      m_tpc_stage.prefetch_for_store(tpc_at);  // the entry is rewritten at the read's end
    }
    const bool in_flight = tpc_held != nullptr && tpc_held->line() == req.line &&
                           t <= tpc_held->ready && (req.sectors & ~tpc_held->sectors()) == 0;
    keep_tpc = in_flight && !m_same_sm_merges && tpc_held->from(req.sm);
    if (in_flight && !keep_tpc) {
      ++m_stats.coalescer_merges;
      if (m_coalescer_max_sms > 0 && !m_coalescer.empty()) {
        // The partner's SM is one more the GPC stage's response serves.
        CoalescerEntry& e =
            m_coalescer[static_cast<size_t>(coalescer_of_sm(req.sm)) * m_coalescer_entries +
                        m_coalescer_div.mod(mix64(req.line))];
        if (e.line == req.line && t <= e.ready && e.sms < 255) {
          ++e.sms;
        }
      }
      m_stats.read_latency.merged_wait += tpc_held->ready - t;
      return tpc_held->ready;
    }
  }
  if (!req.write && !m_coalescer.empty() && (m_merge_partial_rows || !req.partial_row)) {
    merge_slot = &m_coalescer[static_cast<size_t>(coalescer_of_sm(req.sm)) * m_coalescer_entries +
                              m_coalescer_div.mod(mix64(req.line))];
    // Only a read the in-flight response covers merges: another sector of the line goes on to
    // its slice (micro_dram_sector.csv: sector 3 asked for while sector 0 is in flight costs a
    // DRAM read of its own on the H200).
    const bool in_flight = merge_slot->line == req.line && t <= merge_slot->ready &&
                           (req.sectors & ~merge_slot->sectors) == 0;
    keep_gpc = in_flight && !m_same_sm_merges && merge_slot->sm == req.sm;
    if (in_flight && !keep_gpc &&
        (m_coalescer_max_sms == 0 || merge_slot->sms < m_coalescer_max_sms)) {
      ++m_stats.coalescer_merges;
      merge_slot->sms = static_cast<uint8_t>(merge_slot->sms + (merge_slot->sms < 255 ? 1 : 0));
      // The merged read is a second reference to the line in L2 (for the replacement policy).
      const WayRef merged = merge_slot->way;
      if (merged.found() && tag(merged) == req.line) {
        reused(merged) |= kReused;
        rrpv(merged) = std::min(rrpv(merged), m_hit_level);
      }
      if (tpc_read) {
        m_tpc_stage.set(tpc_at,
                        TpcEntry(merge_slot->line, merge_slot->ready, merge_slot->sectors, req.sm));
      }
      m_stats.read_latency.merged_wait += merge_slot->ready - t;
      return merge_slot->ready;
    }
  }
  // A request the previous one predicted has its slice and set worked out and its host lines
  // (both sets, the bank) on their way since then.
  const bool predicted = req.line == m_ahead_line;
  int slice;
  size_t line_set;
  if (predicted) {
    slice = m_ahead_slice;
    line_set = m_ahead_set;
  } else {
    slice = m_hash == SliceHash::kIpoly ? ipoly_slice(req.line) : slice_of(req.line);
    line_set = set_of(req.line);
  }
  const int proxy = proxy_of(slice);
  const bool far = partition_of_slice(slice) != partition_of_sm(req.sm);  // the latency's
  // The line is homed in the other half than the one the SM reads through: near copies
  // (l2.reader_half1_gpcs; the same as `far` unless set).
  const bool other_half = partition_of_slice(slice) != m_sm_reader_half[req.sm];
  const bool copies = other_half && m_remote_copy;
  if (!predicted) {
    prefetch_set(slice, line_set);
    if (copies) {  // the proxy's set is looked at only then
      prefetch_set(proxy, line_set);
    }
  }
  m_bank_prefetched = predicted && m_ahead_bank;
  if (m_hbm && !req.write && m_miss_run > kMissRunEarly && !m_bank_prefetched) {
    // Reads are missing in L2 (a stream): this one's DRAM bank state is likely the next host
    // miss in line, start it now, alongside the two sets'.
    m_hbm->prefetch(req.line * static_cast<uint64_t>(m_line_bytes));
    m_bank_prefetched = true;
  }
  look_ahead(req);
  m_slice_stats[slice].far_accesses += far ? 1 : 0;
  const Time near_way = m_half_hit + pair_extra(req.sm, proxy);
  const Time one_way = m_half_hit + (far ? m_half_far : 0) + pair_extra(req.sm, slice);
  if (req.write) {
    // The data crosses the SM's outgoing port, then the slice's incoming port; the crossbar
    // latency already holds one packet's serialization, so only the queueing adds.
    Time queued = 0;
    if (m_noc_ports) {
      const auto ps = static_cast<Time>(bytes * m_sm_port_ps_per_byte + 0.5);
      queued = port_wait(m_sm_out_free[req.sm], t, ps);
      const auto sps = static_cast<Time>(bytes * m_slice_in_port_ps_per_byte + 0.5);
      queued += port_wait(m_slice_in_free[static_cast<size_t>(slice)], t + queued + one_way, sps);
      t += queued;
    }
    const Time start = reserve_slice(slice, t + one_way, nsect);
    m_stats.l2_write_bytes += static_cast<uint64_t>(bytes);
    if (m_bin_ps > 0) {
      bin(m_l2_write_bins, start, bytes);
    }
    m_slice_stats[slice].writes += static_cast<uint64_t>(nsect);
    WayRef way = lookup(slice, line_set, req.line);
    if (!way.found()) {
      way = allocate(way.row, req.line, start, m_write_insert);
    }
    valid(way) |= req.sectors;
    dirty(way) |= req.sectors;
    reused(way) |= (m_track_home_ref && !other_half) ? kReused | kHomeRef : kReused;
    rrpv(way) = std::min(rrpv(way), m_write_insert);
    stamp(way);
    if (copies && m_copy_writes && (!req.tma || m_copy_tma_writes)) {
      insert_copy(proxy, req.line, req.sectors, t + near_way, start, true,
                  lookup(proxy, line_set, req.line));
    }
    // Acknowledged once the slice has taken the data: a congested slice delays the ack (and with
    // it whatever waits for acks: a kernel's end, the unit's in-flight cap).
    return std::max(t + m_write_ack + (far ? 2 * m_half_far : 0), start + one_way);
  }
  m_stats.l2_read_bytes += static_cast<uint64_t>(bytes);
  Time done;
  Time ready = 0;
  int served_by = slice;
  Time back = one_way;  // slice -> SM
  WayRef copy_slot;
  if (copies) {
    copy_slot = lookup(proxy, line_set, req.line);
  }
  if (copies && near_copy_serves(proxy, copy_slot, req.sectors, t + near_way, ready)) {
    done = ready + near_way;
    served_by = proxy;
    back = near_way;
    if (m_copy_hit_touches_home) {
      // The copy is the home line's shadow: a read it serves is a reference to the line, and
      // the home slice's replacement sees it too.
      const WayRef home = lookup(slice, line_set, req.line);
      if (home.found() && (!m_home_ref_only || (reused(home) & kHomeRef) != 0)) {
        touch(home);
        reused(home) |= kReused;
      }
    }
  } else {
    done = (copies && !m_far_fills_home
                ? read_past_home(slice, line_set, req.line, req.sectors, nsect, t + one_way)
                : read_at_slice(slice, line_set, req.line, req.sectors, nsect, t + one_way)) +
           one_way;
    if (m_track_home_ref && !other_half) {
      reused(m_served_way) |= kHomeRef;
    }
    if (copies && m_far_home_lru && m_served_way.found() && tag(m_served_way) == req.line &&
        (reused(m_served_way) & kHomeRef) == 0) {
      demote(m_served_way);  // l2.far_home_fill_lru: the copy below holds the live data
    }
    if (copies) {
      // read_at_slice touched only the home slice: the proxy's set is as the lookup found it.
      insert_copy(proxy, req.line, req.sectors, t + near_way, done - near_way, false, copy_slot);
    }
  }
  // The slice's parts were added where they arose (read_at_slice, near_copy_serves, ...).
  ReadLatency& lat = m_stats.read_latency;
  ++lat.reads;
  lat.fixed += 2 * back;  // to the serving slice and back (near_way for a near copy)
  // A sector asked for in part holds the slice that served it longer (l2.partial_sector_cycles).
  if (req.partial_sector) {
    hold_slice_longer(served_by, m_partial_sector_ps, t + back);
    ++m_stats.partial_sector_reads;
  }
  if (m_noc_ports) {
    // The response leaves through the serving slice's port, enters its GPC's port (shared by
    // the GPC's SMs, noc.gpc_port_bytes_per_cycle), then the SM's port. All are booked when the
    // request is processed, for data ready later (a DRAM fill lies far ahead), so they keep
    // calendars: a response ready earlier takes the idle time before such a one.
    SlotCalendar& out = m_slice_out[static_cast<size_t>(served_by)];
    Time wait = port_wait(out, t, done - back, nsect);
    lat.slice_port += wait;
    if (!m_gpc_in.empty()) {
      const size_t gpc = m_gpc_of_sm[req.sm];
      Time at_gpc = port_wait(m_gpc_in[gpc], t, done + wait, nsect);
      if (m_gpc_lsu_first && !req.tma) [[unlikely]] {  // LSU first: waits behind LSU's
        at_gpc = port_wait(m_gpc_in[m_gpc_in.size() / 2 + gpc], t, done + wait, nsect);
      }
      if (m_gpc_hol_slack_ps >= 0 && at_gpc > m_gpc_hol_slack_ps) [[unlikely]] {
        // noc.gpc_hol_slack_cycles: the slice's output queue is one queue for every GPC, so a
        // response its GPC's port cannot take holds the slice's output for the rest of its wait.
        const Time held = at_gpc - m_gpc_hol_slack_ps;
        out.book(t, done - back + wait,
                 static_cast<int>((held + m_slice_slot_out_ps - 1) / m_slice_slot_out_ps));
      }
      wait += at_gpc;
      lat.gpc_port += at_gpc;
    }
    const Time at_sm = port_wait(m_sm_in[req.sm], t, done + wait, nsect);
    lat.sm_port += at_sm;
    done += wait + at_sm;
  }
  // A row's pieces of one line are separate reads (tma.split_partial_sectors; they reach the
  // coalescer only with l2.coalesce_partial_rows): an entry still in flight for the line gathers
  // their sectors, and a later read of any of them merges and waits for the later response.
  if (merge_slot && !keep_gpc) {
    if (req.partial_row && merge_slot->line == req.line && t <= merge_slot->ready) {
      *merge_slot =
          CoalescerEntry{req.line,        std::max(done, merge_slot->ready),
                         m_served_way,    static_cast<uint8_t>(merge_slot->sectors | req.sectors),
                         merge_slot->sms, merge_slot->sm};
    } else {
      *merge_slot = CoalescerEntry{req.line, done, m_served_way, req.sectors, 1, req.sm};
    }
  }
  if (tpc_read && !keep_tpc) {
    if (req.partial_row && tpc_held != nullptr && tpc_held->line() == req.line &&
        t <= tpc_held->ready) {
      m_tpc_stage.set(tpc_at,
                      TpcEntry(req.line, std::max(done, tpc_held->ready),
                               static_cast<uint8_t>(tpc_held->sectors() | req.sectors), req.sm));
    } else {
      m_tpc_stage.set(tpc_at, TpcEntry(req.line, done, req.sectors, req.sm));
    }
  }
  return done;
}

}  // namespace asyncsim
