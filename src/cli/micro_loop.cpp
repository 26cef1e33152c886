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
}  // namespace

program::TensorMap row_map(const char* name, uint64_t base, int64_t row_bytes, int64_t nrows,
                           int64_t box_rows, int box_cols) {
  program::TensorMap m;
  m.name = name;
  m.rank = 2;
  m.dims = {row_bytes / 2, nrows, 0, 0, 0};
  m.strides = {2, row_bytes, 0, 0, 0};
  m.box = {box_cols, static_cast<int>(box_rows), 0, 0, 0};
  m.base = base;
  return m;
}

namespace {

// The sample loop of the cold-L2 micros: kBoxSamples of MB_ARRIVE_EXPECT_TX(bytes), the sample's
// copies (emitted by `copies`), MB_WAIT; cycles per sample, the first 2 dropped.
std::vector<int64_t> cold_samples(const GpuConfig& c, const std::string& name, int64_t smem,
                                  const std::vector<program::TensorMap>& maps, int64_t bytes,
                                  const std::function<void(KernelBuilder&, int)>& copies) {
  KernelBuilder b(name);
  b.set_resources(32, smem + 16);
  for (const program::TensorMap& m : maps) {
    b.add_map(m);
  }
  b.add_barrier("bar", 1, 1);
  b.begin_role("main", 1);
  for (int i = 0; i < kBoxSamples; ++i) {
    b.mb_arrive_expect_tx("bar", "0", s(bytes));
    copies(b, i);
    b.mb_wait("bar", "0", s(i % 2));
  }
  b.end_role();
  std::vector<int64_t> v = iteration_cycles(c, traced_run(b.finish(), c));
  v.erase(v.begin(), v.begin() + 2);
  return v;
}

}  // namespace

std::vector<int64_t> cold_box_samples(
    const GpuConfig& c, const std::string& name, int64_t smem,
    const std::vector<program::TensorMap>& maps, int64_t bytes,
    const std::function<std::pair<int64_t, int64_t>(int)>& coords) {
  return cold_samples(c, name, smem, maps, bytes, [&](KernelBuilder& b, int i) {
    const auto [x, y] = coords(i);
    for (const program::TensorMap& m : maps) {
      b.tma_load(m.name, {s(x), s(y)}, "bar", "0");
    }
  });
}

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
// tma_bulk_box: 1 CTA, 1 thread, 64 samples of S contiguous bytes from DRAM by one bulk copy
// (path bulk) or by one box of S / 128 rows of 128 B (path box, a [64 x 3 GiB / 128] fp16
// tensor), sample i at (first + i) x spacing (first 0 for bulk, 64 for box: the two paths share
// each configuration's addresses); a cold L2 where the H200 flushed it; first 2 dropped.

namespace {
constexpr int64_t kBulkBoxBytes[] = {4096, 8192, 16384, 32768};
constexpr int64_t kBulkBoxSpacings[] = {kMiB + 4096, 16 * kMiB};
constexpr int64_t kBulkBoxTotal = 3072 * kMiB;
}  // namespace

std::vector<MicroRow> bulk_box_points() {
  std::vector<MicroRow> out;
  for (const int64_t spacing : kBulkBoxSpacings) {
    for (const int64_t bytes : kBulkBoxBytes) {
      for (const char* path : {"bulk", "box"}) {
        out.push_back({{"path", path}, {"bytes", s(bytes)}, {"spacing_bytes", s(spacing)}});
      }
    }
  }
  return out;
}

MicroRow bulk_box_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions&) {
  const std::string& path = key_str(key, "path");
  const int64_t bytes = key_int(key, "bytes");
  const int64_t spacing = key_int(key, "spacing_bytes");
  if ((path != "bulk" && path != "box") ||
      std::find(std::begin(kBulkBoxBytes), std::end(kBulkBoxBytes), bytes) ==
          std::end(kBulkBoxBytes) ||
      std::find(std::begin(kBulkBoxSpacings), std::end(kBulkBoxSpacings), spacing) ==
          std::end(kBulkBoxSpacings)) {
    throw_input_error("micro tma_bulk_box",
                      "no point path={} bytes={} spacing_bytes={} in tma_bulk_box.cu (paths bulk "
                      "and box; 4096, 8192, 16384, 32768 bytes; spacings 1052672 and 16777216)",
                      path, bytes, spacing);
  }
  constexpr int64_t kSmem = 32768;  // the kernel's dynamic shared memory
  const std::vector<int64_t> v =
      path == "box"
          ? cold_box_samples(c, "tma_bulk_box", kSmem,
                             {row_map("T", 0, 128, kBulkBoxTotal / 128, bytes / 128)}, bytes,
                             [&](int i) {
                               return std::make_pair(int64_t{0}, (kBoxSamples + i) * spacing / 128);
                             })
          : cold_samples(c, "tma_bulk_box", kSmem, {}, bytes, [&](KernelBuilder& b, int i) {
              b.bulk_load(s(i * spacing), s(bytes), "bar", "0");
            });
  return with_latency_columns({{"path", path}, {"bytes", s(bytes)}, {"spacing_bytes", s(spacing)}},
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
