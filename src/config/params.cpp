#include "config/params.h"

#include <charconv>
#include <cmath>
#include <utility>
#include <vector>

#include "util/error.h"

namespace asyncsim {
namespace {

int64_t parse_int(const std::string& text, const std::string& where) {
  int64_t v = 0;
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || p != end) {
    throw_input_error(where, "expected an integer, got '{}'", text);
  }
  return v;
}

double parse_float(const std::string& text, const std::string& where) {
  try {
    size_t used = 0;
    double v = std::stod(text, &used);
    if (used == text.size() && std::isfinite(v)) {
      return v;
    }
  } catch (const std::exception&) {
  }
  throw_input_error(where, "expected a number, got '{}'", text);
}

bool parse_bool(const std::string& text, const std::string& where) {
  if (text == "true" || text == "on" || text == "1") {
    return true;
  }
  if (text == "false" || text == "off" || text == "0") {
    return false;
  }
  throw_input_error(where, "expected true/false (or on/off), got '{}'", text);
}

template <typename Get>
ParamSpec int_param(std::string key, std::string unit, std::string doc, Get get, int64_t lo,
                    int64_t hi) {
  return ParamSpec{key, "int", std::move(unit), std::move(doc),
                   [get, lo, hi, key](GpuConfig& c, const std::string& t, const std::string& w) {
                     const int64_t v = parse_int(t, w);
                     if (v < lo || v > hi) {
                       throw_input_error(w, "{} must be in [{}, {}], got {}", key, lo, hi, v);
                     }
                     using T = std::remove_reference_t<decltype(get(c))>;
                     get(c) = static_cast<T>(v);
                   }};
}

template <typename Get>
ParamSpec float_param(std::string key, std::string unit, std::string doc, Get get, double lo,
                      double hi) {
  return ParamSpec{key, "float", std::move(unit), std::move(doc),
                   [get, lo, hi, key](GpuConfig& c, const std::string& t, const std::string& w) {
                     const double v = parse_float(t, w);
                     if (v < lo || v > hi) {
                       throw_input_error(w, "{} must be in [{}, {}], got {}", key, lo, hi, v);
                     }
                     get(c) = v;
                   }};
}

template <typename Get>
ParamSpec bool_param(std::string key, std::string doc, Get get) {
  return ParamSpec{key, "bool", "-", std::move(doc),
                   [get](GpuConfig& c, const std::string& t, const std::string& w) {
                     get(c) = parse_bool(t, w);
                   }};
}

// An enumeration: `choices` maps each accepted word to its value; the type reads "a|b|c".
template <typename T, typename Get>
ParamSpec enum_param(std::string key, std::string doc, Get get,
                     std::vector<std::pair<std::string, T>> choices) {
  std::string type;
  std::string expected;
  for (size_t i = 0; i < choices.size(); ++i) {
    type += (i > 0 ? "|" : "") + choices[i].first;
    expected += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i].first;
  }
  return ParamSpec{
      std::move(key), type, "-", std::move(doc),
      [get, choices, expected](GpuConfig& c, const std::string& t, const std::string& w) {
        for (const auto& [name, value] : choices) {
          if (t == name) {
            get(c) = value;
            return;
          }
        }
        throw_input_error(w, "expected {}, got '{}'", expected, t);
      }};
}

std::vector<ParamSpec> build_specs() {
  constexpr int64_t kBig = int64_t{1} << 40;
  std::vector<ParamSpec> s;
  // --- SM and CTA dispatch -------------------------------------------------------------------
  s.push_back(int_param(
      "sm.count", "SMs", "streaming multiprocessors on the chip",
      [](GpuConfig& c) -> int& { return c.sm.count; }, 1, 4096));
  s.push_back(int_param(
      "sm.gpcs", "GPCs", "graphics processing clusters (SMs are spread over them)",
      [](GpuConfig& c) -> int& { return c.sm.gpcs; }, 1, 256));
  s.push_back(float_param(
      "sm.clock_mhz", "MHz", "SM clock (override per run with --sm-clock-mhz)",
      [](GpuConfig& c) -> double& { return c.sm.clock_mhz; }, 1, 10000));
  s.push_back(int_param(
      "sm.max_threads", "threads", "resident threads per SM",
      [](GpuConfig& c) -> int& { return c.sm.max_threads; }, 128, 65536));
  s.push_back(int_param(
      "sm.max_ctas", "CTAs", "resident CTA slots per SM",
      [](GpuConfig& c) -> int& { return c.sm.max_ctas; }, 1, 1024));
  s.push_back(int_param(
      "sm.registers", "32-bit registers", "register file per SM",
      [](GpuConfig& c) -> int& { return c.sm.registers; }, 1024, kBig));
  s.push_back(int_param(
      "sm.smem_bytes", "B", "shared memory per SM available to CTAs",
      [](GpuConfig& c) -> int& { return c.sm.smem_bytes; }, 0, kBig));
  s.push_back(int_param(
      "sm.smem_per_cta_max", "B", "largest shared-memory allocation of one CTA",
      [](GpuConfig& c) -> int& { return c.sm.smem_per_cta_max; }, 0, kBig));
  s.push_back(int_param(
      "sm.cta_launch_cycles", "SM cycles",
      "from a CTA slot freeing (or kernel start) to the new CTA's first issue",
      [](GpuConfig& c) -> int& { return c.sm.cta_launch_cycles; }, 0, 1000000));
  s.push_back(float_param(
      "sm.cta_dispatch_cycles", "SM cycles",
      "interval between consecutive CTA launches by the block scheduler",
      [](GpuConfig& c) -> double& { return c.sm.cta_dispatch_cycles; }, 0, 1000000));
  s.push_back(int_param(
      "sm.kernel_launch_cycles", "SM cycles",
      "from kernel start (as Nsight Compute counts it) to the first CTA dispatch",
      [](GpuConfig& c) -> int& { return c.sm.kernel_launch_cycles; }, 0, 1000000));
  s.push_back(float_param(
      "sm.code_fetch_bytes_per_cycle", "B/SM cycle",
      "rate of the cold fetch of a kernel's code (`resources code=`) at launch, before the first "
      "CTA dispatch; 0: no cost",
      [](GpuConfig& c) -> double& { return c.sm.code_fetch_bytes_per_cycle; }, 0, 1e6));
  s.push_back(int_param(
      "sm.cta_exit_cycles", "SM cycles",
      "from a CTA's last warpgroup exiting to its resources being free",
      [](GpuConfig& c) -> int& { return c.sm.cta_exit_cycles; }, 0, 1000000));
  s.push_back(enum_param<SchedulerPolicy>(
      "sm.scheduler", "warpgroup scheduler: greedy-then-oldest or loose round-robin",
      [](GpuConfig& c) -> SchedulerPolicy& { return c.sm.scheduler; },
      {{"gto", SchedulerPolicy::kGto}, {"lrr", SchedulerPolicy::kLrr}}));
  s.push_back(float_param(
      "sm.fp32_ops", "ops/SM cycle", "FP32 add/mul/fma/compare throughput",
      [](GpuConfig& c) -> double& { return c.sm.fp32_ops; }, 1e-3, 1e6));
  s.push_back(float_param(
      "sm.fp16_ops", "ops/SM cycle", "non-tensor FP16 throughput",
      [](GpuConfig& c) -> double& { return c.sm.fp16_ops; }, 1e-3, 1e6));
  s.push_back(float_param(
      "sm.mufu_ops", "ops/SM cycle", "MUFU (ex2, rcp, ...) throughput",
      [](GpuConfig& c) -> double& { return c.sm.mufu_ops; }, 1e-3, 1e6));
  s.push_back(float_param(
      "sm.cvt_ops", "ops/SM cycle", "FP32->FP16/BF16 conversion throughput (elements)",
      [](GpuConfig& c) -> double& { return c.sm.cvt_ops; }, 1e-3, 1e6));
  s.push_back(float_param(
      "sm.int_ops", "ops/SM cycle", "integer/address arithmetic throughput",
      [](GpuConfig& c) -> double& { return c.sm.int_ops; }, 1e-3, 1e6));
  s.push_back(float_param(
      "sm.smem_bytes_per_cycle", "B/SM cycle", "shared-memory bandwidth for ordinary loads/stores",
      [](GpuConfig& c) -> double& { return c.sm.smem_bytes_per_cycle; }, 1e-3, 1e6));
  s.push_back(float_param(
      "sm.issue_slots", "warp instr/SM cycle",
      "warp instructions the SM's schedulers issue per cycle, shared by all warpgroups' COMPUTE "
      "work (0 turns the issue limit off)",
      [](GpuConfig& c) -> double& { return c.sm.issue_slots; }, 0, 64));
  s.push_back(enum_param<DispatchOrder>(
      "sm.dispatch_order",
      "order in which a launch's first CTAs fill the SMs: by SM id, or every SM of GPC 0 (TPC t in "
      "GPC t mod sm.gpcs), then GPC 1, ...",
      [](GpuConfig& c) -> DispatchOrder& { return c.sm.dispatch_order; },
      {{"sm_id", DispatchOrder::kSmId}, {"gpc_major", DispatchOrder::kGpcMajor}}));
  s.push_back(bool_param(
      "sm.spread_partial_round",
      "a placement round with fewer CTAs left than SMs with room gives each TPC one CTA before "
      "any TPC gets two (in sm.dispatch_order)",
      [](GpuConfig& c) -> bool& { return c.sm.spread_partial_round; }));
  s.push_back(
      bool_param("sm.compute_overlap",
                 "the pipes of one COMPUTE run side by side (true) or one after another (false)",
                 [](GpuConfig& c) -> bool& { return c.sm.compute_overlap; }));
  s.push_back(enum_param<ComputeSharing>(
      "sm.compute_sharing",
      "how warpgroups' COMPUTE work shares the SM's issue slots and pipes: reserve (wait until "
      "earlier work ends), greedy (fill the cycles earlier work leaves idle) or fair (greedy, and "
      "work computing at the same time finishes together)",
      [](GpuConfig& c) -> ComputeSharing& { return c.sm.compute_sharing; },
      {{"reserve", ComputeSharing::kReserve},
       {"greedy", ComputeSharing::kGreedy},
       {"fair", ComputeSharing::kFair}}));
  // --- Tensor engine -------------------------------------------------------------------------
  s.push_back(float_param(
      "tensor.fp16_flops", "FLOP/SM cycle", "dense FP16/BF16 wgmma rate",
      [](GpuConfig& c) -> double& { return c.tensor.fp16_flops; }, 1, 1e7));
  s.push_back(float_param(
      "tensor.tf32_flops", "FLOP/SM cycle", "dense TF32 wgmma rate",
      [](GpuConfig& c) -> double& { return c.tensor.tf32_flops; }, 1, 1e7));
  s.push_back(float_param(
      "tensor.fp8_flops", "FLOP/SM cycle", "dense FP8 wgmma rate",
      [](GpuConfig& c) -> double& { return c.tensor.fp8_flops; }, 1, 1e7));
  s.push_back(int_param(
      "tensor.latency_cycles", "SM cycles", "pipeline latency a wgmma adds after its service time",
      [](GpuConfig& c) -> int& { return c.tensor.latency_cycles; }, 0, 100000));
  s.push_back(int_param(
      "tensor.issue_cycles", "SM cycles",
      "issue slots one wgmma instruction takes from its warpgroup",
      [](GpuConfig& c) -> int& { return c.tensor.issue_cycles; }, 1, 100000));
  s.push_back(int_param(
      "tensor.wait_cycles", "SM cycles", "wgmma.wait_group that finds its groups already complete",
      [](GpuConfig& c) -> int& { return c.tensor.wait_cycles; }, 1, 100000));
  s.push_back(int_param(
      "tensor.queue_depth", "wgmma instructions",
      "wgmma instructions issued to the SM's tensor pipe and not yet through it (over all "
      "warpgroups) before the next issue waits for the oldest; 0: no limit",
      [](GpuConfig& c) -> int& { return c.tensor.queue_depth; }, 0, 64));
  // --- TMA engine ----------------------------------------------------------------------------
  s.push_back(int_param(
      "tma.queue_depth", "transactions", "TMA transactions admitted per SM",
      [](GpuConfig& c) -> int& { return c.tma.queue_depth; }, 1, 4096));
  s.push_back(int_param(
      "tma.issue_gap_cycles", "SM cycles",
      "cycles a warp is held issuing one bulk (non-tensor) TMA copy",
      [](GpuConfig& c) -> int& { return c.tma.issue_gap_cycles; }, 1, 100000));
  s.push_back(int_param(
      "tma.tensor_issue_gap_cycles", "SM cycles",
      "cycles a warp is held issuing one tensor-map TMA copy (back-to-back gap)",
      [](GpuConfig& c) -> int& { return c.tma.tensor_issue_gap_cycles; }, 1, 100000));
  s.push_back(int_param(
      "tma.launch_cycles", "SM cycles",
      "launch latency shared by all TMA operations before request generation",
      [](GpuConfig& c) -> int& { return c.tma.launch_cycles; }, 0, 100000));
  s.push_back(int_param(
      "tma.tensor_setup_cycles", "SM cycles", "tensor-map setup added to tensor (not bulk) copies",
      [](GpuConfig& c) -> int& { return c.tma.tensor_setup_cycles; }, 0, 100000));
  s.push_back(float_param(
      "tma.bytes_per_cycle", "B/SM cycle", "request-generation rate per SM",
      [](GpuConfig& c) -> double& { return c.tma.bytes_per_cycle; }, 1e-3, 1e5));
  s.push_back(float_param(
      "tma.store_bytes_per_cycle", "B/SM cycle",
      "rate a bulk/tensor store reads shared memory and emits writes",
      [](GpuConfig& c) -> double& { return c.tma.store_bytes_per_cycle; }, 1e-3, 1e5));
  s.push_back(float_param(
      "tma.request_cycles", "SM cycles",
      "least generator time of one line request of a load (a box row that straddles two lines "
      "costs two)",
      [](GpuConfig& c) -> double& { return c.tma.request_cycles; }, 0, 1e4));
  s.push_back(float_param(
      "tma.unaligned_row_cycles", "SM cycles",
      "extra generator time of a load's box row that starts or ends inside a 32-B sector",
      [](GpuConfig& c) -> double& { return c.tma.unaligned_row_cycles; }, 0, 1e4));
  s.push_back(int_param(
      "tma.max_inflight_requests", "requests", "line requests one SM's TMA may have outstanding",
      [](GpuConfig& c) -> int& { return c.tma.max_inflight_requests; }, 1, 1 << 20));
  s.push_back(bool_param("tma.dedup", "merge duplicate line requests within one transaction",
                         [](GpuConfig& c) -> bool& { return c.tma.dedup; }));
  s.push_back(int_param(
      "tma.completion_cycles", "SM cycles",
      "from the last response to complete_tx reaching the mbarrier",
      [](GpuConfig& c) -> int& { return c.tma.completion_cycles; }, 0, 100000));
  // --- Load/store unit (LD_GLOBAL / ST_GLOBAL) ----------------------------------------------
  s.push_back(int_param(
      "lsu.queue_depth", "instructions",
      "LD_GLOBAL / ST_GLOBAL warpgroup instructions admitted per SM and not yet complete; a "
      "warpgroup that finds the unit full waits",
      [](GpuConfig& c) -> int& { return c.lsu.queue_depth; }, 1, 4096));
  s.push_back(int_param(
      "lsu.latency_cycles", "SM cycles",
      "SM-side pipeline of a global load (issue to its first request, response to register)",
      [](GpuConfig& c) -> int& { return c.lsu.latency_cycles; }, 0, 100000));
  s.push_back(int_param(
      "lsu.wide_load_cycles", "SM cycles",
      "added to the round trip of a 128-bit load (LD_GLOBAL width=16)",
      [](GpuConfig& c) -> int& { return c.lsu.wide_load_cycles; }, 0, 100000));
  s.push_back(float_param(
      "lsu.bytes_per_cycle", "B/SM cycle", "load request generation rate per SM",
      [](GpuConfig& c) -> double& { return c.lsu.bytes_per_cycle; }, 1e-3, 1e5));
  s.push_back(float_param(
      "lsu.store_bytes_per_cycle", "B/SM cycle", "store request generation rate per SM",
      [](GpuConfig& c) -> double& { return c.lsu.store_bytes_per_cycle; }, 1e-3, 1e5));
  s.push_back(int_param(
      "lsu.max_inflight_requests", "requests",
      "line requests one SM's load/store unit may have outstanding",
      [](GpuConfig& c) -> int& { return c.lsu.max_inflight_requests; }, 1, 1 << 20));
  // --- Barriers ------------------------------------------------------------------------------
  s.push_back(int_param(
      "barrier.try_wait_cycles", "SM cycles",
      "mbarrier try_wait/test_wait result latency (phase already complete)",
      [](GpuConfig& c) -> int& { return c.barrier.try_wait_cycles; }, 0, 100000));
  s.push_back(int_param(
      "barrier.suspend_wait_cycles", "SM cycles",
      "try_wait with a suspend-time hint, phase complete",
      [](GpuConfig& c) -> int& { return c.barrier.suspend_wait_cycles; }, 0, 100000));
  s.push_back(int_param(
      "barrier.wake_cycles", "SM cycles", "from a phase completing to a blocked waiter resuming",
      [](GpuConfig& c) -> int& { return c.barrier.wake_cycles; }, 0, 100000));
  s.push_back(int_param(
      "barrier.arrive_cycles", "SM cycles", "mbarrier arrive / expect_tx cost",
      [](GpuConfig& c) -> int& { return c.barrier.arrive_cycles; }, 1, 100000));
  s.push_back(int_param(
      "barrier.expect_tx_cycles", "SM cycles", "mbarrier.arrive.expect_tx / expect_tx issue cost",
      [](GpuConfig& c) -> int& { return c.barrier.expect_tx_cycles; }, 1, 100000));
  s.push_back(int_param(
      "barrier.named_cycles", "SM cycles",
      "named barrier (bar.sync) release latency after the last arrival",
      [](GpuConfig& c) -> int& { return c.barrier.named_barrier_cycles; }, 0, 100000));
  // --- Memory --------------------------------------------------------------------------------
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
      "l2.bytes", "B", "L2 capacity", [](GpuConfig& c) -> int64_t& { return c.mem.l2_bytes; }, 1024,
      kBig));
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
  s.push_back(float_param(
      "l2.slice_bytes_per_cycle", "B/L2 cycle", "data bandwidth of one slice",
      [](GpuConfig& c) -> double& { return c.mem.l2_slice_bytes_per_cycle; }, 1e-3, 1e5));
  s.push_back(int_param(
      "l2.write_ack_cycles", "L2 cycles", "store acknowledgement round trip",
      [](GpuConfig& c) -> int& { return c.mem.l2_write_ack_cycles; }, 1, 100000));
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
  s.push_back(bool_param(
      "l2.copy_hit_touches_home",
      "a read served by a near copy is also a reference to the home line (its recency and "
      "re-use flag), as if the copy were the home's shadow; false: only the copy is refreshed",
      [](GpuConfig& c) -> bool& { return c.mem.l2_copy_hit_touches_home; }));
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
  s.push_back(int_param(
      "l2.clean_first_ways", "ways",
      "how far from the least recently used end of a set the clean-first preference looks",
      [](GpuConfig& c) -> int& { return c.mem.l2_clean_first_ways; }, 0, 1024));
  s.push_back(int_param(
      "l2.partition1_gpcs", "bitmask",
      "GPCs whose SMs sit next to L2 partition 1 (bit g for GPC g; the others are next to "
      "partition 0); 0: the upper half of the GPCs",
      [](GpuConfig& c) -> int& { return c.mem.l2_partition1_gpcs; }, 0, (1 << 30) - 1));
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
      {"dram.frfcfs_window", &HbmParams::frfcfs_window, "requests",
       "row hits that may bypass a queued row switch"},
      {"dram.write_batch", &HbmParams::write_batch, "lines",
       "posted writes drained together per pseudo-channel"},
  };
  for (const auto& h : kHbmInts) {
    const auto member = h.member;
    s.push_back(int_param(
        h.key, h.unit, h.doc, [member](GpuConfig& c) -> int& { return c.mem.hbm.*member; }, 1,
        1 << 20));
  }
  s.push_back(bool_param("dram.drain_when_idle",
                         "a posted write that finds its pseudo-channel's bus idle (nothing booked) "
                         "drains the queued writes at once instead of waiting for dram.write_batch",
                         [](GpuConfig& c) -> bool& { return c.mem.hbm.drain_when_idle; }));
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
  // --- Analytic fast path --------------------------------------------------------------------
  s.push_back(int_param(
      "analytic.effective_l2_bytes", "B",
      "L2 capacity a wave's reusable K/V (or A/B) working set can occupy",
      [](GpuConfig& c) -> int64_t& { return c.analytic.effective_l2_bytes; }, 1, kBig));
  s.push_back(float_param(
      "analytic.tensor_tflops", "TFLOP/s",
      "measured dense FP16/BF16 tensor ceiling of the chip (roofline)",
      [](GpuConfig& c) -> double& { return c.analytic.tensor_tflops; }, 1e-3, 1e6));
  return s;
}

}  // namespace

const std::vector<ParamSpec>& param_specs() {
  static const std::vector<ParamSpec> specs = build_specs();
  return specs;
}

const ParamSpec* find_param(const std::string& key) {
  for (const auto& spec : param_specs()) {
    if (spec.key == key) {
      return &spec;
    }
  }
  return nullptr;
}

}  // namespace asyncsim
