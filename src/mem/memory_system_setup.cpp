// MemorySystem's construction: sizes, tables and the SM-to-partition and SM-to-coalescer
// placement (the hot path, access(), is in memory_system.cpp).
#include <algorithm>
#include <array>
#include <bit>

#include "mem/hbm_path.h"
#include "mem/l2_victim.h"
#include "mem/memory_system.h"
#include "util/error.h"

namespace asyncsim {

MemorySystem::MemorySystem(const GpuConfig& config, const ClockDomain& sm_clock)
    : m_config(config),
      m_l2_clock(ClockDomain::from_mhz(config.mem.l2_clock_mhz)),
      m_dram_clock(ClockDomain::from_mhz(config.mem.dram_clock_mhz)),
      m_num_slices(config.mem.l2_slices),
      m_half_slices(config.mem.l2_slices / 2),
      m_sets(config.l2_sets()),
      m_ways(config.mem.l2_ways),
      m_sector_bytes(config.mem.sector_bytes),
      m_sectors_per_line(config.mem.line_bytes / config.mem.sector_bytes),
      m_line_bytes(config.mem.line_bytes) {
  (void)sm_clock;
  m_set_index = config.mem.l2_set_index;
  m_set_bits = std::countr_zero(static_cast<unsigned>(m_sets));
  m_rrip = config.mem.l2_replacement == L2Replacement::kRrip;
  if (m_rrip) {
    m_rrip_max = static_cast<uint8_t>(config.mem.l2_rrip_levels - 1);
    m_read_insert = static_cast<uint8_t>(config.mem.l2_rrip_read_insert);
    m_write_insert = static_cast<uint8_t>(config.mem.l2_rrip_write_insert);
    m_hit_level = static_cast<uint8_t>(config.mem.l2_rrip_hit_level);
  }
  m_remote_copy = config.mem.l2_remote_copy;
  m_copy_writes = config.mem.l2_remote_copy_writes;
  m_copy_tma_writes = config.mem.l2_remote_copy_tma_writes;
  m_copy_hit_touches_home = config.mem.l2_copy_hit_touches_home;
  m_home_ref_only = config.mem.l2_home_refresh_needs_home_ref;
  m_far_home_lru = config.mem.l2_far_home_fill_lru;
  m_track_home_ref = m_home_ref_only || m_far_home_lru;
  m_far_fills_home = config.mem.l2_far_miss_fills_home;
  m_merge_partial_rows = config.mem.l2_coalesce_partial_rows;
  m_same_sm_merges = config.mem.l2_coalesce_same_sm;
  m_copy_probability = config.mem.l2_remote_copy_probability;
  m_clean_first_ways = config.mem.l2_clean_first_ways;
  m_mshr_cap = static_cast<uint32_t>(config.mem.l2_mshrs_per_slice);
  m_fetch_sectors = config.mem.l2_fetch_sectors;
  if (m_fetch_sectors != 1 && m_fetch_sectors != 2 && m_fetch_sectors != 4) {
    throw_input_error("l2.fetch_sectors", "expected 1, 2 or 4 sectors, got {}", m_fetch_sectors);
  }
  const double q = config.mem.l2_clean_first_probability;
  m_clean_first_threshold =
      q >= 1.0 ? UINT64_MAX : static_cast<uint64_t>(q * 18446744073709551616.0);
  const double rv = config.mem.l2_random_victim_probability;
  m_random_threshold = rv >= 1.0 ? UINT64_MAX : static_cast<uint64_t>(rv * 18446744073709551616.0);
  m_random_ways = static_cast<uint32_t>(
      std::clamp(config.mem.l2_random_victim_ways == 0 ? m_ways : config.mem.l2_random_victim_ways,
                 1, m_ways));
  m_half_hit = m_l2_clock.cycles(config.mem.l2_hit_cycles / 2.0);
  m_half_far = m_l2_clock.cycles(config.mem.l2_far_extra_cycles / 2.0);
  m_pair_spread_ps = m_l2_clock.cycles(config.mem.l2_pair_spread_cycles / 2.0);
  m_pair_extra.assign(static_cast<size_t>(config.sm.count) * static_cast<size_t>(m_num_slices), 0);
  if (m_pair_spread_ps != 0) {
    for (int sm = 0; sm < config.sm.count; ++sm) {
      for (int slice = 0; slice < m_num_slices; ++slice) {
        m_pair_extra[static_cast<size_t>(sm) * static_cast<size_t>(m_num_slices) +
                     static_cast<size_t>(slice)] =
            static_cast<Time>(pair_share(sm, slice) * static_cast<double>(m_pair_spread_ps));
      }
    }
  }
  m_write_ack = m_l2_clock.cycles(config.mem.l2_write_ack_cycles);
  m_dram_latency = m_dram_clock.cycles(config.mem.dram_latency_cycles);
  m_slice_ps_per_byte = m_l2_clock.period_ps / config.mem.l2_slice_bytes_per_cycle;
  m_partial_sector_ps = m_l2_clock.cycles(config.mem.l2_partial_sector_cycles);
  for (size_t n = 0; n < m_slice_busy.size(); ++n) {
    const int bytes = static_cast<int>(n) * m_sector_bytes;
    m_slice_busy[n] = static_cast<Time>(bytes * m_slice_ps_per_byte + 0.5);
  }
  const double channel_bytes_per_ps =
      config.mem.dram_bandwidth_gbs * 1e-3 / config.mem.dram_channels;
  m_channel_ps_per_byte = 1.0 / channel_bytes_per_ps;
  {
    const size_t rows = static_cast<size_t>(m_num_slices) * static_cast<size_t>(m_sets);
    const auto ways = static_cast<size_t>(m_ways);
    m_lines.assign(rows * ways, Line{});
    m_fp_stride = (ways + 7) / 8 * 8;
    m_off_valid = m_fp_stride;
    m_off_dirty = m_off_valid + ways;
    m_off_age = m_off_dirty + ways;
    m_off_rrpv = m_off_age + ways;
    m_off_reused = m_off_rrpv + ways;
    const size_t block_bytes = std::max(m_off_reused + ways, m_off_age + 32);  // see stamp()
    m_block_words = (block_bytes + 63) / 64 * 16;
    m_block_lines = static_cast<uint32_t>(m_block_words / 16);
    m_line_prefetches = static_cast<uint32_t>(((ways - 1) * sizeof(Line) + 63) / 64);
    m_ways20 = ways == 20 && m_block_lines == 2 && m_line_prefetches == 5;
    m_meta_storage.assign(rows * m_block_words + 16, 0);
    const auto misalign = reinterpret_cast<uintptr_t>(m_meta_storage.data()) % 64;
    m_meta = m_meta_storage.data() + (misalign == 0 ? 0 : (64 - misalign) / 4);
    if (config.mem.l2_remote_copy_occupancy < 1.0) {
      m_copy_limit =
          static_cast<uint32_t>(config.mem.l2_remote_copy_occupancy * static_cast<double>(ways));
    }
  }
  m_slice_free.assign(m_num_slices, 0);
  if (config.mem.l2_slice_calendar) {
    m_slice_slot_ps = static_cast<Time>(m_sector_bytes * m_slice_ps_per_byte + 0.5);
    m_slice_cal.assign(static_cast<size_t>(m_num_slices), SlotCalendar(m_slice_slot_ps));
    m_partial_owed.assign(static_cast<size_t>(m_num_slices), 0);
  }
  m_channel_free.assign(config.mem.dram_channels, 0);
  m_mshr_ring.assign(static_cast<size_t>(m_num_slices) * config.mem.l2_mshrs_per_slice, 0);
  m_mshr_head.assign(m_num_slices, 0);
  m_mshr_count.assign(m_num_slices, 0);
  m_queue_lines = config.mem.l2_mshr_queue_lines;
  if (m_queue_lines > 0) {
    // Room for every miss that can wait at once in the loads measured (thousands per slice at
    // 16 copies of 8 KB in flight per SM); a read whose first waiting miss has left the ring is
    // put behind the ring's oldest instead (later than its due).
    m_queue_ring = std::bit_ceil(static_cast<uint32_t>(std::max(16384, 4 * m_queue_lines)));
    m_stall_issue.assign(static_cast<size_t>(m_num_slices) * m_queue_ring, 0);
    m_stall_count.assign(m_num_slices, 0);
  }
  m_slice_stats.resize(m_num_slices);
  // Where each SM sits (divisions by the GPC count, once rather than on every request).
  for (int sm = 0; sm < config.sm.count; ++sm) {
    const int part =
        place_partition(sm, config.mem.l2_partition1_gpcs, config.mem.l2_partition1_side_tpcs);
    m_sm_partition.push_back(static_cast<uint8_t>(part));
    m_sm_reader_half.push_back(
        static_cast<uint8_t>(config.mem.l2_reader_half1_gpcs < 0
                                 ? part
                                 : place_partition(sm, config.mem.l2_reader_half1_gpcs,
                                                   config.mem.l2_reader_half1_side_tpcs)));
    m_sm_coalescer.push_back(static_cast<uint16_t>(place_coalescer(sm)));
  }
  {
    const int g = config.mem.l2_partition_granule_bytes;
    if (g < m_line_bytes || (g & (g - 1)) != 0) {
      throw_input_error("l2.partition_granule_bytes",
                        "must be a power of two of at least one line ({} bytes), got {}",
                        m_line_bytes, g);
    }
    m_granule_shift = std::countr_zero(static_cast<unsigned>(g / m_line_bytes));
    const int skip = config.mem.l2_slice_skip_line_bits;
    if (m_granule_shift > 0 && skip >= (1 << m_granule_shift)) {
      throw_input_error("l2.slice_skip_line_bits",
                        "{:#x} leaves out line bits outside the partition granule "
                        "(l2.partition_granule_bytes {} = {} lines: bits below {})",
                        skip, g, g / m_line_bytes, m_granule_shift);
    }
    m_slice_skip = std::popcount(static_cast<unsigned>(skip));
    for (unsigned v = 0; v < 256; ++v) {  // the low byte's kept bits and left-out bits, packed
      unsigned kept = 0, left = 0, nk = 0, nl = 0;
      for (unsigned bit = 0; bit < 8; ++bit) {
        if ((skip >> bit) & 1) {
          left |= ((v >> bit) & 1) << nl++;
        } else {
          kept |= ((v >> bit) & 1) << nk++;
        }
      }
      m_slice_key_low[v] = static_cast<uint8_t>(kept);
      m_slice_skip_low[v] = static_cast<uint8_t>(left);
    }
  }
  m_hash = config.mem.l2_hash;
  m_rotate_residue = config.mem.l2_hash_rotate_residue;
  build_ipoly_tables();  // after m_granule_shift: the tables hold the partition's parity
  if (config.mem.l2_hash_odd_by_block && m_granule_shift > 0 && m_hash == SliceHash::kIpoly) {
    if (m_slice_skip > 0 || m_num_slices % 2 != 0 ||
        std::popcount(static_cast<unsigned>(m_sets)) != 1) {
      throw_input_error("l2.hash_odd_by_block",
                        "with partition granules needs l2.slice_skip_line_bits 0, an even slice "
                        "count and a power-of-two set count (got {}, {} slices, {} sets)",
                        config.mem.l2_slice_skip_line_bits, m_num_slices, m_sets);
    }
    m_half_hash.init(m_half_slices, m_sets, m_granule_shift);
  }
  if (config.mem.dram_bank_model) {
    HbmParams hp = config.mem.hbm;
    hp.channels = config.mem.dram_channels;
    hp.clock_mhz = config.mem.dram_clock_mhz;
    hp.interleave_bytes = config.mem.dram_interleave_bytes;
    m_hbm = std::make_unique<HbmSystem>(hp);
  }
  m_noc_ports = config.mem.noc_model == NocModel::kPorts;
  if (m_noc_ports) {
    m_sm_port_ps_per_byte = m_l2_clock.period_ps / config.mem.noc_sm_port_bytes_per_cycle;
    m_slice_port_ps_per_byte = m_l2_clock.period_ps / config.mem.noc_slice_port_bytes_per_cycle;
    m_slice_in_port_ps_per_byte =
        m_l2_clock.period_ps / config.mem.noc_slice_in_port_bytes_per_cycle;
    m_queue_ps = static_cast<Time>(config.mem.noc_queue_bytes * m_sm_port_ps_per_byte + 0.5);
    // One slot carries one sector at the port's bandwidth.
    const auto slot = [&](double ps_per_byte) {
      return SlotCalendar(static_cast<Time>(m_sector_bytes * ps_per_byte + 0.5));
    };
    m_sm_in.assign(static_cast<size_t>(config.sm.count), slot(m_sm_port_ps_per_byte));
    m_sm_out_free.assign(static_cast<size_t>(config.sm.count), 0);
    m_slice_in_free.assign(static_cast<size_t>(m_num_slices), 0);
    m_slice_slot_out_ps =
        std::max<Time>(1, static_cast<Time>(m_sector_bytes * m_slice_port_ps_per_byte + 0.5));
    m_slice_out.assign(static_cast<size_t>(m_num_slices), SlotCalendar(m_slice_slot_out_ps));
    if (config.mem.noc_gpc_hol_slack_cycles >= 0) {
      m_gpc_hol_slack_ps = m_l2_clock.cycles(config.mem.noc_gpc_hol_slack_cycles);
    }
    if (config.mem.noc_gpc_port_bytes_per_cycle > 0) {
      m_gpc_lsu_first = config.mem.noc_gpc_port_lsu_first;
      m_gpc_in.assign(
          static_cast<size_t>(config.sm.gpcs) * (config.mem.noc_gpc_port_lsu_first ? 2 : 1),
          slot(m_l2_clock.period_ps / config.mem.noc_gpc_port_bytes_per_cycle));
      for (int sm = 0; sm < config.sm.count; ++sm) {
        m_gpc_of_sm.push_back(static_cast<uint16_t>(gpc_of_sm(config.sm, sm)));
      }
    }
  }
  if (config.mem.l2_coalescer) {
    const int groups = config.mem.l2_coalescer_scope == CoalescerScope::kGpc
                           ? config.sm.gpcs
                           : (config.sm.count + 1) / 2;
    m_coalescer_entries = static_cast<size_t>(config.mem.l2_coalescer_entries);
    m_coalescer_max_sms = config.mem.l2_coalescer_max_sms;
    m_coalescer_div = FastDiv(m_coalescer_entries);
    m_coalescer.resize(static_cast<size_t>(groups) * m_coalescer_entries);
    // l2.tpc_coalescer_entries: a TPC's own stage in front (micro_l2_hot.csv).
    if (config.mem.l2_tpc_coalescer_entries > 0) {
      m_tpc_stage.resize(static_cast<size_t>((config.sm.count + 1) / 2),
                         static_cast<size_t>(config.mem.l2_tpc_coalescer_entries));
    }
  }
}

// l2.hash=ipoly; inlined at the request path's two callers (a call and a switch cost ~15 host
// instructions a request).
int MemorySystem::place_coalescer(int sm) const {
  return m_config.mem.l2_coalescer_scope == CoalescerScope::kGpc ? gpc_of_sm(m_config.sm, sm)
                                                                 : sm / 2;
}

int MemorySystem::place_partition(int sm, int gpcs, int side_tpcs) const {
  const int tpcs = m_config.sm.count / 2;
  const int side = std::min(m_config.sm.dispatch_side_tpcs, tpcs);
  if (side > 0 && m_config.sm.dispatch_order == DispatchOrder::kGpcMajor && sm / 2 >= tpcs - side &&
      sm / 2 < tpcs) {
    return (side_tpcs >> (sm / 2 - (tpcs - side))) & 1;
  }
  const int gpc = gpc_of_sm(m_config.sm, sm);
  if (gpcs == 0) {
    return gpc < m_config.sm.gpcs / 2 ? 0 : 1;
  }
  return (gpcs >> gpc) & 1;
}

void MemorySystem::set_regions(std::vector<Region> regions) {
  m_regions = std::move(regions);
  m_regions.push_back(Region{});  // the rest
}

}  // namespace asyncsim
