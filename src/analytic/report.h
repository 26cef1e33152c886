// Presenting an Estimate: one JSON object (the `--json` contract) or one row of a sweep table.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "analytic/estimate.h"
#include "config/gpu_config.h"

namespace asyncsim::analytic {

// Keys: flops, flops_executed, l2_bytes (+ _read/_write/_boxes), dram_bytes_ideal,
// dram_bytes_wave (+ read/write parts), regime, reuse_set_bytes, effective_l2_bytes, ctas,
// ctas_per_sm, occupancy_limit, wave_ctas, waves, arithmetic_intensity (wave bytes),
// arithmetic_intensity_ideal, compute_us, memory_us, roofline_us, bound, and the GenZ-style
// ideal-only estimate genz_dram_bytes, genz_memory_us, genz_roofline_us.
nlohmann::json to_json(const Estimate& e, const GpuConfig& gpu);

// A fixed-width table: header once, then one row per point, led by the swept value.
std::string table_header(const std::string& param);
std::string table_row(const std::string& value, const Estimate& e, const GpuConfig& gpu);

}  // namespace asyncsim::analytic
