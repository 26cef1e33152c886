// Output options shared by every simulating subcommand, and how a result is reported.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "config/gpu_config.h"
#include "program/ir.h"
#include "sim/simulator.h"

namespace asyncsim::cli {

// For unsigned options, which CLI11 would otherwise take "-1" into as 2^64 - 1.
inline CLI::Validator non_negative() {
  return CLI::Validator(
      [](std::string& s) {
        return !s.empty() && s[0] == '-' ? "must not be negative, got " + s : std::string();
      },
      "NONNEGATIVE");
}

struct CommonOptions {
  std::string gpu = "h200";
  std::optional<double> sm_clock_mhz;  // unset: keep the config's
  std::vector<std::string> sets;
  bool json = false;
  std::string stats_file;
  std::string timeline_file;
  std::string emit_file;  // write the simulated program as .asim text
  std::string cta_log_file;
  size_t timeline_max_events = 2'000'000;
  double timeline_sample_ns = 1000;
  int64_t max_cycles = 20'000'000'000;
};

void add_common_options(CLI::App& cmd, CommonOptions& o);
// Writes `text` to `path`; an error names `flag` and the path.
void write_file(const std::string& path, const std::string& text, const std::string& flag);
GpuConfig load_config(const CommonOptions& o);

// Simulates and reports: the summary (or --json) on stdout, --stats and --timeline files, and
// the resolved config next to each file written. `title` heads the human summary.
int simulate_and_report(const program::Kernel& kernel, const GpuConfig& config,
                        const CommonOptions& o, const std::string& title);
// Several kernels back to back on one GPU whose memory carries over (simulate_sequence): a
// summary per kernel, --json and --stats as arrays (one element per kernel), --cta-log with a
// kernel column, one timeline; `titles` has one title per kernel.
int simulate_and_report(const std::vector<const program::Kernel*>& kernels, const GpuConfig& config,
                        const CommonOptions& o, const std::vector<std::string>& titles);

}  // namespace asyncsim::cli
