// The description of one GPU: every timing and capacity number the model uses, typed, with its
// unit, documentation and source (see params.cpp for the single declaration of each key).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "mem/hbm.h"

namespace asyncsim {

enum class SchedulerPolicy : uint8_t { kGto, kLrr };
enum class SliceHash : uint8_t { kModulo, kXor, kIpoly };
// Order in which the block scheduler fills SMs with a launch's first CTAs: by SM id, or GPC by
// GPC (TPC t = SMs 2t, 2t+1 sits in GPC t mod sm.gpcs).
enum class DispatchOrder : uint8_t { kSmId, kGpcMajor };
// How the COMPUTE work of an SM's warpgroups shares the issue slots and pipes. kReserve: each
// booking waits until all earlier bookings end (busy-until). kGreedy: a booking fills the
// cycles earlier ones left idle; earlier work keeps its end. kFair: as kGreedy, and the
// earlier work that the new booking overlaps ends later by the overlap (processor sharing:
// warpgroups that compute at the same time finish together, as on the H200).
enum class ComputeSharing : uint8_t { kReserve, kGreedy, kFair };
// Which SMs share one L2 request coalescer: the two SMs of a TPC, or every SM of a GPC.
enum class CoalescerScope : uint8_t { kTpc, kGpc };
enum class NocModel : uint8_t { kLatency, kPorts };

struct SmParams {
  int count = 0;
  int gpcs = 0;
  // The GPC of each TPC (SMs 2t, 2t+1), as measured; empty: TPC t sits in GPC t mod gpcs.
  std::vector<int> tpc_gpcs;
  double clock_mhz = 0;
  int max_threads = 0;
  int max_ctas = 0;
  int registers = 0;
  int smem_bytes = 0;
  int smem_per_cta_max = 0;
  int smem_reserved_per_cta = 0;  // system use, on top of each resident CTA's own
  int cta_launch_cycles = 0;
  double cta_dispatch_cycles = 0;  // block scheduler: one CTA launch per this many cycles
  int kernel_launch_cycles = 0;
  double code_fetch_bytes_per_cycle = 0;  // cold code fetch at launch; 0: free
  int cta_exit_cycles = 0;
  SchedulerPolicy scheduler = SchedulerPolicy::kGto;
  // Per-SM throughputs of non-tensor units in operations per SM cycle.
  double fp32_ops = 0;
  double fp16_ops = 0;
  double mufu_ops = 0;
  double cvt_ops = 0;
  double int_ops = 0;
  double smem_bytes_per_cycle = 0;
  double issue_slots = 0;        // warp instructions issued per SM cycle (0: no issue limit)
  bool compute_overlap = false;  // a COMPUTE's pipes work side by side, not one after another
  ComputeSharing compute_sharing = ComputeSharing::kFair;
  DispatchOrder dispatch_order = DispatchOrder::kSmId;
  // A placement round with fewer CTAs than SMs with room gives each TPC one before any gets two.
  bool spread_partial_round = false;
  // With gpc_major: the last dispatch_side_tpcs TPCs form a unit of their own that the block
  // scheduler visits first and then once every dispatch_side_period GPC visits (0: none).
  int dispatch_side_tpcs = 0;
  int dispatch_side_period = 6;
};

// The GPC an SM sits in (sm.tpc_gpcs, else its TPC mod sm.gpcs).
inline int gpc_of_sm(const SmParams& sm, int id) {
  const auto tpc = static_cast<size_t>(id / 2);
  return tpc < sm.tpc_gpcs.size() ? sm.tpc_gpcs[tpc] : id / 2 % sm.gpcs;
}

struct TensorParams {
  double fp16_flops = 0;  // dense FP16/BF16 FLOP per SM cycle
  double tf32_flops = 0;
  double fp8_flops = 0;
  int latency_cycles = 0;  // pipeline latency added to the service time of each wgmma
  int issue_cycles = 0;    // issue slots one wgmma instruction occupies
  int wait_cycles = 0;     // wgmma.wait_group that finds its groups complete
  int queue_depth = 0;     // wgmma instructions in the SM's pipe before issue stalls (0: no limit)
  // A what-if: the SMs of the GPCs in slow_gpcs (bit g for GPC g, as gpc_of_sm names them)
  // serve every wgmma slow_factor times as long.
  int slow_gpcs = 0;
  double slow_factor = 1.0;
  // A what-if: every CTA serves its wgmmas (1 + cta_jitter * u) times as long, u uniform in
  // [-1, 1) by a hash of the CTA id (the same CTA gets the same u in every run); 0: none.
  double cta_jitter = 0.0;
};

struct TmaParams {
  int queue_depth = 0;
  int issue_gap_cycles = 0;         // bulk copies
  int tensor_issue_gap_cycles = 0;  // tensor-map copies
  // After a load's issue, the warp's next mbarrier operation waits this long (the copy is being
  // registered with its mbarrier); 0: no hold.
  int barrier_hold_cycles = 0;
  int wait_after_issue_cycles = 0;  // a wait after a load starts its issue gap + this later
  int launch_cycles = 0;
  int tensor_setup_cycles = 0;
  int tensor_launch_cycles = 0;  // a tensor copy's launch beyond a bulk copy's (every copy)
  double bytes_per_cycle = 0;
  double store_bytes_per_cycle = 0;
  double request_cycles = 0;           // least generator time of one line request (load)
  bool split_partial_sectors = false;  // a sector covered in part is a request of its own
  int max_inflight_requests = 0;
  bool dedup = true;
  int completion_cycles = 0;  // complete_tx reaching the mbarrier after the last response
};

// The load/store unit's path to global memory (LD_GLOBAL / ST_GLOBAL, as ld.global.cg and
// st.global; no L1 caching): one request generator per SM like the TMA's, fed by the warps'
// coalesced accesses instead of copy descriptors.
struct LsuParams {
  int queue_depth = 0;         // LD_GLOBAL / ST_GLOBAL admitted per SM and not yet complete
  int latency_cycles = 0;      // SM-side pipeline of a load before its requests leave
  int wide_load_cycles = 0;    // added for a 128-bit (16 B per thread) load
  double bytes_per_cycle = 0;  // load request generation per SM
  double store_bytes_per_cycle = 0;
  int max_inflight_requests = 0;  // line requests outstanding per SM
};

struct BarrierParams {
  int try_wait_cycles = 0;
  int suspend_wait_cycles = 0;
  int wake_cycles = 0;
  int arrive_cycles = 0;
  int expect_tx_cycles = 0;
  int named_barrier_cycles = 0;
};

// How a line's set within its slice is chosen: a hash of the line (sets filled at random), or
// the line index divided by the slice count (a contiguous range fills the sets evenly).
// Victim choice within a set: least recently used, or re-reference interval prediction (RRIP,
// Jaleel et al., ISCA 2010): each line holds a prediction of how soon it is used again; a hit
// makes it 0, a new line starts at its kind's insertion value, the victim is a line with the
// highest value (the least recently used of them), and when none is at levels-1 the whole set
// ages until one is.
enum class L2Replacement { kLru, kRrip };

// The set of a line within its slice. kHashed: a multiplicative hash of the line; kLinear: the
// line index over the slice count, modulo the sets (a contiguous range fills the sets evenly);
// kXor: that index with its higher bits folded onto it by XOR (each aligned block of `sets`
// consecutive indices still fills every set once, and strided lines spread over all of them).
enum class L2SetIndex { kHashed, kLinear, kXor };

struct MemParams {
  int sector_bytes = 0;
  int line_bytes = 0;
  double l2_clock_mhz = 0;
  int64_t l2_bytes = 0;
  int l2_slices = 0;
  int l2_ways = 0;
  SliceHash l2_hash = SliceHash::kXor;
  int l2_partition_granule_bytes = 128;  // contiguous bytes that share one L2 partition
  int l2_slice_skip_line_bits = 0;       // line-index bits (mask) the slice hash leaves out
  int l2_pair_spread_cycles = 0;         // extra round trip of an SM-slice pair: 0 .. this, by pair
  int l2_hit_cycles = 0;                 // L2 clock cycles, SM to near slice and back, on a hit
  int l2_far_extra_cycles = 0;           // extra L2 cycles when the slice is in the other partition
  int l2_mshrs_per_slice = 0;
  // A read reaching a slice whose misses wait for MSHRs queues behind at most this many of them
  // (the slice's input queue; the rest of the backlog waits at its sources); 0: reads that hit
  // pass the waiting misses.
  int l2_mshr_queue_lines = 0;
  // The slice's data path books sector slots in a calendar (a read arriving earlier than one
  // booked before it goes first); false: a busy-until horizon.
  bool l2_slice_calendar = false;
  // l2.hash=ipoly: the odd factor from the line's 2^k-line block index (not the line), so every
  // aligned run of `slices` lines meets every slice once; under partition granules slice and set
  // come from the line's index among its half's lines (mem/half_hash.h) and the sets fill evenly.
  bool l2_hash_odd_by_block = false;
  // l2.hash=ipoly: the slice's odd part is rotated by a hash of the line's aligned 256-line run,
  // so a stride that is a multiple of the odd factor does not keep to a fraction of the slices.
  bool l2_hash_rotate_residue = false;
  int l2_fetch_sectors = 1;  // a read miss fetches the aligned group of this many sectors (1, 2, 4)
  double l2_slice_bytes_per_cycle = 0;
  int l2_write_ack_cycles = 0;
  bool l2_flush_dirty_at_end = true;
  bool l2_coalescer = true;      // merge in-flight duplicate reads of SMs sharing a coalescer
  int l2_coalescer_entries = 0;  // per coalescer
  bool l2_coalesce_partial_rows = true;
  double l2_partial_sector_cycles = 0;
  int l2_tpc_coalescer_entries = 0;  // a per-TPC stage in front of the scope's (0: none)
  int l2_coalescer_max_sms = 0;      // SMs one in-flight read may serve (0: no limit)
  bool l2_coalesce_same_sm = true;   // reads merge into the same SM's in-flight reads
  CoalescerScope l2_coalescer_scope = CoalescerScope::kTpc;
  bool l2_remote_copy = true;  // far-partition reads leave a copy in the near partition
  double l2_remote_copy_probability = 1.0;
  // Share of a set's ways near copies may hold; a copy beyond it replaces the set's least
  // recently used copy instead of a line of the set's own (1: no limit).
  double l2_remote_copy_occupancy = 1.0;
  bool l2_remote_copy_writes = false;      // far-partition writes leave a (clean) near copy too
  bool l2_remote_copy_tma_writes = false;  // ... TMA / bulk stores as well as st.global
  bool l2_copy_hit_touches_home = false;   // a read a near copy serves refreshes the home line
  // ... only once an SM of the home line's own partition has read or written it
  bool l2_home_refresh_needs_home_ref = false;
  // The home line of a far read, unreferenced from its own partition, left least recently used.
  bool l2_far_home_fill_lru = false;
  // A far read that misses at home fills the home line as well as its near copy (false: only
  // the copy; the home line is allocated by near readers and by writes).
  bool l2_far_miss_fills_home = true;
  L2Replacement l2_replacement = L2Replacement::kLru;
  int l2_rrip_levels = 4;        // re-reference prediction values 0 (near) .. levels-1 (distant)
  int l2_rrip_read_insert = 2;   // value a line filled by a read (or its near copy) starts at
  int l2_rrip_write_insert = 2;  // value a line allocated by a write (or its near copy) starts at
  int l2_rrip_hit_level = 0;     // value a hit lowers a line's prediction to
  L2SetIndex l2_set_index = L2SetIndex::kHashed;
  double l2_clean_first_probability = 0;  // share of evictions that take a line read once
  int l2_clean_first_ways = 0;            // ... among this many least recently used ways of the set
  double l2_random_victim_probability = 0;  // share of LRU evictions that take any way at random
  int l2_random_victim_ways = 0;            // ... among this many least recently used ways (0: all)
  int l2_partition1_gpcs = 0;  // bit g set: GPC g's SMs sit in partition 1 (0: the upper half)
  // With sm.dispatch_side_tpcs: bit t set: the side unit's t-th TPC sits in partition 1 (its
  // TPCs are not placed by GPC).
  int l2_partition1_side_tpcs = 0;
  // The halves SMs read through (near copies of lines homed in the other half): -1, as the two
  // fields above; else bit g for GPC g, bit t for the side unit's t-th TPC, likewise.
  int l2_reader_half1_gpcs = -1;
  int l2_reader_half1_side_tpcs = 0;
  // Crossbar between SMs and L2 slices, in the L2 clock domain: latency only, or with a
  // bandwidth per port (each SM's and each slice's, per direction) and back-pressure.
  NocModel noc_model = NocModel::kPorts;
  double noc_sm_port_bytes_per_cycle = 0;
  double noc_slice_port_bytes_per_cycle = 0;
  double noc_slice_in_port_bytes_per_cycle = 0;  // the slice's incoming port (store data)
  double noc_gpc_port_bytes_per_cycle = 0;       // a GPC's shared response port (0: none)
  bool noc_gpc_port_lsu_first = false;           // it serves the LSU's responses before the TMA's
  // A response that waits longer than this at its GPC's port holds its slice's output port for
  // the rest (head-of-line blocking); negative: off.
  double noc_gpc_hol_slack_cycles = -1;
  int noc_queue_bytes = 0;  // an SM's port backlog beyond which its TMA generator stalls
  double dram_clock_mhz = 0;
  int dram_channels = 0;
  int64_t dram_capacity_bytes = 0;  // device memory a kernel's tensors must fit in; 0: unchecked
  double dram_bandwidth_gbs = 0;
  int dram_latency_cycles = 0;  // DRAM clock cycles from a miss leaving L2 to data back in L2
  int dram_interleave_bytes = 0;
  bool dram_bank_model = true;  // dram.model: hbm (banks, rows, timing) or simple (bandwidth)
  HbmParams hbm;                // dram.* organisation and timing for dram.model=hbm
};

// Where a value came from and how it is documented, kept for `asyncsim params` and for the
// resolved config written next to every result.
// Inputs of the closed-form fast path (src/analytic) that the cycle-level core does not read.
struct AnalyticParams {
  int64_t effective_l2_bytes = 0;  // capacity a wave's reusable working set may occupy
  double tensor_tflops = 0;        // measured dense FP16/BF16 ceiling of the whole chip
};

struct ParamRecord {
  std::string key;
  std::string value;  // as written (canonical text)
  std::string unit;
  std::string doc;
  std::string source;
};

struct GpuConfig {
  std::string name;
  SmParams sm;
  TensorParams tensor;
  TmaParams tma;
  LsuParams lsu;
  BarrierParams barrier;
  MemParams mem;
  AnalyticParams analytic;
  std::vector<ParamRecord> records;  // every parameter, in declaration order

  // Parameters derived from the others (not settable).
  int l2_sets() const;
};

// Loads a GPU by name (configs/NAME.yaml) or by path. Every declared key must be present (after
// `base:` inheritance); unknown keys are errors naming the file and key. `overrides` are
// `key=value` strings (from --set) applied last; a bad one names the flag.
GpuConfig load_gpu_config(const std::string& name_or_path,
                          const std::vector<std::string>& overrides = {});

// Applies one `key=value` override to an already loaded config (used by --set and
// --sm-clock-mhz). Throws InputError naming `flag` on an unknown key or a bad value.
void apply_override(GpuConfig& config, const std::string& key, const std::string& value,
                    const std::string& flag);

// The resolved config as YAML text, every value with its source (written next to results).
std::string resolved_config_yaml(const GpuConfig& config);

// Directory holding the built-in configs.
std::string config_directory();

}  // namespace asyncsim
