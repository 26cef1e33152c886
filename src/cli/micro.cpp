#include "cli/micro.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "program/builder.h"
#include "sim/simulator.h"
#include "util/error.h"

namespace asyncsim::cli {
namespace {

using program::KernelBuilder;
using program::Op;

constexpr int64_t kKiB = 1024;
constexpr int64_t kMiB = 1024 * 1024;

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

// The statistics of validation/hw/micro/common.cuh: median = v[n/2], pct = v[p*(n-1)].
struct Summary {
  int64_t min, p10, median, p90;
  double mean;
};
Summary summarize(std::vector<int64_t> v) {
  std::sort(v.begin(), v.end());
  const auto pct = [&](double p) {
    return v[static_cast<size_t>(p * static_cast<double>(v.size() - 1))];
  };
  double mean = 0;
  for (const int64_t x : v) {
    mean += static_cast<double>(x);
  }
  return {v.front(), pct(0.1), v[v.size() / 2], pct(0.9), mean / static_cast<double>(v.size())};
}

int64_t sm_cycles(const GpuConfig& c, Time t) {
  return std::llround(ClockDomain::from_mhz(c.sm.clock_mhz).to_cycles(t));
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
// touches the whole range in the order the hardware's grid-stride loop does.
program::Kernel touch_kernel(const GpuConfig& c, uint64_t base, int64_t bytes) {
  constexpr int64_t kUnit = 8 * kKiB;
  constexpr int kSlots = 8;
  const int64_t ctas = c.sm.count;
  const int64_t units = std::max<int64_t>(1, bytes / kUnit);
  const int64_t iters = (units + ctas - 1) / ctas;
  KernelBuilder b("touch");
  b.set_grid(ctas);
  b.set_resources(32, kSlots * kUnit);
  b.add_barrier("bar", kSlots, 1);
  b.begin_role("main", 1);
  b.loop("i", "0", s(iters));
  b.if_(fmt::format("i >= {}", kSlots));
  b.mb_wait("bar", fmt::format("i % {}", kSlots), fmt::format("(i / {} - 1) % 2", kSlots));
  b.end_if();
  b.mb_arrive_expect_tx("bar", fmt::format("i % {}", kSlots), s(kUnit));
  b.bulk_load(fmt::format("{} + min(i * {} + cta, {}) * {}", base, ctas, units - 1, kUnit),
              s(kUnit), "bar", fmt::format("i % {}", kSlots));
  b.end_loop();
  b.loop("k", s(std::max<int64_t>(0, iters - kSlots)), s(iters));
  b.mb_wait("bar", fmt::format("k % {}", kSlots), fmt::format("(k / {}) % 2", kSlots));
  b.end_loop();
  b.end_role();
  return b.finish();
}

// ---------------------------------------------------------------------------------------------
// tma_latency: 1 CTA, 1 thread, 2048 tiles of a [W/8KB x 4096] fp16 tensor in random order,
// each timed from arrive.expect_tx to the end of the wait; the working set first touched by a
// full-chip read kernel; first 8 samples dropped.

const std::vector<int64_t> kLatencyWsMb = {1,  2,  4,  8,  16, 24,  32,  40,
                                           48, 56, 64, 80, 96, 128, 192, 256};

std::vector<MicroRow> latency_points() {
  std::vector<MicroRow> out;
  for (const int64_t box : {8192, 128}) {
    for (const int64_t mb : kLatencyWsMb) {
      out.push_back({{"box_bytes", s(box)}, {"working_set_bytes", s(mb * kMiB)}});
    }
  }
  return out;
}

// The tile coordinates the hardware run used: the same generator, seed and draw order
// (tma_latency.cu draws every point from one mt19937_64 in box-major, size-minor order).
std::vector<std::pair<int64_t, int64_t>> latency_coords(int64_t box_bytes, int64_t ws) {
  constexpr int kSamples = 2048;
  constexpr int64_t kCols = 4096;
  std::mt19937_64 rng(12345);
  for (const int64_t bb : {8192, 128}) {
    const int64_t bw = 64;
    const int64_t bh = bb == 8192 ? 64 : 1;
    for (const int64_t mb : kLatencyWsMb) {
      const int64_t rows = mb * kMiB / (kCols * 2);
      const auto tiles_x = static_cast<uint64_t>(kCols / bw);
      const auto ntiles = tiles_x * static_cast<uint64_t>(rows / bh);
      std::uniform_int_distribution<uint64_t> dist(0, ntiles - 1);
      std::vector<uint64_t> seen;
      std::vector<std::pair<int64_t, int64_t>> coords;
      for (int i = 0; i < kSamples; ++i) {
        uint64_t t = dist(rng);
        if (ntiles > static_cast<uint64_t>(kSamples) * 4) {
          for (int k = 0; k < 4 && std::find(seen.begin(), seen.end(), t) != seen.end(); ++k) {
            t = dist(rng);
          }
        }
        seen.push_back(t);
        coords.emplace_back(static_cast<int64_t>(t % tiles_x) * bw,
                            static_cast<int64_t>(t / tiles_x) * bh);
      }
      if (bb == box_bytes && mb * kMiB == ws) {
        return coords;
      }
    }
  }
  throw_input_error("micro tma_latency",
                    "no hardware point with box_bytes={} working_set_bytes={} (boxes 8192, 128; "
                    "working sets 1..256 MiB as in tma_latency.cu)",
                    box_bytes, ws);
}

MicroRow latency_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions&) {
  const int64_t box = key_int(key, "box_bytes");
  const int64_t ws = key_int(key, "working_set_bytes");
  const auto coords = latency_coords(box, ws);
  KernelBuilder b("tma_latency");
  b.set_resources(32, 8192 + 16);
  program::TensorMap m;
  m.name = "T";
  m.rank = 2;
  m.dims = {4096, ws / 8192, 0, 0, 0};
  m.strides = {2, 8192, 0, 0, 0};
  m.box = {64, box == 8192 ? 64 : 1, 0, 0, 0};
  b.add_map(m);
  b.add_barrier("bar", 1, 1);
  b.begin_role("main", 1);
  for (size_t i = 0; i < coords.size(); ++i) {
    b.mb_arrive_expect_tx("bar", "0", s(box));
    b.tma_load("T", {s(coords[i].first), s(coords[i].second)}, "bar", "0");
    b.mb_wait("bar", "0", s(static_cast<int64_t>(i % 2)));
  }
  b.end_role();
  const program::Kernel lat = b.finish();
  const program::Kernel touch = touch_kernel(c, 0, ws);
  std::vector<IssueMark> trace;
  RunOptions ro;
  ro.issue_trace = &trace;
  simulate_sequence({&touch, &lat}, c, ro);
  std::vector<int64_t> v = iteration_cycles(c, trace);
  v.erase(v.begin(), v.begin() + 8);
  const Summary sm = summarize(v);
  return {{"box_bytes", s(box)},
          {"working_set_bytes", s(ws)},
          {"samples", s(static_cast<int64_t>(v.size()))},
          {"min_cycles", s(sm.min)},
          {"p10_cycles", s(sm.p10)},
          {"median_cycles", s(sm.median)},
          {"p90_cycles", s(sm.p90)},
          {"mean_cycles", fmt::format("{:.1f}", sm.mean)}};
}

// ---------------------------------------------------------------------------------------------
// tma_size: 1 CTA, 1 thread, 512 bulk copies of S bytes each timed alone; src=l2: the same
// source every sample; src=dram: fresh sources 1 MiB + 4 KiB apart in a cold L2; first 4
// samples dropped.

const std::vector<int64_t> kSizes = {128,  256,  384,  512,  768,  1024,  1536,
                                     2048, 3072, 4096, 6144, 8192, 12288, 16384};

std::vector<MicroRow> size_points() {
  std::vector<MicroRow> out;
  for (const char* src : {"l2", "dram"}) {
    for (const int64_t sz : kSizes) {
      out.push_back({{"copy", "bulk"}, {"src", src}, {"size_bytes", s(sz)}});
    }
  }
  return out;
}

MicroRow size_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions&) {
  const std::string& src = key_str(key, "src");
  const int64_t size = key_int(key, "size_bytes");
  if (src != "l2" && src != "dram") {
    throw_input_error("micro tma_size", "src: expected l2 or dram, got '{}'", src);
  }
  const auto it = std::find(kSizes.begin(), kSizes.end(), size);
  if (it == kSizes.end() || size % 16 != 0) {
    throw_input_error("micro tma_size", "size_bytes {} is not a size of tma_size.cu", size);
  }
  constexpr int kSamples = 512;
  const int64_t big = 2048 * kMiB;
  // tma_size.cu: dram_base advances by 2 * 16384 + 128 per size; step 1 MiB + 4 KiB.
  const int64_t base = (it - kSizes.begin()) * (2 * 16384 + 128);
  const int64_t step = src == "l2" ? 0 : kMiB + 4096;
  const int64_t wrap = src == "l2" ? 1 : big - base - 32768;
  KernelBuilder b("tma_size");
  b.set_resources(32, 16384 + 16);
  b.add_barrier("bar", 1, 1);
  b.begin_role("main", 1);
  b.loop("i", "0", s(kSamples));
  b.mb_arrive_expect_tx("bar", "0", s(size));
  b.bulk_load(src == "l2" ? "0" : fmt::format("{} + (i * {}) % {}", base, step, wrap), s(size),
              "bar", "0");
  b.mb_wait("bar", "0", "i % 2");
  b.end_loop();
  b.end_role();
  const program::Kernel k = b.finish();
  std::vector<IssueMark> trace;
  RunOptions ro;
  ro.issue_trace = &trace;
  simulate(k, c, ro);
  std::vector<int64_t> v = iteration_cycles(c, trace);
  v.erase(v.begin(), v.begin() + 4);
  const Summary sm = summarize(v);
  return {{"copy", "bulk"},
          {"src", src},
          {"size_bytes", s(size)},
          {"samples", s(static_cast<int64_t>(v.size()))},
          {"min_cycles", s(sm.min)},
          {"p10_cycles", s(sm.p10)},
          {"median_cycles", s(sm.median)},
          {"p90_cycles", s(sm.p90)}};
}

// ---------------------------------------------------------------------------------------------
// tma_issue: 1 CTA, 1 thread, 9 repetitions (first dropped) of: arrive.expect_tx(n * bytes),
// clock, n back-to-back copies to distinct slots on one mbarrier, clock, wait, clock.

struct IssueKind {
  const char* name;
  bool tensor;
  int64_t bytes;
};
constexpr IssueKind kIssueKinds[] = {
    {"bulk", false, 1024}, {"bulk", false, 4096}, {"tensor2d", true, 4096}};

std::vector<MicroRow> issue_points() {
  std::vector<MicroRow> out;
  for (const char* src : {"l2", "dram"}) {
    for (const IssueKind& k : kIssueKinds) {
      for (int n = 0; n <= 32; ++n) {
        out.push_back({{"copy", k.name}, {"src", src}, {"bytes_each", s(k.bytes)}, {"n", s(n)}});
      }
    }
  }
  return out;
}

MicroRow issue_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions&) {
  const std::string& copy = key_str(key, "copy");
  const std::string& src = key_str(key, "src");
  const int64_t bytes = key_int(key, "bytes_each");
  const int64_t n = key_int(key, "n");
  int kind = -1;
  for (int i = 0; i < 3; ++i) {
    if (copy == kIssueKinds[i].name && bytes == kIssueKinds[i].bytes) {
      kind = i;
    }
  }
  if (kind < 0 || (src != "l2" && src != "dram") || n < 0 || n > 32) {
    throw_input_error("micro tma_issue",
                      "no point copy={} src={} bytes_each={} n={} in tma_issue.cu (bulk 1024 / "
                      "4096, tensor2d 4096; src l2 or dram; n 0..32)",
                      copy, src, bytes, n);
  }
  constexpr int kReps = 9;
  const bool fresh = src == "dram";
  // tma_issue.cu's fresh regions: fresh_base_bytes grows by 20 KiB per (kind, n) run in dram
  // mode; the tensor runs take a new column per run and a new row range every 64 runs.
  const int64_t run = kind * 33 + n;
  const int64_t bulk_base = fresh ? (run * (4096 + 16384)) % (1024 * kMiB) + 64 * (n % 16) : 0;
  const int64_t cx0 = fresh ? (n % 64) * 64 : 0;
  const int64_t row_off = fresh ? ((n / 64) % 8) * 10240 : 0;
  const int64_t rows = 2048 * kMiB / 8192;
  KernelBuilder b("tma_issue");
  b.set_resources(32, 32 * 4096 + 16);
  program::TensorMap m;
  m.name = "T";
  m.rank = 2;
  m.dims = {4096, rows - row_off, 0, 0, 0};
  m.strides = {2, 8192, 0, 0, 0};
  m.box = {64, 32, 0, 0, 0};
  m.base = static_cast<uint64_t>(row_off * 8192);
  b.add_map(m);
  b.add_barrier("bar", 1, 1);
  b.begin_role("main", 1);
  b.loop("r", "0", s(kReps));
  b.mb_arrive_expect_tx("bar", "0", s(bytes * n));
  const std::string t0i = fresh ? fmt::format("r * {}", n) : "0";
  for (int64_t k = 0; k < n; ++k) {
    const std::string t = fmt::format("({} + {})", t0i, k);
    if (kIssueKinds[kind].tensor) {
      b.tma_load("T", {fmt::format("{} + ({} / 4096) % 64 * 64", cx0, t), t + " % 4096 * 32"},
                 "bar", "0");
    } else {
      b.bulk_load(fmt::format("{} + {} * {}", bulk_base, t, 256 * kKiB), s(bytes), "bar", "0");
    }
  }
  b.mb_wait("bar", "0", "r % 2");
  b.end_loop();
  b.end_role();
  const program::Kernel kern = b.finish();
  std::vector<IssueMark> trace;
  RunOptions ro;
  ro.issue_trace = &trace;
  simulate(kern, c, ro);
  // Per repetition: t0 = the instruction after MB_ARRIVE_EXPECT_TX, t1 = the MB_WAIT, t2 = the
  // next repetition's MB_ARRIVE_EXPECT_TX (or EXIT).
  std::vector<int64_t> issue, complete;
  for (size_t i = 0; i < trace.size(); ++i) {
    if (trace[i].op != Op::kMbArriveExpectTx) {
      continue;
    }
    const Time t0 = trace[i + 1].t;
    size_t j = i + 1;
    while (trace[j].op != Op::kMbWait) {
      ++j;
    }
    const Time t1 = trace[j].t;
    const Time t2 = trace[j + 1].t;
    issue.push_back(sm_cycles(c, t1 - t0));
    complete.push_back(sm_cycles(c, t2 - t0));
  }
  issue.erase(issue.begin());
  complete.erase(complete.begin());
  const Summary si = summarize(issue);
  const Summary sc = summarize(complete);
  return {{"copy", copy},
          {"src", src},
          {"bytes_each", s(bytes)},
          {"n", s(n)},
          {"samples", s(static_cast<int64_t>(issue.size()))},
          {"issue_cycles_median", s(si.median)},
          {"complete_cycles_median", s(sc.median)},
          {"issue_cycles_min", s(si.min)},
          {"complete_cycles_min", s(sc.min)}};
}

// ---------------------------------------------------------------------------------------------
// Streaming: every SM runs ctas_per_sm CTAs of one issuing thread; each CTA keeps `slots`
// copies in flight (one mbarrier per slot, a slot reissued when its copy completed); copy j of
// CTA b is unit (b + j * CTAs) mod T of the buffer (tma_bw.cu's grid-stride order).

enum class CopyKind { kBulk, kTensor1d, kTensor2d, kTensor3d };

struct Stream {
  CopyKind kind = CopyKind::kBulk;
  int64_t bytes = 8192;  // per copy
  int slots = 16;
  int ctas_per_sm = 1;
  int64_t buffer = 0;  // bytes
  int64_t passes = 1;
  int64_t store_offset = -1;  // >= 0: each loaded unit is stored back at +offset (a copy)
};

program::Kernel stream_kernel(const GpuConfig& c, const Stream& st, const std::string& name) {
  const int64_t ctas = int64_t{c.sm.count} * st.ctas_per_sm;
  const int64_t units = st.buffer / st.bytes;
  const int64_t total = units * st.passes;
  const int S = st.slots;
  KernelBuilder b(name);
  b.set_grid(ctas);
  b.set_resources(32, S * st.bytes + 8 * S);
  program::TensorMap m;
  m.name = "T";
  switch (st.kind) {
    case CopyKind::kBulk:
      break;
    case CopyKind::kTensor1d:
      // A u64 box of 256 (2 KB, contiguous): the same lines as two 1 KB f32 rows.
      m.dtype = program::DType::kF32;
      m.rank = 2;
      m.dims = {256, st.buffer / 1024, 0, 0, 0};
      m.strides = {4, 1024, 0, 0, 0};
      m.box = {256, 2, 0, 0, 0};
      break;
    case CopyKind::kTensor2d:
      m.rank = 2;
      m.dims = {4096, st.buffer / 8192, 0, 0, 0};
      m.strides = {2, 8192, 0, 0, 0};
      m.box = {64, 64, 0, 0, 0};
      break;
    case CopyKind::kTensor3d:
      m.rank = 3;
      m.dims = {4096, 16, st.buffer / (8192 * 16), 0, 0};
      m.strides = {2, 8192, 8192 * 16, 0, 0};
      m.box = {64, 8, 8, 0, 0};
      break;
  }
  if (st.kind != CopyKind::kBulk) {
    b.add_map(m);
  }
  b.add_barrier("bar", S, 1);
  b.begin_role("main", 1);
  const std::string count = fmt::format("cdiv({} - cta, {})", total, ctas);
  b.loop("j", "0", count);
  const std::string slot = fmt::format("j % {}", S);
  const std::string u = fmt::format("((cta + j * {}) % {})", ctas, units);
  b.if_(fmt::format("j >= {}", S));
  b.mb_wait("bar", slot, fmt::format("(j / {} - 1) % 2", S));
  if (st.store_offset >= 0) {
    const std::string prev = fmt::format("((cta + (j - {}) * {}) % {})", S, ctas, units);
    b.bulk_store(fmt::format("{} + {} * {}", st.store_offset, prev, st.bytes), s(st.bytes));
    b.tma_store_wait(s(S - 1));
  }
  b.end_if();
  b.mb_arrive_expect_tx("bar", slot, s(st.bytes));
  switch (st.kind) {
    case CopyKind::kBulk:
      b.bulk_load(fmt::format("{} * {}", u, st.bytes), s(st.bytes), "bar", slot);
      break;
    case CopyKind::kTensor1d:
      b.tma_load("T", {"0", u + " * 2"}, "bar", slot);
      break;
    case CopyKind::kTensor2d:
      b.tma_load("T", {u + " % 64 * 64", u + " / 64 * 64"}, "bar", slot);
      break;
    case CopyKind::kTensor3d:
      b.tma_load("T", {u + " % 64 * 64", u + " / 64 % 2 * 8", u + " / 128 * 8"}, "bar", slot);
      break;
  }
  b.end_loop();
  b.loop("k", fmt::format("max(0, {} - {})", count, S), count);
  b.mb_wait("bar", fmt::format("k % {}", S), fmt::format("(k / {}) % 2", S));
  if (st.store_offset >= 0) {
    b.bulk_store(
        fmt::format("{} + ((cta + k * {}) % {}) * {}", st.store_offset, ctas, units, st.bytes),
        s(st.bytes));
  }
  b.end_loop();
  if (st.store_offset >= 0) {
    b.tma_store_wait("0");
  }
  b.end_role();
  return b.finish();
}

// Runs the stream (after a one-pass warm-up when `warm`) and returns its time in us.
double stream_us(const GpuConfig& c, const Stream& st, bool warm) {
  const program::Kernel k = stream_kernel(c, st, "stream");
  if (!warm) {
    return simulate(k, c).time_us;
  }
  Stream w = st;
  w.passes = 1;
  w.store_offset = -1;
  const program::Kernel warmup = stream_kernel(c, w, "warmup");
  return simulate_sequence({&warmup, &k}, c).back().time_us;
}

std::vector<MicroRow> bw_points() {
  std::vector<MicroRow> out;
  const auto add = [&](const char* copy, const char* src, const char* wait, int ctas, int bytes,
                       int slots) {
    out.push_back({{"copy", copy},
                   {"src", src},
                   {"wait", wait},
                   {"ctas_per_sm", s(ctas)},
                   {"bytes_per_copy", s(bytes)},
                   {"slots", s(slots)}});
  };
  for (const char* src : {"dram", "l2"}) {
    add("bulk", src, "try_wait", 1, 8192, 16);
    add("tensor1d", src, "try_wait", 1, 2048, 64);
    add("tensor2d", src, "try_wait", 1, 8192, 16);
    add("tensor3d", src, "try_wait", 1, 8192, 16);
    add("bulk", src, "test_wait", 1, 8192, 16);
    add("tensor2d", src, "test_wait", 1, 8192, 16);
    add("bulk", src, "try_wait", 1, 8192, 2);
    add("bulk", src, "try_wait", 1, 8192, 4);
    add("bulk", src, "try_wait", 1, 8192, 8);
    add("bulk", src, "try_wait", 2, 8192, 8);
    add("bulk", src, "try_wait", 4, 8192, 4);
    add("bulk", src, "try_wait", 8, 8192, 2);
    add("bulk", src, "try_wait", 1, 16384, 8);
    add("bulk", src, "try_wait", 1, 4096, 32);
    add("tensor1d", src, "try_wait", 4, 2048, 16);
    add("tensor2d", src, "try_wait", 4, 8192, 4);
  }
  return out;
}

MicroRow bw_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions& o) {
  const std::string& copy = key_str(key, "copy");
  const std::string& src = key_str(key, "src");
  Stream st;
  if (copy == "bulk") {
    st.kind = CopyKind::kBulk;
  } else if (copy == "tensor1d") {
    st.kind = CopyKind::kTensor1d;
  } else if (copy == "tensor2d") {
    st.kind = CopyKind::kTensor2d;
  } else if (copy == "tensor3d") {
    st.kind = CopyKind::kTensor3d;
  } else {
    throw_input_error("micro tma_bw",
                      "copy: expected bulk, tensor1d, tensor2d or tensor3d, got '{}'", copy);
  }
  if (src != "dram" && src != "l2") {
    throw_input_error("micro tma_bw", "src: expected dram or l2, got '{}'", src);
  }
  st.bytes = key_int(key, "bytes_per_copy");
  st.slots = static_cast<int>(key_int(key, "slots"));
  st.ctas_per_sm = static_cast<int>(key_int(key, "ctas_per_sm"));
  const int64_t expect = st.kind == CopyKind::kTensor1d ? 2048 : 0;
  if ((expect != 0 && st.bytes != expect) ||
      (st.kind != CopyKind::kBulk && st.kind != CopyKind::kTensor1d && st.bytes != 8192) ||
      st.bytes % 16 != 0 || st.bytes <= 0 || st.slots < 1 || st.slots > 64 || st.ctas_per_sm < 1) {
    throw_input_error("micro tma_bw", "unsupported point copy={} bytes_per_copy={} slots={}", copy,
                      st.bytes, st.slots);
  }
  // dram: 4 GiB read once; l2: 32 MiB read 256 times (8 GiB), after a warm-up launch.
  const auto cap = static_cast<int64_t>(o.max_bytes);
  if (src == "dram") {
    st.buffer = 4096 * kMiB;
    if (cap > 0) {
      st.buffer = std::min(st.buffer, std::max<int64_t>(cap / (8192 * 16) * (8192 * 16), 8 * kMiB));
    }
  } else {
    st.buffer = 32 * kMiB;
    st.passes = cap > 0 ? std::clamp<int64_t>(cap / st.buffer, 2, 256) : 256;
  }
  const int64_t moved = st.buffer * st.passes;
  const double us = stream_us(c, st, src == "l2");
  const double gbps = static_cast<double>(moved) / us * 1e-3;
  return {{"copy", copy},
          {"src", src},
          {"wait", key_str(key, "wait")},
          {"ctas_per_sm", s(st.ctas_per_sm)},
          {"bytes_per_copy", s(st.bytes)},
          {"slots", s(st.slots)},
          {"inflight_bytes_per_sm", s(st.bytes * st.slots * st.ctas_per_sm)},
          {"buffer_bytes", s(st.buffer)},
          {"bytes_moved", s(moved)},
          {"median_us", fmt::format("{:.2f}", us)},
          {"median_gbps", fmt::format("{:.1f}", gbps)},
          {"best_gbps", fmt::format("{:.1f}", gbps)}};
}

// ---------------------------------------------------------------------------------------------
// mem_bw: the hardware streams with ld.global.cg / st.cs from 8 CTAs x 256 threads per SM; the
// simulator has no per-thread load path, so each CTA streams the same bytes with bulk copies of
// 4 KB through a ring of 4 slots (128 KiB in flight per SM, where tma_bw saturates).

std::vector<MicroRow> mem_points() {
  std::vector<MicroRow> out = {{{"test", "dram_read"}, {"buffer_bytes", s(4096 * kMiB)}},
                               {{"test", "dram_copy_rw"}, {"buffer_bytes", s(2048 * kMiB)}}};
  for (const int64_t mb : {2, 4, 8, 16, 24, 32, 40, 48, 56, 64, 96}) {
    out.push_back({{"test", "l2_read"}, {"buffer_bytes", s(mb * kMiB)}});
  }
  return out;
}

MicroRow mem_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions& o) {
  const std::string& test = key_str(key, "test");
  const int64_t buffer = key_int(key, "buffer_bytes");
  const auto cap = static_cast<int64_t>(o.max_bytes);
  Stream st;
  st.kind = CopyKind::kBulk;
  st.bytes = 4096;
  st.slots = 4;
  st.ctas_per_sm = 8;
  int64_t moved = 0;
  bool warm = false;
  if (test == "dram_read") {
    st.buffer = cap > 0 ? std::min(buffer, cap) : buffer;
    moved = st.buffer;
  } else if (test == "dram_copy_rw") {
    st.buffer = cap > 0 ? std::min(buffer, cap / 2) : buffer;
    st.store_offset = 2048 * kMiB;  // the destination buffer
    moved = 2 * st.buffer;
  } else if (test == "l2_read") {
    st.buffer = buffer;
    const int64_t want = cap > 0 ? std::min(cap, 8192 * kMiB) : 8192 * kMiB;
    st.passes = std::max<int64_t>(2, want / buffer);
    moved = st.buffer * st.passes;
    warm = true;
  } else {
    throw_input_error("micro mem_bw", "test: expected dram_read, dram_copy_rw or l2_read, got '{}'",
                      test);
  }
  if (st.buffer % (st.bytes * c.sm.count) != 0 && test != "l2_read") {
    st.buffer -= st.buffer % st.bytes;
  }
  const double us = stream_us(c, st, warm);
  const double gbps = static_cast<double>(moved) / us * 1e-3;
  return {{"test", test},
          {"buffer_bytes", s(buffer)},
          {"bytes_per_launch", s(moved)},
          {"launches", "1"},
          {"median_us", fmt::format("{:.2f}", us)},
          {"best_us", fmt::format("{:.2f}", us)},
          {"median_gbps", fmt::format("{:.1f}", gbps)},
          {"best_gbps", fmt::format("{:.1f}", gbps)},
          {"sm_mhz_in_kernel", fmt::format("{:.0f}", c.sm.clock_mhz)}};
}

}  // namespace

const std::vector<MicroBench>& micro_benches() {
  static const std::vector<MicroBench> benches = {
      {"tma_latency",
       "1 CTA 1 warpgroup: MB_ARRIVE_EXPECT_TX + 2-D TMA_LOAD + MB_WAIT per sample, timed from "
       "one MB_ARRIVE_EXPECT_TX issue to the next; the 2048 tiles of tma_latency.cu (same "
       "mt19937_64 seed and draws) of an [W/8KB x 4096] fp16 tensor; working set first read by "
       "a full-chip bulk-copy kernel (memory state carried over); first 8 samples dropped",
       {"box_bytes", "working_set_bytes", "samples", "min_cycles", "p10_cycles", "median_cycles",
        "p90_cycles", "mean_cycles"},
       {"box_bytes", "working_set_bytes"},
       "median_cycles",
       latency_points,
       latency_simulate},
      {"tma_size",
       "1 CTA 1 warpgroup: one BULK_LOAD of S bytes per sample (arrive.expect_tx to wait end); "
       "src=l2 the same source every sample, src=dram fresh sources 1 MiB + 4 KiB apart in a "
       "cold L2; 512 samples, first 4 dropped",
       {"copy", "src", "size_bytes", "samples", "min_cycles", "p10_cycles", "median_cycles",
        "p90_cycles"},
       {"copy", "src", "size_bytes"},
       "median_cycles",
       size_points,
       size_simulate},
      {"tma_issue",
       "1 CTA 1 warpgroup: 9 repetitions (first dropped) of MB_ARRIVE_EXPECT_TX(n x bytes), n "
       "copies to distinct slots on one mbarrier, MB_WAIT; issue = first copy to MB_WAIT issue, "
       "complete = first copy to the wait's end; the sources of tma_issue.cu; src=dram in a "
       "cold L2",
       {"copy", "src", "bytes_each", "n", "samples", "issue_cycles_median",
        "complete_cycles_median", "issue_cycles_min", "complete_cycles_min"},
       {"copy", "src", "bytes_each", "n"},
       "complete_cycles_median",
       issue_points,
       issue_simulate},
      {"tma_bw",
       "all SMs x ctas_per_sm CTAs of 1 warpgroup, a ring of `slots` copies per CTA (one "
       "mbarrier per slot, reissued on completion), grid-stride units as tma_bw.cu; tensor1d "
       "as a [256 x 2] f32 box (the same 2 KB); try_wait and test_wait simulate alike; dram: "
       "the buffer read once (up to --max-bytes), l2: 32 MiB read repeatedly after a warm-up "
       "pass; GB/s = bytes / simulated kernel time",
       {"copy", "src", "wait", "ctas_per_sm", "bytes_per_copy", "slots", "inflight_bytes_per_sm",
        "buffer_bytes", "bytes_moved", "median_us", "median_gbps", "best_gbps"},
       {"copy", "src", "wait", "ctas_per_sm", "bytes_per_copy", "slots"},
       "median_gbps",
       bw_points,
       bw_simulate},
      {"mem_bw",
       "all SMs x 8 CTAs of 1 warpgroup streaming 4 KB bulk copies through 4 slots each (the "
       "simulator has no ld.global path: same bytes and 128 KiB in flight per SM); dram_read "
       "reads the buffer once, dram_copy_rw stores each unit 2 GiB up (read + write counted), "
       "l2_read repeats the buffer after a warm-up pass",
       {"test", "buffer_bytes", "bytes_per_launch", "launches", "median_us", "best_us",
        "median_gbps", "best_gbps", "sm_mhz_in_kernel"},
       {"test", "buffer_bytes"},
       "median_gbps",
       mem_points,
       mem_simulate},
  };
  return benches;
}

const MicroBench& find_micro(const std::string& name, const std::string& flag) {
  std::string names;
  for (const MicroBench& b : micro_benches()) {
    if (b.name == name) {
      return b;
    }
    names += (names.empty() ? "" : ", ") + b.name;
  }
  throw_input_error(flag, "unknown microbenchmark '{}'; expected one of {}", name, names);
}

}  // namespace asyncsim::cli
