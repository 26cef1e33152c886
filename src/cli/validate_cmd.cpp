#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli/commands.h"
#include "cli/validate.h"
#include "util/error.h"
#include "workloads/attention.h"
#include "workloads/gemm.h"

namespace asyncsim::cli {
namespace {

// The kernels the measurement scripts wrote, mapped onto the generators.
bool build_row(const MeasuredRow& row, const GpuConfig& cfg, program::Kernel& kernel,
               std::string& shape, std::string& why) {
  const std::string& family = row.get("kernel");
  if (family == "gemm" || family == "gemm_persistent" || family == "gemm_persistent_ws") {
    workloads::GemmSpec s;
    s.m = row.integer("M");
    s.n = row.integer("N");
    s.k = row.integer("K");
    s.bm = static_cast<int>(row.integer("BM"));
    s.bn = static_cast<int>(row.integer("BN"));
    s.bk = static_cast<int>(row.integer("BK"));
    s.stages = static_cast<int>(row.integer("stages"));
    s.warps = static_cast<int>(row.integer("warps"));
    s.variant =
        family == "gemm" ? workloads::GemmVariant::kPipelined : workloads::GemmVariant::kPersistent;
    // validation/kernels/persistent_tma.py orders tiles with GROUP_SIZE_M = 8.
    s.group_m = family == "gemm" ? 1 : 8;
    // The persistent kernels' launch grid, where the measurement recorded it (persistent.csv:
    // min(#SMs, tiles)).
    if (s.variant == workloads::GemmVariant::kPersistent && row.has("grid")) {
      s.ctas = row.integer("grid");
    }
    shape = fmt::format("{}x{}x{}", s.m, s.n, s.k);
    kernel = workloads::build_gemm(s, cfg);
    if (family == "gemm_persistent_ws") {
      // Its own PTX (persistent_ptx.json: 36423 characters) x 0.265 SASS bytes per character.
      kernel.code_bytes = 9650;
    }
    return true;
  }
  if (family == "attention") {
    workloads::AttentionSpec a;
    a.batch = row.integer("B");
    a.heads = row.integer("H");
    a.kv_heads = row.integer("HKV");
    a.seq = row.integer("S");
    a.seq_kv = row.integer("SKV");
    a.head_dim = static_cast<int>(row.integer("D"));
    a.bm = static_cast<int>(row.integer("BM"));
    a.bn = static_cast<int>(row.integer("BN"));
    a.stages = static_cast<int>(row.integer("stages"));
    a.warps = static_cast<int>(row.integer("warps"));
    a.causal = row.integer("causal") != 0;
    a.variant = workloads::AttentionVariant::kTriton;
    shape = fmt::format("{}x{}x{}x{}{}", a.batch, a.heads, a.seq, a.head_dim,
                        a.causal ? " causal" : "");
    kernel = workloads::build_attention(a, cfg);
    return true;
  }
  why = fmt::format("no generator for kernel '{}' yet", family);
  return false;
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= s.size() && !s.empty()) {
    const size_t comma = s.find(',', pos);
    out.push_back(s.substr(pos, comma - pos));
    if (comma == std::string::npos) {
      break;
    }
    pos = comma + 1;
  }
  return out;
}

void print_table(const std::vector<RowResult>& results) {
  std::printf("%-16s %-18s %-6s %-18s %7s %12s %12s %8s %10s\n", "kernel", "variant", "split",
              "shape", "MHz", "measured", "simulated", "err %", "DRAM err %");
  for (const auto& r : results) {
    if (!r.error.empty()) {
      std::printf("%-16s %-18s %-6s %-18s skipped: %s\n", r.family.c_str(), r.variant.c_str(),
                  r.split.c_str(), r.shape.c_str(), r.error.c_str());
      continue;
    }
    std::printf("%-16s %-18s %-6s %-18s %7.0f %12lld %12lld %+8.1f %+10.1f\n", r.family.c_str(),
                r.variant.c_str(), r.split.c_str(), r.shape.c_str(), r.sm_clock_mhz,
                static_cast<long long>(r.measured_cycles),
                static_cast<long long>(r.simulated_cycles), r.cycle_error_pct(),
                r.dram_error_pct());
  }
}

nlohmann::json summary_json(const Summary& s) {
  return {{"rows", s.rows},
          {"mape", s.mape},
          {"bias", s.bias},
          {"max_abs_error", s.max_abs},
          {"within_10pct", s.within10},
          {"dram_mape", s.dram_mape},
          {"dram_max_abs_error", s.dram_max_abs},
          {"dram_within_10pct", s.dram_within10}};
}

// Summaries overall, per kernel family + variant, and per split.
std::vector<std::pair<std::string, Summary>> summaries(const std::vector<RowResult>& results) {
  std::map<std::string, std::vector<const RowResult*>> groups;
  for (const auto& r : results) {
    groups["all"].push_back(&r);
    groups[r.family + " " + r.variant].push_back(&r);
    groups["split " + r.split].push_back(&r);
  }
  std::vector<std::pair<std::string, Summary>> out;
  for (const auto& [name, rows] : groups) {
    out.emplace_back(name, summarize(rows));
  }
  return out;
}

void print_summaries(const std::vector<std::pair<std::string, Summary>>& sums) {
  std::printf("\n%-34s %5s %7s %7s %8s %8s %9s %9s %9s\n", "group", "rows", "MAPE%", "bias%",
              "max|e|%", "<=10%", "DRAM MAPE", "DRAM max", "DRAM<=10");
  for (const auto& [name, s] : sums) {
    std::printf("%-34s %5d %7.2f %+7.2f %8.2f %7.0f%% %9.2f %9.2f %8.0f%%\n", name.c_str(), s.rows,
                s.mape, s.bias, s.max_abs, 100 * s.within10, s.dram_mape, s.dram_max_abs,
                100 * s.dram_within10);
  }
}

nlohmann::json results_json(const std::vector<RowResult>& results,
                            const std::vector<std::pair<std::string, Summary>>& sums) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : results) {
    nlohmann::json j = {{"kernel", r.family},
                        {"variant", r.variant},
                        {"split", r.split},
                        {"shape", r.shape},
                        {"sm_clock_mhz", r.sm_clock_mhz},
                        {"measured_cycles", r.measured_cycles},
                        {"measured_dram_read_bytes", r.measured_dram_read}};
    if (r.error.empty()) {
      j["simulated_cycles"] = r.simulated_cycles;
      j["simulated_dram_read_bytes"] = r.simulated_dram_read;
      j["error_pct"] = r.cycle_error_pct();
      j["dram_error_pct"] = r.dram_error_pct();
    } else {
      j["skipped"] = r.error;
    }
    rows.push_back(j);
  }
  nlohmann::json s = nlohmann::json::object();
  for (const auto& [name, sum] : sums) {
    s[name] = summary_json(sum);
  }
  return {{"rows", rows}, {"summary", s}};
}

void plot(const nlohmann::json& data, const std::string& png) {
  const std::string json_path = png + ".json";
  std::ofstream(json_path) << data.dump(1);
  const char* dir = std::getenv("ASYNCSIM_SOURCE_DIR");
  const std::string script =
      std::string(dir ? dir : ASYNCSIM_SOURCE_DIR_DEFAULT) + "/scripts/plot_correlation.py";
  // Debian's python3 carries matplotlib (scripts/install-deps.sh); fall back to PATH.
  const char* py = std::ifstream("/usr/bin/python3").good() ? "/usr/bin/python3" : "python3";
  const std::string cmd = std::string(py) + " '" + script + "' '" + json_path + "' '" + png + "'";
  if (std::system(cmd.c_str()) != 0) {
    throw_input_error("--plot " + png, "plotting failed (needs python3-matplotlib): {}", cmd);
  }
}

}  // namespace

void add_validate_command(CLI::App& app) {
  struct Opts {
    std::vector<std::string> files;
    ValidateOptions v;
    std::string splits;
    std::string kernels;
    bool json = false;
    std::string plot_file;
  };
  auto o = std::make_shared<Opts>();
  o->v.jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  CLI::App* cmd = app.add_subcommand(
      "validate", "simulate measured H200 rows at their effective clock and compare");
  cmd->add_option("csv", o->files, "measurement CSVs (validation/data/h200/*.csv)")->required();
  cmd->add_option("--gpu", o->v.gpu, "GPU config")->capture_default_str();
  cmd->add_option("--set", o->v.sets, "config override key=value (repeatable), e.g. for ablations");
  cmd->add_option("--split", o->splits, "comma-separated splits to keep (calib,test,sweep)");
  cmd->add_option("--kernel", o->kernels, "comma-separated kernel families to keep");
  cmd->add_option("--jobs", o->v.jobs, "rows simulated in parallel")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  cmd->add_flag("--json", o->json, "print rows and summaries as one JSON object");
  cmd->add_option("--plot", o->plot_file, "write a log-log correlation chart (PNG)");
  cmd->callback([o]() {
    o->v.splits = split_list(o->splits);
    o->v.kernels = split_list(o->kernels);
    std::vector<MeasuredRow> rows;
    for (const auto& f : o->files) {
      auto more = read_measured_csv(f);
      rows.insert(rows.end(), more.begin(), more.end());
    }
    const auto results = validate_rows(rows, o->v, build_row);
    const auto sums = summaries(results);
    const nlohmann::json data = results_json(results, sums);
    if (o->json) {
      std::printf("%s\n", data.dump().c_str());
    } else {
      print_table(results);
      print_summaries(sums);
    }
    if (!o->plot_file.empty()) {
      plot(data, o->plot_file);
    }
    set_exit_code(0);
  });
}

}  // namespace asyncsim::cli
