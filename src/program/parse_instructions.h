// Instruction lines of a .asim role body (docs/program-format.md, "Instructions"), each mapped
// onto one KernelBuilder call.
#pragma once

#include "program/builder.h"
#include "program/line_syntax.h"

namespace asyncsim::program {

// True when `head` is an instruction mnemonic (TMA_LOAD, MB_WAIT, ...).
bool is_instruction(const std::string& head);

// Parses the instruction on `line` and emits it through `b`; throws InputError naming the line.
void parse_instruction(const SourceLine& line, KernelBuilder& b);

}  // namespace asyncsim::program
