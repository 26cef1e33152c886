// DRAM-placement micros of one SM (validation/hw/micro/dram_*.cu): dram_spread, one warp's
// gather of R lines strided or scattered, cold and hot; dram_width, the same 32 rows by a TMA box
// or by single-row loads, one sector or the whole line; dram_sector, a second sector of a line
// asked for while the first is in flight. (dram_pair, TMA boxes of 2-8 rows, sits with tma_stride
// in micro_loop.cpp.)
#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "cli/micro_detail.h"
#include "program/builder.h"
#include "sim/simulator.h"
#include "util/error.h"

namespace asyncsim::cli::micro_detail {

using program::KernelBuilder;

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
// `lead_cycles` of COMPUTE before the first load start the loads that much later in simulated
// time (per-bank refresh runs on the clock: a run of the same sets at another moment).
std::vector<int64_t> gather_group_cycles(const GpuConfig& c, const std::string& name,
                                         const std::vector<std::vector<int64_t>>& groups,
                                         int64_t lead_cycles = 0) {
  KernelBuilder b(name);
  b.set_resources(32, 0);
  b.begin_role("main", 1);
  if (lead_cycles > 0) {
    KernelBuilder::ComputeOps lead;
    lead.cycles = s(lead_cycles);
    b.compute(lead, false, "lead");
  }
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

// The xorshift64 of dram_spread.cu and dram_repeat.cu (seeded differently), one stream over all
// of a .cu's points in their order.
struct SpreadRng {
  uint64_t x = 0x9E3779B97F4A7C15ULL;
  uint64_t next() {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  }
};

// One sample's 32 distinct lines as the .cu's draw them: line_at(k) for k = the lines drawn so
// far, a repeat drawn again.
template <typename LineAt>
std::vector<int64_t> draw_set(const LineAt& line_at) {
  std::vector<int64_t> set;
  while (set.size() < 32) {
    const int64_t line = line_at(static_cast<int64_t>(set.size()));
    if (std::find(set.begin(), set.end(), line) == set.end()) {
      set.push_back(line);
    }
  }
  return set;
}

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
          const int64_t region = i * 4 * kMiB;
          sets.push_back(draw_set([&](int64_t k) {
            if (stride) {
              return region + (i * 7 % 64) * 128 + k * di;
            }
            if (region_lines > 0) {
              return region +
                     static_cast<int64_t>(rng.next() % static_cast<uint64_t>(region_lines)) * 128;
            }
            return static_cast<int64_t>(rng.next() % (kSpreadTotal / 128)) * 128;
          }));
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

// ---------------------------------------------------------------------------------------------
// dram_repeat: dram_spread's gather on dram_repeat.cu's sets (random 32 / 16 lines of 2 GiB,
// 16 lines 8 KB apart, 32 lines 128 B apart, one random line; 64 sets, single 128), each set
// read in 6 runs from a cold L2 (the .cu flushes it before each run), compared on quantiles of
// every sample of every run: how long the tail of one line's DRAM latency is, and how a set of
// R lines, which waits for its slowest, meets it. Each run starts `kRepeatRunGapCycles` later
// than the one before in simulated time, so the runs meet per-bank refresh at other moments, as
// the H200's (0.3 ms apart, a flush between them) do.

namespace {

struct RepeatConfig {
  const char* pattern;
  int rows;
  int64_t stride;
};
// dram_repeat.cu's configurations in its order (its random draws run on through them).
constexpr RepeatConfig kRepeatConfigs[] = {{"random", 32, 0},
                                           {"random", 16, 0},
                                           {"stride", 16, 8192},
                                           {"stride", 32, 128},
                                           {"single", 1, 0}};
constexpr int kRepeatRuns = 6;                 // the idle runs (background = 0)
constexpr int64_t kRepeatRunGapCycles = 1931;  // ~0.98 us at 1980 MHz, not a divisor of tREFI
constexpr const char* kRepeatQuantiles[] = {"p10", "p50", "p90", "p95", "p99"};

// The sets of one configuration, as dram_repeat.cu draws them (32 lines each; a set uses its
// first `rows`).
std::vector<std::vector<int64_t>> repeat_sets(const std::string& pattern, int rows,
                                              int64_t stride) {
  SpreadRng rng{0xD1B54A32D192ED03ULL};
  constexpr uint64_t kTotalLines = (2048 * kMiB) / 128;
  for (const RepeatConfig& cf : kRepeatConfigs) {
    const bool strided = std::string(cf.pattern) == "stride";
    const int nsamp = cf.rows == 1 ? 128 : 64;
    std::vector<std::vector<int64_t>> sets;
    for (int i = 0; i < nsamp; ++i) {
      sets.push_back(draw_set([&](int64_t k) {
        return strided ? i * 4 * kMiB + (i * 7 % 64) * 128 + k * cf.stride
                       : static_cast<int64_t>(rng.next() % kTotalLines) * 128;
      }));
    }
    if (pattern == cf.pattern && rows == cf.rows && stride == cf.stride) {
      return sets;
    }
  }
  throw_input_error("micro dram_repeat",
                    "no configuration pattern={} rows={} stride_bytes={} in dram_repeat.cu "
                    "(random 32 / 16, stride 16 x 8192 / 32 x 128, single 1 x 0)",
                    pattern, rows, stride);
}

}  // namespace

std::vector<MicroRow> dram_repeat_points() {
  std::vector<MicroRow> out;
  for (const RepeatConfig& cf : kRepeatConfigs) {
    for (const char* q : kRepeatQuantiles) {
      out.push_back({{"pattern", cf.pattern},
                     {"rows", s(cf.rows)},
                     {"stride_bytes", s(cf.stride)},
                     {"quantile", q}});
    }
  }
  return out;
}

std::vector<MicroRow> dram_repeat_run(const MicroRow& run, const GpuConfig& c,
                                      const MicroOptions&) {
  const std::string& pattern = key_str(run, "pattern");
  const int64_t rows = key_int(run, "rows");
  const int64_t stride = key_int(run, "stride_bytes");
  const std::vector<std::vector<int64_t>> sets =
      repeat_sets(pattern, static_cast<int>(rows), stride);
  std::vector<std::vector<int64_t>> groups;
  for (const std::vector<int64_t>& set : sets) {
    groups.emplace_back(set.begin(), set.begin() + rows);
  }
  std::vector<int64_t> v;
  for (int r = 0; r < kRepeatRuns; ++r) {
    const std::vector<int64_t> got =
        gather_group_cycles(c, "dram_repeat", groups, r * kRepeatRunGapCycles);
    v.insert(v.end(), got.begin(), got.end());
  }
  std::sort(v.begin(), v.end());
  const auto at = [&](double p) {
    return v[static_cast<size_t>(p * static_cast<double>(v.size() - 1))];
  };
  const int64_t values[] = {at(0.10), v[v.size() / 2], at(0.90), at(0.95), at(0.99)};
  std::vector<MicroRow> out;
  for (size_t i = 0; i < std::size(kRepeatQuantiles); ++i) {
    MicroRow row = run;
    row["quantile"] = kRepeatQuantiles[i];
    row["samples"] = s(static_cast<int64_t>(v.size()));
    row["cycles"] = s(values[i]);
    out.push_back(std::move(row));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// dram_bank: dram_bank.cu's pairs of cold lines A and A + k read together (dram_spread's gather
// of 2 lines; k = 0: A alone), 64 per offset from a cold L2 (the .cu flushes it before each
// offset), A_i = i x 16 MiB + (i x 7 mod 64) x 128: the median per offset says which offsets put
// the second line in A's bank in another row (a row cycle later), i.e. the model's address map
// as the H200's data (validation/dram_bank.py) will show its own.

std::vector<MicroRow> bank_points() {
  std::vector<MicroRow> out{{{"k_bytes", "0"}}};
  for (int64_t k = 128; k <= 8192; k += 128) {
    out.push_back({{"k_bytes", s(k)}});
  }
  for (int64_t k = 16 * kKiB; k <= 512 * kMiB; k *= 2) {
    out.push_back({{"k_bytes", s(k)}});
  }
  return out;
}

MicroRow bank_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions&) {
  const int64_t k = key_int(key, "k_bytes");
  if (k < 0 || k % 128 != 0 || k > 512 * kMiB) {
    throw_input_error("micro dram_bank",
                      "k_bytes {}: expected 0 or a multiple of 128 up to 512 MiB", k);
  }
  std::vector<std::vector<int64_t>> groups;
  for (int i = 0; i < 64; ++i) {
    const int64_t a = i * 16 * kMiB + (i * 7 % 64) * 128;
    groups.push_back(k == 0 ? std::vector<int64_t>{a} : std::vector<int64_t>{a, a + k});
  }
  const std::vector<int64_t> v = gather_group_cycles(c, "dram_bank", groups);
  MicroRow r = with_latency_columns(key, v);
  return r;
}

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
