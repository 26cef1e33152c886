// How the H200 maps addresses onto HBM channels, banks and rows, seen from one thread: after a
// 512 MiB L2 flush, one TMA 2-D box of R rows of 128 B (64 fp16) whose rows are D bytes apart,
// every line read for the first time. Two lines in different pseudo-channels are served in
// parallel, in one open row back to back, in one bank but different rows one after the other
// (precharge + activate), so the latency against D shows where the interleave repeats.
// (tma_stride.cu: 32-line boxes slow down from 884 to ~1200 cycles as their lines spread from
// 128 B to 4 KB apart, where the model serves them in parallel at ~870.)
// R = 2, 4, 8; D = 128 B .. 256 MiB by powers of two; 64 samples per point, sample i at
// i * 4 MiB + (i * 7 mod 32) * 128 B into a 2 GiB buffer (fresh lines), first 2 dropped.
// Columns: rows,stride_bytes,samples,min_cycles,p10_cycles,median_cycles,p90_cycles,mean_cycles
#include "common.cuh"

__global__ void __launch_bounds__(32, 1)
    pair_kernel(const __grid_constant__ CUtensorMap map, const int2* __restrict__ coords, int n,
                uint32_t bytes, long long* out) {
  extern __shared__ __align__(1024) uint8_t buf[];
  __shared__ __align__(8) uint64_t bar;
  if (threadIdx.x != 0) return;
  mbar_init(&bar, 1);
  fence_mbar_init();
  prefetch_tmap(&map);
  uint32_t phase = 0;
  int2 c = coords[0];
  for (int i = 0; i < n; ++i) {
    long long t0 = clock64();
    mbar_expect_tx(&bar, bytes);
    tma_load_2d(buf, &map, c.x, c.y, &bar);
    int2 cn = coords[i + 1 < n ? i + 1 : i];
    mbar_wait(&bar, phase);
    long long t1 = clock64();
    phase ^= 1;
    out[i] = t1 - t0;
    c = cn;
  }
}

int main() {
  const size_t total = size_t(2) << 30, flush_bytes = size_t(512) << 20;
  void *base, *flush;
  int* sink;
  CK(cudaMalloc(&base, total));
  CK(cudaMalloc(&flush, flush_bytes));
  CK(cudaMalloc(&sink, 16));
  fill_random(base, total, 11);
  fill_random(flush, flush_bytes, 12);
  const int nsamp = 64, sms = num_sms();
  int2* dcoords;
  long long* dout;
  CK(cudaMalloc(&dcoords, nsamp * sizeof(int2)));
  CK(cudaMalloc(&dout, nsamp * sizeof(long long)));
  CK(cudaFuncSetAttribute(pair_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 8 * 128));
  printf("rows,stride_bytes,samples,min_cycles,p10_cycles,median_cycles,p90_cycles,mean_cycles\n");
  for (int rows : {2, 4, 8}) {
    for (uint64_t d = 128; d <= (uint64_t(256) << 20); d *= 2) {
      // A tensor of rows D bytes apart whose first row starts at byte 0; sample i's box starts
      // at byte i * 4 MiB + (i * 7 % 32) * 128, i.e. row y and column x of that tensor.
      const uint64_t cols = d / 2;  // fp16 elements: each row D bytes
      const uint64_t nrows = total / d;
      uint64_t dims[2] = {cols, nrows};
      uint64_t st[1] = {d};
      uint32_t box[2] = {64, (uint32_t)rows};
      CUtensorMap m = make_tmap(base, 2, dims, st, box);
      std::vector<int2> hc(nsamp);
      int ok = 1;
      for (int i = 0; i < nsamp; ++i) {
        const uint64_t off = (uint64_t)i * (4u << 20) + (uint64_t)(i * 7 % 32) * 128;
        const uint64_t y = off / d, x = (off % d) / 2;
        if (x + 64 > cols || y + rows > nrows) ok = 0;
        hc[i].x = (int)x;
        hc[i].y = (int)y;
      }
      if (!ok) continue;  // the box would leave the tensor (large D near the buffer's end)
      CK(cudaMemcpy(dcoords, hc.data(), nsamp * sizeof(int2), cudaMemcpyHostToDevice));
      read_all_kernel<<<sms * 8, 256>>>((const int4*)flush, flush_bytes / 16, sink);
      CKL();
      CK(cudaDeviceSynchronize());
      pair_kernel<<<1, 32, 8 * 128>>>(m, dcoords, nsamp, (uint32_t)(rows * 128), dout);
      CKL();
      CK(cudaDeviceSynchronize());
      std::vector<long long> v(nsamp);
      CK(cudaMemcpy(v.data(), dout, nsamp * sizeof(long long), cudaMemcpyDeviceToHost));
      v.erase(v.begin(), v.begin() + 2);
      double mean = 0;
      for (auto x : v) mean += (double)x;
      mean /= v.size();
      printf("%d,%llu,%zu,%lld,%lld,%lld,%lld,%.1f\n", rows, (unsigned long long)d, v.size(),
             *std::min_element(v.begin(), v.end()), pct_of(v, 0.10), median_of(v), pct_of(v, 0.90), mean);
      fflush(stdout);
    }
  }
  return 0;
}
