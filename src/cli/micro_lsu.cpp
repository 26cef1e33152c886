// Load/store-unit microbenchmarks (lsu.cu's three tables) and the thread-loop stream kernel that
// mem_bw shares: grid-stride loops of int4 loads and stores at warpgroup granularity, in the
// order the hardware kernels' SASS issues them.
#include <fmt/format.h>

#include <algorithm>
#include <functional>

#include "cli/micro_detail.h"
#include "program/builder.h"
#include "sim/simulator.h"
#include "util/error.h"

namespace asyncsim::cli::micro_detail {

using program::KernelBuilder;
using program::Op;

namespace {

// One access of a loop body: the next element's load (L) or store (S), or LD_WAIT n (w<n>).
struct Token {
  char kind;  // 'L', 'S' or 'w'
  int n = 0;  // w: loads that may stay pending
};

std::vector<Token> parse_pattern(const std::string& p) {
  std::vector<Token> out;
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i] == 'L' || p[i] == 'S') {
      out.push_back({p[i]});
    } else if (p[i] == 'w' && i + 1 < p.size()) {
      out.push_back({'w', p[++i] - '0'});
    } else {
      throw_input_error("micro", "bad access pattern '{}'", p);
    }
  }
  return out;
}

// Emits one loop body: element u of the iteration sits at `index(u)` (an int4 index).
void emit_body(KernelBuilder& b, const LsuStream& st, const std::string& pattern,
               const std::function<std::string(int)>& index) {
  int load = 0;
  int store = 0;
  const int64_t store_base = st.store_base >= 0 ? st.store_base : st.base;
  for (const Token& t : parse_pattern(pattern)) {
    if (t.kind == 'w') {
      b.ld_wait(s(t.n));
      continue;
    }
    const bool is_store = t.kind == 'S';
    const std::string i = index(is_store ? store++ : load++);
    const std::string addr = fmt::format("{} + 16 * ({})", is_store ? store_base : st.base, i);
    const std::string bytes = fmt::format("min(2048, 16 * ({} - ({})))", st.nvec, i);
    if (is_store) {
      b.st_global(addr, bytes);
    } else {
      b.ld_global(addr, bytes);
    }
  }
}

}  // namespace

program::Kernel lsu_stream_kernel(const LsuStream& st, const std::string& name) {
  if (st.threads % 128 != 0 || st.threads <= 0 || st.unroll < 1) {
    throw_input_error("micro", "stream kernel needs threads a multiple of 128, got {}", st.threads);
  }
  const int64_t T = st.ctas * st.threads;  // grid stride in elements
  const int64_t U = st.unroll;
  KernelBuilder b(name);
  b.set_grid(st.ctas);
  b.set_resources(32, 0);
  b.begin_role("main", st.threads / 128);
  const std::string e = st.rotate == 0 ? fmt::format("(cta * {} + wg * 128)", st.threads)
                                       : fmt::format("((cta + p * {}) % {} * {} + wg * 128)",
                                                     st.rotate, st.ctas, st.threads);
  // Main-loop iterations of the warpgroup's first thread: i + (U-1) T < nvec, i += U T.
  const std::string nm =
      fmt::format("max(0, cdiv({} - {} - {}, {}))", st.nvec, e, (U - 1) * T, U * T);
  b.loop("p", "0", s(st.passes));
  b.loop("j", "0", nm);
  emit_body(b, st, st.main,
            [&](int u) { return fmt::format("{} + j * {} + {}", e, U * T, u * T); });
  if (st.main_inst > 0) {
    KernelBuilder::ComputeOps ops;
    ops.inst = s(st.main_inst);
    b.compute(ops, false, "loop");
  }
  b.end_loop();
  if (!st.rest.empty()) {
    const std::string r0 = fmt::format("({} + {} * {})", e, nm, U * T);
    b.loop("r", "0", fmt::format("max(0, cdiv({} - {}, {}))", st.nvec, r0, T));
    emit_body(b, st, st.rest, [&](int) { return fmt::format("{} + r * {}", r0, T); });
    if (st.rest_inst > 0) {
      KernelBuilder::ComputeOps ops;
      ops.inst = s(st.rest_inst);
      b.compute(ops, false, "loop");
    }
    b.end_loop();
  }
  if (st.pass_cycles > 0) {
    KernelBuilder::ComputeOps ops;
    ops.cycles = s(st.pass_cycles);
    b.compute(ops, false, "loop");
  }
  b.end_loop();
  b.ld_wait("0");
  b.end_role();
  return b.finish();
}

// The stream's time in us after `before` (kernels that set up the L2), launch cost left out as
// stream_us does (the hardware's in-kernel clock or a long stream makes it negligible).
double lsu_stream_us(const GpuConfig& config, const LsuStream& st,
                     const std::vector<const program::Kernel*>& before) {
  GpuConfig c = config;
  c.sm.kernel_launch_cycles = 0;
  const program::Kernel k = lsu_stream_kernel(st, "stream");
  std::vector<const program::Kernel*> seq = before;
  seq.push_back(&k);
  return micro_sequence(seq, c).back().time_us;
}

// ---------------------------------------------------------------------------------------------
// lsu.cu: the loop bodies of stream_kernel<U, store> as compiled (sm_90a, nvcc 13.0; SASS in
// validation/data/h200/micro_lsu_sass.txt): ptxas issues the first loads, then consumes the
// oldest before issuing the rest, so "U in flight" is what the source asks, not what runs.

namespace {

struct Body {
  const char* pattern;
  int inst;  // other SASS instructions of the loop body
};

Body lsu_body(bool store, int unroll) {
  switch (unroll) {
    case 1:
      return store ? Body{"S", 8} : Body{"Lw0", 12};
    case 2:
      return store ? Body{"SS", 17} : Body{"LLw0", 20};
    case 4:
      return store ? Body{"SSSS", 34} : Body{"LLLw2Lw0", 33};
    case 8:
      return store ? Body{"SSSSSSSS", 43} : Body{"LLLw2Lw2Lw1Lw1LLw0", 53};
    default:
      throw_input_error("micro lsu", "unroll: expected 1, 2, 4 or 8, got {}", unroll);
  }
}

const std::vector<std::string> kLsuColumns = {
    "table",   "op",           "src",         "sms",       "ctas_per_sm", "threads",
    "unroll",  "buffer_bytes", "bytes_moved", "median_us", "median_gbps", "bytes_per_sm_cycle",
    "lat_p10", "lat_median",   "lat_p90",     "sm_mhz"};

MicroRow lsu_row(const MicroRow& key) {
  MicroRow r;
  for (const std::string& col : kLsuColumns) {
    const auto it = key.find(col);
    r[col] = it == key.end() ? "" : it->second;
  }
  return r;
}

}  // namespace

namespace {

// Runs a dependent-load chain (after a full-chip read of [0, touch_bytes) when that is > 0, else
// from a cold L2) and summarises its samples: one LD_GLOBAL's issue to the next's, first 8
// dropped (the hardware's clock64 around each load). `samples` receives them.
Summary chain_summary(const GpuConfig& c, const program::Kernel& chain, int64_t touch_bytes,
                      std::vector<int64_t>& samples) {
  std::vector<IssueMark> trace;
  RunOptions ro;
  ro.issue_trace = &trace;
  if (touch_bytes > 0) {
    const program::Kernel touch = touch_kernel(c, 0, touch_bytes);
    micro_sequence({&touch, &chain}, c, ro);
  } else {
    micro_sequence({&chain}, c, ro);
  }
  const std::vector<Time> t = marks(trace, Op::kLdGlobal);
  samples.clear();
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    samples.push_back(sm_cycles(c, t[i + 1] - t[i]));
  }
  samples.erase(samples.begin(), samples.begin() + std::min<size_t>(8, samples.size()));
  return summarize(samples);
}

}  // namespace

const std::vector<std::string>& lsu_columns() {
  return kLsuColumns;
}

std::vector<MicroRow> lsu_latency_points() {
  std::vector<MicroRow> out;
  for (const int64_t mb : {2, 16, 32, 48, 64, 96, 1024}) {
    for (const char* src : {"l2", "dram"}) {
      if (mb == 1024 && std::string(src) == "l2") {
        continue;
      }
      out.push_back(lsu_row(
          {{"table", "latency"}, {"op", "ld"}, {"src", src}, {"buffer_bytes", s(mb * kMiB)}}));
    }
  }
  return out;
}

// 1 warpgroup, 4096 dependent 4-byte loads over a permutation of the buffer's lines (the
// hardware's is random; here line k of the chain is (k * 1000003 + 1) mod lines, which visits
// distinct lines in a scattered order); a sample is one load's issue to the next's.
MicroRow lsu_latency_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions&) {
  const std::string& src = key_str(key, "src");
  const int64_t bytes = key_int(key, "buffer_bytes");
  if (src != "l2" && src != "dram") {
    throw_input_error("micro lsu_latency", "src: expected l2 or dram, got '{}'", src);
  }
  constexpr int kSamples = 4096;
  const int64_t lines = bytes / 128;
  KernelBuilder b("chase");
  b.set_resources(32, 0);
  b.begin_role("main", 1);
  b.loop("k", "0", s(kSamples));
  b.ld_global(fmt::format("128 * ((k * 1000003 + 1) % {})", lines), "4", "1", "0", "4");
  b.ld_wait("0");
  b.end_loop();
  b.end_role();
  std::vector<int64_t> v;
  const Summary sm = chain_summary(c, b.finish(), src == "l2" ? bytes : 0, v);
  MicroRow r = lsu_row(key);
  r["sms"] = s(1);
  r["ctas_per_sm"] = s(1);
  r["threads"] = s(1);
  r["unroll"] = s(1);
  r["bytes_moved"] = s(kSamples * 4);
  r["lat_p10"] = s(sm.p10);
  r["lat_median"] = s(sm.median);
  r["lat_p90"] = s(sm.p90);
  return r;
}

std::vector<MicroRow> lsu_sm_points() {
  std::vector<MicroRow> out;
  for (const char* op : {"ld", "st"}) {
    for (const char* src : {"l2", "dram"}) {
      for (const int threads : {128, 256, 512, 1024}) {
        for (const int u : {1, 2, 4, 8}) {
          out.push_back(lsu_row({{"table", "sm"},
                                 {"op", op},
                                 {"src", src},
                                 {"threads", s(threads)},
                                 {"unroll", s(u)}}));
        }
      }
    }
  }
  return out;
}

// One CTA on one SM: src=l2 reads (writes) a 4 MiB buffer 4 times after a full-chip read of
// it; src=dram 64 MiB once from a cold L2.
MicroRow lsu_sm_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions&) {
  const bool store = key_str(key, "op") == "st";
  const bool l2 = key_str(key, "src") == "l2";
  if ((!store && key_str(key, "op") != "ld") || (!l2 && key_str(key, "src") != "dram")) {
    throw_input_error("micro lsu_sm", "expected op ld or st and src l2 or dram");
  }
  LsuStream st;
  st.ctas = 1;
  st.threads = static_cast<int>(key_int(key, "threads"));
  st.unroll = static_cast<int>(key_int(key, "unroll"));
  const Body body = lsu_body(store, st.unroll);
  st.main = body.pattern;
  st.main_inst = body.inst;
  const int64_t bytes = l2 ? 4 * kMiB : 64 * kMiB;
  st.base = l2 ? 0 : 64 * kMiB;
  st.nvec = bytes / 16;
  st.passes = l2 ? 4 : 1;
  const program::Kernel touch = touch_kernel(c, 0, bytes);
  std::vector<const program::Kernel*> before;
  if (l2) {
    before.push_back(&touch);
  }
  const double us = lsu_stream_us(c, st, before);
  const double cycles = us * c.sm.clock_mhz;
  MicroRow r = lsu_row(key);
  r["sms"] = s(1);
  r["ctas_per_sm"] = s(1);
  r["buffer_bytes"] = s(bytes);
  r["bytes_moved"] = s(bytes * st.passes);
  r["bytes_per_sm_cycle"] = fmt::format("{:.2f}", static_cast<double>(bytes * st.passes) / cycles);
  r["sm_mhz"] = fmt::format("{:.0f}", c.sm.clock_mhz);
  return r;
}

std::vector<MicroRow> lsu_chip_points() {
  std::vector<MicroRow> out;
  for (const char* op : {"ld", "st"}) {
    for (const char* src : {"l2", "dram"}) {
      for (const int ctas : {2, 8}) {
        for (const int u : {1, 2, 4, 8}) {
          out.push_back(lsu_row({{"table", "chip"},
                                 {"op", op},
                                 {"src", src},
                                 {"ctas_per_sm", s(ctas)},
                                 {"unroll", s(u)}}));
        }
      }
    }
  }
  return out;
}

// Every SM x C CTAs x 256 threads: src=l2 a 32 MiB buffer read (written) repeatedly after a
// full-chip read of it (64 passes on the hardware, here up to --max-bytes, at least 2);
// src=dram 4 GiB read (2 GiB written) once, here at most --max-bytes, from a cold L2.
MicroRow lsu_chip_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions& o) {
  const bool store = key_str(key, "op") == "st";
  const bool l2 = key_str(key, "src") == "l2";
  if ((!store && key_str(key, "op") != "ld") || (!l2 && key_str(key, "src") != "dram")) {
    throw_input_error("micro lsu_chip", "expected op ld or st and src l2 or dram");
  }
  const auto cap = static_cast<int64_t>(o.max_bytes);
  LsuStream st;
  st.ctas = int64_t{c.sm.count} * key_int(key, "ctas_per_sm");
  st.threads = 256;
  st.unroll = static_cast<int>(key_int(key, "unroll"));
  const Body body = lsu_body(store, st.unroll);
  st.main = body.pattern;
  st.main_inst = body.inst;
  int64_t bytes = 0;
  if (l2) {
    bytes = 32 * kMiB;
    st.passes = std::max<int64_t>(2, std::min<int64_t>(64, (cap > 0 ? cap : 2048 * kMiB) / bytes));
  } else {
    bytes = store ? 2048 * kMiB : 4096 * kMiB;
    if (cap > 0) {
      bytes = std::min(bytes, cap);
    }
  }
  st.nvec = bytes / 16;
  const program::Kernel touch = touch_kernel(c, 0, bytes);
  std::vector<const program::Kernel*> before;
  if (l2) {
    before.push_back(&touch);
  }
  const double us = lsu_stream_us(c, st, before);
  const double moved = static_cast<double>(bytes * st.passes);
  MicroRow r = lsu_row(key);
  r["sms"] = s(c.sm.count);
  r["threads"] = s(256);
  r["buffer_bytes"] = s(bytes);
  r["bytes_moved"] = fmt::format("{:.0f}", moved);
  r["median_us"] = fmt::format("{:.2f}", us);
  r["median_gbps"] = fmt::format("{:.1f}", moved / us * 1e-3);
  r["bytes_per_sm_cycle"] = fmt::format("{:.2f}", moved / (us * c.sm.clock_mhz) / c.sm.count);
  r["sm_mhz"] = fmt::format("{:.0f}", c.sm.clock_mhz);
  return r;
}

// lsu_chain.cu: one warp's dependent chain of loads of `lanes` x `width` bytes at random 512-B
// blocks (the warps = 1 rows; a warpgroup here stands for the one warp), timed from one load's
// issue to the next's; src=l2 after a full-chip read of the 4 MiB buffer, src=dram cold.
std::vector<MicroRow> lsu_chain_points() {
  std::vector<MicroRow> out;
  for (const char* src : {"l2", "dram"}) {
    for (const int width : {4, 16}) {
      for (const int lanes : {1, 8, 32}) {
        out.push_back({{"src", src},
                       {"buffer_bytes", s(std::string(src) == "l2" ? 4 * kMiB : 1024 * kMiB)},
                       {"warps", s(1)},
                       {"lanes", s(lanes)},
                       {"width", s(width)}});
      }
    }
  }
  return out;
}

MicroRow lsu_chain_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions&) {
  const bool l2 = key_str(key, "src") == "l2";
  const int64_t bytes = key_int(key, "buffer_bytes");
  const int64_t lanes = key_int(key, "lanes");
  const int64_t width = key_int(key, "width");
  if ((!l2 && key_str(key, "src") != "dram") || key_int(key, "warps") != 1 || bytes < 512 ||
      lanes < 1 || lanes > 32 || (width != 4 && width != 16)) {
    throw_input_error("micro lsu_chain", "unsupported point");
  }
  constexpr int kSamples = 1024;
  KernelBuilder b("chain");
  b.set_resources(32, 0);
  b.begin_role("main", 1);
  b.loop("k", "0", s(kSamples));
  b.ld_global(fmt::format("512 * ((k * 1000003 + 1) % {})", bytes / 512), s(lanes * width), "1",
              "0", s(width));
  b.ld_wait("0");
  b.end_loop();
  b.end_role();
  std::vector<int64_t> v;
  const Summary sm = chain_summary(c, b.finish(), l2 ? bytes : 0, v);
  MicroRow r = key;
  r["bytes_per_warp"] = s(lanes * width);
  r["samples"] = s(static_cast<int64_t>(v.size()));
  r["lat_p10"] = s(sm.p10);
  r["lat_median"] = s(sm.median);
  r["lat_p90"] = s(sm.p90);
  return r;
}

// lsu_vec.cu vector_add: c[i] = a[i] + b[i], float4 per thread, a grid-stride loop of C CTAs x
// 256 threads. Its SASS loop (validation/data/h200/micro_lsu_vec_sass.txt): 2 loads, their use
// (4 FADD), 1 store and 12 other instructions. The hardware time is one launch between CUDA
// events, so the simulated time keeps the kernel launch cost.
std::vector<MicroRow> lsu_vector_add_points() {
  std::vector<MicroRow> out;
  for (const int64_t m : {1, 4, 16, 64}) {
    for (const int ctas_per_sm : {4, 8}) {
      out.push_back(
          {{"table", "vector_add"}, {"elements", s(m * kMiB)}, {"ctas", s(132 * ctas_per_sm)}});
    }
  }
  return out;
}

namespace {

// lsu_vec.cu's vector_add, launched twice as its harness warms up before timing: the second
// launch finds what the first left in L2 (all of it up to 4M floats). Returns that launch.
SimResult vector_add_run(const MicroRow& key, const GpuConfig& c, const char* who) {
  const int64_t n4 = key_int(key, "elements") / 4;
  const int64_t ctas = key_int(key, "ctas");
  if (n4 <= 0 || ctas <= 0) {
    throw_input_error(who, "elements and ctas must be positive");
  }
  const int64_t threads = ctas * 256;
  const std::string e = "(i * " + s(threads) + " + cta * 256 + wg * 128)";
  const std::string bytes = fmt::format("min(2048, 16 * ({} - {}))", n4, e);
  KernelBuilder b("vector_add");
  b.set_grid(ctas);
  b.set_resources(32, 0);
  b.begin_role("main", 2);
  b.loop("i", "0", s((n4 + threads - 1) / threads));
  b.if_(fmt::format("{} < {}", e, n4));
  b.ld_global(fmt::format("{} + 16 * {}", int64_t{1} << 36, e), bytes);
  b.ld_global(fmt::format("{} + 16 * {}", int64_t{2} << 36, e), bytes);
  b.ld_wait("0");
  KernelBuilder::ComputeOps ops;
  ops.fp32 = "512";
  ops.inst = "12";
  b.compute(ops, false, "loop");
  b.st_global(fmt::format("{} + 16 * {}", int64_t{3} << 36, e), bytes);
  b.end_if();
  b.end_loop();
  b.end_role();
  const program::Kernel k = b.finish();
  return micro_sequence({&k, &k}, c).back();
}

}  // namespace

MicroRow lsu_vector_add_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions&) {
  const SimResult r = vector_add_run(key, c, "micro lsu_vector_add");
  const double moved = static_cast<double>(key_int(key, "elements") / 4) * 48;
  MicroRow out = key;
  out["buffer_bytes"] = fmt::format("{:.0f}", moved);
  out["threads"] = s(256);
  out["median_us"] = fmt::format("{:.2f}", r.time_us);
  out["median_gbps"] = fmt::format("{:.1f}", moved / r.time_us * 1e-3);
  return out;
}

std::vector<MicroRow> lsu_vector_add_ncu_points() {
  std::vector<MicroRow> out;
  for (const int64_t n :
       {int64_t{1} << 20, int64_t{4} << 20, int64_t{16} << 20, int64_t{64} << 20}) {
    for (const int64_t ctas : {528, 1056}) {
      out.push_back({{"elements", s(n)}, {"ctas", s(ctas)}});
    }
  }
  return out;
}

MicroRow lsu_vector_add_ncu_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions&) {
  const SimResult r = vector_add_run(key, c, "micro lsu_vector_add_ncu");
  MicroRow out = key;
  out["launches"] = s(1);
  out["kernel_us_median"] = fmt::format("{:.2f}", r.time_us);
  out["cycles_median"] = s(r.cycles);
  out["sm_mhz"] = fmt::format("{:.0f}", r.sm_clock_mhz);
  out["dram_read_bytes"] = s(static_cast<int64_t>(r.dram_read_bytes));
  out["dram_write_bytes"] = s(static_cast<int64_t>(r.dram_write_bytes));
  return out;
}

}  // namespace asyncsim::cli::micro_detail
