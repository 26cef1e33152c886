// The memory system alone on MemoryStream's request pattern (a 256 MB read stream that misses in
// L2 on every request, one request per SM in turn, 100 ps apart), for host-instruction counts
// that do not depend on how often a benchmark repeats itself:
//   valgrind --tool=callgrind build/bench/mem_stream 600000     (I600k)
//   valgrind --tool=callgrind build/bench/mem_stream 1000000    (I1M)
//   instructions per request = (I1M - I600k) / 400000   (both past the L2's fill: steady state)
// Prints a checksum of the completion times (equal across changes that keep results identical)
// and the host rate. KEY=VALUE arguments after REQUESTS override the H200 config as asyncsim's
// --set does (e.g. l2.tpc_coalescer_entries=0: the stream without the TPC coalescer stage).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "config/gpu_config.h"
#include "mem/memory_system.h"

int main(int argc, char** argv) {
  if (argc < 2 || std::atol(argv[1]) <= 0) {
    std::fprintf(stderr, "usage: mem_stream REQUESTS [KEY=VALUE ...]\n");
    return 2;
  }
  const long n = std::atol(argv[1]);
  asyncsim::GpuConfig cfg;
  try {
    cfg = asyncsim::load_gpu_config("h200", std::vector<std::string>(argv + 2, argv + argc));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mem_stream: %s\n", e.what());
    return 1;
  }
  asyncsim::MemorySystem mem(cfg, asyncsim::ClockDomain::from_mhz(cfg.sm.clock_mhz));
  uint64_t line = 0;
  asyncsim::Time t = 0;
  asyncsim::Time sum = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < n; ++i) {
    const auto sm = static_cast<uint16_t>(i % cfg.sm.count);
    sum += mem.access({line++ % (1u << 21), 0xF, false, sm}, t);
    t += 100;
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("checksum %lld, %.3f M requests/s\n", static_cast<long long>(sum),
              static_cast<double>(n) / s * 1e-6);
  return 0;
}
