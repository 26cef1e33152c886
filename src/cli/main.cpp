// asyncsim: one binary, one subcommand per job. Exit codes: 0 success, 2 bad input (message on
// stderr naming file:line or flag), 3 deadlock (the blocked warpgroups and barrier states).
#include <CLI/CLI.hpp>
#include <cstdio>

#include "cli/commands.h"
#include "util/error.h"

int main(int argc, char** argv) {
  CLI::App app{"asyncsim: cycle-level simulator of GPUs for AI kernels (TMA, wgmma, mbarriers)"};
  app.require_subcommand(1);
  asyncsim::cli::add_commands(app);
  try {
    app.parse(argc, argv);
    return asyncsim::cli::run_selected(app);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "asyncsim: %s\n", e.what());
    return 2;
  } catch (const asyncsim::InputError& e) {
    std::fprintf(stderr, "asyncsim: error: %s\n", e.what());
    return 2;
  } catch (const asyncsim::DeadlockError& e) {
    std::fprintf(stderr, "asyncsim: %s", e.what());
    return 3;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "asyncsim: internal error: %s\n", e.what());
    return 1;
  }
}
