// Closed-form traffic and time of forward attention (shapes.h), Sim-FA §III. Pure and
// allocation-free; cost O(1) non-causal, O(S/BM + waves) causal.
#pragma once

#include "analytic/estimate.h"
#include "analytic/shapes.h"
#include "config/gpu_config.h"

namespace asyncsim::analytic {

// Throws InputError for a bad shape or a CTA that does not fit on an SM.
Estimate estimate_attention(const AttentionShape& shape, const GpuConfig& gpu);

}  // namespace asyncsim::analytic
