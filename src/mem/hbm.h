// HBM3/HBM3e DRAM behind the L2: channels -> pseudo-channels -> stack IDs -> bank groups ->
// banks, each bank with an open row, JEDEC timing constraints, posted writes drained in batches,
// optional all-bank refresh, and an address mapping tuned to what the H200 data shows
// (docs/memory.md, "DRAM").
//
// Contract: access() serves one request of `bytes` (a multiple of burst_bytes, inside one
// 128-B line) arriving at the controller at time `t`, immediately, in the reservation style of
// the memory system: every resource keeps "free from" horizons, so contention costs no events.
// Requests must come in approximately non-decreasing `t`. A read returns when its data is back
// at the L2; a write is posted: it returns its acceptance time `t` and reaches the array in the
// next drain of its pseudo-channel's write queue (flush() drains every queue).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "mem/mem_bits.h"
#include "util/fast_div.h"
#include "util/slot_calendar.h"
#include "util/time.h"

namespace asyncsim {

// Defaults are the H200 (HBM3e, 6 stacks, 6.4 Gb/s/pin); docs/memory.md gives every source.
// Timings are in nanoseconds, JEDEC names in the comments.
struct HbmParams {
  // Organisation.
  int channels = 96;        // 6 stacks x 16 channels (6144-bit bus)
  int pseudo_channels = 2;  // per channel, 32 bits each (JESD238)
  int stack_ids = 2;        // SIDs sharing a pseudo-channel (8-high stack)
  int bank_groups = 4;      // per SID
  int banks_per_group = 4;
  int pc_width_bits = 32;     // data bits of one pseudo-channel
  int burst_bytes = 32;       // BL8 x 32 bits: one column access
  int row_bytes = 1024;       // page of one bank of one pseudo-channel
  double clock_mhz = 3201.0;  // nvidia-smi memory clock; data moves on both edges
  // Address mapping: an aligned window_bytes window is spread over window/interleave
  // pseudo-channels of one group, interleave_bytes each (see decode()).
  int interleave_bytes = 256;
  int window_bytes = 8192;
  // Also fold every address bit above the window into the pseudo-channel choice (as GPUs hash
  // the channel from many address bits), so a stride of whole windows spreads over the
  // pseudo-channels instead of staying in one until the row changes.
  bool hash_upper = true;
  // Timing, ns.
  double t_rcd_ns = 14.375;   // tRCD: ACT -> RD/WR
  double t_rp_ns = 14.375;    // tRP: PRE -> ACT
  double t_ras_ns = 34.375;   // tRAS: ACT -> PRE
  double t_cl_ns = 14.375;    // tCL (RL): RD -> first data
  double t_wl_ns = 4.375;     // tWL (CWL): WR -> first data
  double t_rtp_ns = 4.375;    // tRTP: RD -> PRE
  double t_wr_ns = 16.25;     // tWR: end of write data -> PRE
  double t_ccd_s_ns = 1.25;   // tCCD_S: column -> column, other bank group
  double t_ccd_l_ns = 2.5;    // tCCD_L: column -> column, same bank group
  double t_rrd_s_ns = 1.25;   // tRRD_S: ACT -> ACT, other bank group (same SID)
  double t_rrd_l_ns = 2.5;    // tRRD_L: ACT -> ACT, same bank group
  double t_faw_ns = 30.0;     // tFAW: at most 4 ACTs per SID in any window this long
  double t_wtr_s_ns = 6.25;   // tWTR_S: end of write data -> RD, other bank group
  double t_wtr_l_ns = 8.125;  // tWTR_L: end of write data -> RD, same bank group
  double t_rtw_ns = 1.25;     // bus bubble from the end of read data to write data
  double t_refi_ns = 3900.0;  // tREFI: all-bank refresh interval per pseudo-channel
  double t_rfc_ns = 410.0;    // tRFC: all-bank refresh duration
  bool refresh = false;       // model all-bank refresh (off: per-bank refresh hides it)
  // Per-bank refresh (REFpb): each bank is refreshed once per tREFI for tRFCpb, the banks'
  // refreshes staggered evenly, while the other banks keep serving.
  bool refresh_per_bank = true;
  double t_rfcpb_ns = 250.0;
  // Pseudo-channels (aligned blocks of this many in a window's group, the slots that contiguous
  // granules fill) that refresh each bank index at the same moment: 1 = every pseudo-channel on
  // its own schedule.
  int refresh_sync_pcs = 1;
  // Per-bank refreshes go round the bank indices, the whole chip's bank b in the b-th share of
  // tREFI (pseudo-channels staggered within it), as a controller issues REFpb in bank order;
  // false: the stagger of refresh_sync_pcs blocks (bank_refresh_offset).
  bool refresh_by_bank_index = false;
  // A bank used within this long before its refresh is due postpones it (the controller serves
  // the queued reads and refreshes later, in an idle moment the model does not time), at most
  // kMaxPostponedRefreshes times in a row; 0: never postponed.
  double refresh_postpone_ns = 0.0;
  // Controller.
  double ctrl_latency_ns = 127.0;  // fixed L2 -> controller -> PHY -> L2 path (fitted)
  int frfcfs_window = 4;           // row hits that may bypass one queued row switch per bank
  // Posted writes per pseudo-channel drained together. 10 is the batch fitted on the HBM-alone
  // copy harness (tests/mem/hbm_test.cpp); the H200 config sets 64 with drain_when_idle, fitted
  // through the whole memory system (configs/h200.yaml).
  int write_batch = 10;
  // Also drain the queued writes when one arrives at a pseudo-channel whose bus has nothing booked
  // (reads leave it idle), instead of waiting for a full batch.
  bool drain_when_idle = false;
  // Each aligned block of refresh_sync_pcs granules of a window picks its group by a hash of its
  // address (the granules keep their slots, so a window still spreads over as many distinct
  // pseudo-channels), instead of the whole window taking one group.
  bool group_per_block = false;
  double bus_efficiency = 0.94;  // fraction of the data-bus peak usable (fitted)
  // A read's data takes the pseudo-channel's bus at its own time (from its CAS latency on, in
  // the slots earlier reads left free, util/slot_calendar.h) instead of a budget that advances
  // in arrival order: reads whose rows open late no longer leave their bus time to others.
  // Off here (the harnesses of tests/mem/hbm_test.cpp were timed with the budget); the H200
  // and H100 configs set it.
  bool bus_calendar = false;
};

// Where a byte address lives. `pc` is the global pseudo-channel index
// (channel * pseudo_channels + pseudo-channel); `bank` is the index within the pseudo-channel.
struct HbmAddress {
  int pc = 0;
  int bank = 0;  // sid * bank_groups * banks_per_group + bank_in_group * bank_groups + bg
  int column = 0;
  int64_t row = 0;
  int channel(const HbmParams& p) const { return pc / p.pseudo_channels; }
};

class HbmSystem {
 public:
  static constexpr int64_t kMaxBanks = int64_t{1} << 22;  // the H200 has 6144
  struct Stats {
    uint64_t reads = 0;
    uint64_t writes = 0;          // accepted
    uint64_t writes_drained = 0;  // reached the array
    uint64_t row_hits = 0;        // reads and writes, bypassing hits included
    uint64_t row_misses = 0;      // bank was closed: ACT
    uint64_t row_conflicts = 0;   // another row was open: PRE + ACT
    uint64_t bypass_hits = 0;     // row hits served ahead of a queued row switch (FR-FCFS)
    uint64_t activates = 0;
    uint64_t drains = 0;
    uint64_t refreshes = 0;
    uint64_t read_bytes = 0;
    uint64_t write_bytes = 0;
    Time busy_ps = 0;  // data-bus time, summed over pseudo-channels
  };

  // Throws InputError (where "dram") when the organisation or mapping is inconsistent.
  explicit HbmSystem(const HbmParams& params);

  Time access(uint64_t addr, int bytes, bool write, Time t);
  // access() of a read (write = false), inline in mem/hbm_path.h. `now` is the simulated time
  // of the request being served (non-decreasing, <= t): what dram.bus_calendar's calendars
  // may forget before (access() passes the latest `t` it saw).
  Time read_access(uint64_t addr, int bytes, Time t, Time now);
  // A hint with no effect on any result: starts loading the state an access to `addr` reads
  // (its bank, bank group, SID and pseudo-channel) into the host's caches.
  void prefetch(uint64_t addr) const {
    const HbmAddress a = decode(addr);
    const Bank* bank = &m_banks[static_cast<size_t>(a.pc * m_banks_per_pc + a.bank)];
    __builtin_prefetch(bank);  // one host line (see Bank)
    __builtin_prefetch(&m_pcs[static_cast<size_t>(a.pc)]);
  }
  // Drains every queued write at time t or later; returns when every write accepted so far
  // has reached the array.
  Time flush(Time t);

  HbmAddress decode(uint64_t addr) const {
    const uint64_t key = addr >> m_window_shift;
    DecodeSlot& slot = m_decode_cache[key & (kDecodeSlots - 1)];
    if (slot.key != key) {
      decode_window(key, slot);
    }
    HbmAddress a = slot.address;
    const uint64_t granule = addr >> m_interleave_shift;
    const uint64_t j = (granule ^ slot.slot_xor) & static_cast<uint64_t>(m_slots - 1);
    if (m_params.group_per_block) {
      // Per aligned block of dram.refresh_sync_pcs granules, which refresh together.
      const uint64_t h = mix64(granule >> m_sync_shift) >> 32;
      const uint64_t group = (h * static_cast<uint64_t>(m_pc_groups)) >> 32;
      a.pc = static_cast<int>(group * static_cast<uint64_t>(m_slots) + j);
    } else {
      a.pc += static_cast<int>(j);
    }
    return a;
  }
  const Stats& stats() const { return m_stats; }
  const HbmParams& params() const { return m_params; }
  int num_pcs() const { return m_num_pcs; }
  // Peak data rate of all pseudo-channels together, bytes per second.
  double peak_bytes_per_second() const;
  // Latency of an isolated read of `bytes` that opens its row in an idle closed bank.
  Time idle_miss_latency(int bytes) const;

 private:
  // The start every access shares: the address decoded and the refreshes due by `t` applied
  // (inline in mem/hbm_path.h).
  HbmAddress begin_access(uint64_t addr, Time t);
  // One host line per bank (a DRAM access reads its bank first; at 80 bytes most banks spanned
  // two): the refresh stagger is worked out when a refresh is due (bank_refresh_offset()).
  struct alignas(64) Bank {
    int64_t open_row = -1;
    int64_t prev_row = -1;  // row closed by the latest switch, for FR-FCFS bypass
    Time act_ok = 0;        // earliest next ACT (tRP after the last PRE)
    Time pre_ok = 0;        // earliest PRE (tRAS, tRTP, tWR)
    Time cas_ok = 0;        // earliest column command (tRCD)
    Time switch_pre = 0;    // when the PRE that closed prev_row was issued
    // How long before switch_pre prev_row took its first column command (its ACT + tRCD): a
    // bypassing hit reads no earlier (ps; within one host line with the fields above).
    uint32_t prev_cas_lead = 0;
    int16_t bypasses = 0;   // dram.frfcfs_window is at most 32767
    int16_t postponed = 0;  // refreshes skipped in a row under dram.refresh_postpone_ns
    Time next_refresh = 0;  // the start of the tREFI epoch after the latest refresh applied
  };
  static_assert(sizeof(Bank) == 64);
  // Where in each tREFI bank `i` (of all banks of the chip) is refreshed: at i/N of it, the
  // stagger a stride coprime to the bank count, so neighbouring banks refresh far apart.
  // With dram.refresh_sync_pcs = S the pseudo-channels of an aligned block of S share it per bank
  // index: contiguous data over those S pseudo-channels meets one refresh, not S.
  // With dram.refresh_by_bank_index the order is bank-major instead: every pseudo-channel's
  // bank b within 1 / (banks per pseudo-channel) of tREFI, so the lines of one copy (one bank
  // index per window) meet one refresh window, not one per block of pseudo-channels.
  Time bank_refresh_offset(int64_t i) const {
    if (m_params.refresh_by_bank_index) {
      const int64_t pc = i / m_banks_per_pc;
      const int64_t bank = i % m_banks_per_pc;
      return m_refi * (bank * m_num_pcs + pc) / (static_cast<int64_t>(m_banks_per_pc) * m_num_pcs);
    }
    const int64_t sync = m_params.refresh_sync_pcs;
    const int64_t unit = i / (m_banks_per_pc * sync) * m_banks_per_pc + i % m_banks_per_pc;
    const auto total = static_cast<int64_t>(m_banks.size()) / sync;
    return m_refi * (unit * 97 % total) / total;
  }
  struct Group {        // one bank group of one SID
    Time cas_free = 0;  // tCCD_L budget horizon
    Time act_free = 0;  // tRRD_L budget horizon
    Time write_end = -kTimeNever;
  };
  struct Sid {  // activate budget: tRRD_S spacing and the tFAW window
    Time act_free = 0;
    std::array<Time, 4> faw{-kTimeNever, -kTimeNever, -kTimeNever, -kTimeNever};
    uint32_t faw_head = 0;
  };
  struct PseudoChannel {
    Time bus_free = 0;  // data-bus horizon (fluid: other bank groups fill tCCD_L gaps)
    Time read_end = -kTimeNever;
    Time write_end = -kTimeNever;
    // The bus at the end of the last drain's data, and the horizon its write-to-read turnaround
    // left (bus_free still equals it while no read has come since): a drain after a drain needs
    // no turnaround.
    Time drain_bus_end = -kTimeNever;
    Time turned_bus = -kTimeNever;
    int64_t refresh_epoch = 0;
    int32_t queued_writes = 0;
    // Where a drain's writes may start on the bus (no turnaround after a drain).
    Time write_bus_free() const { return bus_free == turned_bus ? drain_bus_end : bus_free; }
  };
  struct QueuedWrite {
    int32_t bank;
    int32_t bursts;
    int64_t row;
  };

  Time read(const HbmAddress& a, int bursts, Time t);
  void drain(int pc, Time t);
  // Opens `row` in bank `b` (PRE and ACT as needed) no earlier than t; returns the earliest
  // column-command time and counts the hit/miss/conflict.
  Time open_row(int pc, int b, int64_t row, Time t);
  Time schedule_act(int pc, int b, Time earliest);
  void apply_refresh(int pc, Time t);
  void apply_bank_refresh(int pc, int bank, Time t);
  Group& group_of(int pc, int b);
  Sid& sid_of(int pc, int b);

  HbmParams m_params;
  int m_num_pcs;
  int m_banks_per_sid;
  int m_banks_per_pc;
  int m_groups_per_pc;
  int m_slots;            // pseudo-channels per group (window / interleave)
  int m_pc_groups;        // num_pcs / slots
  int m_group_pow2_bits;  // m_pc_groups = 2^bits * m_group_odd
  int m_group_odd;
  FastDiv m_odd_div;    // by m_group_odd
  Time m_postpone = 0;  // dram.refresh_postpone_ns
  static constexpr int32_t kMaxPostponedRefreshes = 8;
  FastDiv m_refi_div;  // by tREFI (ps)
  // Powers of two (checked at construction): the per-access divisions are shifts and masks.
  int m_burst_shift = 0;  // log2(dram.burst_bytes)
  int m_sync_shift = 0;   // log2(dram.refresh_sync_pcs) (a power of two with group_per_block)
  int m_sid_shift = 0;    // log2(banks per SID)
  int m_bg_mask = 0;      // dram.bank_groups - 1
  int m_group_fold_bits;  // fold width for the power-of-two part of the group
  uint64_t m_group_pow2_mask;
  int m_interleave_shift, m_window_shift, m_column_bits, m_bank_bits, m_slot_bits;
  int m_row_shift;
  // Decoded windows (addr >> window), direct-mapped: a kernel's DRAM traffic comes back to the
  // same windows (the memory system's prefetch hint decodes every L2 read, hits included, and
  // tiles are re-read), and a decode is ~170 host instructions. Every field but the slot within
  // the window's group depends on the window alone, and the slot on it through one XOR: a
  // stream decodes once per 8 KB window instead of once per 256-B granule.
  struct DecodeSlot {
    uint64_t key = UINT64_MAX;
    HbmAddress address;  // of the window's first granule (slot_xor's slot)
    uint32_t slot_xor = 0;
  };
  void decode_window(uint64_t window, DecodeSlot& slot) const;
  static constexpr size_t kDecodeSlots = 4096;
  mutable std::vector<DecodeSlot> m_decode_cache = std::vector<DecodeSlot>(kDecodeSlots);
  // Timing in ps.
  Time m_rcd, m_rp, m_ras, m_cl, m_wl, m_rtp, m_wr, m_ccd_l, m_rrd_s, m_rrd_l, m_faw;
  Time m_wtr_s, m_wtr_l, m_rtw, m_refi, m_rfc, m_rfcpb, m_ctrl, m_burst_slot, m_burst;
  std::vector<Bank> m_banks;    // [pc][bank]
  std::vector<Group> m_groups;  // [pc][sid][bg]
  std::vector<Sid> m_sids;      // [pc][sid]
  std::vector<PseudoChannel> m_pcs;
  std::vector<QueuedWrite> m_write_queue;  // [pc][write_batch]
  std::vector<SlotCalendar> m_bus_cal;     // [pc], with dram.bus_calendar (slots of m_burst_slot)
  Time m_now = 0;                          // read_access()'s `now`
  Stats m_stats;
};

}  // namespace asyncsim
