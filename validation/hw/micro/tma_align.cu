// TMA 2-D boxes whose rows are not 128-B aligned (asyncsim issue 5: the held-out GEMMs with
// K = 1000 / 3000 have A and B rows 2000 / 6000 B apart, so every 128-B box row straddles two
// lines). One CTA, one thread, data resident in L2 (read by all SMs first): a box of 64 fp16
// columns x 128 rows (16 KB, the GEMM's A tile) with row stride S bytes; `boxes` = 1: latency of
// one box (expect_tx + copy + try_wait spin); `boxes` = 8: eight boxes back to back on one
// mbarrier, cycles until all are complete. 64 samples (different row blocks), first 2 dropped.
// Columns: stride_bytes,aligned,boxes,bytes,samples,min_cycles,p10_cycles,median_cycles,
// p90_cycles,mean_cycles
#include "common.cuh"

__global__ void __launch_bounds__(32, 1)
    tma_align_kernel(const __grid_constant__ CUtensorMap a, const int2* __restrict__ coords, int n,
                     int nboxes, uint32_t box_bytes, long long* out) {
  extern __shared__ __align__(1024) uint8_t buf[];
  __shared__ __align__(8) uint64_t bar;
  if (threadIdx.x != 0) return;
  mbar_init(&bar, 1);
  fence_mbar_init();
  prefetch_tmap(&a);
  uint32_t phase = 0;
  for (int i = 0; i < n; ++i) {
    const int2 c = coords[i];
    long long t0 = clock64();
    mbar_expect_tx(&bar, box_bytes * nboxes);
    for (int b = 0; b < nboxes; ++b) {
      tma_load_2d(buf + b * box_bytes, &a, c.x + 64 * b, c.y, &bar);
    }
    mbar_wait(&bar, phase);
    long long t1 = clock64();
    phase ^= 1;
    out[i] = t1 - t0;
  }
}

int main(int argc, char** argv) {
  bool smoke = argc > 1 && std::string(argv[1]) == "--smoke";
  const int rows_total = 4096;
  const int box_rows = 128;
  const uint32_t box_bytes = 64 * 2 * box_rows;
  std::vector<int> strides = {2048, 2000, 2016, 2064, 2080, 2176, 6000, 6016, 6144};
  if (smoke) strides = {2048, 2000};
  const size_t max_bytes = (size_t)6144 * rows_total;
  void* base;
  int* sink;
  CK(cudaMalloc(&base, max_bytes));
  CK(cudaMalloc(&sink, 16));
  fill_random(base, max_bytes, 9);
  const int nsamp = smoke ? 16 : 64;
  int2* dcoords;
  long long* dout;
  CK(cudaMalloc(&dcoords, nsamp * sizeof(int2)));
  CK(cudaMalloc(&dout, nsamp * sizeof(long long)));
  CK(cudaFuncSetAttribute(tma_align_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 8 * box_bytes));
  const int sms = num_sms();
  printf("stride_bytes,aligned,boxes,bytes,samples,min_cycles,p10_cycles,median_cycles,p90_cycles,mean_cycles\n");
  for (int nb : {1, 8}) {
    for (int s : strides) {
      const uint64_t cols = (uint64_t)s / 2;
      uint64_t dims[2] = {cols, (uint64_t)rows_total};
      uint64_t st[1] = {(uint64_t)s};
      uint32_t box[2] = {64, (uint32_t)box_rows};
      CUtensorMap ma = make_tmap(base, 2, dims, st, box);
      std::vector<int2> hc(nsamp);
      for (int i = 0; i < nsamp; ++i) {
        hc[i].x = 0;  // 8 boxes of 64 columns fit every stride here (>= 1000 columns)
        hc[i].y = (i * 7 % (rows_total / box_rows)) * box_rows;
      }
      CK(cudaMemcpy(dcoords, hc.data(), nsamp * sizeof(int2), cudaMemcpyHostToDevice));
      read_all_kernel<<<sms * 8, 256>>>((const int4*)base, (size_t)s * rows_total / 16, sink);
      CKL();
      CK(cudaDeviceSynchronize());
      tma_align_kernel<<<1, 32, 8 * box_bytes>>>(ma, dcoords, nsamp, nb, box_bytes, dout);
      CKL();
      CK(cudaDeviceSynchronize());
      std::vector<long long> v(nsamp);
      CK(cudaMemcpy(v.data(), dout, nsamp * sizeof(long long), cudaMemcpyDeviceToHost));
      v.erase(v.begin(), v.begin() + 2);
      double mean = 0;
      for (auto x : v) mean += (double)x;
      mean /= v.size();
      printf("%d,%d,%d,%u,%zu,%lld,%lld,%lld,%lld,%.1f\n", s, s % 128 == 0 ? 1 : 0, nb, box_bytes * nb,
             v.size(), *std::min_element(v.begin(), v.end()), pct_of(v, 0.10), median_of(v),
             pct_of(v, 0.90), mean);
      fflush(stdout);
    }
  }
  return 0;
}
