// When a second sector of a line is asked for while the line's first sector is still on its way
// from DRAM, is it fetched alongside, or after the first fill? (dram_width.cu: four sector loads
// per line cost 100-380 cycles more than one, where the model serves them in parallel.)
// One thread, after a 512 MiB L2 flush per point, 64 samples on fresh random lines of a 2 GiB
// buffer: clock64, ld.global.cg of the line's sector 0, a spin of `gap` cycles, ld.global.cg of
// `second` (sector 1 or 3 of the same line, sector 0 again, or sector 0 of another random
// line), then the second load's value is used (second_cycles = its completion from the first
// clock), then the first's (both_cycles). second = none: the first load alone.
// gap = 0, 50, 100, 200, 400, 800 cycles; first 2 samples dropped.
// Columns: second,gap_cycles,samples,second_p10,second_median,second_p90,both_median
#include "common.cuh"

// All 32 lanes run the loop (lane 0 loads, the others pass zeros) so that a warp reduction can
// consume each loaded value before the clock is read: the clock read waits for the reduction,
// which waits for the load.
__global__ void __launch_bounds__(32, 1)
    sector_kernel(const uint8_t* __restrict__ base, const unsigned long long* __restrict__ offs,
                  int n, int mode, long long gap, long long* out, int* sink) {
  const bool lead = threadIdx.x == 0;
  uint32_t acc = 0;
  for (int i = 0; i < n; ++i) {
    const uint8_t* p = base + offs[2 * i];
    const uint8_t* q = mode == 0 ? p + 32 : mode == 1 ? p + 96 : mode == 2 ? p : base + offs[2 * i + 1];
    acc += __reduce_or_sync(0xffffffffu, (uint32_t)(uintptr_t)q);
    const long long t0 = clock64();
    uint32_t v0 = 0, v1 = 0;
    if (lead) asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v0) : "l"(p));
    if (mode < 4) {
      while (clock64() - t0 < gap) {
      }
      if (lead) asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v1) : "l"(q));
    }
    const uint32_t r1 = __reduce_or_sync(0xffffffffu, v1);
    asm volatile("" ::"r"(r1));
    const long long t1 = clock64();
    const uint32_t r0 = __reduce_or_sync(0xffffffffu, v0);
    asm volatile("" ::"r"(r0));
    const long long t2 = clock64();
    acc += r0 + r1;
    if (lead) {
      out[2 * i] = t1 - t0;
      out[2 * i + 1] = t2 - t0;
    }
  }
  if (acc == 0x12345678u) sink[0] = (int)acc;
}

int main() {
  const size_t total = size_t(2) << 30, flush_bytes = size_t(512) << 20;
  uint8_t *base, *flush;
  int* sink;
  CK(cudaMalloc(&base, total));
  CK(cudaMalloc(&flush, flush_bytes));
  CK(cudaMalloc(&sink, 16));
  fill_random(base, total, 51);
  fill_random(flush, flush_bytes, 52);
  const int nsamp = 64, sms = num_sms();
  unsigned long long* doffs;
  long long* dout;
  CK(cudaMalloc(&doffs, nsamp * 2 * sizeof(unsigned long long)));
  CK(cudaMalloc(&dout, nsamp * 2 * sizeof(long long)));
  printf("second,gap_cycles,samples,second_p10,second_median,second_p90,both_median\n");
  uint64_t rng = 0xA0761D6478BD642Full;
  auto next = [&rng]() {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
  };
  const char* names[] = {"sector1", "sector3", "sector0", "other_line", "none"};
  for (int mode = 0; mode < 5; ++mode) {
    for (long long gap : {0LL, 50LL, 100LL, 200LL, 400LL, 800LL}) {
      if (mode == 4 && gap > 0) continue;
      std::vector<unsigned long long> h(nsamp * 2);
      for (auto& x : h) x = (next() % (total / 128)) * 128;
      CK(cudaMemcpy(doffs, h.data(), h.size() * sizeof(unsigned long long), cudaMemcpyHostToDevice));
      read_all_kernel<<<sms * 8, 256>>>((const int4*)flush, flush_bytes / 16, sink);
      CKL();
      CK(cudaDeviceSynchronize());
      sector_kernel<<<1, 32>>>(base, doffs, nsamp, mode, gap, dout, sink);
      CKL();
      CK(cudaDeviceSynchronize());
      std::vector<long long> all(nsamp * 2), second, both;
      CK(cudaMemcpy(all.data(), dout, all.size() * sizeof(long long), cudaMemcpyDeviceToHost));
      for (int i = 2; i < nsamp; ++i) {
        second.push_back(all[2 * i]);
        both.push_back(all[2 * i + 1]);
      }
      printf("%s,%lld,%zu,%lld,%lld,%lld,%lld\n", names[mode], gap, second.size(), pct_of(second, 0.10),
             median_of(second), pct_of(second, 0.90), median_of(both));
      fflush(stdout);
    }
  }
  return 0;
}
