// Per-warpgroup and per-CTA state of one SM, as flat structs in fixed-size arrays.
#pragma once

#include <array>
#include <cstdint>

#include "engines/mbarrier.h"
#include "program/expr.h"
#include "program/ir.h"
#include "util/time.h"

namespace asyncsim {

// Where a warpgroup's time goes; one category at every instant of its life.
enum class WgCategory : uint8_t {
  kIssue,             // ready: issuing instructions (or waiting for the issue slot)
  kTmaIssue,          // held by the TMA issue gap
  kCompute,           // non-tensor work (COMPUTE)
  kWaitMbarrier,      // MB_WAIT / STAGE_* until the phase completes (incl. try_wait latency)
  kWaitWgmma,         // WGMMA_WAIT until enough groups complete
  kWaitNamedBarrier,  // BAR_SYNC until every participant arrives
  kWaitTmaQueue,      // TMA transaction queue full
  kWaitStore,         // TMA_STORE_WAIT until bulk stores have read shared memory
  kWaitLoad,          // LD_WAIT (or EXIT) until enough LD_GLOBAL are complete
  kWaitLsuQueue,      // load/store unit full (lsu.queue_depth)
  kCount,
};
const char* category_name(WgCategory c);

enum class WgState : uint8_t { kFree, kReady, kSleeping, kBlocked, kDone };
enum class BlockReason : uint8_t {
  kNone,
  kMbarrier,
  kNamedBarrier,
  kTmaQueue,
  kStores,
  kLoads,
  kLsuQueue,
};

inline constexpr int kMaxPendingGroups = 32;

struct Warpgroup {
  WgState state = WgState::kFree;
  WgCategory category = WgCategory::kIssue;
  BlockReason block = BlockReason::kNone;
  uint16_t cta_slot = 0;
  uint16_t role = 0;
  uint32_t pc = 0;
  uint64_t age = 0;  // launch order, for GTO's "oldest"
  Time category_since = 0;
  // Blocking details (for wake-up and deadlock reports).
  uint32_t wait_barrier = 0;  // SM-wide mbarrier index
  int64_t wait_value = 0;     // parity, store count, or named barrier id
  uint32_t wait_pc = 0;
  // Execution context: expression variables and loop bounds by depth.
  std::array<int64_t, program::kNumVars> vars{};
  std::array<int64_t, program::kMaxLoopDepth> loop_end{};
  // wgmma groups: completion times of committed groups (FIFO), and the open group.
  std::array<Time, kMaxPendingGroups> groups{};
  uint8_t group_head = 0;
  uint8_t group_count = 0;
  bool group_open = false;
  Time open_group_begin = 0;
  Time open_group_done = 0;
  int32_t pending_store_reads = 0;
  int32_t pending_loads = 0;  // LD_GLOBAL issued and not complete
  // The COMPUTE it sleeps in, and how late a later warpgroup's share of the pipes has pushed its
  // end (sm.compute_sharing=fair): a wake before that time is deferred to it.
  Time compute_begin = 0;
  Time compute_end = 0;
  Time wake_not_before = 0;
  // When its next mbarrier operation may start (tma.barrier_hold_cycles after a load).
  Time mbar_ready = 0;
  // When its next wait on an mbarrier or stage may start (tma.wait_after_issue_cycles).
  Time wait_ready = 0;
};

struct CtaSlot {
  bool live = false;
  int64_t cta = 0;
  uint32_t first_wg = 0;
  uint32_t num_wgs = 0;
  uint32_t live_wgs = 0;
  uint32_t barrier_base = 0;   // first SM-wide mbarrier index of this CTA
  int32_t pending_stores = 0;  // bulk stores still reading shared memory
  Time last_store_read = 0;
  Time start_time = 0;  // its first instruction may issue
  Time exit_time = 0;
  double tensor_factor = 1.0;  // tensor.cta_jitter's factor on this CTA's wgmma service
  std::array<NamedBarrier, 16> named{};
};

}  // namespace asyncsim
