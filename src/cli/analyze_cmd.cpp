#include "cli/analyze_cmd.h"

#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "analytic/attention_model.h"
#include "analytic/gemm_model.h"
#include "analytic/measured.h"
#include "analytic/params.h"
#include "analytic/report.h"
#include "cli/commands.h"
#include "config/gpu_config.h"
#include "sim/simulator.h"
#include "util/error.h"
#include "workloads/gemm.h"

namespace asyncsim::cli {
namespace {

using analytic::AttentionShape;
using analytic::GemmShape;

struct AnalyzeOptions {
  std::string gpu = "h200";
  std::vector<std::string> sets;
  bool json = false;
  std::string sweep;
};

void add_config_options(CLI::App& cmd, AnalyzeOptions& o) {
  cmd.add_option("--gpu", o.gpu, "GPU config name (configs/NAME.yaml) or YAML file")
      ->capture_default_str();
  cmd.add_option("--set", o.sets, "override a parameter: key=value (repeatable)");
  cmd.add_flag("--json", o.json, "print JSON (one object, or an array for --sweep)");
  cmd.add_option("--sweep", o.sweep,
                 "PARAM=START:STOP:STEP or PARAM=v1,v2,...; PARAM is a workload flag name "
                 "(without --) or a config key such as analytic.effective_l2_bytes");
}

// Runs `estimate(shape, gpu)` once, or once per sweep value, and prints the result. Sweep
// values of dotted names are config overrides; others set the workload field of that flag.
template <typename Shape, typename Estimator>
void run_points(const AnalyzeOptions& o, const Shape& base, Estimator estimate) {
  const GpuConfig gpu = load_gpu_config(o.gpu, o.sets);
  if (o.sweep.empty()) {
    const analytic::Estimate e = estimate(base, gpu);
    std::printf("%s\n",
                o.json
                    ? analytic::to_json(e, gpu).dump(2).c_str()
                    : (analytic::table_header("point") + analytic::table_row("-", e, gpu)).c_str());
    return;
  }
  const analytic::SweepSpec sweep = analytic::parse_sweep(o.sweep, "--sweep");
  const bool is_config_key = sweep.param.find('.') != std::string::npos;
  nlohmann::json points = nlohmann::json::array();
  std::string table = analytic::table_header(sweep.param);
  for (const std::string& value : sweep.values) {
    Shape shape = base;
    GpuConfig point_gpu = gpu;
    if (is_config_key) {
      apply_override(point_gpu, sweep.param, value, "--sweep");
    } else {
      analytic::set_param(shape, sweep.param, value, "--sweep");
    }
    const analytic::Estimate e = estimate(shape, point_gpu);
    if (o.json) {
      nlohmann::json j = analytic::to_json(e, point_gpu);
      j[sweep.param] = value;
      points.push_back(std::move(j));
    } else {
      table += analytic::table_row(value, e, point_gpu);
    }
  }
  std::printf("%s", o.json ? (points.dump(2) + "\n").c_str() : table.c_str());
}

void add_gemm(CLI::App& parent) {
  struct Opts {
    AnalyzeOptions common;
    GemmShape shape;
    std::string tile = "128x128x64";
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = parent.add_subcommand("gemm", "closed-form traffic and roofline of the GEMM");
  cmd->add_option("--m", o->shape.m, "rows of A and C")->required();
  cmd->add_option("--n", o->shape.n, "rows of B, columns of C")->required();
  cmd->add_option("--k", o->shape.k, "reduction dimension")->required();
  cmd->add_option("--tile", o->tile, "CTA tile BMxBNxBK")->capture_default_str();
  cmd->add_option("--stages", o->shape.stages, "shared-memory pipeline stages")
      ->capture_default_str();
  cmd->add_option("--warps", o->shape.warps, "warps per CTA")->capture_default_str();
  cmd->add_option("--regs", o->shape.regs_per_thread, "registers per thread (0: estimate)")
      ->capture_default_str();
  add_config_options(*cmd, o->common);
  cmd->callback([o]() {
    GemmShape shape = o->shape;
    analytic::set_tile(shape, o->tile, "--tile");
    run_points(o->common, shape, analytic::estimate_gemm);
    set_exit_code(0);
  });
}

void add_attention(CLI::App& parent) {
  struct Opts {
    AnalyzeOptions common;
    AttentionShape shape;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd =
      parent.add_subcommand("attention", "closed-form traffic and roofline of forward attention");
  AttentionShape& s = o->shape;
  cmd->add_option("--batch", s.batch, "batch size B")->capture_default_str();
  cmd->add_option("--heads", s.heads, "query heads H")->required();
  cmd->add_option("--kv-heads", s.kv_heads, "K/V heads HKV (default: H)");
  cmd->add_option("--seq", s.seq, "query sequence length S")->required();
  cmd->add_option("--seq-kv", s.seq_kv, "K/V sequence length (default: S)");
  cmd->add_option("--head-dim", s.head_dim, "head dimension D")->required();
  cmd->add_option("--block-m", s.block_m, "Q rows per CTA")->capture_default_str();
  cmd->add_option("--block-n", s.block_n, "K/V rows per loop iteration")->capture_default_str();
  cmd->add_option("--stages", s.stages, "K/V pipeline stages")->capture_default_str();
  cmd->add_option("--warps", s.warps, "warps per CTA")->capture_default_str();
  cmd->add_option("--regs", s.regs_per_thread, "registers per thread (0: estimate)")
      ->capture_default_str();
  cmd->add_flag("--causal", s.causal, "causal mask (fully masked K/V tiles skipped)");
  add_config_options(*cmd, o->common);
  cmd->callback([o]() {
    run_points(o->common, o->shape, analytic::estimate_attention);
    set_exit_code(0);
  });
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw_input_error(path, "cannot open file");
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Runs the cycle-level simulator on the GEMM rows (attention has no generator yet) whose grid
// is at most `max_ctas`, so the table shows both paths' DRAM bytes side by side.
void simulate_rows(std::vector<analytic::MeasuredRow>& rows, const GpuConfig& gpu,
                   int64_t max_ctas) {
  for (analytic::MeasuredRow& r : rows) {
    const int64_t ctas = ((r.gemm.m + r.gemm.block_m - 1) / r.gemm.block_m) *
                         ((r.gemm.n + r.gemm.block_n - 1) / r.gemm.block_n);
    if (!r.is_gemm || ctas > max_ctas) {
      continue;
    }
    workloads::GemmSpec spec;
    spec.m = r.gemm.m;
    spec.n = r.gemm.n;
    spec.k = r.gemm.k;
    spec.bm = r.gemm.block_m;
    spec.bn = r.gemm.block_n;
    spec.bk = r.gemm.block_k;
    spec.stages = r.gemm.stages;
    spec.warps = r.gemm.warps;
    spec.variant = r.kernel == "gemm_ws" ? workloads::GemmVariant::kWarpSpecialized
                                         : workloads::GemmVariant::kPipelined;
    const SimResult sim = simulate(workloads::build_gemm(spec, gpu), gpu);
    r.sim_dram_read_bytes = static_cast<int64_t>(sim.dram_read_bytes);
    r.sim_dram_write_bytes = static_cast<int64_t>(sim.dram_write_bytes);
    std::fprintf(stderr, "simulated %s %s %lldx%lldx%lld\n", r.kernel.c_str(), r.variant.c_str(),
                 static_cast<long long>(spec.m), static_cast<long long>(spec.n),
                 static_cast<long long>(spec.k));
  }
}

// Hidden: measured (Nsight Compute) traffic vs both models, for docs/analytic.md.
void add_table(CLI::App& parent) {
  struct Opts {
    AnalyzeOptions common;
    std::vector<std::string> files;
    bool sim = false;
    int64_t sim_max_ctas = 1024;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = parent.add_subcommand("table", "measured vs modelled traffic from CSVs");
  cmd->group("");  // hidden from --help: a validation tool, not a user command
  cmd->add_option("csv", o->files, "validation/data/<gpu>/{gemm,attention}.csv")->required();
  cmd->add_option("--gpu", o->common.gpu, "GPU config")->capture_default_str();
  cmd->add_option("--set", o->common.sets, "override a parameter: key=value (repeatable)");
  cmd->add_flag("--sim", o->sim, "also run the cycle-level simulator on the GEMM rows");
  cmd->add_option("--sim-max-ctas", o->sim_max_ctas, "skip simulating grids larger than this")
      ->capture_default_str();
  cmd->callback([o]() {
    const GpuConfig gpu = load_gpu_config(o->common.gpu, o->common.sets);
    std::vector<analytic::MeasuredRow> rows;
    int skipped = 0;
    for (const std::string& file : o->files) {
      const std::vector<analytic::MeasuredRow> part =
          analytic::parse_measured_csv(read_file(file), file, skipped);
      rows.insert(rows.end(), part.begin(), part.end());
    }
    if (o->sim) {
      simulate_rows(rows, gpu, o->sim_max_ctas);
    }
    std::printf("%s", analytic::measured_table(rows, gpu).c_str());
    std::printf("\n%zu rows compared, %d rows of unmodelled kernels skipped (gpu %s)\n",
                rows.size(), skipped, gpu.name.c_str());
    set_exit_code(0);
  });
}

}  // namespace

void add_analyze_command(CLI::App& app) {
  CLI::App* analyze = app.add_subcommand(
      "analyze", "closed-form FLOPs, L2/DRAM traffic (ideal and wave models) and roofline time");
  analyze->require_subcommand(1);
  add_gemm(*analyze);
  add_attention(*analyze);
  add_table(*analyze);
}

}  // namespace asyncsim::cli
