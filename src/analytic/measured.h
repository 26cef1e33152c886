// Measured-vs-model traffic tables from the H200 ground-truth CSVs (validation/data/h200). The
// caller reads the files; this code only parses text, so it stays testable and I/O-free.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analytic/shapes.h"
#include "config/gpu_config.h"

namespace asyncsim::analytic {

struct MeasuredRow {
  std::string kernel;
  std::string variant;
  std::string split;
  bool is_gemm = true;
  GemmShape gemm;
  AttentionShape attention;
  int64_t dram_read_bytes = 0;
  int64_t dram_write_bytes = 0;
  int64_t l2_bytes = 0;  // lts__t_bytes.sum
  // The cycle-level simulator's DRAM bytes for the same workload, when the caller ran it
  // (`analyze table --sim`); -1 when not simulated.
  int64_t sim_dram_read_bytes = -1;
  int64_t sim_dram_write_bytes = -1;
};

// Parses one CSV (lines starting with '#' are provenance; the first other line names the
// columns). Rows of kernels the model does not describe (persistent, grouped tile order) are
// counted in `skipped`, not returned. Throws InputError naming file:line on a malformed row.
std::vector<MeasuredRow> parse_measured_csv(std::string_view text, const std::string& file,
                                            int& skipped);

// A Markdown table, one line per row: measured DRAM read/write and L2 bytes beside the ideal
// and wave models with signed errors (and the simulator's DRAM reads where present), then MAPE
// summaries per kernel family and split.
std::string measured_table(const std::vector<MeasuredRow>& rows, const GpuConfig& gpu);

}  // namespace asyncsim::analytic
