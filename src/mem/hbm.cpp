#include "mem/hbm.h"

#include <algorithm>
#include <bit>

#include "mem/hbm_path.h"
#include "util/error.h"

namespace asyncsim {
namespace {

Time ns_to_ps(double ns) {
  return static_cast<Time>(ns * 1000.0 + 0.5);
}

// XOR of x's `bits`-wide fields: every address bit above the field moves the result, so a
// power-of-two stride keeps changing it.
uint64_t xor_fold(uint64_t x, int bits) {
  if (bits == 0) {
    return 0;
  }
  const uint64_t mask = (uint64_t{1} << bits) - 1;
  uint64_t r = 0;
  while (x != 0) {
    r ^= x & mask;
    x >>= bits;
  }
  return r;
}

int log2_exact(int v, const char* what) {
  if (v <= 0 || !std::has_single_bit(static_cast<unsigned>(v))) {
    throw_input_error("dram", "{} must be a power of two, got {}", what, v);
  }
  return std::countr_zero(static_cast<unsigned>(v));
}

void require_positive(double v, const char* what) {
  if (!(v > 0.0)) {
    throw_input_error("dram", "{} must be positive, got {}", what, v);
  }
}

}  // namespace

HbmSystem::HbmSystem(const HbmParams& params) : m_params(params) {
  const HbmParams& p = m_params;
  if (p.channels <= 0 || p.pseudo_channels <= 0 || p.stack_ids <= 0) {
    throw_input_error("dram", "channels, pseudo_channels and stack_ids must be positive");
  }
  require_positive(p.clock_mhz, "clock_mhz");
  if (p.bus_efficiency <= 0.0 || p.bus_efficiency > 1.0) {
    throw_input_error("dram", "bus_efficiency must be in (0, 1], got {}", p.bus_efficiency);
  }
  if (p.frfcfs_window < 0 || p.write_batch <= 0) {
    throw_input_error("dram", "frfcfs_window must be >= 0 and write_batch > 0");
  }
  if (p.refresh && (p.t_refi_ns <= p.t_rfc_ns || p.t_rfc_ns <= 0.0)) {
    throw_input_error("dram", "refresh needs 0 < t_rfc_ns < t_refi_ns");
  }
  // Every bank has its state in memory (the H200: 192 pseudo-channels x 32 banks); a geometry of
  // billions (or one whose int products overflow) is a bad config, not a run that never starts.
  int64_t banks = 1;  // the product, stopped once past the limit (it could overflow)
  for (const int n :
       {p.channels, p.pseudo_channels, p.stack_ids, p.bank_groups, p.banks_per_group}) {
    banks = banks > kMaxBanks ? banks : banks * std::max(n, 1);
  }
  if (banks > kMaxBanks) {
    throw_input_error("dram",
                      "channels x pseudo_channels x stack_ids x bank_groups x banks_per_group = "
                      "{} x {} x {} x {} x {} is more than the {} banks simulated at most",
                      p.channels, p.pseudo_channels, p.stack_ids, p.bank_groups, p.banks_per_group,
                      kMaxBanks);
  }
  m_num_pcs = p.channels * p.pseudo_channels;
  if (p.refresh_sync_pcs <= 0 || m_num_pcs % p.refresh_sync_pcs != 0) {
    throw_input_error("dram", "refresh_sync_pcs must divide the {} pseudo-channels, got {}",
                      m_num_pcs, p.refresh_sync_pcs);
  }
  m_sync_shift = std::countr_zero(static_cast<unsigned>(p.refresh_sync_pcs));
  if (p.group_per_block && (p.refresh_sync_pcs != (1 << m_sync_shift) ||
                            p.refresh_sync_pcs > p.window_bytes / p.interleave_bytes)) {
    throw_input_error("dram",
                      "group_per_block needs refresh_sync_pcs to be a power of two no larger than "
                      "window_bytes / interleave_bytes ({}), got {}",
                      p.window_bytes / p.interleave_bytes, p.refresh_sync_pcs);
  }
  m_banks_per_sid = p.bank_groups * p.banks_per_group;
  m_banks_per_pc = m_banks_per_sid * p.stack_ids;
  m_groups_per_pc = p.bank_groups * p.stack_ids;
  log2_exact(p.bank_groups, "bank_groups");
  log2_exact(p.banks_per_group, "banks_per_group");
  m_bank_bits = log2_exact(m_banks_per_pc, "banks per pseudo-channel");
  m_burst_shift = log2_exact(p.burst_bytes, "burst_bytes");
  m_sid_shift = log2_exact(m_banks_per_sid, "banks per SID");
  m_bg_mask = p.bank_groups - 1;
  m_interleave_shift = log2_exact(p.interleave_bytes, "interleave_bytes");
  m_window_shift = log2_exact(p.window_bytes, "window_bytes");
  const int row_shift = log2_exact(p.row_bytes, "row_bytes");
  if (p.interleave_bytes < 128 || p.window_bytes < p.interleave_bytes ||
      p.row_bytes < p.interleave_bytes) {
    throw_input_error("dram", "need 128 <= interleave_bytes <= window_bytes and <= row_bytes");
  }
  m_slots = p.window_bytes / p.interleave_bytes;
  m_slot_bits = m_window_shift - m_interleave_shift;
  m_column_bits = row_shift - m_interleave_shift;
  if (m_num_pcs % m_slots != 0) {
    throw_input_error("dram",
                      "window_bytes / interleave_bytes = {} must divide the {} pseudo-channels",
                      m_slots, m_num_pcs);
  }
  m_pc_groups = m_num_pcs / m_slots;
  m_group_pow2_bits = std::countr_zero(static_cast<unsigned>(m_pc_groups));
  m_group_odd = m_pc_groups >> m_group_pow2_bits;
  m_odd_div = FastDiv(static_cast<uint64_t>(m_group_odd));
  m_group_pow2_mask = (uint64_t{1} << m_group_pow2_bits) - 1;
  m_group_fold_bits = std::max(m_slot_bits + 1, m_group_pow2_bits);
  m_row_shift = m_window_shift + m_column_bits + m_bank_bits;

  m_rcd = ns_to_ps(p.t_rcd_ns);
  m_rp = ns_to_ps(p.t_rp_ns);
  m_ras = ns_to_ps(p.t_ras_ns);
  m_cl = ns_to_ps(p.t_cl_ns);
  m_wl = ns_to_ps(p.t_wl_ns);
  m_rtp = ns_to_ps(p.t_rtp_ns);
  m_wr = ns_to_ps(p.t_wr_ns);
  m_ccd_l = ns_to_ps(p.t_ccd_l_ns);
  m_rrd_s = ns_to_ps(p.t_rrd_s_ns);
  m_rrd_l = ns_to_ps(p.t_rrd_l_ns);
  m_faw = ns_to_ps(p.t_faw_ns);
  m_wtr_s = ns_to_ps(p.t_wtr_s_ns);
  m_wtr_l = ns_to_ps(p.t_wtr_l_ns);
  m_rtw = ns_to_ps(p.t_rtw_ns);
  m_refi = ns_to_ps(p.t_refi_ns);
  m_refi_div = FastDiv(static_cast<uint64_t>(std::max<Time>(m_refi, 1)));
  m_rfc = ns_to_ps(p.t_rfc_ns);
  m_rfcpb = ns_to_ps(p.t_rfcpb_ns);
  m_postpone = ns_to_ps(p.refresh_postpone_ns);
  m_ctrl = ns_to_ps(p.ctrl_latency_ns);
  // One burst: burst_bytes over pc_width_bits pins at two transfers per clock.
  const double burst_ps = p.burst_bytes * 8.0 * 1.0e6 / (p.pc_width_bits * 2.0 * p.clock_mhz);
  m_burst = static_cast<Time>(burst_ps + 0.5);
  m_burst_slot =
      static_cast<Time>(std::max(burst_ps, p.t_ccd_s_ns * 1000.0) / p.bus_efficiency + 0.5);

  m_banks.resize(static_cast<size_t>(m_num_pcs) * static_cast<size_t>(m_banks_per_pc));
  // Each bank's first refresh (see bank_refresh_offset()).
  const auto total = static_cast<int64_t>(m_banks.size());
  for (int64_t i = 0; i < total; ++i) {
    m_banks[static_cast<size_t>(i)].next_refresh = m_refi - bank_refresh_offset(i);
  }
  m_groups.resize(static_cast<size_t>(m_num_pcs) * static_cast<size_t>(m_groups_per_pc));
  m_sids.resize(static_cast<size_t>(m_num_pcs) * static_cast<size_t>(p.stack_ids));
  m_pcs.resize(static_cast<size_t>(m_num_pcs));
  m_write_queue.resize(static_cast<size_t>(m_num_pcs) * static_cast<size_t>(p.write_batch));
  if (p.bus_calendar) {
    m_bus_cal.assign(static_cast<size_t>(m_num_pcs), SlotCalendar(m_burst_slot));
  }
}

double HbmSystem::peak_bytes_per_second() const {
  return static_cast<double>(m_num_pcs) * m_params.pc_width_bits / 8.0 * 2.0 * m_params.clock_mhz *
         1.0e6;
}

Time HbmSystem::idle_miss_latency(int bytes) const {
  const Time bursts = bytes / m_params.burst_bytes;
  const Time bank_end = m_rcd + (bursts - 1) * m_ccd_l + m_cl + m_burst;
  return std::max(bank_end, m_cl + bursts * m_burst_slot) + m_ctrl;
}

// Mapping (docs/memory.md): [interleave offset | slot within the window | column | bank | row].
// An aligned window goes to one group of m_slots pseudo-channels; the bits above the window
// pick the column, then the bank, within those pseudo-channels, and everything above is the
// row. The row picks the group: its residue modulo the odd factor of the group count (a
// power-of-two stride is a unit modulo an odd number, so it visits every residue), and for the
// power-of-two factor an XOR fold of the quotient; the slot within the group is XOR-permuted by
// another fold of the quotient (a different fold width, so the two stay independent), and the
// bank by a fold of the row. Power-of-two strides thus spread evenly over all pseudo-channels
// and banks in the long run, while a short run stays inside its window's group. With
// dram.group_per_block each aligned block of refresh_sync_pcs granules takes its own group
// instead, by a hash of its address; the slots stay the window's.
// (decode() itself is inline in hbm.h: a cached window and one XOR, on every access, plus the
// block's hash with dram.group_per_block.)

// Fills `slot` with window `window`'s fields; decode() adds the granule's slot.
void HbmSystem::decode_window(uint64_t window, DecodeSlot& slot) const {
  const uint64_t addr = window << m_window_shift;
  const uint64_t row = addr >> m_row_shift;
  const auto bank_mask = static_cast<uint64_t>(m_banks_per_pc - 1);
  const auto odd = static_cast<uint64_t>(m_group_odd);
  // hash_upper: the pseudo-channel depends on all bits above the window, not on the row alone.
  // Its odd residue comes from a mix of the bits (a stride of `odd` windows would otherwise
  // keep one residue).
  const uint64_t upper = m_params.hash_upper ? window : row;
  const uint64_t quotient = m_odd_div.div(upper);
  const uint64_t group_pow2 = xor_fold(quotient, m_group_fold_bits) & m_group_pow2_mask;
  const uint64_t residue_source = m_params.hash_upper ? upper ^ (upper >> 7) ^ (upper >> 17) : row;
  const uint64_t group = group_pow2 * odd + m_odd_div.mod(residue_source);
  const uint64_t bank =
      ((addr >> (m_window_shift + m_column_bits)) ^ xor_fold(row, m_bank_bits)) & bank_mask;
  slot.key = window;
  // The slot within the group is the granule's slot bits XOR this fold of the quotient.
  slot.slot_xor = static_cast<uint32_t>(xor_fold(quotient, m_slot_bits));
  slot.address.pc = static_cast<int>(group * static_cast<uint64_t>(m_slots));
  slot.address.bank = static_cast<int>(bank);
  slot.address.column = static_cast<int>(window & ((uint64_t{1} << m_column_bits) - 1));
  slot.address.row = static_cast<int64_t>(row);
}

// Activates are budgeted like the bus: the tRRD/tFAW budget advances from the request's
// earliest time, and the ACT itself also waits for its bank. A bank that is busy far ahead
// therefore does not hold back activates to other banks (no head-of-line blocking).
Time HbmSystem::schedule_act(int pc, int b, Time earliest) {
  Sid& s = sid_of(pc, b);
  Group& g = group_of(pc, b);
  Time budget = std::max({earliest, s.act_free, g.act_free, s.faw[s.faw_head] + m_faw});
  s.faw[s.faw_head] = budget;
  s.faw_head = (s.faw_head + 1) & 3U;
  s.act_free = budget + m_rrd_s;
  g.act_free = budget + m_rrd_l;
  ++m_stats.activates;
  return budget;
}

void HbmSystem::apply_refresh(int pc, Time t) {
  PseudoChannel& p = m_pcs[static_cast<size_t>(pc)];
  // Refreshes are staggered over the pseudo-channels.
  const Time offset = m_refi * pc / m_num_pcs;
  const auto epoch = static_cast<int64_t>(m_refi_div.div(static_cast<uint64_t>(t + offset)));
  if (epoch <= p.refresh_epoch) {
    return;
  }
  m_stats.refreshes += static_cast<uint64_t>(epoch - p.refresh_epoch);
  p.refresh_epoch = epoch;
  const Time start = epoch * m_refi - offset;
  const Time end = start + m_rfc;
  // Refresh precharges every bank and holds the pseudo-channel for tRFC.
  Bank* banks = &m_banks[static_cast<size_t>(pc * m_banks_per_pc)];
  for (int b = 0; b < m_banks_per_pc; ++b) {
    banks[b].open_row = -1;
    banks[b].prev_row = -1;
    banks[b].act_ok = std::max(banks[b].act_ok, end);
  }
  p.bus_free = std::max(p.bus_free >= start ? p.bus_free + m_rfc : p.bus_free, end);
}

// Bank k of the chip is refreshed at k/N of every tREFI (N banks in all), for tRFCpb: the row
// closes and the bank takes no ACT until the refresh ends. A request that lands on a bank in
// refresh waits for it; one bank in tREFI/tRFCpb is refreshing at any time.
void HbmSystem::apply_bank_refresh(int pc, int bank_index, Time t) {
  Bank& bank = m_banks[static_cast<size_t>(pc * m_banks_per_pc + bank_index)];
  if (t < bank.next_refresh) {  // still in the epoch of the latest refresh applied
    return;
  }
  const Time offset = bank_refresh_offset(pc * m_banks_per_pc + bank_index);
  const auto epoch = static_cast<int64_t>(m_refi_div.div(static_cast<uint64_t>(t + offset)));
  ++m_stats.refreshes;
  bank.next_refresh = (epoch + 1) * m_refi - offset;
  const Time start = epoch * m_refi - offset;
  const Time end = start + m_rfcpb;
  // JESD238 lets a controller postpone refreshes (up to 8); one that has reads for the bank
  // when its refresh is due serves them first.
  if (m_postpone > 0 && end > t && bank.pre_ok >= start - m_postpone &&
      bank.postponed < kMaxPostponedRefreshes) {
    ++bank.postponed;
    return;
  }
  bank.postponed = 0;
  if (end > t) {
    bank.open_row = -1;
    bank.prev_row = -1;
    bank.act_ok = std::max(bank.act_ok, end);
  }
}

// Write mode: the queued writes go out back to back after one read-to-write bus turnaround;
// afterwards reads wait tWTR plus their CAS latency, so the bus idles that long.
void HbmSystem::drain(int pc, Time t) {
  PseudoChannel& p = m_pcs[static_cast<size_t>(pc)];
  QueuedWrite* queue = &m_write_queue[static_cast<size_t>(pc * m_params.write_batch)];
  p.bus_free = std::max({p.write_bus_free(), p.read_end + m_rtw, t + m_wl});
  for (int i = 0; i < p.queued_writes; ++i) {
    const QueuedWrite& w = queue[i];
    const Time cas = open_row(pc, w.bank, w.row, t);
    Group& g = group_of(pc, w.bank);
    const Time col_budget = std::max(g.cas_free, t);
    g.cas_free = col_budget + w.bursts * m_ccd_l;
    const Time wr = std::max(cas, col_budget);
    const Time bus_pos = p.bus_free;
    p.bus_free = bus_pos + w.bursts * m_burst_slot;
    const Time end = std::max(p.bus_free, wr + (w.bursts - 1) * m_ccd_l + m_wl + m_burst);
    Bank& bank = m_banks[static_cast<size_t>(pc * m_banks_per_pc + w.bank)];
    bank.pre_ok = std::max(bank.pre_ok, end + m_wr);
    g.write_end = std::max(g.write_end, end);
    p.write_end = std::max(p.write_end, end);
    m_stats.busy_ps += w.bursts * m_burst_slot;
  }
  m_stats.writes_drained += static_cast<uint64_t>(p.queued_writes);
  ++m_stats.drains;
  p.queued_writes = 0;
  p.drain_bus_end = p.bus_free;
  p.bus_free = std::max(p.bus_free, p.write_end + m_wtr_s + m_cl);
  p.turned_bus = p.bus_free;
}

Time HbmSystem::access(uint64_t addr, int bytes, bool write, Time t) {
  m_now = std::max(m_now, t);
  if (!write) {
    return read_access(addr, bytes, t, m_now);
  }
  const HbmAddress a = begin_access(addr, t);
  const int bursts = std::max(1, bytes >> m_burst_shift);
  ++m_stats.writes;
  m_stats.write_bytes += static_cast<uint64_t>(bytes);
  PseudoChannel& p = m_pcs[static_cast<size_t>(a.pc)];
  m_write_queue[static_cast<size_t>(a.pc * m_params.write_batch + p.queued_writes)] =
      QueuedWrite{a.bank, bursts, a.row};
  if (++p.queued_writes == m_params.write_batch ||
      (m_params.drain_when_idle && p.read_end <= t && p.write_bus_free() <= t)) {
    drain(a.pc, t);
  }
  return t;
}

Time HbmSystem::flush(Time t) {
  Time last = t;
  for (int pc = 0; pc < m_num_pcs; ++pc) {
    if (m_pcs[static_cast<size_t>(pc)].queued_writes > 0) {
      drain(pc, t);
    }
    last = std::max(last, m_pcs[static_cast<size_t>(pc)].write_end);
  }
  return last;
}

}  // namespace asyncsim
