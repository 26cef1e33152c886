// Reads the .asim text format (docs/program-format.md) into a verified Kernel. Every error is an
// InputError whose message starts with file:line and says what was expected; no input crashes.
#pragma once

#include <string>

#include "program/ir.h"

namespace asyncsim::program {

// Parses `text`; `file_name` is used in messages and stored as Kernel::source.
Kernel parse_program(const std::string& text, const std::string& file_name);

// Reads and parses the file at `path`; a missing or unreadable file is an InputError naming it.
Kernel parse_program_file(const std::string& path);

}  // namespace asyncsim::program
