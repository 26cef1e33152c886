// The memory system alone on a repeated read stream near the L2's size (validation/README.md,
// "Readers that move between partitions", thirty-sixth session): every line of a B-byte buffer
// read in address order, pass after pass, 20 ps apart, each 4 KB chunk c by SM (c mod 1056)
// mod 132 as mem_bw.cu's 1056 CTAs would read it (with --rotate, chunk c in pass p by
// ((c + 37 p) mod 1056) mod 132, as l2_rotate.cu's rotating readers). Prints, per buffer size,
// the L2 hit rate of each pass (hits and copy hits over all read sectors the slices saw):
//   build/bench/l2_repeat [--rotate] [KEY=VALUE ...]     (KEY=VALUE as asyncsim's --set)
// Timing plays no part beyond the order of requests; the DRAM, the ports and the coalescers run
// as configured.
#include <cstdio>
#include <string>
#include <vector>

#include "config/gpu_config.h"
#include "mem/memory_system.h"

namespace {

// Sectors the slices served from L2 (home or near copy) and missed, so far.
void sectors(const asyncsim::MemorySystem& mem, double& hit, double& miss) {
  hit = 0;
  miss = 0;
  for (const auto& s : mem.slice_stats()) {
    hit += static_cast<double>(s.read_hits + s.copy_hits);
    miss += static_cast<double>(s.read_misses);
  }
}

}  // namespace

int main(int argc, char** argv) {
  bool rotate = false;
  std::vector<std::string> sets;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--rotate") {
      rotate = true;
    } else if (a.find('=') != std::string::npos) {
      sets.push_back(a);
    } else {
      std::fprintf(stderr, "usage: l2_repeat [--rotate] [KEY=VALUE ...]\n");
      return 2;
    }
  }
  try {
    const asyncsim::GpuConfig cfg = asyncsim::load_gpu_config("h200", sets);
    constexpr uint64_t kCtas = 1056;               // mem_bw.cu: 132 SMs x 8 CTAs
    constexpr uint64_t kBase = uint64_t{1} << 22;  // lines: a 512 MiB-aligned buffer
    std::printf("# buffer_mib, L2 hit rate of passes 1-6%s\n", rotate ? " (rotating readers)" : "");
    for (const int mib : {32, 40, 48, 56, 64}) {
      asyncsim::MemorySystem mem(cfg, asyncsim::ClockDomain::from_mhz(cfg.sm.clock_mhz));
      const uint64_t lines = static_cast<uint64_t>(mib) << 20 >> 7;
      asyncsim::Time t = 0;
      std::printf("%d", mib);
      for (uint64_t pass = 0; pass < 6; ++pass) {
        double h0 = 0;
        double m0 = 0;
        sectors(mem, h0, m0);
        for (uint64_t l = 0; l < lines; ++l) {
          const uint64_t cta = (l / 32 + (rotate ? 37 * pass : 0)) % kCtas;
          const auto sm = static_cast<uint16_t>(cta % static_cast<uint64_t>(cfg.sm.count));
          mem.access({kBase + l, 0xF, false, sm}, t);
          t += 20;
        }
        double h1 = 0;
        double m1 = 0;
        sectors(mem, h1, m1);
        std::printf(", %.3f", (h1 - h0) / (h1 - h0 + m1 - m0));
      }
      std::printf("\n");
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "l2_repeat: %s\n", e.what());
    return 1;
  }
  return 0;
}
