// bench_sim: how fast the simulator runs and how much memory it holds.
//   build/bench/bench_sim --benchmark_filter=Gemm4096   (the figure quoted in the README)
// Counters: sim_cycles_per_s (simulated SM cycles per host second), events_per_s,
// l2_requests_per_s (memory-system line requests per host second), peak_rss_mb.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <memory>
#include <vector>

#include "mem/memory_system.h"
#include "sim/simulator.h"
#include "workloads/gemm.h"

namespace {

double peak_rss_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

void run_gemm(benchmark::State& state, int64_t m, int64_t n, int64_t k, const char* tile,
              int warps) {
  const asyncsim::GpuConfig cfg = asyncsim::load_gpu_config("h200");
  asyncsim::workloads::GemmSpec spec;
  spec.m = m;
  spec.n = n;
  spec.k = k;
  spec.warps = warps;
  asyncsim::workloads::parse_tile(tile, spec, "tile");
  const auto kernel = asyncsim::workloads::build_gemm(spec, cfg);
  double cycles = 0;
  double events = 0;
  double requests = 0;
  for (auto _ : state) {
    const auto r = asyncsim::simulate(kernel, cfg);
    cycles += static_cast<double>(r.cycles);
    events += static_cast<double>(r.events);
    requests += r.counters.at("mem.requests");
  }
  state.counters["sim_cycles_per_s"] = benchmark::Counter(cycles, benchmark::Counter::kIsRate);
  state.counters["events_per_s"] = benchmark::Counter(events, benchmark::Counter::kIsRate);
  state.counters["l2_requests_per_s"] = benchmark::Counter(requests, benchmark::Counter::kIsRate);
  state.counters["peak_rss_mb"] = peak_rss_mb();
}

void Gemm4096(benchmark::State& state) {
  run_gemm(state, 4096, 4096, 4096, "128x128x64", 4);
}
BENCHMARK(Gemm4096)->Unit(benchmark::kSecond)->Iterations(1);

void Gemm4096Wide(benchmark::State& state) {
  run_gemm(state, 4096, 4096, 4096, "128x256x64", 8);
}
BENCHMARK(Gemm4096Wide)->Unit(benchmark::kSecond)->Iterations(1);

void Gemm1024(benchmark::State& state) {
  run_gemm(state, 1024, 1024, 1024, "128x128x64", 4);
}
BENCHMARK(Gemm1024)->Unit(benchmark::kMillisecond);

// The memory system alone: streaming line reads from all SMs over a 256 MB footprint.
void MemoryStream(benchmark::State& state) {
  const asyncsim::GpuConfig cfg = asyncsim::load_gpu_config("h200");
  const auto clock = asyncsim::ClockDomain::from_mhz(cfg.sm.clock_mhz);
  asyncsim::MemorySystem mem(cfg, clock);
  uint64_t line = 0;
  asyncsim::Time t = 0;
  int64_t n = 0;
  for (auto _ : state) {
    for (int i = 0; i < 4096; ++i) {
      const auto sm = static_cast<uint16_t>(i % cfg.sm.count);
      benchmark::DoNotOptimize(mem.access({line++ % (1u << 21), 0xF, false, sm}, t));
      t += 100;
    }
    n += 4096;
  }
  state.counters["l2_requests_per_s"] =
      benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsRate);
}
BENCHMARK(MemoryStream);

// The memory system alone on a real kernel's requests: the README's 4096^3 GEMM is simulated
// once with RunOptions::memory_trace, then its requests are replayed, in order and at their
// times, on a fresh MemorySystem per iteration (its construction not timed). The replay must
// read exactly the DRAM and L2 bytes the simulation did, or the benchmark fails.
void MemoryReplay(benchmark::State& state) {
  const asyncsim::GpuConfig cfg = asyncsim::load_gpu_config("h200");
  asyncsim::workloads::GemmSpec spec;
  spec.m = spec.n = spec.k = 4096;
  spec.warps = 4;
  asyncsim::workloads::parse_tile("128x128x64", spec, "tile");
  std::vector<asyncsim::MemAccessRecord> trace;
  asyncsim::RunOptions options;
  options.memory_trace = &trace;
  const auto sim = asyncsim::simulate(asyncsim::workloads::build_gemm(spec, cfg), cfg, options);
  const auto clock = asyncsim::ClockDomain::from_mhz(cfg.sm.clock_mhz);
  int64_t n = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto mem = std::make_unique<asyncsim::MemorySystem>(cfg, clock);
    state.ResumeTiming();
    for (size_t i = 0; i < trace.size(); ++i) {
      // As the TMA generator does: a read's coalescer entry is fetched two requests ahead.
      if (i + 2 < trace.size() && !trace[i + 2].req.write) {
        mem->prefetch_coalescer(trace[i + 2].req.line, trace[i + 2].req.sm);
      }
      benchmark::DoNotOptimize(mem->access(trace[i].req, trace[i].t));
    }
    n += static_cast<int64_t>(trace.size());
    state.PauseTiming();
    if (mem->stats().dram_read_bytes != sim.dram_read_bytes ||
        mem->stats().l2_read_bytes != sim.l2_read_bytes) {
      state.SkipWithError("the replay's DRAM or L2 read bytes differ from the simulation's");
    }
    mem.reset();
    state.ResumeTiming();
  }
  state.counters["l2_requests_per_s"] =
      benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsRate);
  state.counters["requests"] = static_cast<double>(trace.size());
}
BENCHMARK(MemoryReplay)->Unit(benchmark::kSecond)->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
