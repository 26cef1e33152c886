// tma_loop: where one issuing thread's time goes in a TMA copy loop (validation/hw/micro/
// tma_loop.cu): arming and issuing one copy per mbarrier, with and without a wait on the slot's
// completed phase, the wait alone, and tma_bw's ring loop on one SM or all of them.
// tma_stride: one thread's 2-D boxes from DRAM against the row stride (tma_stride.cu).
// dram_pair: boxes of 2-8 lines D bytes apart from DRAM (dram_pair.cu).
#include <fmt/format.h>

#include <algorithm>
#include <functional>

#include "cli/micro_detail.h"
#include "program/builder.h"
#include "sim/simulator.h"
#include "util/error.h"

namespace asyncsim::cli::micro_detail {

using program::KernelBuilder;

namespace {

struct LoopKind {
  const char* copy;
  int64_t bytes;
  int slots;
};
// tma_loop.cu's runs: 128 KB of copies in flight except the 1 KB bulk copies (32 KB).
constexpr LoopKind kLoopKinds[] = {{"bulk", 1024, 32},     {"bulk", 4096, 32},
                                   {"bulk", 8192, 16},     {"tensor1d", 2048, 64},
                                   {"tensor2d", 4096, 32}, {"tensor2d", 8192, 16}};
constexpr const char* kLoopTests[] = {"issue", "wait_try", "wait_test", "wait_only"};
constexpr int64_t kLoopBuffer = 32 * kMiB;  // the L2-resident source

// The copy of unit `u` (an expression) into slot `slot`'s bytes, completing on bar[slot]:
// bulk from u * bytes, tensor1d as tma_bw's [256 x 2] f32 box (2 KB), tensor2d a 64-column fp16
// box of bytes / 128 rows over [rows x 4096] (8 KB rows).
void add_copy(KernelBuilder& b, const LoopKind& k, const std::string& u, int slot) {
  const std::string bar = s(slot);
  const std::string copy = k.copy;
  if (copy == "bulk") {
    b.bulk_load(fmt::format("({}) * {}", u, k.bytes), s(k.bytes), "bar", bar);
  } else if (copy == "tensor1d") {
    b.tma_load("T", {"0", fmt::format("({}) * 2", u)}, "bar", bar);
  } else {
    b.tma_load("T",
               {fmt::format("({}) % 64 * 64", u), fmt::format("({}) / 64 * {}", u, k.bytes / 128)},
               "bar", bar);
  }
}

void add_map(KernelBuilder& b, const LoopKind& k) {
  const std::string copy = k.copy;
  if (copy == "bulk") {
    return;
  }
  program::TensorMap m;
  m.name = "T";
  if (copy == "tensor1d") {
    m.dtype = program::DType::kF32;
    m.rank = 2;
    m.dims = {256, kLoopBuffer / 1024, 0, 0, 0};
    m.strides = {4, 1024, 0, 0, 0};
    m.box = {256, 2, 0, 0, 0};
  } else {
    m.rank = 2;
    m.dims = {4096, kLoopBuffer / 8192, 0, 0, 0};
    m.strides = {2, 8192, 0, 0, 0};
    m.box = {64, static_cast<int>(k.bytes / 128), 0, 0, 0};
  }
  b.add_map(m);
}

const LoopKind& loop_kind(const std::string& copy, int64_t bytes, int64_t slots) {
  for (const LoopKind& k : kLoopKinds) {
    if (copy == k.copy && bytes == k.bytes && slots == k.slots) {
      return k;
    }
  }
  throw_input_error("micro tma_loop",
                    "no point copy={} bytes={} slots={} in tma_loop.cu (bulk 1024/32, 4096/32, "
                    "8192/16; tensor1d 2048/64; tensor2d 4096/32, 8192/16)",
                    copy, bytes, slots);
}

}  // namespace

std::vector<MicroRow> loop_points() {
  std::vector<MicroRow> out;
  for (const LoopKind& k : kLoopKinds) {
    auto add = [&](const char* test, int64_t grid) {
      out.push_back({{"test", test},
                     {"copy", k.copy},
                     {"bytes", s(k.bytes)},
                     {"slots", s(k.slots)},
                     {"grid", s(grid)}});
    };
    for (const char* test : kLoopTests) {
      add(test, 1);
    }
    add("steady", 1);
    add("steady", 132);
  }
  return out;
}

MicroRow loop_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions&) {
  const std::string& test = key_str(key, "test");
  const LoopKind& k = loop_kind(key_str(key, "copy"), key_int(key, "bytes"), key_int(key, "slots"));
  const int64_t grid = key_int(key, "grid");
  const int slots = k.slots;
  const bool steady = test == "steady";
  const auto* known = std::find_if(std::begin(kLoopTests), std::end(kLoopTests),
                                   [&](const char* t) { return test == t; });
  if ((!steady && (known == std::end(kLoopTests) || grid != 1)) ||
      (steady && grid != 1 && grid != c.sm.count)) {
    throw_input_error("micro tma_loop",
                      "no point test={} grid={} (tests issue, wait_try, wait_test, wait_only at "
                      "grid 1; steady at grid 1 or {})",
                      test, grid, c.sm.count);
  }
  KernelBuilder b("tma_loop");
  b.set_grid(grid, 1, 1);
  b.set_resources(32, slots * k.bytes + 16);
  add_map(b, k);
  b.add_barrier("bar", slots, 1);
  b.begin_role("main", 1);
  // Instructions are emitted unrolled, so that a timed section's ends are trace positions.
  size_t pos = 0;
  std::vector<std::pair<size_t, size_t>> timed;  // [first, first after) per sample
  auto copy = [&](const std::string& u, int slot) {
    b.mb_arrive_expect_tx("bar", s(slot), s(k.bytes));
    add_copy(b, k, u, slot);
    pos += 2;
  };
  auto wait = [&](int slot, int64_t parity) {
    b.mb_wait("bar", s(slot), s(parity));
    ++pos;
  };
  int64_t iters = 0;
  if (!steady) {
    constexpr int kReps = 16;
    int64_t u = 0;
    for (int r = 0; r < kReps; ++r) {
      const size_t first = pos;
      if (test == "wait_only") {
        for (int sl = 0; r > 0 && sl < slots; ++sl) {
          wait(sl, (r - 1) % 2);
        }
        timed.emplace_back(first, pos);
        for (int sl = 0; sl < slots; ++sl) {
          copy(s(u++ % 256), sl);
        }
      } else {
        for (int sl = 0; sl < slots; ++sl) {
          if (r > 0 && test != "issue") {
            wait(sl, (r - 1) % 2);
          }
          copy(s(u++ % 256), sl);
        }
        timed.emplace_back(first, pos);
      }
      for (int sl = 0; sl < slots; ++sl) {
        wait(sl, r % 2);
      }
    }
  } else {
    // tma_bw.cu's ring: copy t = (cta + i * grid) mod units; timed from iteration 2 * slots to
    // the loop's end.
    iters = 8 * static_cast<int64_t>(slots);
    const int64_t units = kLoopBuffer / k.bytes;
    size_t first = 0;
    for (int64_t i = 0; i < iters; ++i) {
      const int sl = static_cast<int>(i % slots);
      if (i == 2 * slots) {
        first = pos;
      }
      if (i >= slots) {
        wait(sl, (i / slots - 1) % 2);
      }
      copy(fmt::format("(cta + {}) % {}", i * grid, units), sl);
    }
    timed.emplace_back(first, pos);
    for (int sl = 0; sl < slots; ++sl) {
      wait(sl, (iters / slots - 1) % 2);
    }
  }
  b.end_role();
  const program::Kernel loop = b.finish();
  const program::Kernel touch = touch_kernel(c, 0, kLoopBuffer);
  std::vector<IssueMark> trace;
  RunOptions ro;
  ro.issue_trace = &trace;
  micro_sequence({&touch, &loop}, c, ro);
  std::vector<double> per;
  for (const auto& [first, after] : timed) {
    if (after >= trace.size()) {
      throw_input_error("micro tma_loop",
                        "the traced warpgroup issued {} instructions, {} expected", trace.size(),
                        after + 1);
    }
    const double n = steady ? static_cast<double>(iters - 2 * slots) : slots;
    per.push_back(static_cast<double>(sm_cycles(c, trace[after].t - trace[first].t)) / n);
  }
  if (!steady) {
    per.erase(per.begin());  // the first repetition is dropped
  }
  std::vector<double> sorted = per;
  std::sort(sorted.begin(), sorted.end());
  return {{"test", test},
          {"copy", k.copy},
          {"bytes", s(k.bytes)},
          {"slots", s(slots)},
          {"grid", s(grid)},
          {"samples", s(steady ? grid : static_cast<int64_t>(per.size()))},
          {"median_cycles", fmt::format("{:.1f}", sorted[sorted.size() / 2])},
          {"min_cycles", fmt::format("{:.1f}", sorted.front())},
          {"max_cycles", fmt::format("{:.1f}", sorted.back())}};
}

// ---------------------------------------------------------------------------------------------
// tma_stride: 1 CTA, 1 thread, 64 samples of arrive.expect_tx + 1 or 2 boxes of 64 fp16 columns x
// R rows with row stride S (the second from a tensor 1 GiB away) + wait, every line read for the
// first time; the H200 flushes the L2 before each configuration, the model starts it cold.
// First 2 samples dropped.

namespace {
constexpr int64_t kStrides[] = {128, 256, 512, 1024, 2048, 4096, 8192, 16384};
constexpr int64_t kStrideRows[] = {32, 64, 128, 256};
constexpr int kBoxSamples = 64;

// A 2-D fp16 tensor map named `name` at `base`: `nrows` rows `row_bytes` long (the row stride),
// boxes of 64 columns (128 B) x `box_rows` rows.
program::TensorMap row_map(const char* name, uint64_t base, int64_t row_bytes, int64_t nrows,
                           int64_t box_rows, int box_cols = 64) {
  program::TensorMap m;
  m.name = name;
  m.rank = 2;
  m.dims = {row_bytes / 2, nrows, 0, 0, 0};
  m.strides = {2, row_bytes, 0, 0, 0};
  m.box = {box_cols, static_cast<int>(box_rows), 0, 0, 0};
  m.base = base;
  return m;
}

// One thread (`smem` bytes of shared memory, as the hardware kernel), kBoxSamples samples of
// MB_ARRIVE_EXPECT_TX(bytes) + one TMA_LOAD of each map at the sample's coordinates + MB_WAIT, in a
// cold L2 (tma_stride.cu and dram_pair.cu flush it); cycles per sample, the first 2 dropped as the
// hardware drops them.
std::vector<int64_t> cold_box_samples(
    const GpuConfig& c, const std::string& name, int64_t smem,
    const std::vector<program::TensorMap>& maps, int64_t bytes,
    const std::function<std::pair<int64_t, int64_t>(int)>& coords) {
  KernelBuilder b(name);
  b.set_resources(32, smem + 16);
  for (const program::TensorMap& m : maps) {
    b.add_map(m);
  }
  b.add_barrier("bar", 1, 1);
  b.begin_role("main", 1);
  for (int i = 0; i < kBoxSamples; ++i) {
    const auto [x, y] = coords(i);
    b.mb_arrive_expect_tx("bar", "0", s(bytes));
    for (const program::TensorMap& m : maps) {
      b.tma_load(m.name, {s(x), s(y)}, "bar", "0");
    }
    b.mb_wait("bar", "0", s(i % 2));
  }
  b.end_role();
  std::vector<int64_t> v = iteration_cycles(c, traced_run(b.finish(), c));
  v.erase(v.begin(), v.begin() + 2);
  return v;
}

}  // namespace

std::vector<MicroRow> stride_points() {
  std::vector<MicroRow> out;
  for (const int64_t nb : {1, 2}) {
    for (const int64_t rows : kStrideRows) {
      for (const int64_t st : kStrides) {
        out.push_back({{"stride_bytes", s(st)}, {"box_rows", s(rows)}, {"boxes", s(nb)}});
      }
    }
  }
  return out;
}

MicroRow stride_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions&) {
  const int64_t stride = key_int(key, "stride_bytes");
  const int64_t rows = key_int(key, "box_rows");
  const int64_t nb = key_int(key, "boxes");
  if (std::find(std::begin(kStrides), std::end(kStrides), stride) == std::end(kStrides) ||
      std::find(std::begin(kStrideRows), std::end(kStrideRows), rows) == std::end(kStrideRows) ||
      (nb != 1 && nb != 2)) {
    throw_input_error("micro tma_stride",
                      "no point stride_bytes={} box_rows={} boxes={} in tma_stride.cu (strides "
                      "128..16384, rows 32..256, 1 or 2 boxes)",
                      stride, rows, nb);
  }
  constexpr int64_t kHalf = 1024 * kMiB;  // tensor A in [0, 1 GiB), B in [1, 2 GiB)
  const int64_t nrows = kHalf / stride;
  const int64_t col_tiles = stride / 2 / 64;
  const int64_t step = nrows / rows / kBoxSamples;
  const int64_t bytes = nb * 128 * rows;
  std::vector<program::TensorMap> maps = {row_map("A", 0, stride, nrows, rows)};
  if (nb > 1) {
    maps.push_back(row_map("B", static_cast<uint64_t>(kHalf), stride, nrows, rows));
  }
  const std::vector<int64_t> v = cold_box_samples(
      c, "tma_stride", 2 * 256 * 128, maps, bytes,
      [&](int i) { return std::make_pair(i * 7 % col_tiles * 64, i * step * rows); });
  return with_latency_columns(
      {{"stride_bytes", s(stride)}, {"box_rows", s(rows)}, {"boxes", s(nb)}, {"bytes", s(bytes)}},
      v);
}

// ---------------------------------------------------------------------------------------------
// dram_pair: 1 CTA, 1 thread, 64 samples of one box of R rows of 128 B, rows D bytes apart, every
// line read for the first time (sample i at byte i * 4 MiB + (i * 7 mod 32) * 128 of a tensor of
// rows D bytes long); a cold L2 where the H200 flushed it; first 2 samples dropped.

std::vector<MicroRow> pair_points() {
  std::vector<MicroRow> out;
  for (const int64_t rows : {2, 4, 8}) {
    for (int64_t d = 128; d <= 256 * kMiB; d *= 2) {
      out.push_back({{"rows", s(rows)}, {"stride_bytes", s(d)}});
    }
  }
  return out;
}

MicroRow pair_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions&) {
  const int64_t rows = key_int(key, "rows");
  const int64_t d = key_int(key, "stride_bytes");
  if ((rows != 2 && rows != 4 && rows != 8) || d < 128 || d > 256 * kMiB || (d & (d - 1)) != 0) {
    throw_input_error("micro dram_pair",
                      "no point rows={} stride_bytes={} in dram_pair.cu (rows 2, 4, 8; strides "
                      "128 B..256 MiB, powers of two)",
                      rows, d);
  }
  constexpr int64_t kTotal = 2048 * kMiB;
  const std::vector<int64_t> v = cold_box_samples(
      c, "dram_pair", 8 * 128, {row_map("T", 0, d, kTotal / d, rows)}, rows * 128, [&](int i) {
        const int64_t off = i * 4 * kMiB + (i * 7 % 32) * 128;
        return std::make_pair(off % d / 2, off / d);
      });
  return with_latency_columns({{"rows", s(rows)}, {"stride_bytes", s(d)}}, v);
}

}  // namespace asyncsim::cli::micro_detail

namespace asyncsim::cli::micro_detail {

// ---------------------------------------------------------------------------------------------
// dram_spread: 1 warpgroup, 64 samples of R single-line loads (LD_GLOBAL of 4 bytes each, issued
// back to back where the hardware's warp issues one gather) + LD_WAIT 0 from a cold L2, then the
// same loads again (hot); the sets of dram_spread.cu, its random draws replayed.

namespace {

constexpr int64_t kSpreadTotal = 2048 * kMiB;
constexpr int kSpreadSamples = 64;
constexpr int kSpreadRows[] = {1, 2, 4, 8, 16, 32};
constexpr int64_t kSpreadStrides[] = {128, 256, 1024, 4096, 8192, 65536, kMiB, 16 * kMiB};
// What dram_spread.cu times besides the loads: its warp reduction of the loaded words and the
// predicated load's branch, which the program does not simulate. Fitted on the hot pass (L2 hits)
// of micro_dram_spread.csv: one line hot takes 333 cycles (median) on the H200 and 251 simulated
// without this; the cold pass, the one compared, is not fitted.
constexpr int64_t kSpreadHarnessCycles = 82;

// One warpgroup issues each group's single-line loads (LD_GLOBAL of 4 bytes at each address)
// back to back, then LD_WAIT 0 and the .cu's harness; returns each group's cycles, from its first
// load to the next group's first load (the last group's to EXIT).
std::vector<int64_t> gather_group_cycles(const GpuConfig& c, const std::string& name,
                                         const std::vector<std::vector<int64_t>>& groups) {
  KernelBuilder b(name);
  b.set_resources(32, 0);
  b.begin_role("main", 1);
  KernelBuilder::ComputeOps harness;
  harness.cycles = s(kSpreadHarnessCycles);
  for (const std::vector<int64_t>& g : groups) {
    for (const int64_t a : g) {
      b.ld_global(s(a), "4", "1", "0", "4");
    }
    b.ld_wait("0");
    b.compute(harness, false, "harness");
  }
  b.end_role();
  const std::vector<Time> t = marks(traced_run(b.finish(), c), program::Op::kLdGlobal);
  std::vector<int64_t> out;
  size_t first = 0;
  for (const std::vector<int64_t>& g : groups) {
    const size_t next = first + g.size();
    out.push_back(sm_cycles(c, (next < t.size() ? t[next] : t.back()) - t[first]));
    first = next;
  }
  return out;
}

// dram_spread.cu's patterns in its order (its random draws run on through them).
constexpr const char* kSpreadPatterns[] = {"stride",   "random",    "random1m",
                                           "random8k", "random32k", "random128k"};

// The random patterns drawn from one region per sample: its size in lines (0: the whole buffer).
int64_t spread_region_lines(const std::string& p) {
  if (p == "random1m")
    return 8192;
  if (p == "random8k")
    return 64;
  if (p == "random32k")
    return 256;
  if (p == "random128k")
    return 1024;
  return 0;
}

// dram_spread.cu's xorshift64, one stream over all its points in their order.
struct SpreadRng {
  uint64_t x = 0x9E3779B97F4A7C15ULL;
  uint64_t next() {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  }
};

// The 32 lines of each sample of point (pattern, rows, stride), as dram_spread.cu draws them.
std::vector<std::vector<int64_t>> spread_sets(const std::string& pattern, int rows, int64_t d) {
  SpreadRng rng;
  for (const char* p : kSpreadPatterns) {
    const bool stride = std::string(p) == "stride";
    const int64_t region_lines = spread_region_lines(p);
    for (const int r : kSpreadRows) {
      for (const int64_t di :
           stride ? std::vector<int64_t>(std::begin(kSpreadStrides), std::end(kSpreadStrides))
                  : std::vector<int64_t>{0}) {
        std::vector<std::vector<int64_t>> sets;
        for (int i = 0; i < kSpreadSamples; ++i) {
          std::vector<int64_t> set;
          const int64_t region = i * 4 * kMiB;
          while (set.size() < 32) {
            int64_t line;
            if (stride) {
              line = region + (i * 7 % 64) * 128 + static_cast<int64_t>(set.size()) * di;
            } else if (region_lines > 0) {
              line = region +
                     static_cast<int64_t>(rng.next() % static_cast<uint64_t>(region_lines)) * 128;
            } else {
              line = static_cast<int64_t>(rng.next() % (kSpreadTotal / 128)) * 128;
            }
            if (std::find(set.begin(), set.end(), line) == set.end()) {
              set.push_back(line);
            }
          }
          sets.push_back(std::move(set));
        }
        if (pattern == p && rows == r && d == di) {
          return sets;
        }
      }
    }
  }
  throw_input_error("micro dram_spread",
                    "no point pattern={} rows={} stride_bytes={} in dram_spread.cu (patterns "
                    "stride, random, random1m, random8k, random32k, random128k; rows 1-32 by "
                    "powers of two; strides 128 B-16 MiB as listed there, 0 for the random "
                    "patterns)",
                    pattern, rows, d);
}

}  // namespace

std::vector<MicroRow> spread_points() {
  std::vector<MicroRow> out;
  for (const char* p : kSpreadPatterns) {
    for (const int r : kSpreadRows) {
      if (std::string(p) == "stride") {
        for (const int64_t d : kSpreadStrides) {
          out.push_back({{"pattern", p}, {"rows", s(r)}, {"stride_bytes", s(d)}});
        }
      } else {
        out.push_back({{"pattern", p}, {"rows", s(r)}, {"stride_bytes", "0"}});
      }
    }
  }
  return out;
}

MicroRow spread_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions&) {
  const std::string& pattern = key_str(key, "pattern");
  const int64_t rows = key_int(key, "rows");
  const int64_t d = key_int(key, "stride_bytes");
  const std::vector<std::vector<int64_t>> sets = spread_sets(pattern, static_cast<int>(rows), d);
  std::vector<std::vector<int64_t>> groups;
  for (const std::vector<int64_t>& set : sets) {
    const std::vector<int64_t> loads(set.begin(), set.begin() + rows);
    groups.push_back(loads);  // cold
    groups.push_back(loads);  // hot
  }
  const std::vector<int64_t> v = gather_group_cycles(c, "dram_spread", groups);
  std::vector<int64_t> cold, hot;
  for (size_t i = 2; i < sets.size(); ++i) {
    cold.push_back(v[2 * i]);
    hot.push_back(v[2 * i + 1]);
  }
  MicroRow r = with_latency_columns(key, cold);
  const Summary h = summarize(hot);
  r["hot_p10_cycles"] = s(h.p10);
  r["hot_median_cycles"] = s(h.median);
  r["hot_p90_cycles"] = s(h.p90);
  return r;
}

}  // namespace asyncsim::cli::micro_detail

namespace asyncsim::cli::micro_detail {

// ---------------------------------------------------------------------------------------------
// dram_width: 32 rows D bytes apart from a cold L2, read as one TMA box of 32 rows of W bytes
// or as 32 single-row loads (LD_GLOBAL of 4 bytes; W = 128: four per row, at +0/+32/+64/+96,
// every sector) + LD_WAIT 0; the rows of dram_width.cu (sample i at i x 4 MiB + (i x 7 mod 64)
// x 128); first 2 samples dropped.

namespace {

constexpr int64_t kWidthStrides[] = {128, 256, 512, 1024, 2048, 4096, 8192, 65536};
constexpr int64_t kWidthRows = 32;
constexpr int64_t kWidthTotal = 2048 * kMiB;

int64_t width_row0(int i) {
  return i * 4 * kMiB + (i * 7 % 64) * 128;
}

}  // namespace

std::vector<MicroRow> width_points() {
  std::vector<MicroRow> out;
  for (const char* path : {"tma", "gather"}) {
    for (const int64_t w : {32, 128}) {
      for (const int64_t d : kWidthStrides) {
        out.push_back({{"path", path}, {"width_bytes", s(w)}, {"stride_bytes", s(d)}});
      }
    }
  }
  return out;
}

MicroRow width_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions&) {
  const std::string& path = key_str(key, "path");
  const int64_t w = key_int(key, "width_bytes");
  const int64_t d = key_int(key, "stride_bytes");
  if ((path != "tma" && path != "gather") || (w != 32 && w != 128) ||
      std::find(std::begin(kWidthStrides), std::end(kWidthStrides), d) == std::end(kWidthStrides)) {
    throw_input_error(
        "micro dram_width",
        "no point path={} width_bytes={} stride_bytes={} in dram_width.cu (paths tma, "
        "gather; widths 32, 128; strides 128 B-8 KB by powers of two and 64 KB)",
        path, w, d);
  }
  std::vector<int64_t> v;
  if (path == "tma") {
    v = cold_box_samples(c, "dram_width", kWidthRows * 128,
                         {row_map("T", 0, d, kWidthTotal / d, kWidthRows, static_cast<int>(w / 2))},
                         kWidthRows * w, [&](int i) {
                           const int64_t off = width_row0(i);
                           return std::make_pair(off % d / 2, off / d);
                         });
  } else {
    std::vector<std::vector<int64_t>> groups;
    for (int i = 0; i < kBoxSamples; ++i) {
      const int64_t off = width_row0(i);
      std::vector<int64_t> loads;
      for (int64_t sector = 0; sector < w / 32; ++sector) {
        for (int64_t j = 0; j < kWidthRows; ++j) {
          loads.push_back(off + j * d + sector * 32);
        }
      }
      groups.push_back(std::move(loads));
    }
    v = gather_group_cycles(c, "dram_width", groups);
    v.erase(v.begin(), v.begin() + 2);
  }
  MicroRow r = with_latency_columns(key, v);
  r["rows"] = s(kWidthRows);
  return r;
}

}  // namespace asyncsim::cli::micro_detail

namespace asyncsim::cli::micro_detail {

// ---------------------------------------------------------------------------------------------
// dram_sector: 1 warpgroup, from a cold L2, 64 samples on random lines of dram_sector.cu (its
// draws replayed): LD_GLOBAL of 4 bytes at the line's sector 0, COMPUTE of `gap` cycles (the
// .cu's spin), LD_GLOBAL of 4 bytes at the second address, LD_WAIT 0 and the harness; cycles
// from the first load to the next sample's (both_median: the .cu's time until both values are
// used).

namespace {

constexpr const char* kSectorSeconds[] = {"sector1", "sector3", "sector0", "other_line", "none"};
constexpr int64_t kSectorGaps[] = {0, 50, 100, 200, 400, 800};
constexpr int kSectorSamples = 64;

// Each point's 2 x 64 line offsets, as dram_sector.cu draws them (one xorshift64 over its
// points in order; none has gap 0 only).
std::vector<int64_t> sector_lines(const std::string& second, int64_t gap) {
  uint64_t x = 0xA0761D6478BD642FULL;
  for (const char* m : kSectorSeconds) {
    for (const int64_t g : kSectorGaps) {
      if (std::string(m) == "none" && g > 0) {
        continue;
      }
      std::vector<int64_t> lines;
      for (int i = 0; i < 2 * kSectorSamples; ++i) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        lines.push_back(static_cast<int64_t>(x % static_cast<uint64_t>(2048 * kMiB / 128)) * 128);
      }
      if (second == m && gap == g) {
        return lines;
      }
    }
  }
  throw_input_error("micro dram_sector",
                    "no point second={} gap_cycles={} in dram_sector.cu (second sector1, sector3, "
                    "sector0, other_line with gaps 0, 50, 100, 200, 400, 800; none with gap 0)",
                    second, gap);
}

}  // namespace

std::vector<MicroRow> sector_points() {
  std::vector<MicroRow> out;
  for (const char* m : kSectorSeconds) {
    for (const int64_t g : kSectorGaps) {
      if (std::string(m) == "none" && g > 0) {
        continue;
      }
      out.push_back({{"second", m}, {"gap_cycles", s(g)}});
    }
  }
  return out;
}

MicroRow sector_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions&) {
  const std::string& second = key_str(key, "second");
  const int64_t gap = key_int(key, "gap_cycles");
  const std::vector<int64_t> lines = sector_lines(second, gap);
  KernelBuilder b("dram_sector");
  b.set_resources(32, 0);
  b.begin_role("main", 1);
  KernelBuilder::ComputeOps spin;
  spin.cycles = s(gap);
  KernelBuilder::ComputeOps harness;
  harness.cycles = s(kSpreadHarnessCycles);
  for (int i = 0; i < kSectorSamples; ++i) {
    const int64_t p = lines[static_cast<size_t>(2 * i)];
    b.ld_global(s(p), "4", "1", "0", "4");
    if (second != "none") {
      if (gap > 0) {
        b.compute(spin, false, "spin");
      }
      const int64_t q = second == "sector1"   ? p + 32
                        : second == "sector3" ? p + 96
                        : second == "sector0" ? p
                                              : lines[static_cast<size_t>(2 * i + 1)];
      b.ld_global(s(q), "4", "1", "0", "4");
    }
    b.ld_wait("0");
    b.compute(harness, false, "harness");
  }
  b.end_role();
  const std::vector<Time> t = marks(traced_run(b.finish(), c), program::Op::kLdGlobal);
  const size_t per = second == "none" ? 1 : 2;
  std::vector<int64_t> v;
  for (int i = 2; i < kSectorSamples; ++i) {
    const size_t first = static_cast<size_t>(i) * per;
    v.push_back(sm_cycles(c, (first + per < t.size() ? t[first + per] : t.back()) - t[first]));
  }
  const Summary sm = summarize(v);
  MicroRow r = key;
  r["samples"] = s(static_cast<int64_t>(v.size()));
  r["both_median"] = s(sm.median);
  return r;
}

}  // namespace asyncsim::cli::micro_detail
