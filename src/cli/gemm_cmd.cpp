#include <fmt/format.h>

#include <memory>

#include "cli/commands.h"
#include "cli/output.h"
#include "program/parser.h"
#include "util/error.h"
#include "workloads/gemm.h"

namespace asyncsim::cli {

void add_gemm_command(CLI::App& app) {
  struct Opts {
    CommonOptions common;
    workloads::GemmSpec spec;
    std::string tile = "128x128x64";
    std::string variant = "pipelined";
    std::string serialize = "auto";
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = app.add_subcommand(
      "gemm", "simulate the TMA + wgmma GEMM C = A * B^T (fp16 in, fp32 acc, fp16 out)");
  cmd->add_option("--m", o->spec.m, "rows of A and C")->capture_default_str();
  cmd->add_option("--n", o->spec.n, "rows of B, columns of C")->capture_default_str();
  cmd->add_option("--k", o->spec.k, "reduction dimension")->capture_default_str();
  cmd->add_option("--tile", o->tile, "CTA tile BMxBNxBK")->capture_default_str();
  cmd->add_option("--stages", o->spec.stages, "shared-memory pipeline stages")
      ->capture_default_str();
  cmd->add_option("--warps", o->spec.warps, "consumer warps per CTA (warps/4 warpgroups split BM)")
      ->capture_default_str();
  cmd->add_option("--variant", o->variant,
                  "pipelined (Triton's software pipeline), ws (producer + consumer warpgroups), "
                  "persistent (one CTA per SM slot looping over tiles)")
      ->capture_default_str();
  cmd->add_option("--group-m", o->spec.group_m,
                  "persistent: tile rows per group in Triton's grouped tile order (GROUP_SIZE_M; "
                  "1 = row-major)")
      ->capture_default_str();
  cmd->add_option("--ctas", o->spec.ctas,
                  "persistent: CTAs launched (0 = one per free CTA slot, at most one per tile; "
                  "Triton's tutorial 09 launches min(#SMs, tiles))")
      ->capture_default_str();
  cmd->add_option("--wgmma-serialize", o->serialize,
                  "auto (as ptxas did for Triton 3.6: each wgmma waited when N = 256), on, off")
      ->capture_default_str();
  add_common_options(*cmd, o->common);
  cmd->callback([o]() {
    workloads::parse_tile(o->tile, o->spec, "--tile");
    if (o->serialize == "on") {
      o->spec.wgmma_serialization = workloads::WgmmaSerialization::kOn;
    } else if (o->serialize == "off") {
      o->spec.wgmma_serialization = workloads::WgmmaSerialization::kOff;
    } else if (o->serialize != "auto") {
      throw_input_error("--wgmma-serialize", "expected auto, on or off, got '{}'", o->serialize);
    }
    o->spec.variant = workloads::parse_gemm_variant(o->variant, "--variant");
    const GpuConfig config = load_config(o->common);
    const program::Kernel kernel = workloads::build_gemm(o->spec, config);
    const std::string title =
        fmt::format("gemm {}x{}x{} tile {} stages {} warps {} ({})", o->spec.m, o->spec.n,
                    o->spec.k, o->tile, o->spec.stages, o->spec.warps, o->variant);
    set_exit_code(simulate_and_report(kernel, config, o->common, title));
  });
}

void add_run_command(CLI::App& app) {
  struct Opts {
    CommonOptions common;
    std::vector<std::string> files;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = app.add_subcommand(
      "run",
      "simulate a program file (.asim, docs/program-format.md), or several back to back on one "
      "GPU whose L2 and DRAM state carries over from kernel to kernel");
  cmd->add_option("program", o->files,
                  "program file(s); several run in order as consecutive launches")
      ->required();
  add_common_options(*cmd, o->common);
  cmd->callback([o]() {
    // Every file is read (and checked) before anything is simulated.
    std::vector<program::Kernel> kernels;
    std::vector<std::string> titles;
    for (const std::string& f : o->files) {
      kernels.push_back(program::parse_program_file(f));
      titles.push_back("run " + f);
    }
    std::vector<const program::Kernel*> seq;
    for (const program::Kernel& k : kernels) {
      seq.push_back(&k);
    }
    const GpuConfig config = load_config(o->common);
    set_exit_code(simulate_and_report(seq, config, o->common, titles));
  });
}

void add_params_command(CLI::App& app) {
  auto gpu = std::make_shared<std::string>("h200");
  auto sets = std::make_shared<std::vector<std::string>>();
  CLI::App* cmd =
      app.add_subcommand("params", "list every GPU parameter with value, unit, doc and source");
  cmd->add_option("--gpu", *gpu, "GPU config name or YAML file")->capture_default_str();
  cmd->add_option("--set", *sets, "override a parameter: key=value (repeatable)");
  cmd->callback([gpu, sets]() {
    const GpuConfig c = load_gpu_config(*gpu, *sets);
    std::printf("# %s: %zu parameters\n", c.name.c_str(), c.records.size());
    std::printf("%-28s %-14s %-16s %s\n", "key", "value", "unit", "doc [source]");
    for (const auto& r : c.records) {
      std::printf("%-28s %-14s %-16s %s [%s]\n", r.key.c_str(), r.value.c_str(), r.unit.c_str(),
                  r.doc.c_str(), r.source.c_str());
    }
    set_exit_code(0);
  });
}

}  // namespace asyncsim::cli
