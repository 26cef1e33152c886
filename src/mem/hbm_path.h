// The HBM model's read path (bank state, row opening, bus and bank timing), inlined where the
// memory system issues its DRAM reads (memory_system.cpp) and in hbm.cpp. See hbm.h.
#pragma once

#include <algorithm>

#include "mem/hbm.h"

namespace asyncsim {

// Bank index bits, low to high: bank group, bank within the group, SID. Consecutive bank
// indices therefore alternate bank groups.
inline HbmSystem::Group& HbmSystem::group_of(int pc, int b) {
  const int sid = b >> m_sid_shift;
  const int bg = b & m_bg_mask;
  return m_groups[static_cast<size_t>(pc * m_groups_per_pc + sid * m_params.bank_groups + bg)];
}

inline HbmSystem::Sid& HbmSystem::sid_of(int pc, int b) {
  return m_sids[static_cast<size_t>(pc * m_params.stack_ids + (b >> m_sid_shift))];
}

// Inlined into read() and drain(), its only callers: GCC left it a call on every DRAM access.
[[gnu::always_inline]] inline Time HbmSystem::open_row(int pc, int b, int64_t row, Time t) {
  Bank& bank = m_banks[static_cast<size_t>(pc * m_banks_per_pc + b)];
  if (bank.open_row == row) {
    ++m_stats.row_hits;
    return std::max(t, bank.cas_ok);
  }
  Time act_earliest;
  if (bank.open_row < 0) {
    ++m_stats.row_misses;
    act_earliest = std::max(t, bank.act_ok);
    bank.prev_row = -1;
  } else {
    ++m_stats.row_conflicts;
    const Time pre = std::max(t, bank.pre_ok);
    bank.prev_row = bank.open_row;
    bank.switch_pre = pre;
    bank.prev_cas_lead =
        static_cast<uint32_t>(std::min<Time>(pre - std::min(bank.cas_ok, pre), Time{UINT32_MAX}));
    bank.bypasses = 0;
    act_earliest = std::max(pre + m_rp, bank.act_ok);
  }
  const Time act = schedule_act(pc, b, act_earliest);
  bank.open_row = row;
  bank.cas_ok = act + m_rcd;
  bank.pre_ok = act + m_ras;
  bank.act_ok = act + m_ras + m_rp;  // tRC
  return bank.cas_ok;
}

// Inlined into read_access(), its only caller.
[[gnu::always_inline]] inline Time HbmSystem::read(const HbmAddress& a, int bursts, Time t) {
  PseudoChannel& p = m_pcs[static_cast<size_t>(a.pc)];
  Bank& bank = m_banks[static_cast<size_t>(a.pc * m_banks_per_pc + a.bank)];
  Time cas;
  // FR-FCFS: a hit on the row that a queued switch is about to close is served first.
  const bool bypass = bank.open_row != a.row && bank.prev_row == a.row && t < bank.switch_pre &&
                      bank.bypasses < m_params.frfcfs_window;
  if (bypass) {
    ++bank.bypasses;
    ++m_stats.bypass_hits;
    ++m_stats.row_hits;
    // The row is still open, but a hit that arrives within tRCD of its ACT waits for it.
    cas = std::max(t, bank.switch_pre - static_cast<Time>(bank.prev_cas_lead));
  } else {
    cas = open_row(a.pc, a.bank, a.row, t);
  }
  Group& g = group_of(a.pc, a.bank);
  const Time col_budget = std::max(g.cas_free, t);
  g.cas_free = col_budget + bursts * m_ccd_l;
  const Time rd = std::max({cas, col_budget, p.write_end + m_wtr_s, g.write_end + m_wtr_l});
  const Time bank_end = rd + (bursts - 1) * m_ccd_l + m_cl + m_burst;
  Time done;
  if (!m_bus_cal.empty()) {
    // dram.bus_calendar: the data from its CAS latency on, in the bus slots left free.
    const Time ready = rd + m_cl;
    const Time wait = m_bus_cal[static_cast<size_t>(a.pc)].book(std::min(m_now, t), ready, bursts);
    done = std::max(ready + bursts * m_burst_slot + wait, bank_end);
  } else {
    const Time bus_pos = std::max(p.bus_free, t + m_cl);
    p.bus_free = bus_pos + bursts * m_burst_slot;
    done = std::max(p.bus_free, bank_end);
  }
  if (!bypass) {
    bank.pre_ok = std::max(bank.pre_ok, rd + (bursts - 1) * m_ccd_l + m_rtp);
  }
  p.read_end = std::max(p.read_end, done);
  m_stats.busy_ps += bursts * m_burst_slot;
  return done + m_ctrl;
}

// access() of a read, inlined at the memory system's DRAM read (a call there cost ~25 host
// instructions a request).
[[gnu::always_inline]] inline HbmAddress HbmSystem::begin_access(uint64_t addr, Time t) {
  const HbmAddress a = decode(addr);
  if (m_params.refresh) {
    apply_refresh(a.pc, t);
  }
  // (The epoch check here, so that the call is made only when a refresh is due.)
  if (m_params.refresh_per_bank &&
      t >= m_banks[static_cast<size_t>(a.pc * m_banks_per_pc + a.bank)].next_refresh) {
    apply_bank_refresh(a.pc, a.bank, t);
  }
  return a;
}

[[gnu::always_inline]] inline Time HbmSystem::read_access(uint64_t addr, int bytes, Time t,
                                                          Time now) {
  m_now = now;
  const HbmAddress a = begin_access(addr, t);
  const int bursts = std::max(1, bytes >> m_burst_shift);
  ++m_stats.reads;
  m_stats.read_bytes += static_cast<uint64_t>(bytes);
  return read(a, bursts, t);
}

}  // namespace asyncsim
