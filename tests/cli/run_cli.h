// Runs the asyncsim binary under test (ASYNCSIM_BINARY) with arguments, for the end-to-end
// CLI tests: exit code and combined stdout/stderr.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace asyncsim::testing {

struct Outcome {
  int code;
  std::string out;
};

inline Outcome run(const std::string& args) {
  const std::string cmd = std::string(ASYNCSIM_BINARY) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf{};
  while (p && fgets(buf.data(), buf.size(), p)) {
    out += buf.data();
  }
  const int status = p ? pclose(p) : -1;
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

}  // namespace asyncsim::testing
