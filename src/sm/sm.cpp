#include "sm/sm.h"

#include <algorithm>

#include "sim/resource_check.h"
#include "stats/timeline.h"
#include "util/error.h"

namespace asyncsim {

using program::Instr;
using program::Op;

const char* category_name(WgCategory c) {
  switch (c) {
    case WgCategory::kIssue:
      return "issue";
    case WgCategory::kTmaIssue:
      return "tma_issue";
    case WgCategory::kCompute:
      return "compute";
    case WgCategory::kWaitMbarrier:
      return "wait_mbarrier";
    case WgCategory::kWaitWgmma:
      return "wait_wgmma";
    case WgCategory::kWaitNamedBarrier:
      return "wait_named_barrier";
    case WgCategory::kWaitTmaQueue:
      return "wait_tma_queue";
    case WgCategory::kWaitStore:
      return "wait_store";
    case WgCategory::kWaitLoad:
      return "wait_load";
    case WgCategory::kWaitLsuQueue:
      return "wait_lsu_queue";
    case WgCategory::kCount:
      break;
  }
  return "?";
}

Sm::Sm(SimContext& ctx, uint16_t id)
    : m_ctx(ctx),
      m_id(id),
      m_tma(ctx, id),
      m_lsu(ctx, id, EngineKind::kLsu),
      m_tensor(ctx.config.tensor, ctx.config.sm.smem_bytes_per_cycle, ctx.sm_clock,
               ((ctx.config.tensor.slow_gpcs >> gpc_of_sm(ctx.config.sm, id)) & 1) != 0
                   ? ctx.config.tensor.slow_factor
                   : 1.0),
      m_wgs_per_cta(static_cast<uint32_t>(ctx.kernel.warpgroups_per_cta())) {
  const auto& k = ctx.kernel;
  m_barriers_per_cta = 0;
  for (const auto& b : k.barriers) {
    m_barrier_offset.push_back(m_barriers_per_cta);
    m_barriers_per_cta += static_cast<uint32_t>(b.size);
  }
  const auto slots = static_cast<size_t>(ctx.config.sm.max_ctas);
  m_ctas.resize(slots);
  m_wgs.resize(slots * m_wgs_per_cta);
  m_mbarriers.resize(slots * m_barriers_per_cta);
  for (size_t r = 0; r < k.roles.size(); ++r) {
    for (int i = 0; i < k.roles[r].warpgroups; ++i) {
      m_wg_role.push_back(static_cast<uint16_t>(r));
      m_wg_role_index.push_back(static_cast<uint32_t>(i));
    }
  }
  m_stats.role_time.resize(k.roles.size());
}

bool Sm::fits_another_cta() const {
  const auto& c = m_ctx.config.sm;
  const auto& k = m_ctx.kernel;
  return m_live_ctas < c.max_ctas && m_used_threads + k.threads_per_cta() <= c.max_threads &&
         m_used_regs + cta_registers(k) <= c.registers &&
         m_used_smem + cta_shared_memory(k, m_ctx.config) <= c.smem_bytes;
}

void Sm::launch_cta(int64_t cta, Time t) {
  const auto& k = m_ctx.kernel;
  uint32_t slot = 0;
  while (m_ctas[slot].live) {
    ++slot;
  }
  CtaSlot& c = m_ctas[slot];
  c = CtaSlot{};
  c.live = true;
  c.cta = cta;
  c.first_wg = slot * m_wgs_per_cta;
  c.num_wgs = m_wgs_per_cta;
  c.live_wgs = m_wgs_per_cta;
  c.barrier_base = slot * m_barriers_per_cta;
  c.tensor_factor = cta_tensor_factor(m_ctx.config.tensor.cta_jitter, cta);
  ++m_live_ctas;
  ++m_stats.ctas;
  m_used_threads += k.threads_per_cta();
  m_used_regs += cta_registers(k);
  m_used_smem += cta_shared_memory(k, m_ctx.config);
  uint32_t b = c.barrier_base;
  for (const auto& arr : k.barriers) {
    for (int i = 0; i < arr.size; ++i) {
      m_mbarriers[b++] = Mbarrier{arr.arrivals, arr.arrivals, 0, 0};
    }
  }
  const Time start = t + m_ctx.sm_clock.cycles(m_ctx.config.sm.cta_launch_cycles);
  c.start_time = start;
  for (uint32_t i = 0; i < m_wgs_per_cta; ++i) {
    const uint32_t w = c.first_wg + i;
    Warpgroup& wg = m_wgs[w];
    wg = Warpgroup{};
    wg.cta_slot = static_cast<uint16_t>(slot);
    wg.role = m_wg_role[i];
    wg.age = m_age++;
    wg.vars[program::kVarCta] = cta;
    wg.vars[program::kVarCtaX] = cta % k.grid[0];
    wg.vars[program::kVarCtaY] = (cta / k.grid[0]) % k.grid[1];
    wg.vars[program::kVarCtaZ] = cta / (k.grid[0] * k.grid[1]);
    wg.vars[program::kVarNumCtas] = k.num_ctas();
    wg.vars[program::kVarGridX] = k.grid[0];
    wg.vars[program::kVarGridY] = k.grid[1];
    wg.vars[program::kVarGridZ] = k.grid[2];
    wg.vars[program::kVarWg] = m_wg_role_index[i];
    wg.vars[program::kVarSm] = m_id;
    wg.state = WgState::kSleeping;
    wg.category = WgCategory::kIssue;
    wg.category_since = start;
    m_ctx.queue.push(start, EventKind::kWgWake, m_id, w);
    if (m_ctx.timeline) {
      m_ctx.timeline->name_track(
          m_id, w, fmt::format("slot {} {}[{}]", w, k.roles[wg.role].name, m_wg_role_index[i]));
    }
  }
}

// A COMPUTE slice is named by the instruction's label: the warpgroup sleeps right after it.
static std::string slice_name(const program::Kernel& k, const Warpgroup& wg) {
  const auto& code = k.roles[wg.role].code;
  const std::string* label = nullptr;
  if (wg.category == WgCategory::kCompute && wg.pc > 0 && wg.pc <= code.size()) {
    label = k.label_of(code[wg.pc - 1]);
  }
  return label ? *label : category_name(wg.category);
}

void Sm::set_category(Warpgroup& wg, WgCategory c, Time t) {
  if (c == wg.category) {
    return;
  }
  if (t > wg.category_since) {
    m_stats.role_time[wg.role][static_cast<size_t>(wg.category)] += t - wg.category_since;
    if (m_ctx.timeline) {
      m_ctx.timeline->slice(m_id, static_cast<uint32_t>(&wg - m_wgs.data()),
                            slice_name(m_ctx.kernel, wg), wg.category_since, t);
    }
  }
  wg.category = c;
  wg.category_since = t;
}

void Sm::close_categories(Time t) {
  for (auto& wg : m_wgs) {
    if (wg.state != WgState::kFree && wg.state != WgState::kDone) {
      const WgCategory c = wg.category;
      set_category(wg, c == WgCategory::kIssue ? WgCategory::kCompute : WgCategory::kIssue, t);
      set_category(wg, c, t);
    }
  }
}

void Sm::request_issue(Time t) {
  const Time edge = m_ctx.sm_clock.edge_at_or_after(t);
  if (m_issue_pending && m_issue_time <= edge) {
    return;
  }
  m_issue_pending = true;
  m_issue_time = edge;
  m_ctx.queue.push(edge, EventKind::kSmIssue, m_id);
}

void Sm::sleep(Warpgroup& wg, uint32_t wg_index, Time until, WgCategory c, Time t) {
  if (wg.state == WgState::kReady) {
    --m_ready;
  }
  wg.state = WgState::kSleeping;
  wg.block = BlockReason::kNone;
  wg.wake_not_before = 0;
  set_category(wg, c, t);
  m_ctx.queue.push(until, EventKind::kWgWake, m_id, wg_index);
}

void Sm::on_wake(uint32_t w, Time t) {
  Warpgroup& wg = m_wgs[w];
  if (wg.state != WgState::kSleeping) {
    return;
  }
  if (t < wg.wake_not_before) {
    // Its COMPUTE now shares the pipes with later work (sm.compute_sharing=fair).
    m_ctx.queue.push(wg.wake_not_before, EventKind::kWgWake, m_id, w);
    return;
  }
  wg.state = WgState::kReady;
  ++m_ready;
  set_category(wg, WgCategory::kIssue, t);
  request_issue(t);
}

int Sm::pick(Time t) {
  (void)t;
  const auto n = static_cast<int32_t>(m_wgs.size());
  if (m_ctx.config.sm.scheduler == SchedulerPolicy::kGto) {
    if (m_last_issued >= 0 && m_wgs[m_last_issued].state == WgState::kReady) {
      return m_last_issued;
    }
    int best = -1;
    for (int32_t i = 0; i < n; ++i) {
      if (m_wgs[i].state == WgState::kReady && (best < 0 || m_wgs[i].age < m_wgs[best].age)) {
        best = i;
      }
    }
    return best;
  }
  for (int32_t k = 1; k <= n; ++k) {
    const int32_t i = (m_last_issued + k + n) % n;
    if (m_wgs[i].state == WgState::kReady) {
      return i;
    }
  }
  return -1;
}

void Sm::on_issue(Time t) {
  if (!m_issue_pending || t != m_issue_time) {
    return;  // superseded by an earlier request
  }
  m_issue_pending = false;
  const int w = pick(t);
  if (w < 0) {
    return;
  }
  m_last_issued = w;
  Warpgroup& wg = m_wgs[w];
  const StepResult r = execute(wg, static_cast<uint32_t>(w), t);
  if (r.outcome != Outcome::kHold) {
    ++m_stats.instructions;
  }
  if (r.outcome == Outcome::kSleep || r.outcome == Outcome::kHold) {
    sleep(wg, static_cast<uint32_t>(w), r.until, wg.category, t);
  }
  if (m_ready > 0) {
    request_issue(t + 1);
  }
}

int64_t Sm::eval(const Warpgroup& wg, program::ExprId e) const {
  try {
    return m_ctx.kernel.exprs.eval(e, wg.vars.data());
  } catch (const InputError& err) {
    throw InputError(where(m_ctx.kernel.roles[wg.role].code[wg.pc]), err.what());
  }
}

std::string Sm::where(const Instr& in) const {
  return format_location(m_ctx.kernel.source, static_cast<int>(in.line));
}

bool Sm::control_flow(Warpgroup& wg, const Instr& in) {
  const auto& code = m_ctx.kernel.roles[wg.role].code;
  switch (in.op) {
    case Op::kLoop: {
      const int64_t b = eval(wg, in.args[0]);
      const int64_t e = eval(wg, in.args[1]);
      if (b >= e) {
        wg.pc = in.jump + 1;
      } else {
        wg.vars[program::kVarLoop0 + in.ref] = b;
        wg.loop_end[in.ref] = e;
        ++wg.pc;
      }
      return true;
    }
    case Op::kEndLoop: {
      const int depth = code[in.jump].ref;
      if (++wg.vars[program::kVarLoop0 + depth] < wg.loop_end[depth]) {
        wg.pc = in.jump + 1;
      } else {
        ++wg.pc;
      }
      return true;
    }
    case Op::kIf:
      wg.pc = eval(wg, in.args[0]) != 0 ? wg.pc + 1 : in.jump + 1;
      return true;
    case Op::kElse:
      wg.pc = in.jump + 1;
      return true;
    case Op::kEndIf:
      ++wg.pc;
      return true;
    default:
      return false;
  }
}

namespace {
bool is_mbarrier_op(Op op) {
  switch (op) {
    case Op::kMbArrive:
    case Op::kMbExpectTx:
    case Op::kMbArriveExpectTx:
    case Op::kMbWait:
    case Op::kStageAcquire:
    case Op::kStageWait:
    case Op::kStageRelease:
      return true;
    default:
      return false;
  }
}
}  // namespace

Sm::StepResult Sm::execute(Warpgroup& wg, uint32_t w, Time t) {
  const auto& code = m_ctx.kernel.roles[wg.role].code;
  // Control flow is free, but a long run of it (an empty loop) costs one cycle per 64 steps.
  for (int steps = 0; control_flow(wg, code[wg.pc]); ++steps) {
    if (steps == 64) {
      return {Outcome::kContinue, 0};
    }
  }
  const Instr& in = code[wg.pc];
  // An mbarrier operation waits until the warp's last TMA load is registered with its mbarrier
  // (tma.barrier_hold_cycles after the load's issue; validation/data/h200/micro_tma_loop.csv:
  // arming and issuing one copy per mbarrier costs ~172 cycles a copy whatever the copy).
  if (t < wg.mbar_ready && is_mbarrier_op(in.op)) {
    set_category(wg, WgCategory::kWaitMbarrier, t);
    return {Outcome::kHold, wg.mbar_ready};
  }
  // A wait after the warp's own TMA load starts once that load's issue gap and
  // tma.wait_after_issue_cycles have passed (micro_tma_loop.csv's steady rows).
  if (t < wg.wait_ready &&
      (in.op == Op::kMbWait || in.op == Op::kStageAcquire || in.op == Op::kStageWait)) {
    set_category(wg, WgCategory::kWaitMbarrier, t);
    return {Outcome::kHold, wg.wait_ready};
  }
  if (m_ctx.issue_trace && (wg.role == 0 || m_ctx.trace_every_role) &&
      (wg.vars[program::kVarCta] == 0 || m_ctx.trace_every_cta) && wg.vars[program::kVarWg] == 0) {
    m_ctx.issue_trace->push_back({t, in.op, wg.role, wg.vars[program::kVarCta]});
  }
  switch (in.op) {
    case Op::kTmaLoad:
    case Op::kTmaStore:
    case Op::kBulkLoad:
    case Op::kBulkStore:
    case Op::kTmaStoreWait:
      return execute_memory(wg, w, in, t);
    case Op::kLdGlobal:
    case Op::kStGlobal:
    case Op::kLdWait:
      return execute_lsu(wg, w, in, t);
    case Op::kWgmma:
    case Op::kWgmmaCommit:
    case Op::kWgmmaWait:
      return execute_tensor(wg, in, t);
    case Op::kCompute:
      ++wg.pc;
      return execute_compute(in, wg, t);
    case Op::kExit:
      if (wg.pending_loads > 0) {  // a warp retires once its loads have written their registers
        return block_on_loads(wg, 0, t);
      }
      warpgroup_exit(wg, t);
      return {Outcome::kExit, 0};
    default:
      return execute_barrier(wg, w, in, t);
  }
}

void Sm::warpgroup_exit(Warpgroup& wg, Time t) {
  set_category(wg, WgCategory::kIssue, t);
  set_category(wg, WgCategory::kCompute, t);  // flush the current slice
  --m_ready;
  wg.state = WgState::kDone;
  CtaSlot& c = m_ctas[wg.cta_slot];
  if (--c.live_wgs == 0) {
    c.exit_time = t;
    if (c.pending_stores == 0) {
      m_ctx.queue.push(t + m_ctx.sm_clock.cycles(m_ctx.config.sm.cta_exit_cycles),
                       EventKind::kCtaRelease, m_id, wg.cta_slot);
    }
  }
}

void Sm::wake_blocked(uint32_t cta_slot, BlockReason reason, Time at) {
  const bool all = cta_slot == UINT32_MAX;
  for (uint32_t i = 0; i < m_wgs.size(); ++i) {
    Warpgroup& wg = m_wgs[i];
    if (wg.state == WgState::kBlocked && wg.block == reason && (all || wg.cta_slot == cta_slot)) {
      if (reason == BlockReason::kStores && wg.pending_store_reads > wg.wait_value) {
        continue;
      }
      sleep(wg, i, at, wg.category, at);
    }
  }
}

bool Sm::on_cta_release(uint32_t slot) {
  CtaSlot& c = m_ctas[slot];
  if (!c.live) {
    return false;
  }
  c.live = false;
  --m_live_ctas;
  const auto& k = m_ctx.kernel;
  m_used_threads -= k.threads_per_cta();
  m_used_regs -= cta_registers(k);
  m_used_smem -= cta_shared_memory(k, m_ctx.config);
  for (uint32_t i = c.first_wg; i < c.first_wg + c.num_wgs; ++i) {
    m_wgs[i].state = WgState::kFree;
  }
  return true;
}

std::string Sm::describe_blocked() const {
  const auto& k = m_ctx.kernel;
  std::string out;
  for (uint32_t i = 0; i < m_wgs.size(); ++i) {
    const Warpgroup& wg = m_wgs[i];
    if (wg.state != WgState::kBlocked) {
      continue;
    }
    const auto& role = k.roles[wg.role];
    const Instr& in = role.code[wg.wait_pc];
    std::string what;
    switch (wg.block) {
      case BlockReason::kMbarrier: {
        const CtaSlot& c = m_ctas[wg.cta_slot];
        uint32_t rel = wg.wait_barrier - c.barrier_base;
        size_t a = 0;
        while (rel >= static_cast<uint32_t>(k.barriers[a].size)) {
          rel -= static_cast<uint32_t>(k.barriers[a].size);
          ++a;
        }
        const Mbarrier& mb = m_mbarriers[wg.wait_barrier];
        what = fmt::format(
            "mbarrier {}[{}] to complete the phase of parity {} (completed phases "
            "{}, arrivals pending {} of {}, tx bytes pending {})",
            k.barriers[a].name, rel, wg.wait_value, mb.phase, mb.pending, mb.expected, mb.tx);
        break;
      }
      case BlockReason::kNamedBarrier: {
        const NamedBarrier& nb = m_ctas[wg.cta_slot].named[static_cast<size_t>(wg.wait_value)];
        what = fmt::format("named barrier {} ({} of {} threads arrived)", wg.wait_value, nb.arrived,
                           nb.expected);
        break;
      }
      case BlockReason::kTmaQueue:
        what = "a free TMA transaction slot";
        break;
      case BlockReason::kStores:
        what = fmt::format("bulk stores to drain to {} (pending {})", wg.wait_value,
                           wg.pending_store_reads);
        break;
      case BlockReason::kLoads:
        what = fmt::format("global loads to complete down to {} (pending {})", wg.wait_value,
                           wg.pending_loads);
        break;
      case BlockReason::kLsuQueue:
        what = "a free load/store unit slot";
        break;
      case BlockReason::kNone:
        what = "nothing";
        break;
    }
    out += fmt::format("  SM {} CTA {} role {} warpgroup {}: at {} ({}) waits for {}\n", m_id,
                       m_ctas[wg.cta_slot].cta, role.name, wg.vars[program::kVarWg],
                       format_location(k.source, static_cast<int>(in.line)),
                       program::op_name(in.op), what);
  }
  return out;
}

}  // namespace asyncsim
