// Helpers for simulator tests: the round-number test GPU and a one-CTA kernel builder.
#pragma once

#include <string>

#include "config/gpu_config.h"
#include "program/builder.h"
#include "sim/simulator.h"

namespace asyncsim::testing {

inline GpuConfig simple_gpu(const std::vector<std::string>& sets = {}) {
  return load_gpu_config(std::string(ASYNCSIM_SOURCE_DIR) + "/tests/data/simple_gpu.yaml", sets);
}

// A 2-D fp16 tensor map of `rows` x `cols` elements (cols contiguous) with a box of
// box_rows x box_cols, based at `base`.
inline program::TensorMap map2d(const std::string& name, int64_t rows, int64_t cols, int box_rows,
                                int box_cols, uint64_t base) {
  program::TensorMap m;
  m.name = name;
  m.dtype = program::DType::kF16;
  m.rank = 2;
  m.dims = {cols, rows, 1, 1, 1};
  m.strides = {2, cols * 2, 0, 0, 0};
  m.box = {box_cols, box_rows, 1, 1, 1};
  m.base = base;
  return m;
}

// One CTA (or `grid`, each the same), one warpgroup: arm a barrier, load one box of `map` (2x64
// fp16, 256 B, in most tests), wait, exit.
inline program::Kernel one_box_load(const program::TensorMap& map, int grid = 1) {
  program::KernelBuilder b("one_tma");
  b.set_grid(grid);
  b.add_map(map);
  b.add_barrier("full", 1, 1);
  b.begin_role("main", 1);
  b.mb_arrive_expect_tx("full", "0", std::to_string(map.box_bytes()));
  b.tma_load(map.name, {"0", "0"}, "full", "0");
  b.mb_wait("full", "0", "0");
  b.end_role();
  return b.finish();
}

// Sum of every counter whose path ends with `suffix` (e.g. ".tma.load_bytes" over all SMs).
inline double sum_counter(const SimResult& r, const std::string& suffix) {
  double total = 0;
  for (const auto& [k, v] : r.counters) {
    if (k.size() >= suffix.size() &&
        k.compare(k.size() - suffix.size(), suffix.size(), suffix) == 0) {
      total += v;
    }
  }
  return total;
}

}  // namespace asyncsim::testing
