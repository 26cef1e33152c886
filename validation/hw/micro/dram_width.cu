// Does a set of DRAM lines cost more because the TMA reads it, or because whole lines are read?
// TMA 2-D boxes of 32 rows D bytes apart are 100-200 cycles slower than dram_spread.cu's
// one-sector gathers of the same 32 lines at D = 256 B-1 KB (tma_stride.cu, dram_spread.cu).
// Here, after a 512 MiB L2 flush per point, the same 32 rows are read four ways:
//   tma    one cp.async.bulk.tensor.2d box of 32 rows of W bytes (W = 32: 16 fp16, one sector;
//          W = 128: 64 fp16, the whole line), clock64 around expect_tx + copy + try_wait spin
//   gather one warp, lane j loads row j: W = 32 one ld.global.cg.u32 (one sector); W = 128 four
//          of them at +0, +32, +64, +96 (every sector of the line); clock64 around the loads and
//          a warp reduction of the words
// D = 128 B, 256 B, 512 B, 1 KB, 2 KB, 4 KB, 8 KB, 64 KB; 64 samples per point,
// sample i's rows at i * 4 MiB + (i * 7 mod 64) * 128 + j * D (lines never read before), first 2
// dropped.
// Columns: path,width_bytes,rows,stride_bytes,samples,min_cycles,p10_cycles,median_cycles,
// p90_cycles,mean_cycles
#include "common.cuh"

__global__ void __launch_bounds__(32, 1)
    box_kernel(const __grid_constant__ CUtensorMap map, const int2* __restrict__ coords, int n,
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

// Lane j reads row j of sample i (offs[i * 32 + j]): one sector, or all four with `full`.
__global__ void __launch_bounds__(32, 1)
    gather_kernel(const uint8_t* __restrict__ base, const unsigned long long* __restrict__ offs,
                  int n, int full, long long* out, int* sink) {
  const int lane = threadIdx.x;
  uint32_t acc = 0;
  for (int i = 0; i < n; ++i) {
    const unsigned long long o = offs[(size_t)i * 32 + lane];
    const uint8_t* p = base + o;
    acc += __reduce_or_sync(0xffffffffu, (uint32_t)o);
    const long long t0 = clock64();
    uint32_t v0, v1 = 0, v2 = 0, v3 = 0;
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v0) : "l"(p));
    if (full) {
      asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v1) : "l"(p + 32));
      asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v2) : "l"(p + 64));
      asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v3) : "l"(p + 96));
    }
    const uint32_t r = __reduce_or_sync(0xffffffffu, v0 ^ v1 ^ v2 ^ v3);
    asm volatile("" ::"r"(r));
    const long long t1 = clock64();
    acc += r;
    if (lane == 0) out[i] = t1 - t0;
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
  fill_random(base, total, 41);
  fill_random(flush, flush_bytes, 42);
  const int nsamp = 64, rows = 32, sms = num_sms();
  int2* dcoords;
  unsigned long long* doffs;
  long long* dout;
  CK(cudaMalloc(&dcoords, nsamp * sizeof(int2)));
  CK(cudaMalloc(&doffs, nsamp * 32 * sizeof(unsigned long long)));
  CK(cudaMalloc(&dout, nsamp * sizeof(long long)));
  CK(cudaFuncSetAttribute(box_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 32 * 128));
  printf("path,width_bytes,rows,stride_bytes,samples,min_cycles,p10_cycles,median_cycles,p90_cycles,"
         "mean_cycles\n");
  for (const char* path : {"tma", "gather"}) {
    const bool tma = path[0] == 't';
    for (uint32_t w : {32u, 128u}) {
      for (uint64_t d : {128ull, 256ull, 512ull, 1024ull, 2048ull, 4096ull, 8192ull, 65536ull}) {
        std::vector<int2> hc(nsamp);
        std::vector<unsigned long long> ho((size_t)nsamp * 32);
        for (int i = 0; i < nsamp; ++i) {
          const uint64_t off = (uint64_t)i * (4u << 20) + (uint64_t)(i * 7 % 64) * 128;
          hc[i].x = (int)((off % d) / 2);
          hc[i].y = (int)(off / d);
          for (int j = 0; j < 32; ++j) ho[(size_t)i * 32 + j] = off + (uint64_t)j * d;
        }
        read_all_kernel<<<sms * 8, 256>>>((const int4*)flush, flush_bytes / 16, sink);
        CKL();
        CK(cudaDeviceSynchronize());
        if (tma) {
          const uint64_t dims[2] = {d / 2, total / d};
          const uint64_t st[1] = {d};
          const uint32_t box[2] = {w / 2, (uint32_t)rows};
          CUtensorMap m = make_tmap(base, 2, dims, st, box);
          CK(cudaMemcpy(dcoords, hc.data(), nsamp * sizeof(int2), cudaMemcpyHostToDevice));
          box_kernel<<<1, 32, 32 * 128>>>(m, dcoords, nsamp, w * rows, dout);
        } else {
          CK(cudaMemcpy(doffs, ho.data(), ho.size() * sizeof(unsigned long long),
                        cudaMemcpyHostToDevice));
          gather_kernel<<<1, 32>>>(base, doffs, nsamp, w == 128, dout, sink);
        }
        CKL();
        CK(cudaDeviceSynchronize());
        std::vector<long long> v(nsamp);
        CK(cudaMemcpy(v.data(), dout, nsamp * sizeof(long long), cudaMemcpyDeviceToHost));
        v.erase(v.begin(), v.begin() + 2);
        double mean = 0;
        for (auto x : v) mean += (double)x;
        mean /= v.size();
        printf("%s,%u,%d,%llu,%zu,%lld,%lld,%lld,%lld,%.1f\n", path, w, rows, (unsigned long long)d,
               v.size(), *std::min_element(v.begin(), v.end()), pct_of(v, 0.10), median_of(v),
               pct_of(v, 0.90), mean);
        fflush(stdout);
      }
    }
  }
  return 0;
}
