// Helpers shared by the program tests.
#pragma once

#include <string>

#include "program/parser.h"
#include "util/error.h"

namespace asyncsim::program::test {

inline std::string example_path(const std::string& name) {
  return std::string(ASYNCSIM_SOURCE_DIR) + "/examples/" + name;
}

// The InputError message parsing `text` as "t.asim" gives, or "" when it parses.
inline std::string parse_error(const std::string& text) {
  try {
    parse_program(text, "t.asim");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace asyncsim::program::test
