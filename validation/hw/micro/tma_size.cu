// TMA completion time vs transaction size: one thread issues one 1-D bulk copy
// (cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes) of S bytes
// and spins on the mbarrier; clock64 around issue -> completion.
// src=l2: the same source bytes every sample (L2-resident after the first);
// src=dram: a fresh source address every sample in a 2 GiB buffer that was
// flushed out of L2 (a 512 MiB read of another buffer) beforehand.
// Columns: copy,src,size_bytes,samples,min_cycles,p10_cycles,median_cycles,p90_cycles
#include "common.cuh"

__global__ void __launch_bounds__(32, 1)
    bulk_size_kernel(const uint8_t* __restrict__ src, uint32_t size, int n, size_t step, size_t wrap,
                     long long* out) {
  __shared__ __align__(128) uint8_t buf[16384];
  __shared__ __align__(8) uint64_t bar;
  if (threadIdx.x != 0) return;
  mbar_init(&bar, 1);
  fence_mbar_init();
  uint32_t phase = 0;
  for (int i = 0; i < n; ++i) {
    const uint8_t* s = src + ((size_t)i * step) % wrap;
    const long long t0 = timed_bulk_load(buf, s, size, &bar);
    mbar_wait(&bar, phase);
    const long long t1 = clock64();
    phase ^= 1;
    out[i] = t1 - t0;
  }
}

int main(int argc, char** argv) {
  bool smoke = argc > 1 && std::string(argv[1]) == "--smoke";
  int sms = num_sms();
  const size_t big = size_t(2) << 30, flush_bytes = size_t(512) << 20;
  uint8_t *buf, *fl;
  int* sink;
  long long* dout;
  const int n = smoke ? 64 : 512;
  CK(cudaMalloc(&buf, big));
  CK(cudaMalloc(&fl, flush_bytes));
  CK(cudaMalloc(&sink, 16));
  CK(cudaMalloc(&dout, n * sizeof(long long)));
  fill_random(buf, big, 7);
  fill_random(fl, flush_bytes, 8);
  printf("copy,src,size_bytes,samples,min_cycles,p10_cycles,median_cycles,p90_cycles\n");
  const uint32_t sizes[] = {128, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384};
  size_t dram_base = 0;
  for (int src_mode = 0; src_mode < 2; ++src_mode) {
    for (uint32_t sz : sizes) {
      const uint8_t* src;
      size_t step, wrap;
      if (src_mode == 0) {
        src = buf;
        step = 0;
        wrap = 1;
      } else {
        read_all_kernel<<<sms * 8, 256>>>((const int4*)fl, flush_bytes / 16, sink);
        CKL();
        CK(cudaDeviceSynchronize());
        // fresh 1 MiB-spaced addresses, never reused across sizes
        src = buf + dram_base;
        step = (size_t(1) << 20) + 4096;
        wrap = big - dram_base - 32768;
        dram_base += 16384 * 2 + 128;
      }
      bulk_size_kernel<<<1, 32>>>(src, sz, n, step, wrap, dout);
      CKL();
      CK(cudaDeviceSynchronize());
      std::vector<long long> v(n);
      CK(cudaMemcpy(v.data(), dout, n * sizeof(long long), cudaMemcpyDeviceToHost));
      v.erase(v.begin(), v.begin() + 4);  // cold start
      printf("bulk,%s,%u,%zu,%lld,%lld,%lld,%lld\n", src_mode == 0 ? "l2" : "dram", sz, v.size(),
             *std::min_element(v.begin(), v.end()), pct_of(v, 0.1), median_of(v), pct_of(v, 0.9));
      fflush(stdout);
    }
  }
  return 0;
}
