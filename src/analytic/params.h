// Setting workload fields by their CLI flag name, for --sweep and for the measured-data table.
// Not on the hot path: the formulas themselves never parse text.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analytic/shapes.h"

namespace asyncsim::analytic {

// `name` is the long flag without dashes (gemm: m n k tile stages warps regs; attention: batch
// heads kv-heads seq seq-kv head-dim block-m block-n stages warps regs causal). Throws
// InputError naming `where` for an unknown name or a value that is not a number.
void set_param(GemmShape& shape, std::string_view name, std::string_view value,
               const std::string& where);
void set_param(AttentionShape& shape, std::string_view name, std::string_view value,
               const std::string& where);

// Parses "128x128x64" into the three tile fields.
void set_tile(GemmShape& shape, std::string_view text, const std::string& where);

// A parameter and the values it takes: "seq=16384,32768" or "k=1024:8192:1024" (inclusive).
struct SweepSpec {
  std::string param;
  std::vector<std::string> values;
};

SweepSpec parse_sweep(std::string_view text, const std::string& where);

// Parses a whole decimal integer, or throws InputError naming `where` and `what`.
int64_t parse_int(std::string_view text, const std::string& where, std::string_view what);

}  // namespace asyncsim::analytic
