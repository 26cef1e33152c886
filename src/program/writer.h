// Writes a Kernel in the .asim text format (docs/program-format.md). The output parses back to
// an equivalent kernel, and writing that kernel again gives the same text. Parameters are not
// kept by the IR, so their values appear folded into the expressions.
#pragma once

#include <string>

#include "program/ir.h"

namespace asyncsim::program {

std::string write_program(const Kernel& kernel);

// Swizzle modes as the text format spells them: none, 32B, 64B, 128B.
const char* swizzle_name(Swizzle s);
bool parse_swizzle(const std::string& text, Swizzle& out);

}  // namespace asyncsim::program
