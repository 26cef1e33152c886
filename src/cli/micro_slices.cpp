// l2_slice_spread: how evenly the L2 slices share out strided and random lines, as
// validation/hw/micro/l2_slice_map.cu's set launches count it on the H200: one SM reads n lines
// and the slice of its partition that received the most (a near line's home, a far line's near
// copy) is reported. No timing: the model's slice hash, partitions and copy placement alone.
#include <fmt/format.h>

#include <algorithm>
#include <random>

#include "cli/micro_detail.h"
#include "mem/memory_system.h"
#include "util/error.h"

namespace asyncsim::cli::micro_detail {

namespace {

constexpr uint64_t kBufferLines = (uint64_t{1} << 30) / 128;  // the .cu's 1 GiB buffer
constexpr int kSetLines = 384;
constexpr int kStrides = 17;  // lines k * 2^j, j = 0..16
constexpr int kRandomSets = 8;

// The .cu's sets, in its order: lines k * 2^j (n = 384 or what the buffer holds), then random
// sets of 384 distinct lines drawn by one mt19937_64 seeded 20261205.
std::vector<uint64_t> slice_set(const std::string& pattern, int64_t param) {
  std::vector<uint64_t> s;
  if (pattern == "stride") {
    for (uint64_t k = 0; k < kSetLines && (k << param) < kBufferLines; ++k) {
      s.push_back(k << param);
    }
    return s;
  }
  std::mt19937_64 rng(20261205);
  for (int64_t r = 0; r <= param; ++r) {
    s.clear();
    while (static_cast<int>(s.size()) < kSetLines) {
      const uint64_t l = rng() % kBufferLines;
      if (std::find(s.begin(), s.end(), l) == s.end()) {
        s.push_back(l);
      }
    }
  }
  return s;
}

}  // namespace

std::vector<MicroRow> slice_spread_points() {
  std::vector<MicroRow> out;
  for (int j = 0; j < kStrides; ++j) {
    for (const int sm : {0, 2}) {
      out.push_back({{"pattern", "stride"}, {"param", s(j)}, {"reader_sm", s(sm)}});
    }
  }
  for (int r = 0; r < kRandomSets; ++r) {
    for (const int sm : {0, 2}) {
      out.push_back({{"pattern", "random"}, {"param", s(r)}, {"reader_sm", s(sm)}});
    }
  }
  return out;
}

MicroRow slice_spread_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions&) {
  const std::string& pattern = key_str(key, "pattern");
  const int64_t param = key_int(key, "param");
  const int64_t sm = key_int(key, "reader_sm");
  if (!((pattern == "stride" && param >= 0 && param < kStrides) ||
        (pattern == "random" && param >= 0 && param < kRandomSets))) {
    throw_input_error("micro l2_slice_spread",
                      "expected pattern stride with param 0-{} or random with param 0-{}, got "
                      "pattern={} param={}",
                      kStrides - 1, kRandomSets - 1, pattern, param);
  }
  if (sm < 0 || sm >= c.sm.count) {
    throw_input_error("micro l2_slice_spread", "reader_sm {}: the GPU has SMs 0-{}", sm,
                      c.sm.count - 1);
  }
  const MemorySystem mem(c, ClockDomain::from_mhz(c.sm.clock_mhz));
  const std::vector<uint64_t> lines = slice_set(pattern, param);
  std::vector<int> got(static_cast<size_t>(mem.num_slices()), 0);
  const int part = mem.partition_of_sm(static_cast<int>(sm));
  int far = 0;
  for (const uint64_t line : lines) {
    int slice = mem.slice_of(line);
    if (mem.partition_of_slice(slice) != part) {
      slice = mem.proxy_of(slice);  // a far line reaches its near copy's slice first
      ++far;
    }
    ++got[static_cast<size_t>(slice)];
  }
  const int slices_near = mem.num_slices() / 2;  // a partition's
  return {{"pattern", pattern},
          {"param", s(param)},
          {"reader_sm", s(sm)},
          {"lines", s(static_cast<int64_t>(lines.size()))},
          {"far_lines", s(far)},
          {"mean_lines", fmt::format("{:.2f}", static_cast<double>(lines.size()) / slices_near)},
          {"max_lines", s(*std::max_element(got.begin(), got.end()))}};
}

}  // namespace asyncsim::cli::micro_detail
