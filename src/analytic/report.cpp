#include "analytic/report.h"

#include <fmt/format.h>

namespace asyncsim::analytic {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

}  // namespace

nlohmann::json to_json(const Estimate& e, const GpuConfig& gpu) {
  const Roofline wave = roofline(e.flops_executed, e.dram_bytes_wave(), gpu);
  // GenZ-style: the same measured ceilings, but ideal-cache bytes (no capacity refetch).
  const Roofline genz = roofline(e.flops_executed, e.dram_bytes_ideal(), gpu);
  nlohmann::json j;
  j["flops"] = e.flops;
  j["flops_executed"] = e.flops_executed;
  j["l2_bytes"] = e.l2_bytes();
  j["l2_read_bytes"] = e.l2_read_bytes;
  j["l2_write_bytes"] = e.l2_write_bytes;
  j["l2_bytes_boxes"] = e.l2_bytes_boxes;
  j["dram_bytes_ideal"] = e.dram_bytes_ideal();
  j["dram_read_bytes_ideal"] = e.dram_read_bytes_ideal;
  j["dram_bytes_wave"] = e.dram_bytes_wave();
  j["dram_read_bytes_wave"] = e.dram_read_bytes_wave;
  j["dram_write_bytes"] = e.dram_write_bytes;
  j["regime"] = e.reuse_fits ? "ideal" : "wave";
  j["reuse_set_bytes"] = e.reuse_set_bytes;
  j["effective_l2_bytes"] = gpu.analytic.effective_l2_bytes;
  j["ctas"] = e.ctas;
  j["ctas_per_sm"] = e.occupancy.ctas_per_sm;
  j["occupancy_limit"] = to_string(e.occupancy.limit);
  j["wave_ctas"] = e.wave_ctas;
  j["waves"] = e.waves;
  j["arithmetic_intensity"] = arithmetic_intensity(e.flops_executed, e.dram_bytes_wave());
  j["arithmetic_intensity_ideal"] = arithmetic_intensity(e.flops_executed, e.dram_bytes_ideal());
  j["tensor_tflops"] = gpu.analytic.tensor_tflops;
  j["dram_bandwidth_gbs"] = gpu.mem.dram_bandwidth_gbs;
  j["compute_us"] = wave.compute_us;
  j["memory_us"] = wave.memory_us;
  j["roofline_us"] = wave.total_us;
  j["bound"] = wave.memory_bound ? "memory" : "compute";
  j["genz_dram_bytes"] = e.dram_bytes_ideal();
  j["genz_memory_us"] = genz.memory_us;
  j["genz_roofline_us"] = genz.total_us;
  return j;
}

std::string table_header(const std::string& param) {
  return fmt::format(
      "{:>12} {:>7} {:>6} {:>7} {:>11} {:>10} {:>11} {:>11} {:>6} {:>8} {:>11} {:>11}\n", param,
      "cta/sm", "waves", "regime", "GFLOP", "L2 MiB", "DRAMid MiB", "DRAMwv MiB", "wv/id", "AI",
      "roof us", "genz us");
}

std::string table_row(const std::string& value, const Estimate& e, const GpuConfig& gpu) {
  const Roofline wave = roofline(e.flops_executed, e.dram_bytes_wave(), gpu);
  const Roofline genz = roofline(e.flops_executed, e.dram_bytes_ideal(), gpu);
  const double ideal = static_cast<double>(e.dram_bytes_ideal());
  const double waved = static_cast<double>(e.dram_bytes_wave());
  return fmt::format(
      "{:>12} {:>7} {:>6} {:>7} {:>11.2f} {:>10.2f} {:>11.2f} {:>11.2f} {:>6.2f} "
      "{:>8.1f} {:>11.2f} {:>11.2f}\n",
      value, e.occupancy.ctas_per_sm, e.waves, e.reuse_fits ? "ideal" : "wave", e.flops / 1e9,
      static_cast<double>(e.l2_bytes()) / kMiB, ideal / kMiB, waved / kMiB,
      ideal > 0 ? waved / ideal : 0.0, arithmetic_intensity(e.flops_executed, e.dram_bytes_wave()),
      wave.total_us, genz.total_us);
}

}  // namespace asyncsim::analytic
