// TMA 2-D load latency from DRAM against the row stride of the box (issue 5: how the H200
// spreads strided lines over HBM channels). One CTA, one thread: for each sample,
// clock64 -> mbarrier.arrive.expect_tx + NB cp.async.bulk.tensor.2d (boxes of 64 fp16 columns
// = 128 B per row, R rows, row stride S bytes; the second box from a tensor 1 GiB away) ->
// try_wait spin -> clock64. Every sample reads lines never read before in this run, after a
// 512 MiB L2 flush per configuration, so every line comes from DRAM.
// Columns: stride_bytes,box_rows,boxes,bytes,samples,min_cycles,p10_cycles,median_cycles,
//          p90_cycles,mean_cycles
#include "common.cuh"

__global__ void __launch_bounds__(32, 1)
    tma_stride_kernel(const __grid_constant__ CUtensorMap a, const __grid_constant__ CUtensorMap b,
                      const int2* __restrict__ coords, int n, int nboxes, uint32_t bytes,
                      long long* out) {
  extern __shared__ __align__(1024) uint8_t buf[];
  __shared__ __align__(8) uint64_t bar;
  if (threadIdx.x != 0) return;
  mbar_init(&bar, 1);
  fence_mbar_init();
  prefetch_tmap(&a);
  prefetch_tmap(&b);
  uint32_t phase = 0;
  int2 c = coords[0];
  for (int i = 0; i < n; ++i) {
    long long t0 = clock64();
    mbar_expect_tx(&bar, bytes);
    tma_load_2d(buf, &a, c.x, c.y, &bar);
    if (nboxes > 1) tma_load_2d(buf + bytes / 2, &b, c.x, c.y, &bar);
    int2 cn = coords[i + 1 < n ? i + 1 : i];
    mbar_wait(&bar, phase);
    long long t1 = clock64();
    phase ^= 1;
    out[i] = t1 - t0;
    c = cn;
  }
}

int main(int argc, char** argv) {
  bool smoke = argc > 1 && std::string(argv[1]) == "--smoke";
  const size_t half = size_t(1) << 30;  // tensor A in [0, 1 GiB), tensor B in [1, 2 GiB)
  const size_t flush_bytes = size_t(512) << 20;
  void* base;
  void* flush;
  int* sink;
  CK(cudaMalloc(&base, 2 * half));
  CK(cudaMalloc(&flush, flush_bytes));
  CK(cudaMalloc(&sink, 16));
  fill_random(base, 2 * half, 7);
  fill_random(flush, flush_bytes, 8);
  const int nsamp = smoke ? 16 : 64;
  int2* dcoords;
  long long* dout;
  CK(cudaMalloc(&dcoords, nsamp * sizeof(int2)));
  CK(cudaMalloc(&dout, nsamp * sizeof(long long)));
  CK(cudaFuncSetAttribute(tma_stride_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 2 * 256 * 128));
  int sms = num_sms();
  printf("stride_bytes,box_rows,boxes,bytes,samples,min_cycles,p10_cycles,median_cycles,p90_cycles,mean_cycles\n");
  std::vector<int> strides = {128, 256, 512, 1024, 2048, 4096, 8192, 16384};
  std::vector<int> rows_list = {32, 64, 128, 256};
  if (smoke) {
    strides = {128, 8192};
    rows_list = {128};
  }
  for (int nb : {1, 2}) {
    for (int rows : rows_list) {
      for (int s : strides) {
        const uint64_t cols = (uint64_t)s / 2;  // fp16 elements per row
        const uint64_t nrows = half / (uint64_t)s;
        uint64_t dims[2] = {cols, nrows};
        uint64_t st[1] = {(uint64_t)s};
        uint32_t box[2] = {64, (uint32_t)rows};
        CUtensorMap ma = make_tmap(base, 2, dims, st, box);
        CUtensorMap mb = make_tmap((uint8_t*)base + half, 2, dims, st, box);
        const uint64_t col_tiles = cols / 64, row_tiles = nrows / rows;
        // Sample i: row block i * step (distinct, spread over the tensor), a column tile that
        // walks the row, so no line is read twice.
        const uint64_t step = row_tiles / nsamp;
        std::vector<int2> hc(nsamp);
        for (int i = 0; i < nsamp; ++i) {
          hc[i].x = (int)(((uint64_t)i * 7 % col_tiles) * 64);
          hc[i].y = (int)((uint64_t)i * step * rows);
        }
        CK(cudaMemcpy(dcoords, hc.data(), nsamp * sizeof(int2), cudaMemcpyHostToDevice));
        read_all_kernel<<<sms * 8, 256>>>((const int4*)flush, flush_bytes / 16, sink);
        CKL();
        CK(cudaDeviceSynchronize());
        const uint32_t bytes = (uint32_t)(nb * 64 * 2 * rows);
        tma_stride_kernel<<<1, 32, 2 * 256 * 128>>>(ma, mb, dcoords, nsamp, nb, bytes, dout);
        CKL();
        CK(cudaDeviceSynchronize());
        std::vector<long long> v(nsamp);
        CK(cudaMemcpy(v.data(), dout, nsamp * sizeof(long long), cudaMemcpyDeviceToHost));
        v.erase(v.begin(), v.begin() + 2);  // descriptor fetch, cold instruction cache
        double mean = 0;
        for (auto x : v) mean += (double)x;
        mean /= v.size();
        printf("%d,%d,%d,%u,%zu,%lld,%lld,%lld,%lld,%.1f\n", s, rows, nb, bytes, v.size(),
               *std::min_element(v.begin(), v.end()), pct_of(v, 0.10), median_of(v), pct_of(v, 0.90),
               mean);
        fflush(stdout);
      }
    }
  }
  return 0;
}
