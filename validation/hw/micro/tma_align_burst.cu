// TMA 2-D boxes whose rows are not 128-B aligned, from G SMs at once (asyncsim issue 5/4: does a
// box row that straddles two lines cost the L2 -> SM path the sectors it moves, or whole lines?).
// tma_align.cu measured one CTA; here G CTAs (1..132, one per SM: 128 KB of dynamic smem) each
// read their own 128-row block of an L2-resident fp16 tensor (row stride S bytes), 8 boxes of
// 64 columns x 128 rows (16 KB each, 128 KB per iteration) on one mbarrier, `iters` iterations
// back to back; thread 0 times each iteration with clock64. The first 2 iterations are
// dropped (translation and the first touch); the per-CTA median over the rest is taken, and the
// median and max over CTAs are reported.
// A 128-B box row at a 16-B offset touches 5 sectors of 2 lines, at a 32-B offset 4 sectors of
// 2 lines, aligned 4 sectors of 1 line: if the chip's cost follows sectors, S = 2016 costs what
// S = 2048 does at G = 132; if it follows lines, about twice.
// Columns: stride_bytes,aligned,ctas,bytes_per_iter,iters,median_cycles,max_cycles,
//          p90_cycles,sm_mhz (clock64 / globaltimer of CTA 0 over its iterations)
#include "common.cuh"

__global__ void __launch_bounds__(32, 1)
    burst_kernel(const __grid_constant__ CUtensorMap a, int iters, uint32_t box_bytes,
                 long long* out, long long* ns_out) {
  extern __shared__ __align__(1024) uint8_t buf[];
  __shared__ __align__(8) uint64_t bar;
  if (threadIdx.x != 0) return;
  mbar_init(&bar, 1);
  fence_mbar_init();
  prefetch_tmap(&a);
  uint32_t phase = 0;
  const int y = blockIdx.x * 128;
  unsigned long long g0 = 0, g1 = 0;
  long long c0 = 0, c1 = 0;
  for (int i = 0; i < iters; ++i) {
    if (i == 2) {
      asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
      c0 = clock64();
    }
    const long long t0 = clock64();
    mbar_expect_tx(&bar, box_bytes * 8);
    for (int b = 0; b < 8; ++b) {
      tma_load_2d(buf + b * box_bytes, &a, 64 * b, y, &bar);
    }
    mbar_wait(&bar, phase);
    out[(size_t)blockIdx.x * iters + i] = clock64() - t0;
    phase ^= 1;
  }
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
  c1 = clock64();
  if (blockIdx.x == 0) {
    ns_out[0] = (long long)(g1 - g0);
    ns_out[1] = c1 - c0;
  }
}

int main(int argc, char** argv) {
  bool smoke = argc > 1 && std::string(argv[1]) == "--smoke";
  const int sms = num_sms();
  const int box_rows = 128;
  const uint32_t box_bytes = 64 * 2 * box_rows;
  const int rows_total = sms * box_rows;
  std::vector<int> strides = {2048, 2000, 2016, 2064, 2080};
  std::vector<int> grids = {1, 33, 66, sms};
  const int iters = smoke ? 6 : 18;
  if (smoke) {
    strides = {2048, 2000};
    grids = {1, sms};
  }
  const size_t max_bytes = (size_t)2080 * rows_total;
  void* base;
  int* sink;
  long long *dout, *dns;
  CK(cudaMalloc(&base, max_bytes));
  CK(cudaMalloc(&sink, 16));
  CK(cudaMalloc(&dout, (size_t)sms * iters * sizeof(long long)));
  CK(cudaMalloc(&dns, 2 * sizeof(long long)));
  fill_random(base, max_bytes, 21);
  CK(cudaFuncSetAttribute(burst_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 8 * box_bytes));
  printf("stride_bytes,aligned,ctas,bytes_per_iter,iters,median_cycles,max_cycles,p90_cycles,sm_mhz\n");
  for (int s : strides) {
    const uint64_t cols = (uint64_t)s / 2;
    uint64_t dims[2] = {cols, (uint64_t)rows_total};
    uint64_t st[1] = {(uint64_t)s};
    uint32_t box[2] = {64, (uint32_t)box_rows};
    CUtensorMap ma = make_tmap(base, 2, dims, st, box);
    for (int g : grids) {
      read_all_kernel<<<sms * 8, 256>>>((const int4*)base, (size_t)s * rows_total / 16, sink);
      CKL();
      CK(cudaDeviceSynchronize());
      burst_kernel<<<g, 32, 8 * box_bytes>>>(ma, iters, box_bytes, dout, dns);
      CKL();
      CK(cudaDeviceSynchronize());
      std::vector<long long> v((size_t)g * iters);
      CK(cudaMemcpy(v.data(), dout, v.size() * sizeof(long long), cudaMemcpyDeviceToHost));
      long long hns[2];
      CK(cudaMemcpy(hns, dns, sizeof(hns), cudaMemcpyDeviceToHost));
      std::vector<long long> per_cta;
      for (int c = 0; c < g; ++c) {
        std::vector<long long> it(v.begin() + (size_t)c * iters + 2, v.begin() + (size_t)(c + 1) * iters);
        per_cta.push_back(median_of(it));
      }
      const double mhz = hns[0] > 0 ? (double)hns[1] / (double)hns[0] * 1000.0 : 0.0;
      printf("%d,%d,%d,%u,%d,%lld,%lld,%lld,%.0f\n", s, s % 128 == 0 ? 1 : 0, g, box_bytes * 8,
             iters - 2, median_of(per_cta), *std::max_element(per_cta.begin(), per_cta.end()),
             pct_of(per_cta, 0.90), mhz);
      fflush(stdout);
    }
  }
  return 0;
}
