// The memory system's entries of the parameter table: sectors and lines, the L2 (slices,
// hash, partitions, coalescer, near copies, replacement), the crossbar and DRAM.
#include "config/param_build.h"

namespace asyncsim::param_build {

void add_memory_params(std::vector<ParamSpec>& s) {
  s.push_back(int_param(
      "mem.sector_bytes", "B", "sector: the unit of transfer and validity",
      [](GpuConfig& c) -> int& { return c.mem.sector_bytes; }, 1, 4096));
  s.push_back(int_param(
      "mem.line_bytes", "B", "cache line (4 sectors on NVIDIA GPUs)",
      [](GpuConfig& c) -> int& { return c.mem.line_bytes; }, 1, 4096));
  s.push_back(float_param(
      "l2.clock_mhz", "MHz", "L2 / crossbar clock domain",
      [](GpuConfig& c) -> double& { return c.mem.l2_clock_mhz; }, 1, 10000));
  s.push_back(int_param(
      "l2.bytes", "B", "L2 capacity (at most 2 GiB: every line's state is held in host memory)",
      [](GpuConfig& c) -> int64_t& { return c.mem.l2_bytes; }, 1024, int64_t{1} << 31));
  s.push_back(int_param(
      "l2.slices", "slices", "L2 slices (split evenly over two partitions)",
      [](GpuConfig& c) -> int& { return c.mem.l2_slices; }, 1, 4096));
  s.push_back(int_param(
      "l2.ways", "ways", "associativity of each slice",
      [](GpuConfig& c) -> int& { return c.mem.l2_ways; }, 1, 64));
  s.push_back(enum_param<SliceHash>(
      "l2.hash", "address-to-slice hash", [](GpuConfig& c) -> SliceHash& { return c.mem.l2_hash; },
      {{"modulo", SliceHash::kModulo}, {"xor", SliceHash::kXor}, {"ipoly", SliceHash::kIpoly}}));
  s.push_back(int_param(
      "l2.partition_granule_bytes", "bytes",
      "contiguous bytes homed in one L2 partition (a power of two >= the line): 128 lets the slice "
      "hash alone pick the partition of every line; larger, a hash of the granule picks the "
      "partition and the slice hash the slice within it",
      [](GpuConfig& c) -> int& { return c.mem.l2_partition_granule_bytes; }, 1, 1 << 30));
  s.push_back(int_param(
      "l2.slice_skip_line_bits", "mask",
      "bits of the line index (bits 0-7) the slice hash leaves out, as a mask: 0 hashes every "
      "line; 1 maps 256-B granules; 5 puts lines 0, 1, 4, 5 of each 1 KB in one slice and 2, 3, "
      "6, 7 in another. The set index takes the left-out bits, so sets stay balanced",
      [](GpuConfig& c) -> int& { return c.mem.l2_slice_skip_line_bits; }, 0, 255));
  s.push_back(int_param(
      "l2.pair_spread_cycles", "L2 cycles",
      "round-trip latency an SM-slice pair adds to l2.hit_cycles, spread evenly over 0 .. this "
      "by a hash of the pair (the crossbar's distances); 0: every pair alike",
      [](GpuConfig& c) -> int& { return c.mem.l2_pair_spread_cycles; }, 0, 100000));
  s.push_back(int_param(
      "l2.hit_cycles", "L2 cycles", "round trip SM -> near slice -> SM on a hit",
      [](GpuConfig& c) -> int& { return c.mem.l2_hit_cycles; }, 1, 100000));
  s.push_back(int_param(
      "l2.far_extra_cycles", "L2 cycles",
      "extra round-trip latency to a slice in the other partition",
      [](GpuConfig& c) -> int& { return c.mem.l2_far_extra_cycles; }, 0, 100000));
  s.push_back(int_param(
      "l2.mshrs_per_slice", "entries", "outstanding misses per slice",
      [](GpuConfig& c) -> int& { return c.mem.l2_mshrs_per_slice; }, 1, 1 << 20));
  s.push_back(int_param(
      "l2.mshr_queue_lines", "requests",
      "a read reaching a slice whose misses wait for MSHRs (all taken) waits behind at most this "
      "many of them, hits included (head-of-line blocking in the slice's input queue; the rest of "
      "the backlog waits at its sources); 0: a hit passes the waiting misses",
      [](GpuConfig& c) -> int& { return c.mem.l2_mshr_queue_lines; }, 0, 1 << 16));
  s.push_back(int_param(
      "l2.fetch_sectors", "sectors",
      "a read miss fetches from DRAM the aligned group of this many sectors around each missing "
      "sector (1, 2 or 4)",
      [](GpuConfig& c) -> int& { return c.mem.l2_fetch_sectors; }, 1, 4));
  s.push_back(float_param(
      "l2.slice_bytes_per_cycle", "B/L2 cycle", "data bandwidth of one slice",
      [](GpuConfig& c) -> double& { return c.mem.l2_slice_bytes_per_cycle; }, 1e-3, 1e5));
  s.push_back(int_param(
      "l2.write_ack_cycles", "L2 cycles", "store acknowledgement round trip",
      [](GpuConfig& c) -> int& { return c.mem.l2_write_ack_cycles; }, 1, 100000));
  s.push_back(bool_param(
      "l2.slice_calendar",
      "a slice's data path books sector slots in a calendar, so a read that arrives before one "
      "booked earlier (a far SM's, issued at the same time) takes the idle time before it; "
      "false: a busy-until horizon, which makes such a read wait for the later one",
      [](GpuConfig& c) -> bool& { return c.mem.l2_slice_calendar; }));
  s.push_back(bool_param(
      "l2.hash_odd_by_block",
      "l2.hash=ipoly with slices = odd x 2^k: the odd part from the index of the line's 2^k-line "
      "block rather than the line's, so each aligned run of `slices` lines takes every slice "
      "once; under l2.partition_granule_bytes slice and set come from the line's index among its "
      "half's lines, so a contiguous buffer fills the sets evenly; false: from the line",
      [](GpuConfig& c) -> bool& { return c.mem.l2_hash_odd_by_block; }));
  s.push_back(bool_param(
      "l2.hash_rotate_residue",
      "l2.hash=ipoly with slices = odd x 2^k: the odd part (the line mod odd) is rotated by a "
      "hash of the line's aligned 256-line run (32 KB), so rows whose pitch is a multiple of "
      "odd lines reach every slice over many runs instead of a fraction of them in each; the "
      "lines of one run keep their residues relative to each other; false: the line mod odd "
      "alone",
      [](GpuConfig& c) -> bool& { return c.mem.l2_hash_rotate_residue; }));
  s.push_back(bool_param("l2.flush_dirty_at_end",
                         "count dirty lines left at kernel end as DRAM writes",
                         [](GpuConfig& c) -> bool& { return c.mem.l2_flush_dirty_at_end; }));
  s.push_back(bool_param(
      "l2.coalescer", "merge duplicate in-flight line reads from the two SMs of a TPC (Sim-FA LRC)",
      [](GpuConfig& c) -> bool& { return c.mem.l2_coalescer; }));
  s.push_back(enum_param<CoalescerScope>(
      "l2.coalescer_scope",
      "SMs whose reads share one request coalescer: the two SMs of a TPC, or a GPC",
      [](GpuConfig& c) -> CoalescerScope& { return c.mem.l2_coalescer_scope; },
      {{"tpc", CoalescerScope::kTpc}, {"gpc", CoalescerScope::kGpc}}));
  s.push_back(int_param(
      "l2.coalescer_entries", "lines",
      "in-flight reads the coalescer of one TPC tracks (direct-mapped)",
      [](GpuConfig& c) -> int& { return c.mem.l2_coalescer_entries; }, 1, 1 << 16));
  s.push_back(bool_param("l2.remote_copy",
                         "a read served by the far partition leaves a copy in the near one "
                         "(Sim-FA remote-copy proxy)",
                         [](GpuConfig& c) -> bool& { return c.mem.l2_remote_copy; }));
  s.push_back(float_param(
      "l2.remote_copy_probability", "-",
      "share of far reads that insert a near copy (chosen by address hash)",
      [](GpuConfig& c) -> double& { return c.mem.l2_remote_copy_probability; }, 0, 1));
  s.push_back(float_param(
      "l2.remote_copy_occupancy", "-",
      "share of a set's ways near copies may hold (Sim-FA's occupancy threshold); a copy beyond "
      "it replaces the set's least recently used copy; 1: no limit",
      [](GpuConfig& c) -> double& { return c.mem.l2_remote_copy_occupancy; }, 0, 1));
  s.push_back(bool_param("l2.remote_copy_writes",
                         "a write from the far partition leaves a clean copy in the near one too "
                         "(with l2.remote_copy)",
                         [](GpuConfig& c) -> bool& { return c.mem.l2_remote_copy_writes; }));
  s.push_back(bool_param(
      "l2.remote_copy_tma_writes",
      "with l2.remote_copy_writes: TMA and bulk stores leave a near copy as st.global ones do "
      "(false: only LSU stores do)",
      [](GpuConfig& c) -> bool& { return c.mem.l2_remote_copy_tma_writes; }));
  s.push_back(int_param(
      "l2.tpc_coalescer_entries", "lines",
      "in-flight reads a per-TPC stage in front of the l2.coalescer_scope coalescer tracks "
      "(direct-mapped; 0: no such stage): the reads of a TPC's two SMs merge there whenever one "
      "finds the other's response in flight",
      [](GpuConfig& c) -> int& { return c.mem.l2_tpc_coalescer_entries; }, 0, 1 << 16));
  s.push_back(int_param(
      "l2.coalescer_max_sms", "SMs",
      "SMs one in-flight read of the l2.coalescer_scope coalescer may serve, its own and those "
      "whose reads merged into it at either stage (0: no limit); a read that finds its line's "
      "entry full goes on to the L2 and starts a new one",
      [](GpuConfig& c) -> int& { return c.mem.l2_coalescer_max_sms; }, 0, 255));
  s.push_back(bool_param(
      "l2.coalesce_same_sm",
      "a read may merge into an in-flight read of the same SM (another CTA's) at the coalescer "
      "stages; false: only reads of other SMs merge there, and the SM's second read goes on to "
      "its slice, where it takes the slice's time and waits for the line like any hit",
      [](GpuConfig& c) -> bool& { return c.mem.l2_coalesce_same_sm; }));
  s.push_back(float_param(
      "l2.partial_sector_cycles", "L2 cycles",
      "extra slice time of a read of one sector covered only in part (tma.split_partial_sectors)",
      [](GpuConfig& c) -> double& { return c.mem.l2_partial_sector_cycles; }, 0, 1e3));
  s.push_back(bool_param(
      "l2.coalesce_partial_rows",
      "reads of a TMA copy with a row that starts or ends inside a sector may merge in the "
      "request coalescer (false: only copies whose rows all cover whole sectors merge)",
      [](GpuConfig& c) -> bool& { return c.mem.l2_coalesce_partial_rows; }));
  s.push_back(bool_param(
      "l2.copy_hit_touches_home",
      "a read served by a near copy is also a reference to the home line (its recency and "
      "re-use flag), as if the copy were the home's shadow; false: only the copy is refreshed",
      [](GpuConfig& c) -> bool& { return c.mem.l2_copy_hit_touches_home; }));
  s.push_back(bool_param(
      "l2.home_refresh_needs_home_ref",
      "with l2.copy_hit_touches_home, a copy hit refreshes the home line only once an SM next to "
      "the home line's own partition has read or written it (a line read only from afar then "
      "keeps one live copy, the near one)",
      [](GpuConfig& c) -> bool& { return c.mem.l2_home_refresh_needs_home_ref; }));
  s.push_back(bool_param(
      "l2.far_home_fill_lru",
      "with l2.remote_copy, the home line a far read fills (or finds) while no SM of the home's "
      "own partition has referenced it is left its set's least recently used: the near copy "
      "holds the live data, the home goes first (false: most recently used, as every fill)",
      [](GpuConfig& c) -> bool& { return c.mem.l2_far_home_fill_lru; }));
  s.push_back(bool_param(
      "l2.far_miss_fills_home",
      "with l2.remote_copy, a read from the far partition that misses at the home slice fills "
      "the home line as well as the reader's near copy (false: the data goes from DRAM to the "
      "near copy alone; near readers and writes still allocate the home line)",
      [](GpuConfig& c) -> bool& { return c.mem.l2_far_miss_fills_home; }));
  s.push_back(enum_param<L2Replacement>(
      "l2.replacement",
      "victim choice within a set: least recently used, or re-reference interval prediction "
      "(hits predict near re-use; new lines start at l2.rrip_read_insert / "
      "l2.rrip_write_insert)",
      [](GpuConfig& c) -> L2Replacement& { return c.mem.l2_replacement; },
      {{"lru", L2Replacement::kLru}, {"rrip", L2Replacement::kRrip}}));
  s.push_back(int_param(
      "l2.rrip_levels", "levels", "re-reference prediction values per line (l2.replacement=rrip)",
      [](GpuConfig& c) -> int& { return c.mem.l2_rrip_levels; }, 2, 256));
  s.push_back(int_param(
      "l2.rrip_read_insert", "level",
      "prediction a line filled by a read, or its near copy, starts at (0 = re-used soon)",
      [](GpuConfig& c) -> int& { return c.mem.l2_rrip_read_insert; }, 0, 255));
  s.push_back(int_param(
      "l2.rrip_write_insert", "level",
      "prediction a line allocated by a write, or its near copy, starts at (0 = re-used soon)",
      [](GpuConfig& c) -> int& { return c.mem.l2_rrip_write_insert; }, 0, 255));
  s.push_back(int_param(
      "l2.rrip_hit_level", "level",
      "prediction a hit lowers a line's to (0: a re-used line outlives every line not re-used; "
      "l2.rrip_read_insert: hits only refresh recency)",
      [](GpuConfig& c) -> int& { return c.mem.l2_rrip_hit_level; }, 0, 255));
  s.push_back(enum_param<L2SetIndex>(
      "l2.set_index",
      "set of a line within its slice: hashed (a hash of the line), linear (the line index "
      "over the slice count, modulo the sets: a contiguous range fills the sets evenly) or xor "
      "(that index with its higher bits folded on by XOR: contiguous ranges as linear, strided "
      "lines spread; needs a power-of-two set count)",
      [](GpuConfig& c) -> L2SetIndex& { return c.mem.l2_set_index; },
      {{"hashed", L2SetIndex::kHashed},
       {"linear", L2SetIndex::kLinear},
       {"xor", L2SetIndex::kXor}}));
  s.push_back(float_param(
      "l2.clean_first_probability", "-",
      "share of evictions that take the least recently used line read only once (not written, "
      "not read again) instead of the least recently used line, if it is among the "
      "l2.clean_first_ways oldest (chosen by a hash of the eviction count)",
      [](GpuConfig& c) -> double& { return c.mem.l2_clean_first_probability; }, 0, 1));
  s.push_back(float_param(
      "l2.random_victim_probability", "-",
      "with l2.replacement=lru, the share of evictions whose victim is a way drawn at random "
      "(a hash of the eviction count) instead of the least recently used one; "
      "l2.clean_first_probability applies after the draw",
      [](GpuConfig& c) -> double& { return c.mem.l2_random_victim_probability; }, 0, 1));
  s.push_back(int_param(
      "l2.random_victim_ways", "ways",
      "with l2.random_victim_probability, the drawn victim is one of this many least recently "
      "used ways of the set (0: any way)",
      [](GpuConfig& c) -> int& { return c.mem.l2_random_victim_ways; }, 0, 1024));
  s.push_back(int_param(
      "l2.clean_first_ways", "ways",
      "how far from the least recently used end of a set the clean-first preference looks",
      [](GpuConfig& c) -> int& { return c.mem.l2_clean_first_ways; }, 0, 1024));
  s.push_back(int_param(
      "l2.partition1_gpcs", "bitmask",
      "GPCs whose SMs sit next to L2 partition 1 (bit g for GPC g; the others are next to "
      "partition 0); 0: the upper half of the GPCs",
      [](GpuConfig& c) -> int& { return c.mem.l2_partition1_gpcs; }, 0, (1 << 30) - 1));
  s.push_back(int_param(
      "l2.partition1_side_tpcs", "bitmask",
      "with sm.dispatch_side_tpcs, the side unit's TPCs that sit next to L2 partition 1 (bit t "
      "for its t-th TPC; the others, and all of them when 0, next to partition 0); the side "
      "unit's SMs take no partition from l2.partition1_gpcs",
      [](GpuConfig& c) -> int& { return c.mem.l2_partition1_side_tpcs; }, 0, (1 << 30) - 1));
  s.push_back(int_param(
      "l2.reader_half1_gpcs", "bitmask",
      "GPCs whose SMs read through partition 1's slices: a line homed in the other partition "
      "is served by a near copy there (l2.remote_copy); -1: l2.partition1_gpcs, the partition "
      "that also sets the far latency",
      [](GpuConfig& c) -> int& { return c.mem.l2_reader_half1_gpcs; }, -1, (1 << 30) - 1));
  s.push_back(int_param(
      "l2.reader_half1_side_tpcs", "bitmask",
      "with l2.reader_half1_gpcs, the side unit's TPCs that read through partition 1's slices "
      "(bit t for its t-th TPC)",
      [](GpuConfig& c) -> int& { return c.mem.l2_reader_half1_side_tpcs; }, 0, (1 << 30) - 1));
  s.push_back(enum_param<NocModel>(
      "noc.model",
      "SM <-> L2 crossbar: latency only, or per-port bandwidth with queueing and back-pressure",
      [](GpuConfig& c) -> NocModel& { return c.mem.noc_model; },
      {{"latency", NocModel::kLatency}, {"ports", NocModel::kPorts}}));
  s.push_back(float_param(
      "noc.sm_port_bytes_per_cycle", "B/L2 cycle",
      "crossbar bandwidth of one SM's port, per direction (noc.model=ports)",
      [](GpuConfig& c) -> double& { return c.mem.noc_sm_port_bytes_per_cycle; }, 1e-3, 1e5));
  s.push_back(float_param(
      "noc.slice_port_bytes_per_cycle", "B/L2 cycle",
      "crossbar bandwidth of one L2 slice's outgoing port: read data (noc.model=ports)",
      [](GpuConfig& c) -> double& { return c.mem.noc_slice_port_bytes_per_cycle; }, 1e-3, 1e5));
  s.push_back(float_param(
      "noc.slice_in_port_bytes_per_cycle", "B/L2 cycle",
      "crossbar bandwidth of one L2 slice's incoming port: store data (noc.model=ports)",
      [](GpuConfig& c) -> double& { return c.mem.noc_slice_in_port_bytes_per_cycle; }, 1e-3, 1e5));
  s.push_back(float_param(
      "noc.gpc_port_bytes_per_cycle", "B/L2 cycle",
      "crossbar bandwidth into one GPC, shared by its SMs' responses before each SM's own port "
      "(noc.model=ports; 0: no GPC port); a response merged in the GPC's request coalescer "
      "crosses it once",
      [](GpuConfig& c) -> double& { return c.mem.noc_gpc_port_bytes_per_cycle; }, 0, 1e5));
  s.push_back(bool_param(
      "noc.gpc_port_lsu_first",
      "with a GPC port: it serves the responses to the LSU's reads (ld.global) before the TMA's: "
      "an LSU response waits only behind other LSU responses, a TMA response behind both; "
      "false: one queue in order of readiness",
      [](GpuConfig& c) -> bool& { return c.mem.noc_gpc_port_lsu_first; }));
  s.push_back(float_param(
      "noc.gpc_hol_slack_cycles", "L2 cycles",
      "head-of-line blocking at the slices' output (noc.model=ports with a GPC port): a response "
      "that waits at its GPC's port longer than this holds its slice's output port for the rest, "
      "so the slice's responses to every GPC wait behind it; negative: off",
      [](GpuConfig& c) -> double& { return c.mem.noc_gpc_hol_slack_cycles; }, -1, 1e6));
  s.push_back(int_param(
      "noc.queue_bytes", "bytes",
      "backlog of an SM's crossbar port beyond which its TMA generator stalls (back-pressure)",
      [](GpuConfig& c) -> int& { return c.mem.noc_queue_bytes; }, 0, 1 << 30));
  s.push_back(float_param(
      "dram.clock_mhz", "MHz", "DRAM command clock domain",
      [](GpuConfig& c) -> double& { return c.mem.dram_clock_mhz; }, 1, 100000));
  s.push_back(int_param(
      "dram.channels", "channels", "independent DRAM channels",
      [](GpuConfig& c) -> int& { return c.mem.dram_channels; }, 1, 4096));
  s.push_back(int_param(
      "dram.capacity_bytes", "B",
      "device memory: a kernel whose tensor maps cover more bytes than this is an impossible "
      "request (an input error before simulation); 0: not checked",
      [](GpuConfig& c) -> int64_t& { return c.mem.dram_capacity_bytes; }, 0, int64_t{1} << 56));
  s.push_back(float_param(
      "dram.bandwidth_gbs", "GB/s",
      "dram.model=simple: sustainable bandwidth, all channels (also the DRAM utilisation "
      "reference)",
      [](GpuConfig& c) -> double& { return c.mem.dram_bandwidth_gbs; }, 1, 1e6));
  s.push_back(int_param(
      "dram.latency_cycles", "DRAM cycles",
      "dram.model=simple: from a miss leaving L2 to its data back in L2 (unloaded)",
      [](GpuConfig& c) -> int& { return c.mem.dram_latency_cycles; }, 0, 100000));
  s.push_back(int_param(
      "dram.interleave_bytes", "B", "address interleaving granule over channels",
      [](GpuConfig& c) -> int& { return c.mem.dram_interleave_bytes; }, 32, 1 << 20));
  s.push_back(enum_param<bool>("dram.model",
                               "hbm: channels/pseudo-channels/banks with row buffers and JEDEC "
                               "timing; simple: per-channel bandwidth plus a fixed latency",
                               [](GpuConfig& c) -> bool& { return c.mem.dram_bank_model; },
                               {{"hbm", true}, {"simple", false}}));
  struct HbmInt {
    const char* key;
    int HbmParams::*member;
    const char* unit;
    const char* doc;
  };
  static const HbmInt kHbmInts[] = {
      {"dram.pseudo_channels", &HbmParams::pseudo_channels, "per channel",
       "pseudo-channels of a channel"},
      {"dram.stack_ids", &HbmParams::stack_ids, "per pseudo-channel",
       "stack IDs sharing a pseudo-channel"},
      {"dram.bank_groups", &HbmParams::bank_groups, "per SID", "bank groups"},
      {"dram.banks_per_group", &HbmParams::banks_per_group, "banks", "banks per bank group"},
      {"dram.pc_width_bits", &HbmParams::pc_width_bits, "bits", "data width of a pseudo-channel"},
      {"dram.burst_bytes", &HbmParams::burst_bytes, "B", "bytes of one column access"},
      {"dram.row_bytes", &HbmParams::row_bytes, "B", "page (row) of one bank of a pseudo-channel"},
      {"dram.window_bytes", &HbmParams::window_bytes, "B",
       "aligned window spread over one group of pseudo-channels"},
      {"dram.write_batch", &HbmParams::write_batch, "lines",
       "posted writes drained together per pseudo-channel"},
      {"dram.refresh_sync_pcs", &HbmParams::refresh_sync_pcs, "pseudo-channels",
       "pseudo-channels (aligned blocks of a window's group, which contiguous granules fill) "
       "that refresh each bank index together (1: each on its own schedule)"},
  };
  for (const auto& h : kHbmInts) {
    const auto member = h.member;
    s.push_back(int_param(
        h.key, h.unit, h.doc, [member](GpuConfig& c) -> int& { return c.mem.hbm.*member; }, 1,
        1 << 20));
  }
  // A bank counts its bypasses in 16 bits (HbmSystem::Bank fills one host line).
  s.push_back(int_param(
      "dram.frfcfs_window", "requests", "row hits that may bypass a queued row switch",
      [](GpuConfig& c) -> int& { return c.mem.hbm.frfcfs_window; }, 1, 32767));
  s.push_back(bool_param("dram.drain_when_idle",
                         "a posted write that finds its pseudo-channel's bus idle (nothing booked) "
                         "drains the queued writes at once instead of waiting for dram.write_batch",
                         [](GpuConfig& c) -> bool& { return c.mem.hbm.drain_when_idle; }));
  s.push_back(bool_param("dram.bus_calendar",
                         "a read's data takes its pseudo-channel's bus at its own time (from its "
                         "CAS latency on, in the free slots) instead of a budget in arrival order",
                         [](GpuConfig& c) -> bool& { return c.mem.hbm.bus_calendar; }));
  s.push_back(bool_param("dram.group_per_block",
                         "each aligned block of dram.refresh_sync_pcs granules of a window picks "
                         "its group of pseudo-channels by a hash (false: the window takes one)",
                         [](GpuConfig& c) -> bool& { return c.mem.hbm.group_per_block; }));
  s.push_back(bool_param("dram.refresh_by_bank_index",
                         "per-bank refreshes go round the bank indices, bank b of every "
                         "pseudo-channel in the b-th share of tREFI (false: blocks of "
                         "dram.refresh_sync_pcs pseudo-channels staggered apart)",
                         [](GpuConfig& c) -> bool& { return c.mem.hbm.refresh_by_bank_index; }));
  s.push_back(bool_param("dram.hash_upper",
                         "fold every address bit above dram.window_bytes into the "
                         "pseudo-channel choice (false: only the row bits)",
                         [](GpuConfig& c) -> bool& { return c.mem.hbm.hash_upper; }));
  struct HbmNs {
    const char* key;
    double HbmParams::*member;
    const char* doc;
  };
  static const HbmNs kHbmNs[] = {
      {"dram.t_rcd_ns", &HbmParams::t_rcd_ns, "tRCD: ACT to RD/WR"},
      {"dram.t_rp_ns", &HbmParams::t_rp_ns, "tRP: PRE to ACT"},
      {"dram.t_ras_ns", &HbmParams::t_ras_ns, "tRAS: ACT to PRE"},
      {"dram.t_cl_ns", &HbmParams::t_cl_ns, "tCL: RD to first data"},
      {"dram.t_wl_ns", &HbmParams::t_wl_ns, "tWL: WR to first data"},
      {"dram.t_rtp_ns", &HbmParams::t_rtp_ns, "tRTP: RD to PRE"},
      {"dram.t_wr_ns", &HbmParams::t_wr_ns, "tWR: end of write data to PRE"},
      {"dram.t_ccd_s_ns", &HbmParams::t_ccd_s_ns, "tCCD_S: column to column, other bank group"},
      {"dram.t_ccd_l_ns", &HbmParams::t_ccd_l_ns, "tCCD_L: column to column, same bank group"},
      {"dram.t_rrd_s_ns", &HbmParams::t_rrd_s_ns, "tRRD_S: ACT to ACT, other bank group"},
      {"dram.t_rrd_l_ns", &HbmParams::t_rrd_l_ns, "tRRD_L: ACT to ACT, same bank group"},
      {"dram.t_faw_ns", &HbmParams::t_faw_ns, "tFAW: window holding at most 4 ACTs per SID"},
      {"dram.t_wtr_s_ns", &HbmParams::t_wtr_s_ns, "tWTR_S: write data to RD, other bank group"},
      {"dram.t_wtr_l_ns", &HbmParams::t_wtr_l_ns, "tWTR_L: write data to RD, same bank group"},
      {"dram.t_rtw_ns", &HbmParams::t_rtw_ns, "read-to-write bus bubble"},
      {"dram.t_refi_ns", &HbmParams::t_refi_ns, "tREFI: all-bank refresh interval"},
      {"dram.t_rfc_ns", &HbmParams::t_rfc_ns, "tRFC: all-bank refresh duration"},
      {"dram.t_rfcpb_ns", &HbmParams::t_rfcpb_ns, "tRFCpb: per-bank refresh duration"},
      {"dram.refresh_postpone_ns", &HbmParams::refresh_postpone_ns,
       "a bank used within this long before its per-bank refresh is due postpones it (at most 8 "
       "in a row; 0: never)"},
      {"dram.ctrl_latency_ns", &HbmParams::ctrl_latency_ns,
       "fixed L2 to controller to PHY to L2 path"},
  };
  for (const auto& h : kHbmNs) {
    const auto member = h.member;
    s.push_back(float_param(
        h.key, "ns", h.doc, [member](GpuConfig& c) -> double& { return c.mem.hbm.*member; }, 0,
        1e6));
  }
  s.push_back(float_param(
      "dram.bus_efficiency", "-", "usable fraction of the data-bus peak",
      [](GpuConfig& c) -> double& { return c.mem.hbm.bus_efficiency; }, 0.01, 1));
  s.push_back(bool_param("dram.refresh", "model all-bank refresh explicitly",
                         [](GpuConfig& c) -> bool& { return c.mem.hbm.refresh; }));
  s.push_back(bool_param(
      "dram.refresh_per_bank",
      "model per-bank refresh (REFpb): each bank busy for tRFCpb once per tREFI, staggered",
      [](GpuConfig& c) -> bool& { return c.mem.hbm.refresh_per_bank; }));
}

}  // namespace asyncsim::param_build
