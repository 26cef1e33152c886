// The launch microbenchmark (validation/hw/micro/launch.cu, micro_launch.csv): kernels with
// next to no work, whose Nsight Compute durations are launch, CTA dispatch and retirement, the
// first parameter read and store, the cold fetch of their code, and a first bulk or tensor-map
// copy. Only the hardware's cold rows (--cache-control all, as every kernel row of validate)
// are points: the simulator models a cold launch.
#include <fmt/format.h>

#include "cli/micro_detail.h"
#include "program/builder.h"
#include "sim/simulator.h"
#include "util/error.h"

namespace asyncsim::cli::micro_detail {

using program::KernelBuilder;

namespace {

constexpr int64_t kGrids[] = {1, 66, 132, 264, 528, 1056, 2112, 4224, 8448, 16896};
// SASS instructions of launch.cu's kernels (micro_launch_sass.txt: cuobjdump of the measured
// binary), 16 B each.
constexpr int64_t kInstEmpty = 16;
constexpr int64_t kInstStore = 24;
constexpr int64_t kInstBulk = 48;
constexpr int64_t kInstTma = 56;
int64_t code_insts(int64_t fadds) {  // launch_code_<N>
  switch (fadds) {
    case 64:
      return 88;
    case 512:
      return 536;
    case 2048:
      return 2072;
    case 8192:
      return 8216;
    default:
      throw_input_error("micro launch", "no hardware point launch_code_{} (64, 512, 2048, 8192)",
                        fadds);
  }
}

}  // namespace

std::vector<MicroRow> launch_points() {
  std::vector<MicroRow> out;
  auto add = [&](const std::string& kernel, int64_t grid, int64_t threads) {
    out.push_back(
        {{"kernel", kernel}, {"grid", s(grid)}, {"threads", s(threads)}, {"cache_control", "all"}});
  };
  for (const int64_t threads : {128, 256}) {
    for (const int64_t g : kGrids) {
      add("launch_empty", g, threads);
    }
  }
  for (const int64_t g : kGrids) {
    add("launch_store", g, 128);
  }
  add("launch_bulk", 1, 32);
  add("launch_tma", 1, 32);
  for (const int64_t n : {64, 512, 2048, 8192}) {
    add(fmt::format("launch_code_{}", n), 1, 32);
  }
  return out;
}

MicroRow launch_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions&) {
  const std::string kernel = key.at("kernel");
  const int64_t grid = key_int(key, "grid");
  const int64_t threads = key_int(key, "threads");
  if (grid < 1 || threads < 1) {
    throw_input_error("micro launch", "grid and threads must be positive");
  }
  KernelBuilder b(kernel);
  b.set_grid(grid);
  b.set_resources(32, 8192 + 16);
  // A warpgroup stands for up to 128 threads (launch.cu's 32-thread kernels: one).
  const int warpgroups = static_cast<int>((threads + 127) / 128);
  int64_t insts = kInstEmpty;
  constexpr int64_t kOut = int64_t{1} << 36;
  if (kernel == "launch_bulk" || kernel == "launch_tma") {
    insts = kernel == "launch_bulk" ? kInstBulk : kInstTma;
    if (kernel == "launch_tma") {
      program::TensorMap m;  // launch.cu's [1024 x 64] fp16 tensor, one 64 x 64 box
      m.name = "T";
      m.rank = 2;
      m.dims = {64, 1024, 0, 0, 0};
      m.strides = {2, 128, 0, 0, 0};
      m.box = {64, 64, 0, 0, 0};
      b.add_map(m);
    }
    b.add_barrier("bar", 1, 1);
    b.begin_role("main", warpgroups);
    b.mb_arrive_expect_tx("bar", "0", "8192");
    if (kernel == "launch_bulk") {
      b.bulk_load(s(0), "8192", "bar", "0");
    } else {
      b.tma_load("T", {"0", "0"}, "bar", "0");
    }
    b.mb_wait("bar", "0", "0");
    b.st_global(s(kOut), "4", "1", "0", "4");
    b.end_role();
  } else {
    b.begin_role("main", warpgroups);
    if (kernel == "launch_empty") {
      KernelBuilder::ComputeOps ops;
      ops.inst = s(1);
      b.compute(ops);
    } else if (kernel == "launch_store") {
      insts = kInstStore;
      b.st_global(fmt::format("{} + cta * 128", kOut), "4", "1", "0", "4");
    } else if (kernel.rfind("launch_code_", 0) == 0) {
      const int64_t n = std::stoll(kernel.substr(12));
      insts = code_insts(n);
      // N independent fadds on 4 accumulators issue at one per cycle (launch.cu's warm runs:
      // 1.13 cycles per instruction), then the sum is stored.
      KernelBuilder::ComputeOps ops;
      ops.cycles = s(n);
      b.compute(ops);
      b.st_global(s(kOut), "128", "1", "0", "4");
    } else {
      throw_input_error("micro launch", "unknown kernel '{}'", kernel);
    }
    b.end_role();
  }
  b.set_code_bytes(16 * insts);
  const program::Kernel k = b.finish();
  const SimResult r = micro_simulate(k, c);
  MicroRow out = key;
  out["code_insts"] = s(kernel.rfind("launch_code_", 0) == 0 ? std::stoll(kernel.substr(12)) : 0);
  out["launches"] = s(1);
  out["kernel_us_median"] = fmt::format("{:.3f}", r.time_us);
  out["kernel_us_min"] = fmt::format("{:.3f}", r.time_us);
  out["cycles_median"] = s(r.cycles);
  out["sm_mhz"] = fmt::format("{:.0f}", r.sm_clock_mhz);
  return out;
}

}  // namespace asyncsim::cli::micro_detail
