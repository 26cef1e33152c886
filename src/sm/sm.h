// One streaming multiprocessor: resident CTAs and their warpgroups, the warpgroup scheduler
// (GTO or LRR, one warpgroup instruction per cycle), in-order issue with blocking waits woken by
// events, and the SM's TMA engine, tensor engine, mbarriers and named barriers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engines/tensor_engine.h"
#include "engines/tma_engine.h"
#include "sim/context.h"
#include "sm/warpgroup.h"
#include "util/calendar.h"

namespace asyncsim {

struct SmStats {
  uint64_t instructions = 0;
  uint64_t ctas = 0;
  std::vector<std::array<Time, static_cast<size_t>(WgCategory::kCount)>> role_time;  // [role][cat]
  std::array<Time, 6> unit_busy{};  // fp32, fp16, mufu, cvt, int, smem
  Time issue_busy = 0;              // issue slots taken by COMPUTE (SM-wide, in time)
};

class Sm {
 public:
  Sm(SimContext& ctx, uint16_t id);

  // Block-scheduler interface.
  bool fits_another_cta() const;
  void launch_cta(int64_t cta, Time t);
  int live_ctas() const { return m_live_ctas; }

  // Event handlers.
  void on_issue(Time t);
  void on_wake(uint32_t wg, Time t);
  void on_tma_done(uint32_t payload, Time t);
  void on_tma_generate(Time t) { m_tma.generate(t); }
  void on_lsu_done(uint32_t payload, Time t);
  void on_lsu_generate(Time t) { m_lsu.generate(t); }
  // Returns true when the CTA slot was live and is now released.
  bool on_cta_release(uint32_t slot);
  const CtaSlot& cta_slot(uint32_t slot) const { return m_ctas[slot]; }

  // End-of-run accounting and reporting.
  void close_categories(Time t);
  std::string describe_blocked() const;
  bool has_live_work() const { return m_live_ctas > 0; }
  const SmStats& stats() const { return m_stats; }
  const TmaEngine& tma() const { return m_tma; }
  const TmaEngine& lsu() const { return m_lsu; }
  const TensorEngine& tensor() const { return m_tensor; }
  uint16_t id() const { return m_id; }
  Time last_write_ack() const { return m_last_write_ack; }

 private:
  // kHold: the instruction did not start (it waits for tma.barrier_hold_cycles); the warpgroup
  // sleeps until `until` and issues it again, which is not counted as an instruction.
  enum class Outcome : uint8_t { kContinue, kSleep, kBlocked, kExit, kHold };
  struct StepResult {
    Outcome outcome;
    Time until;  // kSleep: wake time
  };
  int pick(Time t);
  void request_issue(Time t);
  StepResult execute(Warpgroup& wg, uint32_t wg_index, Time t);
  StepResult execute_memory(Warpgroup& wg, uint32_t wg_index, const program::Instr& in, Time t);
  StepResult execute_lsu(Warpgroup& wg, uint32_t wg_index, const program::Instr& in, Time t);
  StepResult block_on_loads(Warpgroup& wg, int64_t n, Time t);
  StepResult block_on_queue(Warpgroup& wg, BlockReason reason, WgCategory c, Time t);
  StepResult execute_barrier(Warpgroup& wg, uint32_t wg_index, const program::Instr& in, Time t);
  StepResult execute_tensor(Warpgroup& wg, const program::Instr& in, Time t);
  StepResult execute_compute(const program::Instr& in, const Warpgroup& wg, Time t);
  void share_compute(const Warpgroup& self, Time t, Time end);
  StepResult wait_mbarrier(Warpgroup& wg, uint32_t barrier, int64_t parity, bool suspend, Time t);
  StepResult named_barrier(Warpgroup& wg, uint32_t wg_index, int64_t id, int64_t threads, bool wait,
                           Time t);
  bool control_flow(Warpgroup& wg, const program::Instr& in);
  int64_t eval(const Warpgroup& wg, program::ExprId e) const;
  uint32_t barrier_index(const Warpgroup& wg, const program::BarrierRef& ref,
                         const program::Instr& in) const;
  void mbarrier_changed(uint32_t cta_slot, uint32_t barrier, Time t);
  void set_category(Warpgroup& wg, WgCategory c, Time t);
  void sleep(Warpgroup& wg, uint32_t wg_index, Time until, WgCategory c, Time t);
  void wake_blocked(uint32_t cta_slot, BlockReason reason, Time at);
  void warpgroup_exit(Warpgroup& wg, Time t);
  void retire_groups(Warpgroup& wg, Time t);
  std::string where(const program::Instr& in) const;

  SimContext& m_ctx;
  uint16_t m_id;
  TmaEngine m_tma;
  TmaEngine m_lsu;
  TensorEngine m_tensor;
  uint32_t m_wgs_per_cta;
  uint32_t m_barriers_per_cta;
  std::vector<CtaSlot> m_ctas;
  std::vector<Warpgroup> m_wgs;
  std::vector<Mbarrier> m_mbarriers;
  std::vector<uint32_t> m_barrier_offset;  // first element of each barrier array in a CTA
  std::vector<uint32_t> m_wg_role_index;   // warpgroup slot within CTA -> (role, index in role)
  std::vector<uint16_t> m_wg_role;
  std::array<Calendar, 6> m_units{};  // COMPUTE pipes, shared by the SM's warpgroups
  Calendar m_issue;                   // COMPUTE issue slots, SM-wide
  int m_live_ctas = 0;
  int64_t m_used_threads = 0;
  int64_t m_used_regs = 0;
  int64_t m_used_smem = 0;
  uint64_t m_age = 0;
  int32_t m_last_issued = -1;
  uint32_t m_ready = 0;
  bool m_issue_pending = false;
  Time m_issue_time = 0;
  Time m_last_write_ack = 0;
  SmStats m_stats;
};

}  // namespace asyncsim
