// The memory system alone on a repeated read stream near the L2's size (validation/README.md,
// "Readers that move between partitions", thirty-sixth session): every line of a B-byte buffer
// read in address order, pass after pass, 20 ps apart, each 4 KB chunk c by SM (c mod 1056)
// mod 132 as mem_bw.cu's 1056 CTAs would read it (with --rotate, chunk c in pass p by
// ((c + 37 p) mod 1056) mod 132, as l2_rotate.cu's rotating readers). Prints, per buffer size,
// the L2 hit rate of each pass (hits and copy hits over all read sectors the slices saw):
//   build/bench/l2_repeat [--rotate] [--gpu NAME] [--mib A,B,...] [--readers SM,SM,...]
//                         [KEY=VALUE ...]     (KEY=VALUE as asyncsim's --set)
// --readers: only those SMs read, chunk c by the ((c mod 4n) mod n)-th of the n listed, as
// l2_half.cu's 4n active CTAs split the buffer (its reader sets: validation/hw/next_batch.sh
// l2half; not with --rotate). --mib: the buffer sizes (default 32,40,48,56,64).
// Timing plays no part beyond the order of requests; the DRAM, the ports and the coalescers run
// as configured.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
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

// "a,b,c" as numbers; false if any is not one.
bool parse_list(const std::string& text, std::vector<int>& out) {
  out.clear();
  size_t at = 0;
  while (at <= text.size()) {
    const size_t end = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, end - at);
    char* rest = nullptr;
    const long v = std::strtol(item.c_str(), &rest, 10);
    if (item.empty() || *rest != '\0' || v < 0) {
      return false;
    }
    out.push_back(static_cast<int>(v));
    at = end + 1;
  }
  return !out.empty();
}

}  // namespace

int main(int argc, char** argv) {
  bool rotate = false;
  std::string gpu = "h200";
  std::vector<int> sizes = {32, 40, 48, 56, 64};
  std::vector<int> readers;
  std::vector<std::string> sets;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--rotate") {
      rotate = true;
    } else if (a == "--gpu" && has_value) {
      gpu = argv[++i];
    } else if (a == "--mib" && has_value && parse_list(argv[i + 1], sizes)) {
      ++i;
    } else if (a == "--readers" && has_value && parse_list(argv[i + 1], readers)) {
      ++i;
    } else if (a.find('=') != std::string::npos && a[0] != '-') {
      sets.push_back(a);
    } else {
      std::fprintf(stderr,
                   "usage: l2_repeat [--rotate] [--gpu NAME] [--mib A,B,...] "
                   "[--readers SM,SM,...] [KEY=VALUE ...] (bad argument '%s')\n",
                   a.c_str());
      return 2;
    }
  }
  if (rotate && !readers.empty()) {
    std::fprintf(stderr, "l2_repeat: --rotate moves chunks among all SMs; not with --readers\n");
    return 2;
  }
  try {
    const asyncsim::GpuConfig cfg = asyncsim::load_gpu_config(gpu, sets);
    for (const int sm : readers) {
      if (sm >= cfg.sm.count) {
        std::fprintf(stderr, "l2_repeat: --readers: SM %d, the GPU has %d\n", sm, cfg.sm.count);
        return 1;
      }
    }
    constexpr uint64_t kCtas = 1056;               // mem_bw.cu: 132 SMs x 8 CTAs
    constexpr uint64_t kBase = uint64_t{1} << 22;  // lines: a 512 MiB-aligned buffer
    std::printf("# buffer_mib, L2 hit rate of passes 1-6%s\n", rotate ? " (rotating readers)" : "");
    for (const int mib : sizes) {
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
          const auto n = static_cast<uint64_t>(readers.size());
          const auto sm = static_cast<uint16_t>(
              readers.empty() ? cta % static_cast<uint64_t>(cfg.sm.count)
                              : static_cast<uint64_t>(readers[(l / 32 % (4 * n)) % n]));
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
