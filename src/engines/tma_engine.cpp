#include "engines/tma_engine.h"

#include <algorithm>
#include <bit>

#include "mem/mem_bits.h"
#include "stats/timeline.h"

namespace asyncsim {
namespace {

// The generator hands requests to memory in batches covering this many SM cycles of its time,
// so a 16 KB box costs a few dozen events instead of one per line.
constexpr double kBatchCycles = 32.0;

}  // namespace

TmaEngine::TmaEngine(SimContext& ctx, uint16_t sm, EngineKind kind)
    : m_ctx(ctx),
      m_sm(sm),
      m_kind(kind),
      m_generate_event(kind == EngineKind::kTma ? EventKind::kTmaGenerate
                                                : EventKind::kLsuGenerate),
      m_done_event(kind == EngineKind::kTma ? EventKind::kTmaDone : EventKind::kLsuDone),
      m_launch_cycles(kind == EngineKind::kTma ? ctx.config.tma.launch_cycles
                                               : ctx.config.lsu.latency_cycles),
      m_capacity(static_cast<uint32_t>(kind == EngineKind::kTma ? ctx.config.tma.queue_depth
                                                                : ctx.config.lsu.queue_depth)),
      m_txns(m_capacity),
      m_inflight(static_cast<size_t>(kind == EngineKind::kTma
                                         ? ctx.config.tma.max_inflight_requests
                                         : ctx.config.lsu.max_inflight_requests)),
      m_descriptor_cached(ctx.kernel.maps.size(), false) {
  m_fifo.reserve(m_capacity * 2);
  const bool tma = kind == EngineKind::kTma;
  const double load_rate = tma ? ctx.config.tma.bytes_per_cycle : ctx.config.lsu.bytes_per_cycle;
  const double store_rate =
      tma ? ctx.config.tma.store_bytes_per_cycle : ctx.config.lsu.store_bytes_per_cycle;
  m_sector_ps = ctx.sm_clock.cycles(ctx.config.mem.sector_bytes / load_rate);
  m_store_sector_ps = ctx.sm_clock.cycles(ctx.config.mem.sector_bytes / store_rate);
  // The load/store unit's line requests cost their sectors only (the alignment costs were
  // measured on TMA boxes).
  m_request_ps = tma ? ctx.sm_clock.cycles(ctx.config.tma.request_cycles) : 0;
  m_split_partial_sectors = tma && ctx.config.tma.split_partial_sectors;
  m_line_bytes = ctx.config.mem.line_bytes;
  m_sector_bytes = ctx.config.mem.sector_bytes;
  m_line_shift = std::has_single_bit(static_cast<uint64_t>(m_line_bytes))
                     ? std::countr_zero(static_cast<uint64_t>(m_line_bytes))
                     : -1;
  m_full_mask = static_cast<uint8_t>((1u << (m_line_bytes / m_sector_bytes)) - 1);
  const ClockDomain l2 = ClockDomain::from_mhz(ctx.config.mem.l2_clock_mhz);
  m_oob_latency = l2.cycles(ctx.config.mem.l2_hit_cycles);
}

uint32_t TmaEngine::accept(const TmaTransaction& txn, Time t) {
  uint32_t slot = 0;
  while (m_txns[slot].live) {
    ++slot;
  }
  TmaTransaction& x = m_txns[slot];
  x = txn;
  x.live = true;
  x.accepted = t;
  const auto& p = m_ctx.config.tma;
  int setup = x.tensor ? p.tensor_launch_cycles : 0;
  if (x.tensor && !m_descriptor_cached[x.map]) {
    m_descriptor_cached[x.map] = true;
    ++m_stats.descriptor_misses;
    setup += p.tensor_setup_cycles;
  }
  x.ready = t + m_ctx.sm_clock.cycles(m_launch_cycles + setup + x.extra_cycles);
  ++m_live;
  ++m_stats.transactions;
  if (m_fifo_head == m_fifo.size()) {
    m_fifo.clear();
    m_fifo_head = 0;
  }
  m_fifo.push_back(slot);
  if (m_current < 0 && !m_event_pending) {
    m_event_pending = true;
    m_ctx.queue.push(std::max(x.ready, m_cursor), m_generate_event, m_sm);
  }
  return slot;
}

void TmaEngine::release(uint32_t slot) {
  m_stats.responses += m_txns[slot].requests;
  m_txns[slot].live = false;
  --m_live;
}

void TmaEngine::add_segment(int64_t byte_begin, int64_t byte_end, bool oob) {
  const int64_t line_bytes = m_line_bytes;
  // The common case, one whole aligned line (a GEMM tile's 128-B row), without a division.
  if (m_line_shift >= 0 && byte_end - byte_begin == line_bytes &&
      (byte_begin & (line_bytes - 1)) == 0) {
    m_requests.push_back(
        LineRequest{static_cast<uint64_t>(byte_begin >> m_line_shift), m_full_mask, oob});
    return;
  }
  const int64_t sector_bytes = m_sector_bytes;
  const bool unaligned = byte_begin % sector_bytes != 0 || byte_end % sector_bytes != 0;
  m_any_unaligned = m_any_unaligned || unaligned;
  for (int64_t b = byte_begin; b < byte_end;) {
    const int64_t line = b / line_bytes;
    const int64_t line_end = std::min(byte_end, (line + 1) * line_bytes);
    const int first = static_cast<int>((b - line * line_bytes) / sector_bytes);
    const int last = static_cast<int>((line_end - 1 - line * line_bytes) / sector_bytes);
    const auto mask = static_cast<uint8_t>(((1u << (last + 1)) - 1) & ~((1u << first) - 1));
    if (!m_split_partial_sectors || !unaligned) {
      m_requests.push_back(LineRequest{static_cast<uint64_t>(line), mask, oob});
    } else {
      // tma.split_partial_sectors: a sector the segment covers only in part is a request of its
      // own; the whole sectors between are one.
      const bool head = b % sector_bytes != 0;
      const bool tail = line_end % sector_bytes != 0;
      const auto bit = [](int s) { return static_cast<uint8_t>(1u << s); };
      uint8_t whole = mask;
      if (head) {
        m_requests.push_back(LineRequest{static_cast<uint64_t>(line), bit(first), oob});
        m_requests.back().partial_sector = true;
        whole = static_cast<uint8_t>(whole & ~bit(first));
      }
      if (tail && !(head && first == last)) {
        whole = static_cast<uint8_t>(whole & ~bit(last));
      }
      if (whole != 0) {
        m_requests.push_back(LineRequest{static_cast<uint64_t>(line), whole, oob});
      }
      if (tail && !(head && first == last)) {
        m_requests.push_back(LineRequest{static_cast<uint64_t>(line), bit(last), oob});
        m_requests.back().partial_sector = true;
      }
    }
    b = line_end;
  }
}

// The common 2-D box (a GEMM or attention operand tile): wholly inside the tensor, rows of whole
// aligned lines, each row past the previous one. Its requests are the rows' lines in address
// order, with nothing to clip, sort or merge; returns false for any other box.
bool TmaEngine::whole_lines_2d(const program::TensorMap& m, const TmaTransaction& txn,
                               int64_t esize) {
  const int64_t row_bytes = m.box[0] * esize;
  const int64_t stride = m.strides[1];
  const int64_t first = static_cast<int64_t>(m.base) + txn.coord[0] * esize;
  if (m_line_shift < 0 || row_bytes % m_line_bytes != 0 || (first & (m_line_bytes - 1)) != 0 ||
      stride % m_line_bytes != 0 || stride < row_bytes || txn.coord[0] < 0 ||
      txn.coord[0] + m.box[0] > m.dims[0] || txn.coord[1] < 0 ||
      txn.coord[1] + m.box[1] > m.dims[1]) {
    return false;
  }
  const int64_t lines_per_row = row_bytes >> m_line_shift;
  auto line = static_cast<uint64_t>((first + txn.coord[1] * stride) >> m_line_shift);
  const auto line_stride = static_cast<uint64_t>(stride >> m_line_shift);
  m_requests.resize(static_cast<size_t>(m.box[1] * lines_per_row),
                    LineRequest{0, m_full_mask, false});
  LineRequest* out = m_requests.data();
  for (int32_t r = 0; r < m.box[1]; ++r, line += line_stride) {
    for (int64_t k = 0; k < lines_per_row; ++k) {
      (out++)->line = line + static_cast<uint64_t>(k);
    }
  }
  return true;
}

// Walks the box row by row (dimension 0 is contiguous) and clips it against the tensor bounds.
void TmaEngine::build_requests(const TmaTransaction& txn) {
  m_requests.clear();
  m_any_unaligned = false;
  if (!txn.tensor) {
    const int64_t row_bytes = txn.tx_bytes / txn.rows;
    for (int64_t r = 0; r < txn.rows; ++r) {
      const int64_t begin = static_cast<int64_t>(txn.bulk_addr) + r * txn.row_stride;
      add_segment(begin, begin + row_bytes, false);
    }
  } else {
    const program::TensorMap& m = m_ctx.kernel.maps[txn.map];
    const int64_t esize = program::dtype_bytes(m.dtype);
    if (m.rank == 2 && whole_lines_2d(m, txn, esize)) {
      return;
    }
    std::array<int64_t, program::kMaxTensorRank> idx{};
    const int64_t x0 = txn.coord[0];
    const int64_t x1 = x0 + m.box[0];
    const int64_t in0 = std::max<int64_t>(x0, 0);
    const int64_t in1 = std::min<int64_t>(x1, m.dims[0]);
    while (true) {
      bool row_in = true;
      int64_t row_addr = static_cast<int64_t>(m.base);
      for (int d = 1; d < m.rank; ++d) {
        const int64_t c = txn.coord[d] + idx[d];
        row_in = row_in && c >= 0 && c < m.dims[d];
        row_addr += c * m.strides[d];
      }
      if (row_in && in1 > in0) {
        add_segment(row_addr + in0 * esize, row_addr + in1 * esize, false);
      }
      // Out-of-bounds elements of a read still cost generator time and reach L2.
      const int64_t oob_elems = row_in ? (x1 - x0) - std::max<int64_t>(0, in1 - in0) : x1 - x0;
      if (!txn.store && oob_elems > 0) {
        const int64_t sectors =
            (oob_elems * esize + m_ctx.config.mem.sector_bytes - 1) / m_ctx.config.mem.sector_bytes;
        for (int64_t s = 0; s < sectors;
             s += m_ctx.config.mem.line_bytes / m_ctx.config.mem.sector_bytes) {
          m_requests.push_back(LineRequest{0, 0xF, true});
        }
      }
      int d = 1;
      for (; d < m.rank; ++d) {
        if (++idx[d] < m.box[d]) {
          break;
        }
        idx[d] = 0;
      }
      if (d >= m.rank) {
        break;
      }
    }
  }
  const auto before = [](const LineRequest& a, const LineRequest& b) {
    return a.oob != b.oob ? a.oob < b.oob : a.line < b.line;
  };
  // Requests of one line merge, but a partial sector split off (tma.split_partial_sectors)
  // stays a request of its own unless it repeats one.
  const auto merge = [](const LineRequest& a, const LineRequest& b) {
    return !a.oob && !b.oob && a.line == b.line &&
           ((!a.partial_sector && !b.partial_sector) || a.sectors == b.sectors);
  };
  // A box's rows mostly come in address order, each on lines of its own: when every request
  // comes before the next or is a piece of the same line that stays apart, neither the sort
  // nor the merge would change anything.
  if (m_ctx.config.tma.dedup && m_requests.size() > 1 &&
      std::adjacent_find(m_requests.begin(), m_requests.end(),
                         [&](const LineRequest& a, const LineRequest& b) {
                           return !before(a, b) && (before(b, a) || merge(a, b));
                         }) != m_requests.end()) {
    std::stable_sort(m_requests.begin(), m_requests.end(), before);
    size_t out = 0;
    for (size_t i = 0; i < m_requests.size(); ++i) {
      if (out > 0 && merge(m_requests[out - 1], m_requests[i])) {
        m_requests[out - 1].sectors |= m_requests[i].sectors;
        ++m_stats.dedup_merged;
      } else {
        m_requests[out++] = m_requests[i];
      }
    }
    m_requests.resize(out);
  }
  // A copy with a row that starts or ends inside a sector: none of its reads merge in the
  // request coalescer unless l2.coalesce_partial_rows (micro_l2_hot.csv: boxes of rows 4112 B
  // apart, half of them on a sector, reach L2 unmerged).
  if (m_any_unaligned) {
    for (LineRequest& r : m_requests) {
      r.partial_row = true;
    }
  }
}

Time TmaEngine::emit(const LineRequest& r, Time at, bool store) {
  const auto cap = static_cast<uint32_t>(m_inflight.size());
  while (m_inflight_count > 0 && m_inflight[m_inflight_head] <= at) {
    m_inflight_head = m_inflight_head + 1 == cap ? 0 : m_inflight_head + 1;
    --m_inflight_count;
  }
  if (m_inflight_count == cap) {
    at = std::max(at, m_inflight[m_inflight_head]);
    m_inflight_head = m_inflight_head + 1 == cap ? 0 : m_inflight_head + 1;
    --m_inflight_count;
  }
  const int nsect = sector_count(r.sectors);
  Time done;
  if (r.oob) {
    m_stats.oob_sectors += static_cast<uint64_t>(nsect);
    done = at + m_oob_latency;
  } else {
    done =
        m_ctx.memory.access(MemRequest{r.line, r.sectors, store, m_sm, m_kind == EngineKind::kTma,
                                       r.partial_row, r.partial_sector},
                            at);
    m_stats.request_bytes += static_cast<uint64_t>(nsect * m_sector_bytes);
  }
  ++m_stats.requests;
  m_stats.request_latency_ps += done - at;
  const uint32_t tail = m_inflight_head + m_inflight_count;  // < 2 cap
  m_inflight[tail >= cap ? tail - cap : tail] = done;
  ++m_inflight_count;
  return done;
}

void TmaEngine::start_next(Time t) {
  while (m_fifo_head < m_fifo.size()) {
    const uint32_t slot = m_fifo[m_fifo_head++];
    TmaTransaction& x = m_txns[slot];
    m_current = static_cast<int32_t>(slot);
    m_cursor = std::max({m_cursor, t, x.ready});
    x.done = m_cursor;
    build_requests(x);
    m_next_request = 0;
    return;
  }
  m_current = -1;
}

void TmaEngine::finish_transaction(Time t) {
  (void)t;
  TmaTransaction& x = m_txns[m_current];
  x.gen_end = m_cursor;
  const bool tma = m_kind == EngineKind::kTma;
  x.done = std::max(x.done, x.gen_end) +
           (tma ? m_ctx.sm_clock.cycles(m_ctx.config.tma.completion_cycles) : 0);
  if (x.store) {
    m_stats.store_bytes += static_cast<uint64_t>(x.tx_bytes);
    if (tma) {  // a bulk store's shared-memory source is free again (TMA_STORE_WAIT)
      m_ctx.queue.push(x.gen_end, m_done_event, m_sm,
                       static_cast<uint32_t>(m_current) | kStoreReadDone);
    }
  } else {
    m_stats.load_bytes += static_cast<uint64_t>(x.tx_bytes);
  }
  m_ctx.queue.push(x.done, m_done_event, m_sm, static_cast<uint32_t>(m_current));
  if (m_ctx.timeline && tma) {
    m_ctx.timeline->tma(m_sm, x.store, x.tensor ? m_ctx.kernel.maps[x.map].name : "bulk",
                        x.accepted, x.done);
  }
  m_current = -1;
}

void TmaEngine::generate(Time t) {
  m_event_pending = false;
  if (m_current < 0) {
    start_next(t);
    if (m_current < 0) {
      return;
    }
  }
  const Time horizon = t + m_ctx.sm_clock.cycles(kBatchCycles);
  while (m_current >= 0) {
    TmaTransaction& x = m_txns[m_current];
    if (m_cursor > horizon) {
      break;
    }
    if (m_next_request >= m_requests.size()) {
      finish_transaction(t);
      start_next(t);
      continue;
    }
    const LineRequest& r = m_requests[m_next_request];
    if (!r.oob) {
      // Back-pressure: the generator waits while the SM's crossbar port is backed up.
      const Time accept = m_ctx.memory.port_accepts(m_sm, x.store, m_cursor);
      if (accept > m_cursor) {
        m_cursor = accept;
        continue;
      }
    }
    ++m_next_request;
    if (!x.store && m_next_request + 1 < m_requests.size()) {
      m_ctx.memory.prefetch_coalescer(m_requests[m_next_request + 1].line, m_sm);
    }
    // A load request costs its sectors at tma.bytes_per_cycle but at least tma.request_cycles
    // (micro_tma_align.csv: a box's time follows its request count once rows straddle lines or
    // start inside sectors).
    const Time cost = x.store ? m_store_sector_ps * sector_count(r.sectors)
                              : std::max(m_sector_ps * sector_count(r.sectors), m_request_ps);
    x.done = std::max(x.done, emit(r, m_cursor, x.store));
    ++x.requests;
    m_cursor += cost;
    m_stats.generator_busy_ps += cost;
  }
  if (m_current >= 0) {
    m_event_pending = true;
    m_ctx.queue.push(std::max(m_cursor, t), m_generate_event, m_sm);
  }
}

}  // namespace asyncsim
