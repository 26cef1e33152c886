// Closed-form traffic and time of the generated GEMM (shapes.h). Pure, allocation-free.
#pragma once

#include "analytic/estimate.h"
#include "analytic/shapes.h"
#include "config/gpu_config.h"

namespace asyncsim::analytic {

// Throws InputError for a bad shape or a CTA that does not fit on an SM.
Estimate estimate_gemm(const GemmShape& shape, const GpuConfig& gpu);

}  // namespace asyncsim::analytic
