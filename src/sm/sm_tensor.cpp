// wgmma and COMPUTE instructions of the SM (split from sm.cpp).
#include <algorithm>

#include "sm/sm.h"
#include "stats/timeline.h"
#include "util/error.h"

namespace asyncsim {

using program::Instr;
using program::Op;

void Sm::retire_groups(Warpgroup& wg, Time t) {
  while (wg.group_count > 0 && wg.groups[wg.group_head] <= t) {
    wg.group_head = static_cast<uint8_t>((wg.group_head + 1) % kMaxPendingGroups);
    --wg.group_count;
  }
}

Sm::StepResult Sm::execute_tensor(Warpgroup& wg, const Instr& in, Time t) {
  const auto& tp = m_ctx.config.tensor;
  switch (in.op) {
    case Op::kWgmma: {
      const int64_t n = eval(wg, in.args[0]);
      const int64_t repeat = eval(wg, in.args[1]);
      if (n < 8 || n > 256 || n % 8 != 0 || repeat < 0) {
        throw_input_error(where(in),
                          "wgmma needs N a multiple of 8 in [8, 256] and repeat >= 0, "
                          "got N={} repeat={}",
                          n, repeat);
      }
      if (!wg.group_open) {
        wg.group_open = true;
        wg.open_group_begin = t;
        wg.open_group_done = t;
      }
      // Each instruction takes issue_cycles, and waits for room in the pipe's queue first (the
      // wait delays every later instruction of the group).
      Time stalled = 0;
      for (int64_t i = 0; i < repeat; ++i) {
        const Time want = t + m_ctx.sm_clock.cycles(static_cast<double>(i * tp.issue_cycles));
        const Time at = m_tensor.accept_time(want + stalled);
        stalled = at - want;
        wg.open_group_done =
            std::max(wg.open_group_done, m_tensor.issue(in.dtype, static_cast<int>(n),
                                                        (in.flags & program::kFlagRs) != 0, at,
                                                        m_ctas[wg.cta_slot].tensor_factor));
      }
      ++wg.pc;
      const int64_t cycles = std::max<int64_t>(1, repeat * tp.issue_cycles);
      if (cycles == 1 && stalled == 0) {
        return {Outcome::kContinue, 0};
      }
      return {Outcome::kSleep, t + m_ctx.sm_clock.cycles(static_cast<double>(cycles)) + stalled};
    }
    case Op::kWgmmaCommit: {
      retire_groups(wg, t);
      const Time done = wg.group_open ? wg.open_group_done : t;
      if (wg.group_count == kMaxPendingGroups) {
        // More committed groups than the hardware tracks: wait for the oldest.
        set_category(wg, WgCategory::kWaitWgmma, t);
        return {Outcome::kSleep, wg.groups[wg.group_head]};
      }
      if (m_ctx.timeline && wg.group_open) {
        // The group is named by the label of its last wgmma (the one before this commit).
        const auto& code = m_ctx.kernel.roles[wg.role].code;
        const std::string* label = m_ctx.kernel.label_of(code[wg.pc - 1]);
        m_ctx.timeline->slice(m_id, Timeline::kTensorTrack, label ? *label : "wgmma group",
                              wg.open_group_begin, done);
      }
      wg.groups[(wg.group_head + wg.group_count) % kMaxPendingGroups] = done;
      ++wg.group_count;
      wg.group_open = false;
      ++wg.pc;
      return {Outcome::kContinue, 0};
    }
    default: {
      const int64_t n = eval(wg, in.args[0]);
      retire_groups(wg, t);
      ++wg.pc;
      if (wg.group_count <= n) {
        const int cost = m_ctx.config.tensor.wait_cycles;
        if (cost <= 1) {
          return {Outcome::kContinue, 0};
        }
        return {Outcome::kSleep, t + m_ctx.sm_clock.cycles(cost)};
      }
      const auto k = static_cast<size_t>(wg.group_count - std::max<int64_t>(n, 0) - 1);
      set_category(wg, WgCategory::kWaitWgmma, t);
      return {Outcome::kSleep, wg.groups[(wg.group_head + k) % kMaxPendingGroups]};
    }
  }
}

// COMPUTE by one warpgroup (128 threads, one warp on each of the SM's four sub-partitions).
// Each unit's operations run in turn (the phases of a softmax depend on each other) on pipes
// shared by the SM's warpgroups, and every warp instruction also takes an issue slot: the
// sub-partitions' schedulers, shared by all warpgroups, issue sm.issue_slots warp
// instructions per SM cycle in total. A phase ends when both its pipe work and its issue are
// done: MUFU work is pipe-bound (8 cycles per warp instruction), FP32 work issue-bound, and
// the `inst` instructions (moves, uniform-datapath address arithmetic, shuffles, predicates)
// occupy issue slots only.
// Processor sharing between COMPUTEs that overlap: the new work [t, end) took its cycles in the
// gaps the earlier bookings left, as if it came last; on the hardware the schedulers interleave
// both, so every warpgroup still computing at t ends later by the time it now shares (its
// remaining time), but not after the newcomer. Two warpgroups that start their softmax together
// both end when the pair's work is done, as the H200 traces show (validation/traces/README.md).
void Sm::share_compute(const Warpgroup& self, Time t, Time end) {
  for (Warpgroup& other : m_wgs) {
    if (&other == &self || other.state != WgState::kSleeping ||
        other.category != WgCategory::kCompute || other.compute_end <= t) {
      continue;
    }
    const Time shared = other.compute_end - std::max(t, other.compute_begin);
    const Time later = std::min(end, other.compute_end + shared);
    if (later > other.compute_end) {
      other.compute_end = later;
      other.wake_not_before = later;
    }
  }
}

Sm::StepResult Sm::execute_compute(const Instr& in, const Warpgroup& wg, Time t) {
  const auto& s = m_ctx.config.sm;
  constexpr double kThreads = 128;
  constexpr double kWarps = 4;
  const std::array<double, 6> rate = {s.fp32_ops, s.fp16_ops, s.mufu_ops,
                                      s.cvt_ops,  s.int_ops,  s.smem_bytes_per_cycle};
  // Elements (bytes for shared memory) one thread handles per instruction: FFMA, HFMA2 (two
  // halves), MUFU, F2FP.PACK_AB (two conversions), IMAD, LDS/STS.128.
  constexpr std::array<double, 6> kPerInstr = {1, 2, 1, 2, 1, 16};
  const bool fill = s.compute_sharing != ComputeSharing::kReserve;
  // Reserves the issue slots of `inst` per-thread instructions from `from`; returns their end.
  auto issue = [&](double inst, Time from) {
    if (s.issue_slots <= 0 || inst <= 0) {
      return from;
    }
    const Time busy = m_ctx.sm_clock.cycles(inst * kWarps / s.issue_slots);
    m_stats.issue_busy += busy;
    return m_issue.book(t, from, busy, fill);
  };
  // In turn (default): each unit starts after the previous one and its instructions issue
  // alongside it. Side by side (sm.compute_overlap): every unit starts at t and all the
  // instructions issue together; the phase ends with the last of them.
  const bool overlap = s.compute_overlap;
  Time cursor = t;
  double inst = overlap ? static_cast<double>(eval(wg, in.args[7])) : 0;
  for (size_t u = 0; u < rate.size(); ++u) {
    const int64_t ops = eval(wg, in.args[u]);
    if (ops <= 0) {
      continue;
    }
    // Units are shared by the SM's warpgroups: work queues behind earlier work on the unit.
    const Time busy = m_ctx.sm_clock.cycles(static_cast<double>(ops) / rate[u]);
    const Time done = m_units[u].book(t, overlap ? t : cursor, busy, fill);
    m_stats.unit_busy[u] += busy;
    const double unit_inst = static_cast<double>(ops) / (kThreads * kPerInstr[u]);
    if (overlap) {
      cursor = std::max(cursor, done);
      inst += unit_inst;
    } else {
      cursor = std::max(done, issue(unit_inst, cursor));
    }
  }
  cursor = overlap ? std::max(cursor, issue(inst, t))
                   : issue(static_cast<double>(eval(wg, in.args[7])), cursor);
  const int64_t raw = eval(wg, in.args[6]);
  cursor += m_ctx.sm_clock.cycles(static_cast<double>(std::max<int64_t>(0, raw)));
  if (cursor <= t) {
    return {Outcome::kContinue, 0};
  }
  const Time end = std::max(cursor, t + m_ctx.sm_clock.cycles(1));
  Warpgroup& mut = m_wgs[static_cast<size_t>(&wg - m_wgs.data())];
  set_category(mut, WgCategory::kCompute, t);
  if (s.compute_sharing == ComputeSharing::kFair) {
    share_compute(mut, t, end);
  }
  mut.compute_begin = t;
  mut.compute_end = end;
  return {Outcome::kSleep, end};
}

}  // namespace asyncsim
