// Full-chip streaming microbenchmarks: tma_bw, l2_hot, mem_bw.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "cli/micro_detail.h"
#include "program/builder.h"
#include "sim/simulator.h"
#include "util/error.h"

namespace asyncsim::cli::micro_detail {

using program::KernelBuilder;
using program::Op;

// ---------------------------------------------------------------------------------------------
// Streaming (Stream, micro_detail.h).

// kTile: column blocks per row block, the largest power of two <= pitch / 128 (as l2_hot.cu).
int64_t tile_columns(const Stream& st) {
  int64_t cols = 1;
  while (cols * 256 <= st.pitch) {
    cols *= 2;
  }
  return cols;
}

// The copies one pass over the buffer takes.
int64_t stream_units(const Stream& st) {
  return st.kind == CopyKind::kTile ? tile_columns(st) * (st.buffer / st.pitch / st.tile_rows)
                                    : st.buffer / st.bytes;
}

program::Kernel stream_kernel(const GpuConfig& c, const Stream& st, const std::string& name) {
  const int64_t ctas = int64_t{c.sm.count} * st.ctas_per_sm;
  const int64_t units = stream_units(st);
  const int64_t total = units * st.passes;
  const int S = st.slots;
  KernelBuilder b(name);
  b.set_grid(ctas);
  b.set_resources(32, st.smem > 0 ? st.smem : S * st.bytes + 8 * S);
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
    case CopyKind::kTile:
      m.rank = 2;
      m.dims = {st.pitch / 2, st.buffer / st.pitch, 0, 0, 0};  // rows of `pitch` bytes
      m.strides = {2, st.pitch, 0, 0, 0};
      m.box = {64, static_cast<int>(st.tile_rows), 0, 0, 0};
      break;
  }
  if (st.kind != CopyKind::kBulk) {
    b.add_map(m);
  }
  b.add_barrier("bar", S, 1);
  b.begin_role("main", 1);
  const bool table = !st.start_expr.empty();
  const int64_t groups =
      table ? st.start_stride : (st.group > 0 ? (ctas + st.group - 1) / st.group : 0);
  const std::string count =
      table ? fmt::format("({}) < 0 ? 0 : {}", st.start_expr, st.copies)
            : (st.group > 0 ? s(st.copies) : fmt::format("cdiv({} - cta, {})", total, ctas));
  b.loop("j", "0", count);
  const std::string slot = fmt::format("j % {}", S);
  const std::string first = table       ? "(" + st.start_expr + ")"
                            : st.spread ? fmt::format("cta % {}", groups)
                                        : fmt::format("cta / {}", st.group);
  const std::string u = table || st.group > 0
                            ? fmt::format("(({} + j * {}) % {})", first, groups, units)
                            : fmt::format("((cta + j * {}) % {})", ctas, units);
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
    case CopyKind::kTile: {
      const int64_t cols = tile_columns(st);
      b.tma_load("T",
                 {fmt::format("{} % {} * 64", u, cols),
                  fmt::format("{} / {} * {}", u, cols, st.tile_rows)},
                 "bar", slot);
      break;
    }
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
// The hardware streams 4 GiB (or 8 GiB of L2 reads) per launch, so its fixed start-up cost
// (sm.kernel_launch_cycles, ~2 us) is 0.2 % of the time; the simulated buffer is often capped
// (--max-bytes), so the simulated stream leaves that constant out rather than inflate it.
double stream_us(const GpuConfig& config, const Stream& st, bool warm) {
  GpuConfig c = config;
  c.sm.kernel_launch_cycles = 0;
  const program::Kernel k = stream_kernel(c, st, "stream");
  if (!warm) {
    return micro_simulate(k, c).time_us;
  }
  Stream w = st;
  w.passes = 1;
  w.store_offset = -1;
  const program::Kernel warmup = stream_kernel(c, w, "warmup");
  return micro_sequence({&warmup, &k}, c).back().time_us;
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
// l2_hot: tma_bw's ring with GEMM operand tiles (16 KB boxes of 64 fp16 columns x 128 rows) of an
// L2-resident tensor, shared by groups of consecutive CTAs (l2_hot.cu).

std::vector<MicroRow> hot_points() {
  std::vector<MicroRow> out;
  const auto add = [&](int pitch, int ctas, int slots, int group, int64_t region,
                       const char* members = "consecutive") {
    out.push_back({{"pitch_bytes", s(pitch)},
                   {"box_rows", "128"},
                   {"ctas_per_sm", s(ctas)},
                   {"slots", s(slots)},
                   {"group", s(group)},
                   {"members", members},
                   {"region_bytes", s(region)}});
  };
  for (const int g : {1, 2, 4, 8, 16, 33, 66, 132}) {
    add(4096, 1, 8, g, 16 * kMiB);
  }
  for (const int g : {1, 4, 264}) {
    add(4096, 2, 3, g, 16 * kMiB);
  }
  for (const int g : {1, 4, 132}) {
    add(128, 1, 8, g, 16 * kMiB);
  }
  for (const int g : {1, 4, 132}) {
    add(4096, 1, 8, g, 32 * kMiB);
  }
  for (const int g : {2, 4, 16}) {
    add(4096, 1, 8, g, 16 * kMiB, "spread");
  }
  for (const int pitch : {4112, 4160}) {
    for (const int g : {1, 2, 132}) {
      add(pitch, 1, 8, g, 16 * kMiB);
    }
  }
  return out;
}

MicroRow hot_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions& o) {
  Stream st;
  st.kind = CopyKind::kTile;
  st.pitch = key_int(key, "pitch_bytes");
  st.tile_rows = key_int(key, "box_rows");
  st.ctas_per_sm = static_cast<int>(key_int(key, "ctas_per_sm"));
  st.slots = static_cast<int>(key_int(key, "slots"));
  st.group = key_int(key, "group");
  st.buffer = key_int(key, "region_bytes");
  st.bytes = 128 * st.tile_rows;
  const std::string& members = key_str(key, "members");
  if (members != "consecutive" && members != "spread") {
    throw_input_error("micro l2_hot", "members: expected consecutive or spread, got '{}'", members);
  }
  st.spread = members == "spread";
  if (st.pitch < 128 || st.pitch % 16 != 0 || st.tile_rows < 1 || st.tile_rows > 256 ||
      st.slots < 1 || st.slots > 64 || st.ctas_per_sm < 1 || st.group < 1 ||
      st.buffer / st.pitch < st.tile_rows) {
    throw_input_error("micro l2_hot",
                      "unsupported point pitch_bytes={} box_rows={} slots={} group={} "
                      "region_bytes={}",
                      st.pitch, st.tile_rows, st.slots, st.group, st.buffer);
  }
  const int64_t ctas = int64_t{c.sm.count} * st.ctas_per_sm;
  st.group = std::min(st.group, ctas);
  // l2_hot.cu moves ~4 GiB per launch (up to --max-bytes here), after a warm-up launch that
  // reads every tile.
  int64_t target = 4096 * kMiB;
  if (o.max_bytes > 0) {
    target = std::min(target, static_cast<int64_t>(o.max_bytes));
  }
  st.copies = std::max<int64_t>(1, target / (ctas * st.bytes));
  GpuConfig cc = c;
  cc.sm.kernel_launch_cycles = 0;
  Stream warm = st;
  const int64_t units = stream_units(st);
  warm.copies = (units + ctas - 1) / ctas;
  warm.group = 1;
  const program::Kernel wk = stream_kernel(cc, warm, "warmup");
  const program::Kernel k = stream_kernel(cc, st, "l2_hot");
  const double us = micro_sequence({&wk, &k}, cc).back().time_us;
  const double moved = static_cast<double>(ctas * st.copies * st.bytes);
  return {{"pitch_bytes", s(st.pitch)},
          {"box_rows", s(st.tile_rows)},
          {"ctas_per_sm", s(st.ctas_per_sm)},
          {"slots", s(st.slots)},
          {"group", s(st.group)},
          {"members", members},
          {"region_bytes", s(st.buffer)},
          {"copies_per_cta", s(st.copies)},
          {"bytes_delivered", fmt::format("{:.0f}", moved)},
          {"median_us", fmt::format("{:.2f}", us)},
          {"median_gbps", fmt::format("{:.1f}", moved / us * 1e-3)},
          {"best_gbps", fmt::format("{:.1f}", moved / us * 1e-3)}};
}

// ---------------------------------------------------------------------------------------------
// mem_bw: the hardware streams with ld.global.cg / st.cs from 8 CTAs x 256 threads per SM;
// simulated with the same thread loops through the load/store unit (LD_GLOBAL / ST_GLOBAL), in
// the order mem_bw.cu's SASS issues them (sm_90a, nvcc 13.0; validation/data/h200/
// micro_mem_bw_sass.txt): read_kernel's main loop issues 2 loads, consumes the oldest before
// each further load (4 per iteration, 32 instructions), its remainder loop one load at a time
// (10 instructions); copy_kernel loads 2, waits, stores 2 (23 instructions), remainder 1 + 1.

std::vector<MicroRow> mem_points() {
  std::vector<MicroRow> out = {{{"test", "dram_read"}, {"buffer_bytes", s(4096 * kMiB)}},
                               {{"test", "dram_copy_rw"}, {"buffer_bytes", s(2048 * kMiB)}}};
  for (const int64_t mb : {2, 4, 8, 16, 24, 32, 40, 48, 56, 64, 96}) {
    out.push_back({{"test", "l2_read"}, {"buffer_bytes", s(mb * kMiB)}});
  }
  return out;
}

namespace {

// Cycles a pass of read_kernel's outer loop takes besides its loads' round trips and the issue
// of its instructions: the pass's dependent chain (the LDC of `passes`, BSSY/BSYNC, the address
// LEA pair ahead of the load, the two LOP3 after it, three taken branches; ~28 SASS
// instructions, micro_mem_bw_sass.txt; a dependent FFMA alone takes 4.26 cycles,
// micro_mufu.csv). Fitted on validation/data/h200/micro_cta_fill_l2.csv rows of 1-64 working
// CTAs (one load per thread per pass, the chip idle, 248-260 ns a pass), with
// `asyncsim micro cta_fill --where working_ctas=1,8,32,64`: 0 gives -31..-34 %, 140 gives
// -1.2..+0.5 %. Judged on the loaded rows (128-1024 CTAs) and on micro_mem_bw.csv.
constexpr int kReadPassCycles = 140;

// mem_bw.cu's read_kernel: all SMs x 8 CTAs x 256 threads, 4 loads a main-loop iteration.
LsuStream read_kernel_stream(const GpuConfig& c) {
  LsuStream st;
  st.ctas = int64_t{c.sm.count} * 8;
  st.threads = 256;
  st.unroll = 4;
  st.main = "LLw1Lw1Lw1w0";
  st.main_inst = 28;
  st.rest = "Lw0";
  st.rest_inst = 9;
  st.pass_cycles = kReadPassCycles;
  return st;
}

}  // namespace

MicroRow mem_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions& o) {
  const std::string& test = key_str(key, "test");
  const int64_t buffer = key_int(key, "buffer_bytes");
  const auto cap = static_cast<int64_t>(o.max_bytes);
  LsuStream st = read_kernel_stream(c);
  int64_t bytes = buffer;
  int64_t moved = 0;
  bool warm = false;
  if (test == "dram_read") {
    bytes = cap > 0 ? std::min(buffer, cap) : buffer;
    moved = bytes;
  } else if (test == "dram_copy_rw") {
    bytes = cap > 0 ? std::min(buffer, cap / 2) : buffer;
    st.unroll = 2;
    st.main = "LLw0SS";
    st.main_inst = 19;
    st.rest = "Lw0S";
    st.rest_inst = 11;
    st.store_base = 8192 * kMiB;  // the destination buffer
    moved = 2 * bytes;
  } else if (test == "l2_read") {
    // mem_bw.cu: passes = 8 GiB / buffer inside one launch, after a warm-up launch.
    const int64_t want = cap > 0 ? std::min(cap, 8192 * kMiB) : 8192 * kMiB;
    st.passes = std::max<int64_t>(2, want / buffer);
    moved = bytes * st.passes;
    warm = true;
  } else {
    throw_input_error("micro mem_bw", "test: expected dram_read, dram_copy_rw or l2_read, got '{}'",
                      test);
  }
  st.nvec = bytes / 16;
  LsuStream w = st;
  w.passes = 1;
  const program::Kernel warmup = lsu_stream_kernel(w, "warmup");
  std::vector<const program::Kernel*> before;
  if (warm) {
    before.push_back(&warmup);
  }
  const double us = lsu_stream_us(c, st, before);
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

// ---------------------------------------------------------------------------------------------
// cta_fill: mem_bw's read_kernel (SMs x 8 CTAs x 256 threads) on a buffer of G x 4 KB, so only
// CTAs 0..G-1 load (one int4 per thread per pass); cta_fill.cu runs 2048 passes after a warm-up
// launch and times every CTA. Compared on the slowest working CTA's time per pass
// (micro_cta_fill_l2.csv, derived by validation/cta_fill.py); the simulated pass is the
// kernel's time over its passes (up to --max-bytes moved, at most 2048 passes, at least 2).

std::vector<MicroRow> fill_points() {
  std::vector<MicroRow> out;
  for (const int64_t g : {1, 8, 32, 64, 128, 192, 256, 512, 768, 1024}) {
    out.push_back({{"working_ctas", s(g)}});
  }
  return out;
}

MicroRow fill_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions& o) {
  const int64_t g = key_int(key, "working_ctas");
  LsuStream st = read_kernel_stream(c);
  if (g < 1 || g > st.ctas) {
    throw_input_error("micro cta_fill", "working_ctas: expected 1..{}, got {}", st.ctas, g);
  }
  const int64_t bytes = g * 4096;
  const auto cap = static_cast<int64_t>(o.max_bytes);
  st.nvec = bytes / 16;
  st.passes = std::clamp<int64_t>(cap > 0 ? cap / bytes : 2048, 2, 2048);
  LsuStream w = st;
  w.passes = 1;
  const program::Kernel warmup = lsu_stream_kernel(w, "warmup");
  const double us = lsu_stream_us(c, st, {&warmup});
  return {{"working_ctas", s(g)},
          {"buffer_bytes", s(bytes)},
          {"passes", s(st.passes)},
          {"kernel_us", fmt::format("{:.2f}", us)},
          {"sm_pass_ns", fmt::format("{:.1f}", us * 1000.0 / static_cast<double>(st.passes))}};
}

// ---------------------------------------------------------------------------------------------
// l2_rotate: mem_bw's l2_read loop (fixed) and the same loop with CTA c reading CTA
// (c + 37 p) mod G's elements in pass p (rotate); 4 GiB per launch after a warm-up launch.

std::vector<MicroRow> rotate_points() {
  std::vector<MicroRow> out;
  for (const int64_t mb : {16, 24, 32, 40, 48, 56, 64}) {
    for (const char* mode : {"fixed", "rotate"}) {
      out.push_back({{"test", "l2_read"}, {"mode", mode}, {"buffer_bytes", s(mb * kMiB)}});
    }
  }
  return out;
}

MicroRow rotate_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions& o) {
  const std::string& mode = key_str(key, "mode");
  const int64_t buffer = key_int(key, "buffer_bytes");
  if ((mode != "fixed" && mode != "rotate") || key_str(key, "test") != "l2_read" || buffer <= 0 ||
      buffer % (8 * kMiB) != 0) {
    throw_input_error("micro l2_rotate",
                      "no point test={} mode={} buffer_bytes={} (l2_read; fixed or rotate; "
                      "16..64 MiB)",
                      key_str(key, "test"), mode, buffer);
  }
  LsuStream st = read_kernel_stream(c);
  st.nvec = buffer / 16;
  const auto cap = static_cast<int64_t>(o.max_bytes);
  const int64_t want = cap > 0 ? std::min(cap, 4096 * kMiB) : 4096 * kMiB;
  st.passes = std::max<int64_t>(2, want / buffer);
  LsuStream w = st;
  w.passes = 1;
  st.rotate = mode == "rotate" ? 37 : 0;
  const program::Kernel warmup = lsu_stream_kernel(w, "warmup");
  const double us = lsu_stream_us(c, st, {&warmup});
  const int64_t moved = buffer * st.passes;
  const double gbps = static_cast<double>(moved) / us * 1e-3;
  return {{"test", "l2_read"},
          {"mode", mode},
          {"buffer_bytes", s(buffer)},
          {"bytes_per_launch", s(moved)},
          {"launches", "1"},
          {"median_us", fmt::format("{:.2f}", us)},
          {"median_gbps", fmt::format("{:.1f}", gbps)},
          {"best_gbps", fmt::format("{:.1f}", gbps)}};
}

}  // namespace asyncsim::cli::micro_detail
