// Runs one kernel on one GPU configuration to completion and returns what happened.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "config/gpu_config.h"
#include "program/ir.h"
#include "util/time.h"

namespace asyncsim {

class Timeline;
struct MemAccessRecord;

// One instruction issued by the traced warpgroup (warpgroup 0 of role 0 in CTA 0): the
// simulator's clock64, used by the microbenchmarks to time what the hardware times.
struct IssueMark {
  Time t;
  program::Op op;
  int role = 0;     // the warpgroup's role (other than 0 only with RunOptions::trace_every_role)
  int64_t cta = 0;  // the warpgroup's CTA (other than 0 only with RunOptions::trace_every_cta)
};

// Where and when one CTA ran: cycles from the kernel's launch, from when its first instruction
// may issue to when its last warpgroup exits (what a %clock64 stamp at either end measures).
struct CtaRecord {
  int64_t cta = 0;
  int sm = 0;
  double start_cycle = 0;
  double end_cycle = 0;
};

struct RunOptions {
  int64_t max_cycles = 20'000'000'000;  // a runaway program stops here with an error
  // When set, every instruction the traced warpgroup issues is appended (the last kernel of a
  // sequence only).
  std::vector<IssueMark>* issue_trace = nullptr;
  // With issue_trace: warpgroup 0 of every role of CTA 0 is traced, not only role 0's.
  bool trace_every_role = false;
  // With issue_trace: warpgroup 0 of every CTA is traced, not only CTA 0's.
  bool trace_every_cta = false;
  // With a timeline: the interval of its DRAM read / write GB/s counter tracks.
  double counter_sample_ns = 1000;
  // Placement starts at this SM of sm.dispatch_order's order (and wraps), so a one-CTA
  // microbenchmark can run on a chosen SM as the hardware's do by %smid.
  int first_sm = 0;
  // Keep a CtaRecord per CTA in SimResult::cta_records (--cta-log).
  bool record_ctas = false;
  // When set, every memory-system request (and the time it was made) is appended, in order,
  // for replaying the memory system alone (bench_sim's MemoryReplay).
  std::vector<MemAccessRecord>* memory_trace = nullptr;
};

struct SimResult {
  std::string kernel;
  std::string gpu;
  int64_t cycles = 0;
  double time_us = 0;
  double sm_clock_mhz = 0;
  int64_t ctas = 0;
  double flops = 0;
  double tflops = 0;
  uint64_t dram_read_bytes = 0;
  uint64_t dram_write_bytes = 0;
  uint64_t l2_read_bytes = 0;
  uint64_t l2_write_bytes = 0;
  uint64_t tma_bytes = 0;
  uint64_t tma_requests = 0;
  uint64_t tma_responses = 0;
  uint64_t tma_request_bytes = 0;
  uint64_t lsu_bytes = 0;  // LD_GLOBAL + ST_GLOBAL bytes
  uint64_t lsu_requests = 0;
  uint64_t lsu_responses = 0;
  double tensor_active_fraction = 0;
  double tma_utilization = 0;
  double dram_utilization = 0;
  // Warpgroup-cycles by role and category, summed over every warpgroup of that role.
  std::map<std::string, std::map<std::string, int64_t>> stall_cycles;
  // Every counter by component path (sm[3].tma.load_bytes, l2.slice[7].read_hits, ...).
  std::map<std::string, double> counters;
  uint64_t events = 0;  // simulation events processed (speed diagnostics, not in JSON)
  std::vector<CtaRecord> cta_records;  // by CTA id, with RunOptions::record_ctas (not in JSON)

  nlohmann::json to_json() const;
  // to_json() plus every counter and the request / response counts (what --stats writes).
  nlohmann::json to_stats_json() const;
};

// Throws InputError for programs that cannot run on the GPU (e.g. a CTA that does not fit an
// SM) and DeadlockError when every remaining warpgroup is blocked forever.
SimResult simulate(const program::Kernel& kernel, const GpuConfig& config,
                   const RunOptions& options = {}, Timeline* timeline = nullptr);

// Runs kernels back to back on one GPU whose memory (L2 contents, DRAM rows, every reservation
// horizon) carries over, as consecutive launches on the hardware do: each kernel launches when
// the previous one has finished. Each result counts its own kernel's cycles and L2/DRAM bytes;
// dirty lines are flushed (l2.flush_dirty_at_end) after the last kernel only.
// A timeline, when given, holds every kernel's slices (at their times in the sequence) and the
// DRAM / L2 counter tracks over the whole sequence.
std::vector<SimResult> simulate_sequence(const std::vector<const program::Kernel*>& kernels,
                                         const GpuConfig& config, const RunOptions& options = {},
                                         Timeline* timeline = nullptr);

}  // namespace asyncsim
