// Microbenchmarks that mirror the H200 ones of validation/hw/micro/ (same working sets, loop
// structure, sample counts, statistics) and print the columns of the committed hardware CSVs
// (validation/data/h200/micro_*.csv), so simulated and measured rows compare line by line.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "config/gpu_config.h"

namespace asyncsim::cli {

using MicroRow = std::map<std::string, std::string>;  // column -> value

struct MicroOptions {
  // Streaming benchmarks move at most this many bytes per point (0: the hardware's full
  // amount); bandwidth is a steady-state rate, so a shorter stream measures the same thing.
  uint64_t max_bytes = uint64_t{1} << 30;
};

struct MicroBench {
  std::string name;
  std::string method;                 // what the simulated run does (printed as # method:)
  std::vector<std::string> columns;   // the hardware CSV header
  std::vector<std::string> keys;      // columns that identify a point
  std::string metric;                 // the column compared against the hardware
  std::vector<MicroRow> (*points)();  // the hardware's points, in its order
  // One simulation per point (nullptr when the points come from runs, below).
  MicroRow (*simulate)(const MicroRow& key, const GpuConfig& c, const MicroOptions& o);
  // Benchmarks whose points are kernels of one run (a sequence measured kernel by kernel): the
  // key columns that identify a run, and the run itself, which returns a row for each of its
  // points (with every column of `keys`). Points of one run are simulated once.
  std::vector<std::string> run_keys = {};
  std::vector<MicroRow> (*simulate_run)(const MicroRow& run, const GpuConfig& c,
                                        const MicroOptions& o) = nullptr;
  // Non-empty: a point's error is (simulated - measured) / this column, i.e. in percentage
  // points of it (for shares that are often near zero), instead of relative to the measured.
  std::string error_scale = {};
  // Non-empty: the measured CSV holds several tables; only its rows with these values are this
  // benchmark's points.
  std::map<std::string, std::string> only = {};
};

const std::vector<MicroBench>& micro_benches();
// Throws InputError naming `flag` for an unknown name.
const MicroBench& find_micro(const std::string& name, const std::string& flag);

}  // namespace asyncsim::cli
