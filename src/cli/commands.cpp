#include "cli/commands.h"

#include "cli/analyze_cmd.h"

namespace asyncsim::cli {
namespace {
int g_exit_code = 0;
}

void set_exit_code(int code) {
  g_exit_code = code;
}

int run_selected(const CLI::App& app) {
  (void)app;
  return g_exit_code;
}

void add_commands(CLI::App& app) {
  add_gemm_command(app);
  add_attention_command(app);
  add_run_command(app);
  add_params_command(app);
  add_validate_command(app);
  add_micro_command(app);
  add_analyze_command(app);
}

}  // namespace asyncsim::cli
