// Shared pieces of the simulated microbenchmarks (declared in micro_detail.h).
#include "cli/micro_detail.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <random>

#include "program/builder.h"
#include "program/writer.h"
#include "sim/simulator.h"
#include "util/error.h"

namespace asyncsim::cli::micro_detail {

using program::KernelBuilder;
using program::Op;

int64_t key_int(const MicroRow& r, const std::string& k) {
  const auto it = r.find(k);
  if (it == r.end()) {
    throw_input_error("micro", "the point has no column '{}'", k);
  }
  try {
    return std::stoll(it->second);
  } catch (const std::exception&) {
    throw_input_error("micro", "column '{}': expected an integer, got '{}'", k, it->second);
  }
}

const std::string& key_str(const MicroRow& r, const std::string& k) {
  const auto it = r.find(k);
  if (it == r.end()) {
    throw_input_error("micro", "the point has no column '{}'", k);
  }
  return it->second;
}

std::string s(int64_t v) {
  return std::to_string(v);
}

int64_t pct_of_sorted(const std::vector<int64_t>& sorted, double p) {
  return sorted[static_cast<size_t>(p * static_cast<double>(sorted.size() - 1))];
}

Summary summarize(std::vector<int64_t> v) {
  std::sort(v.begin(), v.end());
  double mean = 0;
  for (const int64_t x : v) {
    mean += static_cast<double>(x);
  }
  return {v.front(), pct_of_sorted(v, 0.1), v[v.size() / 2], pct_of_sorted(v, 0.9),
          mean / static_cast<double>(v.size())};
}

MicroRow with_latency_columns(MicroRow key, const std::vector<int64_t>& v) {
  const Summary sm = summarize(v);
  key["samples"] = s(static_cast<int64_t>(v.size()));
  key["min_cycles"] = s(sm.min);
  key["p10_cycles"] = s(sm.p10);
  key["median_cycles"] = s(sm.median);
  key["p90_cycles"] = s(sm.p90);
  key["mean_cycles"] = fmt::format("{:.1f}", sm.mean);
  return key;
}

int64_t sm_cycles(const GpuConfig& c, Time t) {
  return std::llround(ClockDomain::from_mhz(c.sm.clock_mhz).to_cycles(t));
}

namespace {

struct EmitTarget {
  std::string dir, stem, what;
  int next = 0;
};
thread_local EmitTarget t_emit;
thread_local std::vector<SimResult>* t_stats_sink = nullptr;

void emit(const program::Kernel& k, int of) {
  if (t_emit.dir.empty()) {
    return;
  }
  const std::string path = fmt::format("{}/{}.{}.asim", t_emit.dir, t_emit.stem, t_emit.next);
  std::ofstream f(path);
  if (!f) {
    throw_input_error("--emit " + t_emit.dir, "cannot write {}", path);
  }
  f << fmt::format(
      "# {} (kernel {} of a sequence of {} launched back to back on one GPU; memory state "
      "carries over). Written by `asyncsim micro --emit`; the micro's timing and statistics are "
      "in src/cli/micro*.cpp.\n",
      t_emit.what, t_emit.next, of);
  f << program::write_program(k);
  ++t_emit.next;
}

}  // namespace

void set_emit_target(const std::string& dir, const std::string& stem, const std::string& what) {
  t_emit = EmitTarget{dir, stem, what, 0};
}

void set_stats_sink(std::vector<SimResult>* sink) {
  t_stats_sink = sink;
}

SimResult micro_simulate(const program::Kernel& k, const GpuConfig& c, const RunOptions& ro) {
  emit(k, 1);
  SimResult r = simulate(k, c, ro);
  if (t_stats_sink != nullptr) {
    t_stats_sink->push_back(r);
  }
  return r;
}

std::vector<SimResult> micro_sequence(const std::vector<const program::Kernel*>& kernels,
                                      const GpuConfig& c, const RunOptions& ro) {
  for (const program::Kernel* k : kernels) {
    emit(*k, static_cast<int>(kernels.size()));
  }
  std::vector<SimResult> r = simulate_sequence(kernels, c, ro);
  if (t_stats_sink != nullptr) {
    t_stats_sink->insert(t_stats_sink->end(), r.begin(), r.end());
  }
  return r;
}

std::vector<IssueMark> traced_run(const program::Kernel& k, const GpuConfig& c) {
  std::vector<IssueMark> trace;
  RunOptions ro;
  ro.issue_trace = &trace;
  micro_simulate(k, c, ro);
  return trace;
}

// Times of the traced warpgroup's instructions with op `op`, then of its EXIT.
std::vector<Time> marks(const std::vector<IssueMark>& trace, Op op) {
  std::vector<Time> out;
  for (const IssueMark& m : trace) {
    if (m.op == op || m.op == Op::kExit) {
      out.push_back(m.t);
    }
  }
  return out;
}

// Samples of "clock64 before arrive.expect_tx ... clock64 after the wait": the interval from
// one MB_ARRIVE_EXPECT_TX to the next (the loop has nothing else), the last one to EXIT.
std::vector<int64_t> iteration_cycles(const GpuConfig& c, const std::vector<IssueMark>& trace) {
  const std::vector<Time> t = marks(trace, Op::kMbArriveExpectTx);
  std::vector<int64_t> out;
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    out.push_back(sm_cycles(c, t[i + 1] - t[i]));
  }
  return out;
}

// A full-chip read of [base, base + bytes): one CTA per SM streams 8 KB bulk copies through 8
// slots, unit u = i * CTAs + cta (grid-stride, as the hardware's touch kernel), so every SM
// touches the whole range in the order the hardware's grid-stride loop does. With `write`, the
// same units are written instead (bulk stores, at most 8 in flight per CTA): every line dirty.
program::Kernel touch_kernel(const GpuConfig& c, uint64_t base, int64_t bytes, bool write,
                             bool lsu) {
  constexpr int64_t kUnit = 8 * kKiB;
  return touch_rows_kernel(c, base, std::max<int64_t>(1, bytes / kUnit), kUnit, kUnit, write, lsu);
}

// The same grid-stride loop over `units` units of `unit_bytes`, unit u at base + u * pitch.
program::Kernel touch_rows_kernel(const GpuConfig& c, uint64_t base, int64_t units,
                                  int64_t unit_bytes, int64_t pitch, bool write, bool lsu) {
  constexpr int kSlots = 8;
  const int64_t ctas = c.sm.count;
  const int64_t iters = (units + ctas - 1) / ctas;
  const std::string addr =
      fmt::format("{} + min(i * {} + cta, {}) * {}", base, ctas, units - 1, pitch);
  KernelBuilder b(write ? "fill" : "touch");
  b.set_grid(ctas);
  b.set_resources(32, kSlots * unit_bytes);
  b.add_barrier("bar", kSlots, 1);
  b.begin_role("main", 1);
  b.loop("i", "0", s(iters));
  if (write && lsu) {
    // ST_GLOBALs of 16 B per thread; the LSU's queue bounds what is in flight.
    b.st_global(addr, s(unit_bytes));
    b.end_loop();
    b.end_role();
    return b.finish();
  }
  if (write) {
    b.bulk_store(addr, s(unit_bytes));
    b.tma_store_wait(s(kSlots - 1));
    b.end_loop();
    b.tma_store_wait("0");
    b.end_role();
    return b.finish();
  }
  b.if_(fmt::format("i >= {}", kSlots));
  b.mb_wait("bar", fmt::format("i % {}", kSlots), fmt::format("(i / {} - 1) % 2", kSlots));
  b.end_if();
  b.mb_arrive_expect_tx("bar", fmt::format("i % {}", kSlots), s(unit_bytes));
  b.bulk_load(addr, s(unit_bytes), "bar", fmt::format("i % {}", kSlots));
  b.end_loop();
  b.loop("k", s(std::max<int64_t>(0, iters - kSlots)), s(iters));
  b.mb_wait("bar", fmt::format("k % {}", kSlots), fmt::format("(k / {}) % 2", kSlots));
  b.end_loop();
  b.end_role();
  return b.finish();
}

}  // namespace asyncsim::cli::micro_detail
