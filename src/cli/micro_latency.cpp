// Single-CTA latency microbenchmarks: tma_latency, tma_size, tma_issue.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <utility>

#include "cli/micro_detail.h"
#include "program/builder.h"
#include "sim/simulator.h"
#include "util/error.h"

namespace asyncsim::cli::micro_detail {

using program::KernelBuilder;
using program::Op;

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

namespace {

// The timed kernel of one tma_latency.cu configuration: 1 CTA, one tile after another.
program::Kernel latency_kernel(int64_t box, int64_t ws) {
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
  return b.finish();
}

}  // namespace

MicroRow latency_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions&) {
  const int64_t box = key_int(key, "box_bytes");
  const int64_t ws = key_int(key, "working_set_bytes");
  latency_coords(box, ws);  // rejects a point the hardware did not run
  // tma_latency.cu runs its configurations one after another on the same buffer (8 KB boxes at
  // 1..256 MiB, then 128-B boxes), with no flush between: every working set starts at the same
  // address, so a configuration finds near copies of the tiles the timed SM read in the ones
  // before (validation/data/h200/micro_tma_touch.csv: after a flush and a full-chip warm-up, a
  // tile's first read is slow, ~570 cycles, and its re-reads fast, ~408, at every size, and
  // the 8 KB box's median at 16 MiB is 569 there, 408 in tma_latency.csv). The configurations
  // before this one are replayed (warm-up and timed kernel each) back to where their working
  // sets add up to twice the L2, beyond which their lines are gone.
  std::vector<std::pair<int64_t, int64_t>> order;  // (box, ws) in the hardware's order
  for (const int64_t bb : {8192, 128}) {
    for (const int64_t mb : kLatencyWsMb) {
      order.emplace_back(bb, mb * kMiB);
    }
  }
  const auto here = std::find(order.begin(), order.end(), std::make_pair(box, ws));
  std::vector<std::pair<int64_t, int64_t>> history;
  int64_t behind = 0;
  for (auto it = here; it != order.begin() && behind < 2 * c.mem.l2_bytes;) {
    --it;
    history.insert(history.begin(), *it);
    behind += it->second;
  }
  std::vector<program::Kernel> kernels;
  kernels.reserve(2 * history.size() + 3);
  if (behind < 2 * c.mem.l2_bytes) {
    // The history reaches the run's start: tma_latency.cu first fills the whole 256 MiB buffer
    // (fill_random, st.global), which leaves the buffer's tail dirty in the L2.
    kernels.push_back(touch_kernel(c, 0, 256 * kMiB, true, true));
  }
  for (const auto& [hb, hw] : history) {
    kernels.push_back(touch_kernel(c, 0, hw));
    kernels.push_back(latency_kernel(hb, hw));
  }
  kernels.push_back(touch_kernel(c, 0, ws));
  kernels.push_back(latency_kernel(box, ws));
  std::vector<const program::Kernel*> seq;
  for (const program::Kernel& k : kernels) {
    seq.push_back(&k);
  }
  std::vector<IssueMark> trace;
  RunOptions ro;
  ro.issue_trace = &trace;
  micro_sequence(seq, c, ro);
  std::vector<int64_t> v = iteration_cycles(c, trace);
  v.erase(v.begin(), v.begin() + 8);
  MicroRow row = with_latency_columns({{"box_bytes", s(box)}, {"working_set_bytes", s(ws)}}, v);
  // tma_latency.cu's quantile columns (twenty-eighth session), chosen as its pct_of does
  std::sort(v.begin(), v.end());
  for (const auto& [name, p] : {std::pair{"p05_cycles", 0.05}, std::pair{"p25_cycles", 0.25},
                                std::pair{"p75_cycles", 0.75}, std::pair{"p95_cycles", 0.95}}) {
    row[name] = s(pct_of_sorted(v, p));
  }
  return row;
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
  const std::vector<IssueMark> trace = traced_run(k, c);
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
  // The H200 kernel's own instructions between its first clock64 and the first copy (or, at
  // n = 0, the wait): branches on the copy kind and n, and the copy loop's preamble, a chain of
  // dependent uniform-datapath instructions (micro_tma_issue_sass.txt). Their time is the
  // H200's issue_cycles column, which does not depend on src or bytes: 57 cycles (bulk) / 52
  // (tensor2d) at n = 0, and at n = 1 187 / 192, of which one copy's issue is
  // tma.issue_gap_cycles / tma.tensor_issue_gap_cycles; the rest precedes the first copy. So
  // the simulated issue column reproduces the H200's by construction and the completion column
  // is what the comparison judges (the copies' flight, the L2, the mbarrier).
  const bool tensor = kIssueKinds[kind].tensor;
  const int gap = tensor ? c.tma.tensor_issue_gap_cycles : c.tma.issue_gap_cycles;
  const int harness = n == 0 ? (tensor ? 52 : 57) : (tensor ? 192 : 187) - gap;
  KernelBuilder::ComputeOps pre;
  pre.cycles = s(harness);
  b.compute(pre, false, "harness");
  const std::string t0i = fresh ? fmt::format("r * {}", n) : "0";
  for (int64_t k = 0; k < n; ++k) {
    const std::string t = fmt::format("({} + {})", t0i, k);
    if (tensor) {
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
  const std::vector<IssueMark> trace = traced_run(kern, c);
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
    // The H200 reads clock64 right after its last copy's issue; the MB_WAIT can issue later
    // (tma.barrier_hold_cycles), so the issue column ends where the last copy's issue gap does.
    const bool copy_before = trace[j - 1].op == Op::kBulkLoad || trace[j - 1].op == Op::kTmaLoad;
    const Time t1 = copy_before ? trace[j - 1].t + ClockDomain::from_mhz(c.sm.clock_mhz).cycles(gap)
                                : trace[j].t;
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
// tma_repeat: one thread on SM s (0, 2, 1, 3) reads each of 192 random lines of a 64 MiB region
// 4 times from a cold L2 (pass 0 from DRAM), one read at a time: lsu = a dependent 16-B
// ld.global.cg, tma = arm + one 128-B bulk copy + wait. The lines of tma_repeat.cu (its
// xorshift draw); the region starts at address 0.

constexpr int kRepeatLines = 192;
constexpr int kRepeatPasses = 4;

std::vector<int64_t> repeat_lines() {
  std::vector<int64_t> lines;
  uint64_t x = 88172645463325252ULL;
  const uint64_t region_lines = (64 * kMiB) / 128;
  while (static_cast<int>(lines.size()) < kRepeatLines) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    const auto l = static_cast<int64_t>(x % region_lines);
    if (std::find(lines.begin(), lines.end(), l) == lines.end()) {
      lines.push_back(l);
    }
  }
  return lines;
}

std::vector<MicroRow> repeat_points() {
  std::vector<MicroRow> out;
  for (const int sm : {0, 2, 1, 3}) {
    for (const char* mode : {"lsu", "tma"}) {
      for (int pass = 0; pass < kRepeatPasses; ++pass) {
        for (int line = 0; line < kRepeatLines; ++line) {
          out.push_back({{"mode", mode}, {"smid", s(sm)}, {"line", s(line)}, {"pass", s(pass)}});
        }
      }
    }
  }
  return out;
}

std::vector<MicroRow> repeat_run(const MicroRow& run, const GpuConfig& c, const MicroOptions&) {
  const std::string& mode = key_str(run, "mode");
  const int64_t sm = key_int(run, "smid");
  if ((mode != "lsu" && mode != "tma") || sm < 0 || sm >= c.sm.count) {
    throw_input_error("micro tma_repeat", "expected mode lsu or tma and an SM below {}, got {} {}",
                      c.sm.count, mode, sm);
  }
  const bool tma = mode == "tma";
  const std::vector<int64_t> lines = repeat_lines();
  KernelBuilder b("tma_repeat");
  b.set_resources(32, 1024);
  b.add_barrier("bar", 1, 1);
  b.begin_role("main", 1);
  b.loop("p", "0", s(kRepeatPasses));
  for (int i = 0; i < kRepeatLines; ++i) {
    const std::string addr = s(lines[static_cast<size_t>(i)] * 128);
    if (tma) {
      b.mb_arrive_expect_tx("bar", "0", "128");
      b.bulk_load(addr, "128", "bar", "0");
      b.mb_wait("bar", "0", s(i % 2));  // 192 reads per pass: the parity repeats every pass
    } else {
      b.ld_global(addr, "16", "1", "0", "16");
      b.ld_wait("0");
    }
  }
  b.end_loop();
  b.end_role();
  const program::Kernel k = b.finish();
  std::vector<IssueMark> trace;
  RunOptions ro;
  ro.issue_trace = &trace;
  ro.first_sm = static_cast<int>(sm);
  micro_simulate(k, c, ro);
  // One sample per read: from its first instruction to the next read's (or EXIT).
  const std::vector<Time> t = marks(trace, tma ? Op::kMbArriveExpectTx : Op::kLdGlobal);
  if (t.size() != static_cast<size_t>(kRepeatLines * kRepeatPasses) + 1) {
    throw_input_error("micro tma_repeat", "expected {} reads, traced {}",
                      kRepeatLines * kRepeatPasses, t.size() - 1);
  }
  std::vector<MicroRow> out;
  for (int pass = 0; pass < kRepeatPasses; ++pass) {
    for (int line = 0; line < kRepeatLines; ++line) {
      const size_t i = static_cast<size_t>(pass * kRepeatLines + line);
      out.push_back({{"mode", mode},
                     {"smid", s(sm)},
                     {"line", s(line)},
                     {"pass", s(pass)},
                     {"cycles", s(sm_cycles(c, t[i + 1] - t[i]))}});
    }
  }
  return out;
}

}  // namespace asyncsim::cli::micro_detail
