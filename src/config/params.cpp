#include "config/params.h"

#include <vector>

#include "config/param_build.h"

namespace asyncsim {
namespace {

using namespace param_build;  // the table builders (config/param_build.h)

std::vector<ParamSpec> build_specs() {
  std::vector<ParamSpec> s;
  // --- SM and CTA dispatch -------------------------------------------------------------------
  s.push_back(int_param(
      "sm.count", "SMs", "streaming multiprocessors on the chip",
      [](GpuConfig& c) -> int& { return c.sm.count; }, 1, 4096));
  s.push_back(int_param(
      "sm.gpcs", "GPCs", "graphics processing clusters (SMs are spread over them)",
      [](GpuConfig& c) -> int& { return c.sm.gpcs; }, 1, 256));
  s.push_back(ParamSpec{
      "sm.tpc_gpcs", "list", "GPC per TPC",
      "the GPC of every TPC (SMs 2t, 2t+1), comma-separated, one entry per TPC; empty: TPC t "
      "in GPC t mod sm.gpcs. Sets the GPC-major dispatch order, the GPC coalescer groups and "
      "the partition by l2.partition1_gpcs",
      [](GpuConfig& c, const std::string& text, const std::string& where) {
        c.sm.tpc_gpcs.clear();
        size_t at = 0;
        while (at < text.size()) {
          size_t end = text.find(',', at);
          if (end == std::string::npos) {
            end = text.size();
          }
          const int64_t v = param_build::parse_int(text.substr(at, end - at), where);
          if (v < 0 || v > 255) {
            throw_input_error(where, "sm.tpc_gpcs: GPC {} out of range [0, 255]", v);
          }
          c.sm.tpc_gpcs.push_back(static_cast<int>(v));
          at = end + 1;
        }
      }});
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
      "sm.smem_reserved_per_cta", "B",
      "shared memory the system reserves for each resident CTA, on top of the CTA's own "
      "allocation (it counts against sm.smem_bytes)",
      [](GpuConfig& c) -> int& { return c.sm.smem_reserved_per_cta; }, 0, kBig));
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
  s.push_back(int_param(
      "sm.dispatch_side_tpcs", "TPCs",
      "with sm.dispatch_order=gpc_major, the last N TPCs form a dispatch unit of their own: a "
      "launch places one CTA on each of its SMs first, then again before every "
      "sm.dispatch_side_period-th GPC visit, no SM beyond ceil(grid / SMs) (0: they belong to "
      "their GPCs)",
      [](GpuConfig& c) -> int& { return c.sm.dispatch_side_tpcs; }, 0, 1024));
  s.push_back(int_param(
      "sm.dispatch_side_period", "GPC visits",
      "GPC visits per visit of the sm.dispatch_side_tpcs unit (it comes before GPC visits "
      "P-1, 2P-1, ...)",
      [](GpuConfig& c) -> int& { return c.sm.dispatch_side_period; }, 1, 1024));
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
  s.push_back(int_param(
      "tensor.slow_gpcs", "bitmask",
      "GPCs (bit g for GPC g of sm.tpc_gpcs) whose SMs serve every wgmma tensor.slow_factor "
      "times as long; 0: none (a what-if)",
      [](GpuConfig& c) -> int& { return c.tensor.slow_gpcs; }, 0, (1 << 30) - 1));
  s.push_back(float_param(
      "tensor.slow_factor", "ratio", "wgmma service time on the SMs of tensor.slow_gpcs",
      [](GpuConfig& c) -> double& { return c.tensor.slow_factor; }, 1, 100));
  s.push_back(float_param(
      "tensor.cta_jitter", "ratio",
      "every CTA serves its wgmmas 1 + cta_jitter * u times as long, u uniform in [-1, 1) by a "
      "hash of the CTA id; 0: none (a what-if: zero-mean CTA-to-CTA variation)",
      [](GpuConfig& c) -> double& { return c.tensor.cta_jitter; }, 0, 0.5));
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
      "tma.barrier_hold_cycles", "SM cycles",
      "after a TMA / bulk load's issue, the warp's next mbarrier operation waits this long",
      [](GpuConfig& c) -> int& { return c.tma.barrier_hold_cycles; }, 0, 100000));
  s.push_back(int_param(
      "tma.wait_after_issue_cycles", "SM cycles",
      "a wait on an mbarrier or pipeline stage that follows the warp's own TMA / bulk load starts "
      "no sooner than the load's issue gap plus this (0: only tma.barrier_hold_cycles applies)",
      [](GpuConfig& c) -> int& { return c.tma.wait_after_issue_cycles; }, 0, 100000));
  s.push_back(int_param(
      "tma.launch_cycles", "SM cycles",
      "launch latency shared by all TMA operations before request generation",
      [](GpuConfig& c) -> int& { return c.tma.launch_cycles; }, 0, 100000));
  s.push_back(int_param(
      "tma.tensor_setup_cycles", "SM cycles", "tensor-map setup added to tensor (not bulk) copies",
      [](GpuConfig& c) -> int& { return c.tma.tensor_setup_cycles; }, 0, 100000));
  s.push_back(int_param(
      "tma.tensor_launch_cycles", "SM cycles",
      "added to every tensor (not bulk) copy's launch: turning box coordinates into addresses",
      [](GpuConfig& c) -> int& { return c.tma.tensor_launch_cycles; }, 0, 100000));
  s.push_back(float_param(
      "tma.bytes_per_cycle", "B/SM cycle", "request-generation rate per SM",
      [](GpuConfig& c) -> double& { return c.tma.bytes_per_cycle; }, 1e-3, 1e5));
  s.push_back(float_param(
      "tma.store_bytes_per_cycle", "B/SM cycle",
      "rate a bulk/tensor store reads shared memory and emits writes",
      [](GpuConfig& c) -> double& { return c.tma.store_bytes_per_cycle; }, 1e-3, 1e5));
  s.push_back(float_param(
      "tma.request_cycles", "SM cycles",
      "least generator time of one request of a load (a box row that straddles two lines, or "
      "has sectors covered in part, costs several)",
      [](GpuConfig& c) -> double& { return c.tma.request_cycles; }, 0, 1e4));
  s.push_back(bool_param(
      "tma.split_partial_sectors",
      "a sector a copy's row covers only in part is a request of its own, the row's whole "
      "sectors in a line another (false: one request per line)",
      [](GpuConfig& c) -> bool& { return c.tma.split_partial_sectors; }));
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
  add_memory_params(s);
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