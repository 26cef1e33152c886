// mbarrier and named-barrier instructions of the SM (split from sm.cpp).
#include <algorithm>

#include "sm/sm.h"
#include "stats/timeline.h"
#include "util/error.h"

namespace asyncsim {

using program::Instr;
using program::Op;

uint32_t Sm::barrier_index(const Warpgroup& wg, const program::BarrierRef& ref,
                           const Instr& in) const {
  const auto& k = m_ctx.kernel;
  const uint32_t offset = m_barrier_offset[ref.array];
  const int64_t idx = eval(wg, ref.index);
  if (idx < 0 || idx >= k.barriers[ref.array].size) {
    throw_input_error(where(in), "mbarrier index {} is outside '{}' (size {})", idx,
                      k.barriers[ref.array].name, k.barriers[ref.array].size);
  }
  return m_ctas[wg.cta_slot].barrier_base + offset + static_cast<uint32_t>(idx);
}

void Sm::mbarrier_changed(uint32_t cta_slot, uint32_t barrier, Time t) {
  const CtaSlot& c = m_ctas[cta_slot];
  const Time wake = t + m_ctx.sm_clock.cycles(m_ctx.config.barrier.wake_cycles);
  for (uint32_t i = c.first_wg; i < c.first_wg + c.num_wgs; ++i) {
    Warpgroup& wg = m_wgs[i];
    if (wg.state == WgState::kBlocked && wg.block == BlockReason::kMbarrier &&
        wg.wait_barrier == barrier && m_mbarriers[barrier].satisfied(wg.wait_value)) {
      sleep(wg, i, wake, WgCategory::kWaitMbarrier, t);
    }
  }
}

Sm::StepResult Sm::wait_mbarrier(Warpgroup& wg, uint32_t barrier, int64_t parity, bool suspend,
                                 Time t) {
  const auto& bp = m_ctx.config.barrier;
  wg.wait_pc = wg.pc;
  ++wg.pc;
  set_category(wg, WgCategory::kWaitMbarrier, t);
  if (m_mbarriers[barrier].satisfied(parity)) {
    const int cycles = suspend ? bp.suspend_wait_cycles : bp.try_wait_cycles;
    return {Outcome::kSleep, t + m_ctx.sm_clock.cycles(std::max(1, cycles))};
  }
  --m_ready;
  wg.state = WgState::kBlocked;
  wg.block = BlockReason::kMbarrier;
  wg.wait_barrier = barrier;
  wg.wait_value = parity;
  return {Outcome::kBlocked, 0};
}

Sm::StepResult Sm::named_barrier(Warpgroup& wg, uint32_t w, int64_t id, int64_t threads, bool wait,
                                 Time t) {
  const Instr& in = m_ctx.kernel.roles[wg.role].code[wg.pc];
  if (id < 0 || id > 15 || threads < 128 || threads % 128 != 0 ||
      threads > m_ctx.kernel.threads_per_cta()) {
    throw_input_error(where(in),
                      "named barrier {} with {} threads: id must be 0..15 and threads "
                      "a multiple of 128 up to the CTA's {}",
                      id, threads, m_ctx.kernel.threads_per_cta());
  }
  CtaSlot& c = m_ctas[wg.cta_slot];
  NamedBarrier& nb = c.named[static_cast<size_t>(id)];
  if (nb.arrived > 0 && nb.expected != threads) {
    throw_input_error(where(in), "named barrier {} used with {} threads while {} are expected", id,
                      threads, nb.expected);
  }
  nb.expected = static_cast<int32_t>(threads);
  nb.arrived += 128;
  wg.wait_pc = wg.pc;
  ++wg.pc;
  const Time release = t + m_ctx.sm_clock.cycles(m_ctx.config.barrier.named_barrier_cycles);
  if (nb.arrived >= nb.expected) {
    nb.arrived = 0;
    for (uint32_t i = c.first_wg; i < c.first_wg + c.num_wgs; ++i) {
      Warpgroup& other = m_wgs[i];
      if (other.state == WgState::kBlocked && other.block == BlockReason::kNamedBarrier &&
          other.wait_value == id) {
        sleep(other, i, release, WgCategory::kWaitNamedBarrier, t);
      }
    }
    if (wait) {
      set_category(wg, WgCategory::kWaitNamedBarrier, t);
      return {Outcome::kSleep, release};
    }
    return {Outcome::kContinue, 0};
  }
  if (!wait) {
    return {Outcome::kContinue, 0};
  }
  (void)w;
  --m_ready;
  wg.state = WgState::kBlocked;
  wg.block = BlockReason::kNamedBarrier;
  wg.wait_value = id;
  set_category(wg, WgCategory::kWaitNamedBarrier, t);
  return {Outcome::kBlocked, 0};
}

Sm::StepResult Sm::execute_barrier(Warpgroup& wg, uint32_t w, const Instr& in, Time t) {
  const auto& k = m_ctx.kernel;
  const Time arrive_done = t + m_ctx.sm_clock.cycles(m_ctx.config.barrier.arrive_cycles);
  switch (in.op) {
    case Op::kMbArrive:
    case Op::kMbExpectTx:
    case Op::kMbArriveExpectTx: {
      const uint32_t b = barrier_index(wg, in.bar, in);
      const int64_t v = eval(wg, in.args[0]);
      Mbarrier& mb = m_mbarriers[b];
      bool completed = false;
      if (in.op == Op::kMbArrive) {
        completed = mb.arrive(static_cast<int32_t>(v));
      } else if (in.op == Op::kMbExpectTx) {
        completed = mb.expect_tx(v);
      } else {
        mb.tx += v;
        completed = mb.arrive(1);
      }
      if (completed) {
        mbarrier_changed(wg.cta_slot, b, t);
      }
      ++wg.pc;
      if (in.op != Op::kMbArrive) {
        return {Outcome::kSleep, t + m_ctx.sm_clock.cycles(m_ctx.config.barrier.expect_tx_cycles)};
      }
      return {Outcome::kSleep, arrive_done};
    }
    case Op::kMbWait: {
      const uint32_t b = barrier_index(wg, in.bar, in);
      return wait_mbarrier(wg, b, eval(wg, in.args[0]), (in.flags & program::kFlagSuspend) != 0, t);
    }
    case Op::kStageAcquire:
    case Op::kStageWait:
    case Op::kStageRelease: {
      const program::Ring& ring = k.rings[in.ref];
      const int64_t it = eval(wg, in.args[0]);
      const int64_t stage = program::floor_mod(it, ring.stages);
      const int64_t phase = program::floor_div(it, ring.stages);
      const bool empty_side = in.op != Op::kStageWait;
      const uint16_t array = empty_side ? ring.empty : ring.full;
      const uint32_t b =
          m_ctas[wg.cta_slot].barrier_base + m_barrier_offset[array] + static_cast<uint32_t>(stage);
      if (in.op == Op::kStageRelease) {
        if (m_mbarriers[b].arrive(1)) {
          mbarrier_changed(wg.cta_slot, b, t);
        }
        ++wg.pc;
        return {Outcome::kSleep, arrive_done};
      }
      // The producer's first pass over the ring finds every slot empty (parity trick of PTX).
      const int64_t parity = in.op == Op::kStageAcquire ? ((phase & 1) ^ 1) : (phase & 1);
      return wait_mbarrier(wg, b, parity, false, t);
    }
    case Op::kBarSync:
    case Op::kBarArrive:
      return named_barrier(wg, w, eval(wg, in.args[0]), eval(wg, in.args[1]), in.op == Op::kBarSync,
                           t);
    default:
      throw_input_error(where(in), "instruction {} cannot execute here", program::op_name(in.op));
  }
}

}  // namespace asyncsim
