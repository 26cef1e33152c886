#include <fmt/format.h>

#include <memory>

#include "cli/commands.h"
#include "cli/output.h"
#include "workloads/attention.h"

namespace asyncsim::cli {

void add_attention_command(CLI::App& app) {
  struct Opts {
    CommonOptions common;
    workloads::AttentionSpec spec;
    std::string variant = "triton";
    bool no_pingpong = false;
  };
  auto o = std::make_shared<Opts>();
  auto& s = o->spec;
  CLI::App* cmd = app.add_subcommand(
      "attention", "simulate attention forward O = softmax(QK^T) V (fp16 in, fp32 softmax)");
  cmd->add_option("--batch", s.batch, "batch size")->capture_default_str();
  cmd->add_option("--heads", s.heads, "query heads")->capture_default_str();
  cmd->add_option("--kv-heads", s.kv_heads, "key/value heads (GQA; default: --heads)");
  cmd->add_option("--seq", s.seq, "query rows per head (1 for decode)")->capture_default_str();
  cmd->add_option("--seq-kv", s.seq_kv, "key/value rows per head (default: --seq)");
  cmd->add_option("--head-dim", s.head_dim, "head dimension D")->capture_default_str();
  cmd->add_option("--block-m", s.bm, "query rows per CTA (BM)")->capture_default_str();
  cmd->add_option("--block-n", s.bn,
                  "K/V rows per tile (BN; default triton 64, fa3 176 for D=128 non-causal, "
                  "else by D as FA3's tile_size.h)");
  cmd->add_option("--stages", s.stages, "K/V shared-memory stages (default triton 3, fa3 2)");
  cmd->add_option("--warps", s.warps, "triton: warps per CTA (fa3 always runs 12)")
      ->capture_default_str();
  cmd->add_flag("--causal", s.causal, "causal mask (aligned to the last key for seq < seq-kv)");
  cmd->add_option("--variant", o->variant,
                  "triton (validation/kernels/attention_tma.py as Triton 3.6 builds it) or fa3 "
                  "(producer + two ping-pong consumer warpgroups)")
      ->capture_default_str();
  cmd->add_flag("--intra-overlap", s.intra_overlap,
                "fa3: issue PV of tile j-1 with QK^T of tile j (FA3's intra-warpgroup overlap)");
  cmd->add_flag("--no-pingpong", o->no_pingpong,
                "fa3: drop the named barriers that make the consumers take turns");
  add_common_options(*cmd, o->common);
  cmd->callback([o]() {
    o->spec.variant = workloads::parse_attention_variant(o->variant, "--variant");
    o->spec.pingpong = !o->no_pingpong;
    const GpuConfig config = load_config(o->common);
    const program::Kernel kernel = workloads::build_attention(o->spec, config);
    const workloads::AttentionSpec r = workloads::attention_defaults(o->spec);
    const std::string title =
        fmt::format("attention B={} H={} HKV={} S={} SKV={} D={} tile {}x{} stages {}{} ({})",
                    r.batch, r.heads, r.kv_heads, r.seq, r.seq_kv, r.head_dim, r.bm, r.bn, r.stages,
                    r.causal ? " causal" : "", o->variant);
    set_exit_code(simulate_and_report(kernel, config, o->common, title));
  });
}

}  // namespace asyncsim::cli
