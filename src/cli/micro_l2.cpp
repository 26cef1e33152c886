// L2 replacement-policy microbenchmarks: l2_dirty_retain, l2_write_stream, l2_reuse_stream,
// l2_tma_write_retain; and l2_stride_retain, which probes how strided lines spread over sets.
// The hardware runs torch kernels in sequence (validation/hw/l2_*.py) and counts the DRAM reads
// of one of them; here each torch kernel is a full-chip touch kernel (every line read or written
// by one SM, in grid-stride order) in one simulate_sequence, so the L2 carries over as it does
// between launches on the hardware.
#include <fmt/format.h>

#include "cli/micro_detail.h"
#include "util/error.h"

namespace asyncsim::cli::micro_detail {
namespace {

// Buffers, as far apart as the hardware's separate allocations.
constexpr uint64_t kFlushBase = 0;
constexpr uint64_t kWBase = uint64_t{1} << 30;
constexpr uint64_t kBigBase = uint64_t{2} << 30;
constexpr int64_t kWBytes = 16 * kMiB;
// The hardware reads 256 MiB to flush the previous case; each simulated case starts from an
// empty L2, so the flush only has to leave it full of older clean lines: 96 MiB (1.6 times the
// 60 MiB L2) does, at 38 % of the cost.
constexpr int64_t kFlushBytes = 96 * kMiB;

struct Touch {
  uint64_t base;
  int64_t bytes;
  bool write;
  bool lsu = true;  // writes by ST_GLOBAL (the hardware's torch fill_), else by bulk stores
};

// Runs the touches back to back (after the flush) and returns each one's result.
std::vector<SimResult> run_touches(const GpuConfig& c, const std::vector<Touch>& seq) {
  std::vector<program::Kernel> kernels;
  kernels.reserve(seq.size() + 1);
  kernels.push_back(touch_kernel(c, kFlushBase, kFlushBytes));
  for (const Touch& t : seq) {
    kernels.push_back(touch_kernel(c, t.base, t.bytes, t.write, t.lsu));
  }
  std::vector<const program::Kernel*> ptrs;
  for (const program::Kernel& k : kernels) {
    ptrs.push_back(&k);
  }
  std::vector<SimResult> out = micro_sequence(ptrs, c);
  out.erase(out.begin());
  return out;
}

int64_t mib(const MicroRow& key, const std::string& col, const std::string& bench) {
  const int64_t v = key_int(key, col);
  if (v < 0 || v > 4096) {
    throw_input_error("micro " + bench, "{}: expected 0 to 4096 MiB, got {}", col, v);
  }
  return v;
}

bool mode_is(const MicroRow& key, const std::string& col, const std::string& a,
             const std::string& b, const std::string& bench) {
  const std::string& v = key_str(key, col);
  if (v != a && v != b) {
    throw_input_error("micro " + bench, "{}: expected {} or {}, got '{}'", col, a, b, v);
  }
  return v == a;
}

std::string u(uint64_t v) {
  return std::to_string(v);
}

// W (written or read), a stream of stream_mib (at least one 8 KB unit; written or read), W read
// again: the three kernels' results. Writes by ST_GLOBAL, or with `tma` by bulk stores.
std::vector<SimResult> w_stream_w(const GpuConfig& c, bool w_write, int64_t stream_mib,
                                  bool stream_write, bool tma = false) {
  return run_touches(
      c, {{kWBase, kWBytes, w_write, !tma},
          {kBigBase, std::max<int64_t>(stream_mib * kMiB, 8 * kKiB), stream_write, !tma},
          {kWBase, kWBytes, false}});
}

}  // namespace

// l2_dirty_retain: W written (dirty) or read (clean), a clean stream R of sr_mib read, W read
// again (measured). The hardware's Sr = 0 case reads one element: an 8 KB touch here.
std::vector<MicroRow> dirty_retain_points() {
  std::vector<MicroRow> out;
  for (const int sr : {0, 8, 16, 24, 32, 40, 48, 64, 96}) {
    for (const char* mode : {"dirty", "clean"}) {
      out.push_back({{"sr_mib", s(sr)}, {"mode", mode}});
    }
  }
  return out;
}

std::vector<MicroRow> dirty_retain_run(const MicroRow& run, const GpuConfig& c,
                                       const MicroOptions& /*o*/) {
  const std::string bench = "l2_dirty_retain";
  const int64_t sr = mib(run, "sr_mib", bench);
  const bool dirty = mode_is(run, "mode", "dirty", "clean", bench);
  const std::vector<SimResult> r = w_stream_w(c, dirty, sr, false);
  return {{{"rep", "0"},
           {"sr_mib", s(sr)},
           {"mode", dirty ? "dirty" : "clean"},
           {"w_bytes", s(kWBytes)},
           {"measured_dram_read_bytes", u(r[2].dram_read_bytes)},
           {"measured_l2_bytes", u(r[2].l2_read_bytes + r[2].l2_write_bytes)},
           {"r_dram_read_bytes", u(r[1].dram_read_bytes)},
           {"cycles", s(r[2].cycles)}}};
}

// l2_write_stream: W read or written, a stream of stream_mib read (rd) or written (wr), W read
// again (measured).
std::vector<MicroRow> write_stream_points() {
  std::vector<MicroRow> out;
  for (const int size : {16, 24, 32, 48, 64, 96, 128, 256}) {
    for (const char* w : {"read", "write"}) {
      for (const char* st : {"rd", "wr"}) {
        out.push_back({{"stream_mib", s(size)}, {"w_mode", w}, {"stream_mode", st}});
      }
    }
  }
  return out;
}

std::vector<MicroRow> write_stream_run(const MicroRow& run, const GpuConfig& c,
                                       const MicroOptions& /*o*/) {
  const std::string bench = "l2_write_stream";
  const int64_t size = mib(run, "stream_mib", bench);
  const bool w_write = mode_is(run, "w_mode", "write", "read", bench);
  const bool s_write = mode_is(run, "stream_mode", "wr", "rd", bench);
  const std::vector<SimResult> r = w_stream_w(c, w_write, size, s_write);
  return {{{"stream_mib", s(size)},
           {"w_mode", w_write ? "write" : "read"},
           {"stream_mode", s_write ? "wr" : "rd"},
           {"w_bytes", s(kWBytes)},
           {"measured_dram_read_bytes", u(r[2].dram_read_bytes)},
           {"stream_dram_read_bytes", u(r[1].dram_read_bytes)},
           {"stream_dram_write_bytes", u(r[1].dram_write_bytes)},
           {"measured_dram_write_bytes", u(r[2].dram_write_bytes)}}};
}

// l2_reuse_stream: W read, then 6 rounds of (a fresh chunk of chunk_mib written or read, W read
// again: measured). One run gives every round.
constexpr int kRounds = 6;

std::vector<MicroRow> reuse_stream_points() {
  std::vector<MicroRow> out;
  for (const int chunk : {4, 8, 16, 24, 32, 40, 48}) {
    for (const char* st : {"wr", "rd"}) {
      for (int round = 0; round < kRounds; ++round) {
        out.push_back({{"chunk_mib", s(chunk)}, {"stream_mode", st}, {"round", s(round)}});
      }
    }
  }
  return out;
}

std::vector<MicroRow> reuse_stream_run(const MicroRow& run, const GpuConfig& c,
                                       const MicroOptions& /*o*/) {
  const std::string bench = "l2_reuse_stream";
  const int64_t chunk = std::max<int64_t>(mib(run, "chunk_mib", bench), 1);
  const bool write = mode_is(run, "stream_mode", "wr", "rd", bench);
  std::vector<Touch> seq = {{kWBase, kWBytes, false}};
  for (int k = 0; k < kRounds; ++k) {
    seq.push_back({kBigBase + static_cast<uint64_t>(k * chunk * kMiB), chunk * kMiB, write});
    seq.push_back({kWBase, kWBytes, false});
  }
  const std::vector<SimResult> r = run_touches(c, seq);
  std::vector<MicroRow> out;
  for (int k = 0; k < kRounds; ++k) {
    const SimResult& ch = r[static_cast<size_t>(1 + 2 * k)];
    out.push_back(
        {{"chunk_mib", s(chunk)},
         {"stream_mode", write ? "wr" : "rd"},
         {"round", s(k)},
         {"w_bytes", s(kWBytes)},
         {"measured_dram_read_bytes", u(r[static_cast<size_t>(2 + 2 * k)].dram_read_bytes)},
         {"chunk_dram_read_bytes", u(ch.dram_read_bytes)},
         {"chunk_dram_write_bytes", u(ch.dram_write_bytes)}});
  }
  return out;
}

// l2_tma_write_retain: the hardware writes W, or a stream, either with st.global (lsu) or with
// TMA stores (tma); the model's touch kernels store by ST_GLOBAL or bulk stores alike. w_retain: W
// written (or read), a clean stream of sr_mib read, W read again (measured); s_evict: W read, a
// stream of sr_mib written, W read again (measured).
std::vector<MicroRow> tma_write_retain_points() {
  std::vector<MicroRow> out;
  for (const char* how : {"lsu", "tma", "read"}) {
    for (const int sr : {16, 24, 32, 48}) {
      out.push_back({{"kind", "w_retain"}, {"how", how}, {"sr_mib", s(sr)}});
    }
  }
  for (const char* how : {"lsu", "tma"}) {
    for (const int sr : {16, 24, 32}) {
      out.push_back({{"kind", "s_evict"}, {"how", how}, {"sr_mib", s(sr)}});
    }
  }
  return out;
}

std::vector<MicroRow> tma_write_retain_run(const MicroRow& run, const GpuConfig& c,
                                           const MicroOptions& /*o*/) {
  const std::string bench = "l2_tma_write_retain";
  const bool retain = mode_is(run, "kind", "w_retain", "s_evict", bench);
  const std::string& how = key_str(run, "how");
  if (how != "lsu" && how != "tma" && !(retain && how == "read")) {
    throw_input_error("micro " + bench, "how: expected lsu or tma{}, got '{}'",
                      retain ? " or read" : "", how);
  }
  const int64_t sr = mib(run, "sr_mib", bench);
  const std::vector<SimResult> r = retain ? w_stream_w(c, how != "read", sr, false, how == "tma")
                                          : w_stream_w(c, false, sr, true, how == "tma");
  return {{{"kind", retain ? "w_retain" : "s_evict"},
           {"how", how},
           {"sr_mib", s(sr)},
           {"w_bytes", s(kWBytes)},
           {"measured_dram_read_bytes", u(r[2].dram_read_bytes)},
           {"measured_l2_bytes", u(r[2].l2_read_bytes + r[2].l2_write_bytes)},
           {"k1_dram_write_bytes", u(r[0].dram_write_bytes)},
           {"k2_dram_write_bytes", u(r[1].dram_write_bytes)},
           {"k1_cycles", s(r[0].cycles)},
           {"k2_cycles", s(r[1].cycles)}}};
}

// l2_stride_retain: a 2-D region of rows (width_lines lines each, pitch_lines lines apart, the
// rows summing to footprint_mib) read twice after a flush; the second read's DRAM bytes are the
// lines the first could not keep. A set index that ignores the bits the slice hash consumed
// piles strided rows into few sets and loses lines well below the L2's capacity; one that mixes
// every address bit loses them only as the footprint nears it (validation/hw/l2_stride_retain.py).
// The widest span the hardware allocates: points beyond it are not measured.
constexpr int64_t kStrideSpanBytes = int64_t{4} << 30;

std::vector<MicroRow> stride_retain_points() {
  std::vector<MicroRow> out;
  const std::vector<std::pair<int, std::vector<int>>> shapes = {
      {1, {16, 32, 128}}, {4, {16, 32, 128, 512}}, {16, {16, 32, 128, 512, 2048}}};
  for (const int f : {16, 24, 32}) {
    for (const auto& [w, pitches] : shapes) {
      for (const int p : pitches) {
        out.push_back({{"pitch_lines", s(p)}, {"width_lines", s(w)}, {"footprint_mib", s(f)}});
      }
    }
  }
  return out;
}

MicroRow stride_retain_simulate(const MicroRow& key, const GpuConfig& c,
                                const MicroOptions& /*o*/) {
  const std::string bench = "l2_stride_retain";
  const int64_t line = c.mem.line_bytes;
  const int64_t pitch = key_int(key, "pitch_lines");
  const int64_t width = key_int(key, "width_lines");
  const int64_t f = mib(key, "footprint_mib", bench);
  if (width < 1 || width > 1024 || pitch < width) {
    throw_input_error("micro " + bench,
                      "width_lines {} and pitch_lines {}: expected 1 <= width <= 1024, "
                      "pitch >= width",
                      width, pitch);
  }
  const int64_t rows = std::max<int64_t>(1, f * kMiB / (width * line));
  if (rows * pitch * line > kStrideSpanBytes) {
    throw_input_error("micro " + bench, "{} rows {} lines apart span more than {} GiB", rows, pitch,
                      kStrideSpanBytes >> 30);
  }
  const program::Kernel flush = touch_kernel(c, kFlushBase, kFlushBytes);
  const program::Kernel region = touch_rows_kernel(c, kWBase, rows, width * line, pitch * line);
  const std::vector<SimResult> r = micro_sequence({&flush, &region, &region}, c);
  return {{"pitch_lines", s(pitch)},
          {"width_lines", s(width)},
          {"footprint_mib", s(f)},
          {"region_bytes", s(rows * width * line)},
          {"measured_dram_read_bytes", u(r[2].dram_read_bytes)},
          {"warm_dram_read_bytes", u(r[1].dram_read_bytes)},
          {"cycles", s(r[2].cycles)}};
}

}  // namespace asyncsim::cli::micro_detail
