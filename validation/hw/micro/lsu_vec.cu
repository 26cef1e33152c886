// Two follow-ups to lsu.cu. Prints CSV on stdout with the columns:
//   table,warps,buffer_bytes,elements,ctas,threads,samples,lat_p10,lat_median,lat_p90,median_us,
//   median_gbps,sm_mhz
// Tables:
//   warp_latency  W warps of one CTA (1 or 4), each a dependent chain: its 32 threads load one
//                 int4 each (512 contiguous bytes, 4 lines) at a random line-aligned 512-B block
//                 of a buffer read by all SMs first (L2-resident), the next block's index comes
//                 from the loaded data (lane 0, shuffled); clock64 of lane 0 around each load;
//                 first 8 of 1024 dropped. Compared with lsu.cu's 4-byte chain, it tells what a
//                 full-warp 128-bit load adds to the round trip.
//   vector_add    c[i] = a[i] + b[i] over N fp32 (float4 per thread, grid-stride loop), grid of
//                 C CTAs x 256 threads; CUDA events, median of 9 launches after a warm-up;
//                 GB/s counts 12 bytes per element (two reads, one write).
#include "common.cuh"

__global__ void warp_chase_kernel(const int4* __restrict__ p, uint32_t blocks, int n,
                                  long long* lat, int* sink) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  uint32_t j = (uint32_t)warp * 7919u % blocks;
  for (int s = 0; s < n; ++s) {
    const long long t0 = clock64();
    int4 v;
    asm volatile("ld.global.cg.v4.s32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p + (size_t)j * 32 + lane));
    const int x = v.x ^ v.y ^ v.z ^ v.w;
    const uint32_t nx = (uint32_t)__shfl_sync(0xffffffffu, x, 0);
    j = nx % blocks;
    asm volatile("" ::"r"(j));
    const long long t1 = clock64();
    if (lane == 0) lat[(size_t)warp * n + s] = t1 - t0;
  }
  if (j == 0xffffffffu) sink[0] = (int)j;
}

__global__ void vector_add_kernel(const float4* __restrict__ a, const float4* __restrict__ b,
                                  float4* __restrict__ c, size_t n4) {
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += stride) {
    const float4 x = a[i], y = b[i];
    c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
}

int main(int argc, char** argv) {
  const bool smoke = argc > 1 && std::string(argv[1]) == "--smoke";
  const int sms = num_sms();
  int* sink;
  long long* lat;
  CK(cudaMalloc(&sink, 16));
  const int n = smoke ? 64 : 1024;
  CK(cudaMalloc(&lat, 4 * n * sizeof(long long)));
  printf("table,warps,buffer_bytes,elements,ctas,threads,samples,lat_p10,lat_median,lat_p90,"
         "median_us,median_gbps,sm_mhz\n");

  // ---- warp_latency: the buffer holds, in every int4, a pseudo-random next-block index.
  for (size_t mb : {4, 32}) {
    const size_t bytes = mb << 20, blocks = bytes / 512;
    int4* buf;
    CK(cudaMalloc(&buf, bytes));
    fill_random(buf, bytes, 77 + (uint32_t)mb);
    for (int warps : {1, 4}) {
      read_all_kernel<<<sms * 8, 256>>>(buf, bytes / 16, sink);
      CKL();
      warp_chase_kernel<<<1, 32 * warps>>>(buf, (uint32_t)blocks, n, lat, sink);
      CKL();
      CK(cudaDeviceSynchronize());
      std::vector<long long> h((size_t)warps * n);
      CK(cudaMemcpy(h.data(), lat, h.size() * sizeof(long long), cudaMemcpyDeviceToHost));
      std::vector<long long> v;
      for (int w = 0; w < warps; ++w)
        for (int s = 8; s < n; ++s) v.push_back(h[(size_t)w * n + s]);
      std::sort(v.begin(), v.end());
      auto q = [&](double f) { return v[(size_t)(f * (v.size() - 1))]; };
      printf("warp_latency,%d,%zu,,1,%d,%zu,%lld,%lld,%lld,,,\n", warps, bytes, 32 * warps,
             v.size(), q(0.1), q(0.5), q(0.9));
      fflush(stdout);
    }
    CK(cudaFree(buf));
  }

  // ---- vector_add
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  const size_t max_n = size_t(64) << 20;
  float *a, *b, *c;
  CK(cudaMalloc(&a, max_n * 4));
  CK(cudaMalloc(&b, max_n * 4));
  CK(cudaMalloc(&c, max_n * 4));
  fill_random(a, max_n * 4, 1);
  fill_random(b, max_n * 4, 2);
  for (size_t elems : {size_t(1) << 20, size_t(4) << 20, size_t(16) << 20, size_t(64) << 20}) {
    for (int ctas_per_sm : {4, 8}) {
      const int ctas = sms * ctas_per_sm;
      std::vector<float> t;
      for (int r = 0; r < (smoke ? 2 : 10); ++r) {
        CK(cudaEventRecord(e0));
        vector_add_kernel<<<ctas, 256>>>((const float4*)a, (const float4*)b, (float4*)c,
                                         elems / 4);
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        CKL();
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        if (r > 0) t.push_back(ms * 1000.f);
      }
      const double us = median_of(t);
      printf("vector_add,,%zu,%zu,%d,256,%zu,,,,%.2f,%.1f,\n", elems * 12, elems, ctas, t.size(),
             us, (double)elems * 12 / us / 1e3);
      fflush(stdout);
    }
  }
  return 0;
}
