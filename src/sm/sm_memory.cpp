// Memory instructions of the SM (split from sm.cpp): TMA and bulk copies, LD_GLOBAL /
// ST_GLOBAL / LD_WAIT through the load/store unit, and the completions of both engines.
#include <algorithm>

#include "sm/sm.h"
#include "util/error.h"

namespace asyncsim {

using program::Instr;
using program::Op;

Sm::StepResult Sm::execute_memory(Warpgroup& wg, uint32_t w, const Instr& in, Time t) {
  const auto& k = m_ctx.kernel;
  if (in.op == Op::kTmaStoreWait) {
    const int64_t n = eval(wg, in.args[0]);
    ++wg.pc;
    if (wg.pending_store_reads <= n) {
      return {Outcome::kContinue, 0};
    }
    --m_ready;
    wg.state = WgState::kBlocked;
    wg.block = BlockReason::kStores;
    wg.wait_value = n;
    wg.wait_pc = wg.pc - 1;
    set_category(wg, WgCategory::kWaitStore, t);
    return {Outcome::kBlocked, 0};
  }
  if (m_tma.full()) {
    return block_on_queue(wg, BlockReason::kTmaQueue, WgCategory::kWaitTmaQueue, t);
  }
  TmaTransaction x;
  x.cta_slot = wg.cta_slot;
  x.wg_slot = static_cast<uint16_t>(w);
  x.store = in.op == Op::kTmaStore || in.op == Op::kBulkStore;
  x.tensor = in.op == Op::kTmaLoad || in.op == Op::kTmaStore;
  if (x.tensor) {
    x.map = in.ref;
    const program::TensorMap& m = k.maps[in.ref];
    for (int d = 0; d < m.rank; ++d) {
      x.coord[d] = eval(wg, in.args[d]);
    }
    x.tx_bytes = m.box_bytes();
  } else {
    const int64_t addr = eval(wg, in.args[0]);
    x.tx_bytes = eval(wg, in.args[1]);
    if (addr < 0 || x.tx_bytes <= 0 || x.tx_bytes % 16 != 0 || addr % 16 != 0) {
      throw_input_error(where(in),
                        "bulk copy needs a 16-byte aligned address and a positive "
                        "multiple of 16 bytes, got address {} and {} bytes",
                        addr, x.tx_bytes);
    }
    x.bulk_addr = static_cast<uint64_t>(addr);
  }
  if (!x.store) {
    x.barrier = barrier_index(wg, in.bar, in);
    wg.mbar_ready = t + m_ctx.sm_clock.cycles(m_ctx.config.tma.barrier_hold_cycles);
  } else {
    ++wg.pending_store_reads;
    ++m_ctas[wg.cta_slot].pending_stores;
  }
  m_tma.accept(x, t);
  ++wg.pc;
  set_category(wg, WgCategory::kTmaIssue, t);
  const int gap =
      x.tensor ? m_ctx.config.tma.tensor_issue_gap_cycles : m_ctx.config.tma.issue_gap_cycles;
  if (!x.store && m_ctx.config.tma.wait_after_issue_cycles > 0) {
    wg.wait_ready = t + m_ctx.sm_clock.cycles(gap + m_ctx.config.tma.wait_after_issue_cycles);
  }
  return {Outcome::kSleep, t + m_ctx.sm_clock.cycles(gap)};
}

// The engine the instruction needs is full: the warpgroup retries it when a slot frees.
Sm::StepResult Sm::block_on_queue(Warpgroup& wg, BlockReason reason, WgCategory c, Time t) {
  --m_ready;
  wg.state = WgState::kBlocked;
  wg.block = reason;
  wg.wait_pc = wg.pc;
  set_category(wg, c, t);
  return {Outcome::kBlocked, 0};
}

Sm::StepResult Sm::block_on_loads(Warpgroup& wg, int64_t n, Time t) {
  --m_ready;
  wg.state = WgState::kBlocked;
  wg.block = BlockReason::kLoads;
  wg.wait_value = n;
  wg.wait_pc = wg.pc;
  set_category(wg, WgCategory::kWaitLoad, t);
  return {Outcome::kBlocked, 0};
}

// LD_GLOBAL / ST_GLOBAL hand the warpgroup's coalesced rows to the SM's load/store unit (a
// request generator like the TMA's, lsu.*); the warpgroup goes on at once and LD_WAIT waits for
// its loads. Issue takes one cycle per 2 KB (128 threads x 16 B, the widest access per warp
// instruction).
Sm::StepResult Sm::execute_lsu(Warpgroup& wg, uint32_t w, const Instr& in, Time t) {
  if (in.op == Op::kLdWait) {
    const int64_t n = eval(wg, in.args[0]);
    if (wg.pending_loads <= n) {
      ++wg.pc;
      return {Outcome::kContinue, 0};
    }
    StepResult r = block_on_loads(wg, n, t);
    ++wg.pc;  // woken when enough loads are complete; the wait itself is done then
    return r;
  }
  if (m_lsu.full()) {
    return block_on_queue(wg, BlockReason::kLsuQueue, WgCategory::kWaitLsuQueue, t);
  }
  const int64_t addr = eval(wg, in.args[0]);
  const int64_t bytes = eval(wg, in.args[1]);
  const int64_t rows = eval(wg, in.args[2]);
  const int64_t stride = eval(wg, in.args[3]);
  const int64_t width = eval(wg, in.args[4]);
  if (addr < 0 || bytes <= 0 || rows <= 0 || stride < 0 ||
      (width != 1 && width != 2 && width != 4 && width != 8 && width != 16)) {
    throw_input_error(where(in),
                      "{} needs an address >= 0, bytes >= 1, rows >= 1, a stride >= 0 and a "
                      "width of 1, 2, 4, 8 or 16, got address {}, bytes {}, rows {}, stride {}, "
                      "width {}",
                      program::op_name(in.op), addr, bytes, rows, stride, width);
  }
  TmaTransaction x;
  x.cta_slot = wg.cta_slot;
  x.wg_slot = static_cast<uint16_t>(w);
  x.store = in.op == Op::kStGlobal;
  x.tensor = false;
  x.bulk_addr = static_cast<uint64_t>(addr);
  x.tx_bytes = bytes * rows;
  x.rows = rows;
  x.row_stride = stride;
  if (!x.store) {
    ++wg.pending_loads;
    // A 128-bit load's round trip is longer than a narrower one's (micro_lsu_chain.csv).
    x.extra_cycles = width == 16 ? m_ctx.config.lsu.wide_load_cycles : 0;
  }
  m_lsu.accept(x, t);
  ++wg.pc;
  set_category(wg, WgCategory::kIssue, t);
  // One warp instruction per warp moves 32 x width bytes; the four warps issue side by side.
  const int64_t per_instruction = 128 * width;
  const int64_t instructions =
      std::max<int64_t>(1, (x.tx_bytes + per_instruction - 1) / per_instruction);
  return {Outcome::kSleep, t + m_ctx.sm_clock.cycles(static_cast<double>(instructions))};
}

void Sm::on_lsu_done(uint32_t payload, Time t) {
  TmaTransaction& x = m_lsu.txn(payload);
  if (x.store) {
    m_last_write_ack = std::max(m_last_write_ack, t);
  } else {
    Warpgroup& wg = m_wgs[x.wg_slot];
    --wg.pending_loads;
    if (wg.state == WgState::kBlocked && wg.block == BlockReason::kLoads &&
        wg.pending_loads <= wg.wait_value) {
      sleep(wg, x.wg_slot, t, wg.category, t);
    }
  }
  m_lsu.release(payload);
  wake_blocked(UINT32_MAX, BlockReason::kLsuQueue, t);
}

void Sm::on_tma_done(uint32_t payload, Time t) {
  if (payload & TmaEngine::kStoreReadDone) {
    TmaTransaction& x = m_tma.txn(payload & ~TmaEngine::kStoreReadDone);
    --m_wgs[x.wg_slot].pending_store_reads;
    CtaSlot& c = m_ctas[x.cta_slot];
    --c.pending_stores;
    c.last_store_read = t;
    wake_blocked(x.cta_slot, BlockReason::kStores, t);
    if (c.pending_stores == 0 && c.live_wgs == 0 && c.live) {
      m_ctx.queue.push(t + m_ctx.sm_clock.cycles(m_ctx.config.sm.cta_exit_cycles),
                       EventKind::kCtaRelease, m_id, x.cta_slot);
    }
    return;
  }
  TmaTransaction& x = m_tma.txn(payload);
  if (x.store) {
    m_last_write_ack = std::max(m_last_write_ack, t);
  } else if (m_ctas[x.cta_slot].live) {
    if (m_mbarriers[x.barrier].complete_tx(x.tx_bytes)) {
      mbarrier_changed(x.cta_slot, x.barrier, t);
    }
  }
  m_tma.release(payload);
  wake_blocked(UINT32_MAX, BlockReason::kTmaQueue, t);
}

}  // namespace asyncsim
