// Registration of the subcommands (gemm, run, params, ...); each lives in its own *_cmd.cpp.
#pragma once

#include <CLI/CLI.hpp>

namespace asyncsim::cli {

void add_commands(CLI::App& app);
// Exit code of the subcommand that ran during parse.
int run_selected(const CLI::App& app);
// Subcommands record their exit code here.
void set_exit_code(int code);

void add_gemm_command(CLI::App& app);
void add_attention_command(CLI::App& app);
void add_run_command(CLI::App& app);
void add_params_command(CLI::App& app);
void add_validate_command(CLI::App& app);
void add_micro_command(CLI::App& app);

}  // namespace asyncsim::cli
