// `asyncsim validate`: simulate every row of committed H200 measurement CSVs at that row's
// effective SM clock and compare cycles and DRAM bytes with what Nsight Compute measured.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "config/gpu_config.h"
#include "program/ir.h"

namespace asyncsim::cli {

struct MeasuredRow {
  std::string file;
  int line = 0;
  std::map<std::string, std::string> fields;

  const std::string& get(const std::string& key) const;
  int64_t integer(const std::string& key) const;
  double number(const std::string& key) const;
  bool has(const std::string& key) const { return fields.count(key) > 0; }
};

// Reads a CSV whose lines starting with '#' are provenance and whose first other line names the
// columns. Throws InputError naming file:line for a ragged row.
std::vector<MeasuredRow> read_measured_csv(const std::string& path);

struct RowResult {
  std::string family;  // kernel column
  std::string variant;
  std::string split;
  std::string shape;  // e.g. 4096x4096x4096
  int64_t measured_cycles = 0;
  int64_t simulated_cycles = 0;
  double sm_clock_mhz = 0;
  double measured_dram_read = 0;
  double simulated_dram_read = 0;
  std::string error;  // non-empty when the row could not be simulated
  double cycle_error_pct() const;
  double dram_error_pct() const;
};

struct Summary {
  int rows = 0;
  double mape = 0;
  double bias = 0;
  double max_abs = 0;
  double within10 = 0;  // share of rows
  double dram_mape = 0;
  double dram_max_abs = 0;
  double dram_within10 = 0;
};
Summary summarize(const std::vector<const RowResult*>& rows);

// Builds the kernel a row measured; returns false (with `why`) for kernels it cannot express.
using RowBuilder = std::function<bool(const MeasuredRow&, const GpuConfig&, program::Kernel&,
                                      std::string& shape, std::string& why)>;

struct ValidateOptions {
  std::string gpu = "h200";
  std::vector<std::string> sets;
  std::vector<std::string> splits;   // empty: all
  std::vector<std::string> kernels;  // empty: all
  int jobs = 1;
};

std::vector<RowResult> validate_rows(const std::vector<MeasuredRow>& rows,
                                     const ValidateOptions& options, const RowBuilder& build);

}  // namespace asyncsim::cli
