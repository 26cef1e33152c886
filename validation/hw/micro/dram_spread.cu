// Does a set of DRAM lines read together cost more when its lines lie far apart, or when there
// are more of them, and is the power-of-two stride special? One warp, after a 512 MiB L2 flush
// per point: lane j < R loads one 4-byte word (ld.global.cg) of line j of the sample's set, all
// in one warp instruction; clock64 before it and after a warp reduction of the loaded words
// (cold: every line from DRAM). The same loads again at once give the L2 time of the same set
// (hot). Sets: stride = R lines D bytes apart; random = R distinct lines drawn uniformly from the
// 2 GiB buffer; random1m = R distinct lines drawn from one 1 MiB region (sample i's at byte
// i * 4 MiB), random8k / random32k / random128k likewise from one 8 / 32 / 128 KB region (these
// three come last, so the earlier patterns draw what they drew before them).
// (dram_pair.cu: 8 TMA rows spread 8 KB-16 MiB apart cost 60-240 cycles more than 8 rows
// within 32 KB, 2 or 4 rows cost the same anywhere; tma_stride.cu: 32-row boxes slow down from
// 884 to ~1200 cycles as their rows spread from 128 B to 4 KB apart.)
// R = 1, 2, 4, 8, 16, 32; D = 128 B, 256 B, 1 KB, 4 KB, 8 KB, 64 KB, 1 MiB, 16 MiB; 64 samples
// per point, sample i's stride set at byte i * 4 MiB + (i * 7 mod 64) * 128 (every line read
// for the first time), first 2 dropped.
// Columns: pattern,rows,stride_bytes,samples,min_cycles,p10_cycles,median_cycles,p90_cycles,
// mean_cycles,hot_p10_cycles,hot_median_cycles,hot_p90_cycles
#include "dram_spread.cuh"

int main() {
  const size_t total = size_t(2) << 30, flush_bytes = size_t(512) << 20;
  uint8_t *base, *flush;
  int* sink;
  CK(cudaMalloc(&base, total));
  CK(cudaMalloc(&flush, flush_bytes));
  CK(cudaMalloc(&sink, 16));
  fill_random(base, total, 21);
  fill_random(flush, flush_bytes, 22);
  const int nsamp = 64, sms = num_sms();
  unsigned long long* doffs;
  long long* dout;
  CK(cudaMalloc(&doffs, nsamp * 32 * sizeof(unsigned long long)));
  CK(cudaMalloc(&dout, nsamp * 2 * sizeof(long long)));
  printf("pattern,rows,stride_bytes,samples,min_cycles,p10_cycles,median_cycles,p90_cycles,"
         "mean_cycles,hot_p10_cycles,hot_median_cycles,hot_p90_cycles\n");
  uint64_t rng = 0x9E3779B97F4A7C15ull;
  auto next = [&rng]() {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
  };
  const uint64_t strides[] = {128, 256, 1024, 4096, 8192, 65536, 1u << 20, 16u << 20};
  for (const char* pattern :
       {"stride", "random", "random1m", "random8k", "random32k", "random128k"}) {
    const bool stride = pattern[0] == 's';
    const std::string pat = pattern;
    const uint64_t region_lines = pat == "random1m"     ? 8192
                                  : pat == "random8k"   ? 64
                                  : pat == "random32k"  ? 256
                                  : pat == "random128k" ? 1024
                                                        : 0;
    const int nd = stride ? 8 : 1;
    for (int rows : {1, 2, 4, 8, 16, 32}) {
      for (int di = 0; di < nd; ++di) {
        const uint64_t d = stride ? strides[di] : 0;
        std::vector<unsigned long long> h((size_t)nsamp * 32);
        for (int i = 0; i < nsamp; ++i) {
          std::vector<uint64_t> set;
          const uint64_t region = (uint64_t)i * (4u << 20);
          while ((int)set.size() < 32) {
            uint64_t line;
            if (stride) {
              line = region + (uint64_t)(i * 7 % 64) * 128 + set.size() * d;
            } else if (region_lines > 0) {
              line = region + (next() % region_lines) * 128;  // one region per sample
            } else {
              line = (next() % (total / 128)) * 128;
            }
            if (std::find(set.begin(), set.end(), line) == set.end()) set.push_back(line);
          }
          for (int j = 0; j < 32; ++j) h[(size_t)i * 32 + j] = set[j];
        }
        CK(cudaMemcpy(doffs, h.data(), h.size() * sizeof(unsigned long long),
                      cudaMemcpyHostToDevice));
        read_all_kernel<<<sms * 8, 256>>>((const int4*)flush, flush_bytes / 16, sink);
        CKL();
        CK(cudaDeviceSynchronize());
        spread_kernel<<<1, 32>>>(base, doffs, rows, nsamp, dout, sink);
        CKL();
        CK(cudaDeviceSynchronize());
        std::vector<long long> all(nsamp * 2), cold, hot;
        CK(cudaMemcpy(all.data(), dout, all.size() * sizeof(long long), cudaMemcpyDeviceToHost));
        for (int i = 2; i < nsamp; ++i) {
          cold.push_back(all[i * 2]);
          hot.push_back(all[i * 2 + 1]);
        }
        double mean = 0;
        for (auto x : cold) mean += (double)x;
        mean /= cold.size();
        printf("%s,%d,%llu,%zu,%lld,%lld,%lld,%lld,%.1f,%lld,%lld,%lld\n", pattern, rows,
               (unsigned long long)d, cold.size(), *std::min_element(cold.begin(), cold.end()),
               pct_of(cold, 0.10), median_of(cold), pct_of(cold, 0.90), mean, pct_of(hot, 0.10),
               median_of(hot), pct_of(hot, 0.90));
        fflush(stdout);
      }
    }
  }
  return 0;
}
