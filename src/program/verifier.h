// Static checks of a kernel before it runs: references in range, barriers that are waited on
// have arrivers, expect_tx bytes match the TMA bytes they cover, named barriers fit the CTA.
// Each failure throws InputError naming the source line and what was expected.
#pragma once

#include "program/ir.h"

namespace asyncsim::program {

void verify(const Kernel& kernel);

}  // namespace asyncsim::program
