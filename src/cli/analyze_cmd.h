// `asyncsim analyze gemm|attention|table`: the closed-form fast path (src/analytic) on the
// command line, reading the same GPU configs and workload flags as the simulators.
#pragma once

#include <CLI/CLI.hpp>

namespace asyncsim::cli {

// Registers the `analyze` subcommand and its children on `app`. Results go to stdout; bad input
// throws InputError out of app.parse (main maps it to exit 2); success sets exit code 0.
void add_analyze_command(CLI::App& app);

}  // namespace asyncsim::cli
