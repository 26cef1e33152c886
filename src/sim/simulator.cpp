#include "sim/simulator.h"

#include <algorithm>
#include <cmath>
#include <deque>

#include "mem/memory_system.h"
#include "sim/context.h"
#include "sim/dispatch_round.h"
#include "sim/event_queue.h"
#include "sim/resource_check.h"
#include "sm/sm.h"
#include "stats/timeline.h"
#include "util/error.h"

namespace asyncsim {
namespace {

class Run {
 public:
  // `memory` may carry state from earlier kernels; this kernel launches at `begin`.
  Run(const program::Kernel& k, const GpuConfig& c, const RunOptions& o, Timeline* tl,
      MemorySystem& memory, Time begin, std::vector<IssueMark>* trace)
      : m_kernel(k),
        m_config(c),
        m_options(o),
        m_clock(ClockDomain::from_mhz(c.sm.clock_mhz)),
        m_memory(memory),
        m_ctx{c, k, m_queue, m_memory, m_clock, tl},
        m_begin(begin),
        m_mem_before(memory.stats()),
        m_slices_before(memory.slice_stats()),
        m_hbm_before(memory.hbm() ? memory.hbm()->stats() : HbmSystem::Stats{}) {
    check_resources(k, c);  // before the SMs allocate each CTA slot's barriers and warpgroups
    m_ctx.issue_trace = trace;
    m_ctx.trace_every_role = o.trace_every_role;
    m_ctx.trace_every_cta = o.trace_every_cta;
    // DRAM traffic by tensor: each tensor map's address range.
    std::vector<MemorySystem::Region> regions;
    for (const program::TensorMap& m : k.maps) {
      regions.push_back({m.name, m.base, m.base + static_cast<uint64_t>(m.extent_bytes()), 0, 0});
    }
    m_memory.set_regions(std::move(regions));
    if (tl) {
      if (!(o.counter_sample_ns > 0)) {
        throw_input_error("--timeline-sample-ns", "expected a positive interval, got {}",
                          o.counter_sample_ns);
      }
      m_memory.enable_traffic_bins(std::max<Time>(1, std::llround(o.counter_sample_ns * 1000)));
    }
    m_sms.reserve(static_cast<size_t>(c.sm.count));
    for (int i = 0; i < c.sm.count; ++i) {
      m_sms.push_back(std::make_unique<Sm>(m_ctx, static_cast<uint16_t>(i)));
    }
  }

  // Runs to the end; `flush` (the last kernel of a sequence) writes back dirty lines afterwards
  // (l2.flush_dirty_at_end) and the timeline's counter tracks.
  SimResult run(bool flush = true);
  Time end_time() const { return m_end; }

 private:
  void dispatch_initial(Time t);
  void place_by_units(const std::vector<Sm*>& order, size_t side, Time t);
  void dispatch_to(Sm& sm, Time t);
  Time next_launch_time(Time t);
  void loop();
  Time finish_time() const;
  [[noreturn]] void report_deadlock(Time t) const;
  SimResult collect(Time end) const;
  void write_counters() const;

  const program::Kernel& m_kernel;
  const GpuConfig& m_config;
  const RunOptions& m_options;
  ClockDomain m_clock;
  EventQueue m_queue;
  MemorySystem& m_memory;
  SimContext m_ctx;
  Time m_begin = 0;
  Time m_end = 0;
  // The counters as this kernel found them: its own share is what they gained (a sequence's
  // memory system counts on from kernel to kernel).
  MemStats m_mem_before;
  std::vector<SliceStats> m_slices_before;
  HbmSystem::Stats m_hbm_before;
  std::vector<std::unique_ptr<Sm>> m_sms;
  int64_t m_next_cta = 0;
  int64_t m_done_ctas = 0;
  Time m_last_release = 0;
  Time m_dispatch_free = 0;
  uint64_t m_events = 0;
  std::vector<CtaRecord> m_cta_records;
};

// The block scheduler launches one CTA per sm.cta_dispatch_cycles: a wave of CTAs starts
// staggered, not in lockstep.
Time Run::next_launch_time(Time t) {
  const Time at = std::max(t, m_dispatch_free);
  m_dispatch_free = at + m_clock.cycles(m_config.sm.cta_dispatch_cycles);
  return at;
}

void Run::dispatch_to(Sm& sm, Time t) {
  while (m_next_cta < m_kernel.num_ctas() && sm.fits_another_cta()) {
    sm.launch_cta(m_next_cta++, next_launch_time(t));
  }
}

// The block scheduler places CTAs breadth-first: one per SM in SM order, round after round,
// until no SM has room; afterwards each freed slot takes the next CTA in launch order.
// The SM order is sm.dispatch_order: by id, or GPC by GPC (micro_sm_map.csv: the H200 fills
// one GPC's SMs, TPC by TPC, before the next GPC's).
void Run::dispatch_initial(Time t) {
  std::vector<Sm*> order;
  order.reserve(m_sms.size());
  if (m_config.sm.dispatch_order == DispatchOrder::kGpcMajor) {
    const int gpcs = m_config.sm.gpcs;
    for (int g = 0; g < gpcs; ++g) {
      for (size_t i = 0; i < m_sms.size(); ++i) {
        if (gpc_of_sm(m_config.sm, static_cast<int>(i)) == g) {
          order.push_back(m_sms[i].get());
        }
      }
    }
  } else {
    for (auto& sm : m_sms) {
      order.push_back(sm.get());
    }
  }
  const int side_tpcs =
      m_config.sm.dispatch_order == DispatchOrder::kGpcMajor
          ? std::min(m_config.sm.dispatch_side_tpcs, static_cast<int>(m_sms.size() / 2))
          : 0;
  // The side unit's SMs (ids from side_from on) lead the order; a partial round serves them
  // first, too.
  const size_t side_from =
      side_tpcs > 0 ? m_sms.size() / 2 * 2 - static_cast<size_t>(side_tpcs) * 2 : m_sms.size();
  if (side_tpcs > 0) {
    std::stable_partition(order.begin(), order.end(),
                          [&](const Sm* sm) { return sm->id() >= side_from; });
  }
  if (m_options.first_sm > 0) {
    const auto at = std::find_if(order.begin(), order.end(), [&](const Sm* sm) {
      return static_cast<int>(sm->id()) == m_options.first_sm;
    });
    if (at == order.end()) {
      throw_input_error("first_sm", "no SM {} (the GPU has {})", m_options.first_sm, m_sms.size());
    }
    std::rotate(order.begin(), at, order.end());
  }
  if (side_tpcs > 0 && m_options.first_sm == 0) {
    place_by_units(order, static_cast<size_t>(side_tpcs) * 2, t);
  }
  // The rounds after the unit fill (sim/dispatch_round.h; micro_gemm_cta_map.csv, 384x8192x8192
  // w4, 192 CTAs of two per SM: after one CTA on every SM the last 60 went to both SMs of the
  // side unit, then to one SM of each of TPCs 0-51). CTA ids follow the unit order.
  bool placed = true;
  while (placed && m_next_cta < m_kernel.num_ctas()) {
    placed = false;
    std::vector<RoundSm> seen;
    seen.reserve(order.size());
    for (const Sm* sm : order) {
      seen.push_back({sm->id(), sm->fits_another_cta(), sm->live_ctas()});
    }
    const std::vector<char> chosen =
        choose_round(seen, m_sms.size(), side_from, m_kernel.num_ctas() - m_next_cta,
                     m_config.sm.spread_partial_round, m_options.first_sm == 0);
    for (Sm* sm : order) {
      if (chosen[sm->id()] && m_next_cta < m_kernel.num_ctas()) {
        sm->launch_cta(m_next_cta++, next_launch_time(t));
        placed = true;
      }
    }
  }
}

// sm.dispatch_side_tpcs (micro_cta_fill.csv, 3/4/8 CTAs per SM, and micro_sm_map.csv, 1/2):
// the H200's block scheduler places one CTA on every SM with room of one unit at a time: the
// side unit (SMs 124-131, four TPCs that share no cluster with any other SM) first, then GPC
// 0, 1, ... cyclically, with the side unit again before every sm.dispatch_side_period-th GPC
// visit, so its SMs fill faster (of 1056 CTAs of 8 per SM, the first 512 put 6 on each of
// them and 3-4 on the rest), but none beyond ceil(grid / SMs). `order` holds the side unit's
// `side` SMs, then GPC by GPC. Stops when no SM has room or fewer CTAs are left than SMs with
// room (the partial-round rule places those).
void Run::place_by_units(const std::vector<Sm*>& order, size_t side, Time t) {
  const int gpcs = m_config.sm.gpcs;
  std::vector<std::vector<Sm*>> units(static_cast<size_t>(gpcs) + 1);
  for (size_t i = 0; i < order.size(); ++i) {
    const size_t u = i < side ? static_cast<size_t>(gpcs)
                              : static_cast<size_t>(gpc_of_sm(m_config.sm, order[i]->id()));
    units[u].push_back(order[i]);
  }
  const int period = m_config.sm.dispatch_side_period;
  // No SM takes more than its even share of the grid (micro_lsu_placed.csv: 264 CTAs that
  // could stack 8 per SM land 2 on every SM, where the first 264 of a 396-CTA grid put 3 on
  // each side-unit SM).
  const int64_t n_sms = static_cast<int64_t>(order.size());
  const int64_t share = (m_kernel.num_ctas() + n_sms - 1) / n_sms;
  const auto open = [&](const Sm* sm) { return sm->fits_another_cta() && sm->live_ctas() < share; };
  int64_t visit = 0;      // GPC visits so far
  bool side_next = true;  // the side unit leads
  while (m_next_cta < m_kernel.num_ctas()) {
    int64_t room = 0;
    for (const Sm* sm : order) {
      room += open(sm) ? 1 : 0;
    }
    if (room == 0 ||
        (m_config.sm.spread_partial_round && m_kernel.num_ctas() - m_next_cta < room)) {
      return;
    }
    size_t u = static_cast<size_t>(gpcs);
    if (side_next) {
      side_next = false;
    } else {
      u = static_cast<size_t>(visit % gpcs);
      ++visit;
      side_next = visit % period == period - 1;
    }
    for (Sm* sm : units[u]) {
      if (m_next_cta < m_kernel.num_ctas() && open(sm)) {
        sm->launch_cta(m_next_cta++, next_launch_time(t));
      }
    }
  }
}

void Run::loop() {
  const Time limit = m_clock.cycles(static_cast<double>(m_options.max_cycles));
  while (!m_queue.empty()) {
    const Event e = m_queue.pop();
    ++m_events;
    if (e.time > limit) {
      throw_input_error(format_location(m_kernel.source, 0),
                        "the kernel runs past {} cycles (--max-cycles); is a loop bound wrong?",
                        m_options.max_cycles);
    }
    switch (e.kind) {
      case EventKind::kSmIssue:
        m_sms[e.target]->on_issue(e.time);
        break;
      case EventKind::kWgWake:
        m_sms[e.target]->on_wake(e.payload, e.time);
        break;
      case EventKind::kTmaGenerate:
        m_sms[e.target]->on_tma_generate(e.time);
        break;
      case EventKind::kTmaDone:
        m_sms[e.target]->on_tma_done(e.payload, e.time);
        break;
      case EventKind::kLsuGenerate:
        m_sms[e.target]->on_lsu_generate(e.time);
        break;
      case EventKind::kLsuDone:
        m_sms[e.target]->on_lsu_done(e.payload, e.time);
        break;
      case EventKind::kCtaRelease:
        if (m_sms[e.target]->on_cta_release(e.payload)) {
          ++m_done_ctas;
          if (m_options.record_ctas) {
            const CtaSlot& c = m_sms[e.target]->cta_slot(e.payload);
            m_cta_records.push_back({c.cta, static_cast<int>(e.target),
                                     m_clock.to_cycles(c.start_time - m_begin),
                                     m_clock.to_cycles(c.exit_time - m_begin)});
          }
          m_last_release = std::max(m_last_release, e.time);
          dispatch_to(*m_sms[e.target], e.time);
        }
        break;
      case EventKind::kDispatch:
        dispatch_initial(e.time);
        break;
    }
  }
}

void Run::report_deadlock(Time t) const {
  std::string blocked;
  int lines = 0;
  for (const auto& sm : m_sms) {
    const std::string s = sm->describe_blocked();
    for (size_t pos = 0; pos < s.size();) {
      const size_t nl = s.find('\n', pos);
      if (lines < 24) {
        blocked += s.substr(pos, nl - pos + 1);
      }
      ++lines;
      pos = nl + 1;
    }
  }
  if (lines > 24) {
    blocked += fmt::format("  ... and {} more blocked warpgroups\n", lines - 24);
  }
  throw DeadlockError(fmt::format(
      "deadlock at cycle {}: {} of {} CTAs finished and nothing can make progress.\nBlocked "
      "warpgroups:\n{}",
      static_cast<int64_t>(m_clock.to_cycles(t)), m_done_ctas, m_kernel.num_ctas(), blocked));
}

Time Run::finish_time() const {
  Time end = m_last_release;
  for (const auto& sm : m_sms) {
    end = std::max(end, sm->last_write_ack());
  }
  return end;
}

SimResult Run::run(bool flush) {
  // Launch, then the cold fetch of the kernel's code (a kernel without a stated size is as
  // small as the launch microbenchmark's, whose fetch kernel_launch_cycles holds).
  const double rate = m_config.sm.code_fetch_bytes_per_cycle;
  const double fetch = rate > 0 ? static_cast<double>(m_kernel.code_bytes) / rate : 0.0;
  const Time start =
      m_clock.edge_at_or_after(m_begin) + m_clock.cycles(m_config.sm.kernel_launch_cycles + fetch);
  m_queue.push(start, EventKind::kDispatch, 0);
  loop();
  if (m_done_ctas < m_kernel.num_ctas()) {
    Time t = 0;
    for (const auto& sm : m_sms) {
      t = std::max(t, sm->last_write_ack());
    }
    report_deadlock(std::max(t, m_last_release));
  }
  const Time end = finish_time();
  for (auto& sm : m_sms) {
    sm->close_categories(end);
  }
  if (flush && m_config.mem.l2_flush_dirty_at_end) {
    m_memory.flush_dirty(end);
  }
  if (m_ctx.timeline && flush) {
    // The traffic bins count from time 0 over a whole sequence: the last kernel (the one that
    // flushes) writes the tracks once.
    write_counters();
  }
  m_end = end;
  return collect(end);
}

// DRAM and L2 GB/s per sample interval (bytes per ns): a step function whose integral over time
// is exactly the bytes counted (the sample after the last interval returns it to 0).
void Run::write_counters() const {
  const Time bin = m_memory.traffic_bin_ps();
  const double bin_ns = static_cast<double>(bin) * 1e-3;
  const auto track = [&](const char* name, const std::vector<uint64_t>& bytes) {
    size_t n = bytes.size();
    while (n > 0 && bytes[n - 1] == 0) {
      --n;
    }
    for (size_t i = 0; i < n; ++i) {
      m_ctx.timeline->counter(name, static_cast<Time>(i) * bin,
                              static_cast<double>(bytes[i]) / bin_ns);
    }
    m_ctx.timeline->counter(name, static_cast<Time>(n) * bin, 0);
  };
  track("DRAM read GB/s", m_memory.dram_read_bins());
  track("DRAM write GB/s", m_memory.dram_write_bins());
  track("L2 read hit GB/s", m_memory.l2_hit_bins());
  track("L2 read miss GB/s", m_memory.l2_miss_bins());
  track("L2 write GB/s", m_memory.l2_write_bins());
}

SimResult Run::collect(Time end) const {
  SimResult r;
  r.kernel = m_kernel.name;
  r.gpu = m_config.name;
  r.sm_clock_mhz = m_config.sm.clock_mhz;
  const Time begin = m_clock.edge_at_or_after(m_begin);
  r.cycles = static_cast<int64_t>(std::ceil(m_clock.to_cycles(end - begin) - 1e-9));
  r.time_us = static_cast<double>(end - begin) * 1e-6;
  r.ctas = m_kernel.num_ctas();
  Time tensor_busy = 0;
  Time tma_busy = 0;
  std::vector<std::array<Time, static_cast<size_t>(WgCategory::kCount)>> roles(
      m_kernel.roles.size());
  for (const auto& sm : m_sms) {
    r.flops += sm->tensor().flops();
    tensor_busy += sm->tensor().busy_ps();
    const TmaStats& ts = sm->tma().stats();
    tma_busy += ts.generator_busy_ps;
    r.tma_bytes += ts.load_bytes + ts.store_bytes;
    r.tma_requests += ts.requests;
    r.tma_responses += ts.responses;
    r.tma_request_bytes += ts.request_bytes;
    const std::string p = fmt::format("sm[{}].", sm->id());
    r.counters[p + "instructions"] = static_cast<double>(sm->stats().instructions);
    r.counters[p + "ctas"] = static_cast<double>(sm->stats().ctas);
    r.counters[p + "l2_partition"] = m_memory.partition_of_sm(sm->id());  // the one it sits next to
    r.counters[p + "tensor.instructions"] = static_cast<double>(sm->tensor().instructions());
    r.counters[p + "tensor.busy_cycles"] = m_clock.to_cycles(sm->tensor().busy_ps());
    r.counters[p + "tma.transactions"] = static_cast<double>(ts.transactions);
    r.counters[p + "tma.load_bytes"] = static_cast<double>(ts.load_bytes);
    r.counters[p + "tma.store_bytes"] = static_cast<double>(ts.store_bytes);
    r.counters[p + "tma.requests"] = static_cast<double>(ts.requests);
    r.counters[p + "tma.oob_sectors"] = static_cast<double>(ts.oob_sectors);
    r.counters[p + "tma.dedup_merged"] = static_cast<double>(ts.dedup_merged);
    r.counters[p + "tma.generator_busy_cycles"] = m_clock.to_cycles(ts.generator_busy_ps);
    r.counters[p + "tma.descriptor_misses"] = static_cast<double>(ts.descriptor_misses);
    r.counters[p + "tma.request_latency_cycles_sum"] = m_clock.to_cycles(ts.request_latency_ps);
    const TmaStats& ls = sm->lsu().stats();
    r.lsu_bytes += ls.load_bytes + ls.store_bytes;
    r.lsu_requests += ls.requests;
    r.lsu_responses += ls.responses;
    if (ls.transactions > 0) {
      r.counters[p + "lsu.instructions"] = static_cast<double>(ls.transactions);
      r.counters[p + "lsu.load_bytes"] = static_cast<double>(ls.load_bytes);
      r.counters[p + "lsu.store_bytes"] = static_cast<double>(ls.store_bytes);
      r.counters[p + "lsu.requests"] = static_cast<double>(ls.requests);
      r.counters[p + "lsu.generator_busy_cycles"] = m_clock.to_cycles(ls.generator_busy_ps);
      r.counters[p + "lsu.request_latency_cycles_sum"] = m_clock.to_cycles(ls.request_latency_ps);
    }
    for (size_t role = 0; role < roles.size(); ++role) {
      for (size_t c = 0; c < roles[role].size(); ++c) {
        roles[role][c] += sm->stats().role_time[role][c];
      }
    }
  }
  for (size_t role = 0; role < roles.size(); ++role) {
    auto& out = r.stall_cycles[m_kernel.roles[role].name];
    for (size_t c = 0; c < roles[role].size(); ++c) {
      out[category_name(static_cast<WgCategory>(c))] =
          static_cast<int64_t>(std::llround(m_clock.to_cycles(roles[role][c])));
    }
  }
  // This kernel's share of the memory counters (a sequence's memory system counts on).
  MemStats ms = m_memory.stats();
  const MemStats& b = m_mem_before;
  ms.dram_read_bytes -= b.dram_read_bytes;
  ms.dram_write_bytes -= b.dram_write_bytes;
  ms.l2_read_bytes -= b.l2_read_bytes;
  ms.l2_write_bytes -= b.l2_write_bytes;
  ms.requests -= b.requests;
  ms.read_requests -= b.read_requests;
  ms.coalescer_merges -= b.coalescer_merges;
  ms.partial_sector_reads -= b.partial_sector_reads;
  ms.dram_busy_ps -= b.dram_busy_ps;
  ms.read_latency -= b.read_latency;
  r.dram_read_bytes = ms.dram_read_bytes;
  r.dram_write_bytes = ms.dram_write_bytes;
  r.l2_read_bytes = ms.l2_read_bytes;
  r.l2_write_bytes = ms.l2_write_bytes;
  const double span = static_cast<double>(std::max<Time>(end - begin, 1)) * m_config.sm.count;
  r.tensor_active_fraction = static_cast<double>(tensor_busy) / span;
  r.tma_utilization = static_cast<double>(tma_busy) / span;
  const double seconds = static_cast<double>(end - begin) * 1e-12;
  r.tflops = seconds > 0 ? r.flops / seconds * 1e-12 : 0;
  r.dram_utilization = seconds > 0 ? static_cast<double>(ms.dram_read_bytes + ms.dram_write_bytes) /
                                         (seconds * m_config.mem.dram_bandwidth_gbs * 1e9)
                                   : 0;
  r.counters["mem.requests"] = static_cast<double>(ms.requests);
  r.counters["mem.read_requests"] = static_cast<double>(ms.read_requests);
  r.counters["mem.coalescer_merges"] = static_cast<double>(ms.coalescer_merges);
  r.counters["mem.partial_sector_reads"] = static_cast<double>(ms.partial_sector_reads);
  // Where the reads' time went, summed over reads in SM cycles (ReadLatency).
  r.counters["mem.read_latency.reads"] = static_cast<double>(ms.read_latency.reads);
  const auto parts = ms.read_latency.parts();
  for (size_t i = 0; i < parts.size(); ++i) {
    r.counters[fmt::format("mem.read_latency.{}_cycles", ReadLatency::kPartNames[i])] =
        m_clock.to_cycles(parts[i]);
  }
  const auto& slices = m_memory.slice_stats();
  for (size_t i = 0; i < slices.size(); ++i) {
    const std::string p = fmt::format("l2.slice[{}].", i);
    const SliceStats& n = slices[i];
    const SliceStats& o = m_slices_before[i];
    const auto gained = [](uint64_t now, uint64_t before) {
      return static_cast<double>(now - before);
    };
    r.counters[p + "read_hits"] = gained(n.read_hits, o.read_hits);
    r.counters[p + "read_misses"] = gained(n.read_misses, o.read_misses);
    r.counters[p + "mshr_merges"] = gained(n.mshr_merges, o.mshr_merges);
    r.counters[p + "mshr_stalls"] = gained(n.mshr_stalls, o.mshr_stalls);
    r.counters[p + "far_accesses"] = gained(n.far_accesses, o.far_accesses);
    r.counters[p + "write_sectors"] = gained(n.writes, o.writes);
    r.counters[p + "copy_hits"] = gained(n.copy_hits, o.copy_hits);
    r.counters[p + "copy_inserts"] = gained(n.copy_inserts, o.copy_inserts);
  }
  r.counters["dram.read_bytes"] = static_cast<double>(ms.dram_read_bytes);
  r.counters["dram.write_bytes"] = static_cast<double>(ms.dram_write_bytes);
  r.counters["dram.busy_cycles_all_channels"] = m_clock.to_cycles(ms.dram_busy_ps);
  for (const MemorySystem::Region& g : m_memory.regions()) {
    const std::string p = fmt::format("dram.tensor[{}].", g.name.empty() ? "other" : g.name);
    r.counters[p + "read_bytes"] = static_cast<double>(g.dram_read_bytes);
    r.counters[p + "write_bytes"] = static_cast<double>(g.dram_write_bytes);
  }
  if (const HbmSystem* hbm = m_memory.hbm()) {
    const auto& hs = hbm->stats();
    const HbmSystem::Stats& hb = m_hbm_before;
    r.counters["dram.row_hits"] = static_cast<double>(hs.row_hits - hb.row_hits);
    r.counters["dram.row_misses"] = static_cast<double>(hs.row_misses - hb.row_misses);
    r.counters["dram.row_conflicts"] = static_cast<double>(hs.row_conflicts - hb.row_conflicts);
    r.counters["dram.activates"] = static_cast<double>(hs.activates - hb.activates);
    r.counters["dram.busy_cycles_all_channels"] = m_clock.to_cycles(hs.busy_ps - hb.busy_ps);
  }
  r.events = m_events;
  r.cta_records = m_cta_records;
  std::sort(r.cta_records.begin(), r.cta_records.end(),
            [](const CtaRecord& x, const CtaRecord& y) { return x.cta < y.cta; });
  return r;
}

}  // namespace

SimResult simulate(const program::Kernel& kernel, const GpuConfig& config,
                   const RunOptions& options, Timeline* timeline) {
  MemorySystem memory(config, ClockDomain::from_mhz(config.sm.clock_mhz));
  memory.record_accesses(options.memory_trace);
  Run run(kernel, config, options, timeline, memory, 0, options.issue_trace);
  return run.run();
}

std::vector<SimResult> simulate_sequence(const std::vector<const program::Kernel*>& kernels,
                                         const GpuConfig& config, const RunOptions& options,
                                         Timeline* timeline) {
  MemorySystem memory(config, ClockDomain::from_mhz(config.sm.clock_mhz));
  memory.record_accesses(options.memory_trace);
  std::vector<SimResult> results;
  Time begin = 0;
  for (size_t i = 0; i < kernels.size(); ++i) {
    const bool last = i + 1 == kernels.size();
    Run run(*kernels[i], config, options, timeline, memory, begin,
            last ? options.issue_trace : nullptr);
    results.push_back(run.run(last));
    begin = run.end_time();
  }
  return results;
}

nlohmann::json SimResult::to_json() const {
  nlohmann::json j;
  j["kernel"] = kernel;
  j["gpu"] = gpu;
  j["cycles"] = cycles;
  j["time_us"] = time_us;
  j["sm_clock_mhz"] = sm_clock_mhz;
  j["ctas"] = ctas;
  j["flops"] = flops;
  j["tflops"] = tflops;
  j["dram_read_bytes"] = dram_read_bytes;
  j["dram_write_bytes"] = dram_write_bytes;
  j["l2_read_bytes"] = l2_read_bytes;
  j["l2_write_bytes"] = l2_write_bytes;
  j["tma_bytes"] = tma_bytes;
  j["lsu_bytes"] = lsu_bytes;
  j["tensor_active_fraction"] = tensor_active_fraction;
  j["tma_utilization"] = tma_utilization;
  j["dram_utilization"] = dram_utilization;
  j["stall_cycles"] = stall_cycles;
  return j;
}

nlohmann::json SimResult::to_stats_json() const {
  nlohmann::json j = to_json();
  j["counters"] = counters;
  j["tma_requests"] = tma_requests;
  j["tma_responses"] = tma_responses;
  j["lsu_requests"] = lsu_requests;
  j["lsu_responses"] = lsu_responses;
  return j;
}

}  // namespace asyncsim
