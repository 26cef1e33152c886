// The same bytes from DRAM through the bulk path and through a 2-D tensor box (issue 5: the
// H200's 16 KB bulk copy takes 936 cycles, a 16 KB box of 128 contiguous rows 1157-1188).
// One CTA, one thread: clock64 -> mbarrier.arrive.expect_tx + one cp.async.bulk of S bytes, or
// one cp.async.bulk.tensor.2d box of S/128 rows x 128 B (a [64 x N] fp16 tensor: the rows are
// contiguous, so the box covers exactly the bulk copy's bytes) -> try_wait spin -> clock64.
// Sample i reads at base + i * spacing (lines never read before), after a 512 MiB L2 flush per
// configuration; spacing 1 MiB + 4 KiB (as tma_size.cu) or 16 MiB (as tma_stride.cu), to see
// whether page (TLB) reuse explains the difference. Both paths share each configuration's
// addresses: path `bulk` uses samples 0..63, path `box` samples 64..127.
// Columns: path,bytes,spacing_bytes,samples,min_cycles,p10_cycles,median_cycles,p90_cycles,
//          mean_cycles
#include "common.cuh"

__global__ void __launch_bounds__(32, 1)
    bulk_box_kernel(const __grid_constant__ CUtensorMap map, const uint8_t* base, int box,
                    int first, int n, uint64_t spacing, uint32_t bytes, long long* out) {
  extern __shared__ __align__(1024) uint8_t buf[];
  __shared__ __align__(8) uint64_t bar;
  if (threadIdx.x != 0) return;
  mbar_init(&bar, 1);
  fence_mbar_init();
  prefetch_tmap(&map);
  uint32_t phase = 0;
  for (int i = 0; i < n; ++i) {
    const uint64_t off = (uint64_t)(first + i) * spacing;
    long long t0 = clock64();
    mbar_expect_tx(&bar, bytes);
    if (box) {
      tma_load_2d(buf, &map, 0, (int)(off / 128), &bar);
    } else {
      bulk_g2s(buf, base + off, bytes, &bar);
    }
    mbar_wait(&bar, phase);
    long long t1 = clock64();
    phase ^= 1;
    out[i] = t1 - t0;
  }
}

int main(int argc, char** argv) {
  bool smoke = argc > 1 && std::string(argv[1]) == "--smoke";
  const size_t total = size_t(3) << 30;  // 128 samples x 16 MiB = 2 GiB, plus room
  const size_t flush_bytes = size_t(512) << 20;
  uint8_t* base;
  void* flush;
  int* sink;
  CK(cudaMalloc(&base, total));
  CK(cudaMalloc(&flush, flush_bytes));
  CK(cudaMalloc(&sink, 16));
  fill_random(base, total, 11);
  fill_random(flush, flush_bytes, 12);
  const int nsamp = smoke ? 8 : 64;
  long long* dout;
  CK(cudaMalloc(&dout, nsamp * sizeof(long long)));
  CK(cudaFuncSetAttribute(bulk_box_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 32768));
  int sms = num_sms();
  printf("path,bytes,spacing_bytes,samples,min_cycles,p10_cycles,median_cycles,p90_cycles,mean_cycles\n");
  const uint64_t spacings[] = {(1ull << 20) + 4096, 16ull << 20};
  for (uint64_t spacing : spacings) {
    for (uint32_t bytes : {4096u, 8192u, 16384u, 32768u}) {
      uint64_t dims[2] = {64, total / 128};
      uint64_t st[1] = {128};
      uint32_t boxdim[2] = {64, bytes / 128};
      CUtensorMap map = make_tmap(base, 2, dims, st, boxdim);
      for (int box = 0; box < 2; ++box) {
        read_all_kernel<<<sms * 8, 256>>>((const int4*)flush, flush_bytes / 16, sink);
        CKL();
        CK(cudaDeviceSynchronize());
        bulk_box_kernel<<<1, 32, 32768>>>(map, base, box, box * nsamp, nsamp, spacing, bytes, dout);
        CKL();
        CK(cudaDeviceSynchronize());
        std::vector<long long> v(nsamp);
        CK(cudaMemcpy(v.data(), dout, nsamp * sizeof(long long), cudaMemcpyDeviceToHost));
        v.erase(v.begin(), v.begin() + 2);
        double mean = 0;
        for (auto x : v) mean += (double)x;
        mean /= v.size();
        printf("%s,%u,%llu,%zu,%lld,%lld,%lld,%lld,%.1f\n", box ? "box" : "bulk", bytes,
               (unsigned long long)spacing, v.size(), *std::min_element(v.begin(), v.end()),
               pct_of(v, 0.10), median_of(v), pct_of(v, 0.90), mean);
        fflush(stdout);
      }
    }
  }
  return 0;
}
