// First TMA load of a CTA: how long G CTAs (one per SM) that each start with one 1-D bulk copy
// (cp.async.bulk global->shared, mbarrier complete_tx) of S bytes wait for it, by where the
// bytes are. Thread 0 of each CTA: clock64 around expect_tx + copy + try_wait spin.
// The Proton traces of the attention and GEMM kernels show a CTA's first load taking 3000-4000
// cycles where the simulator has ~1400 (validation/README.md, misses); this separates DRAM
// bandwidth, L2 hits and first touches of address ranges.
// place: where CTA c reads: contig (c * S: 64 CTAs of 32 KB share a 2 MiB page) or page2m
// (c * 2 MiB: a page of its own). state: l2 = the same bytes read by the previous launch (L2- and
// translation-warm), dram = an L2 flush (512 MiB read) before the launch (L2-cold; the
// addresses were read a few launches before), fresh = dram, and in a 1 GiB window of the 8 GiB
// buffer that the last 6 launches did not touch.
// Columns: place,state,ctas,size_bytes,launches,median_cycles,p90_cycles,max_cycles,
//          median_dispatch_ns (CTA entry after the first CTA's)
#include "common.cuh"

__global__ void __launch_bounds__(32, 1)
    first_load_kernel(const uint8_t* __restrict__ src, uint32_t size, size_t stride,
                      long long* cycles, unsigned long long* entry_ns) {
  extern __shared__ __align__(128) uint8_t buf[];
  __shared__ __align__(8) uint64_t bar;
  if (threadIdx.x != 0) return;
  unsigned long long t_ns;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t_ns));
  mbar_init(&bar, 1);
  fence_mbar_init();
  const uint8_t* s = src + (size_t)blockIdx.x * stride;
  const long long t0 = timed_bulk_load(buf, s, size, &bar);
  mbar_wait(&bar, 0);
  cycles[blockIdx.x] = clock64() - t0;
  entry_ns[blockIdx.x] = t_ns;
}

int main(int argc, char** argv) {
  bool smoke = argc > 1 && std::string(argv[1]) == "--smoke";
  const int sms = num_sms();
  const size_t big = size_t(8) << 30, window = size_t(1) << 30, flush_bytes = size_t(512) << 20;
  uint8_t *buf, *fl;
  int* sink;
  long long* dcyc;
  unsigned long long* dns;
  CK(cudaMalloc(&buf, big));
  CK(cudaMalloc(&fl, flush_bytes));
  CK(cudaMalloc(&sink, 16));
  CK(cudaMalloc(&dcyc, sms * sizeof(long long)));
  CK(cudaMalloc(&dns, sms * sizeof(unsigned long long)));
  fill_random(buf, big, 11);
  fill_random(fl, flush_bytes, 12);
  // Dynamic shared memory large enough that only one CTA fits on an SM.
  const int smem = 120 * 1024;
  CK(cudaFuncSetAttribute(first_load_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  printf("place,state,ctas,size_bytes,launches,median_cycles,p90_cycles,max_cycles,"
         "median_dispatch_ns\n");
  const char* places[] = {"contig", "page2m"};
  const char* states[] = {"l2", "dram", "fresh"};
  const int launches = smoke ? 2 : 5;
  std::vector<int> grids = {1, 8, 33, 66, sms};
  std::vector<uint32_t> sizes = {4096, 32768};
  if (smoke) {
    grids = {1, sms};
    sizes = {32768};
  }
  size_t fresh_window = 1;  // window 0 is used by l2/dram; fresh moves through windows 1..7
  size_t offset = 0;        // per-launch offset within a window for dram (lines not read since fill)
  for (int p = 0; p < 2; ++p) {
    for (int st = 0; st < 3; ++st) {
      for (int g : grids) {
        for (uint32_t sz : sizes) {
          const size_t stride = p == 0 ? sz : size_t(2) << 20;
          if ((size_t)g * stride + sz + offset + 65536 > window) continue;
          std::vector<long long> all;
          std::vector<long long> disp;
          for (int l = 0; l < launches + 1; ++l) {  // launch 0 warms (l2) or is dropped
            const uint8_t* src;
            if (st == 0) {
              src = buf + 4096;  // the same bytes every launch
            } else {
              read_all_kernel<<<sms * 8, 256>>>((const int4*)fl, flush_bytes / 16, sink);
              CKL();
              if (st == 1) {
                offset = (offset + sz + 4096) % (size_t(16) << 20);
                src = buf + offset;
              } else {
                src = buf + (fresh_window % 7 + 1) * window + (size_t)(l * 8192);
                ++fresh_window;
              }
            }
            CK(cudaDeviceSynchronize());
            first_load_kernel<<<g, 32, smem>>>(src, sz, stride, dcyc, dns);
            CKL();
            CK(cudaDeviceSynchronize());
            if (l == 0) continue;
            std::vector<long long> c(g);
            std::vector<unsigned long long> ns(g);
            CK(cudaMemcpy(c.data(), dcyc, g * sizeof(long long), cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(ns.data(), dns, g * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
            const unsigned long long first = *std::min_element(ns.begin(), ns.end());
            for (int i = 0; i < g; ++i) {
              all.push_back(c[i]);
              disp.push_back((long long)(ns[i] - first));
            }
          }
          printf("%s,%s,%d,%u,%d,%lld,%lld,%lld,%lld\n", places[p], states[st], g, sz, launches,
                 median_of(all), pct_of(all, 0.9), *std::max_element(all.begin(), all.end()),
                 median_of(disp));
          fflush(stdout);
        }
      }
    }
  }
  return 0;
}
