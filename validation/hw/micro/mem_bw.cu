// DRAM streaming read / copy bandwidth (all SMs, large buffer) and L2-resident
// read bandwidth (buffer << L2, read repeatedly inside one launch, ld.global.cg so
// L1 is bypassed). Prints CSV on stdout.
// Columns: test,buffer_bytes,bytes_per_launch,launches,median_us,best_us,
//          median_gbps,best_gbps,sm_mhz_in_kernel
// With MEMBW_NCU=1 each read point runs once after its warm-up (for ncu's L2 counters: how
// much of an L2-resident re-read the L2 keeps, and how much crosses between its partitions;
// `validation/l2_hot_ncu.py mem_bw` decodes them).
#include "common.cuh"

__global__ void read_kernel(const int4* __restrict__ p, size_t nvec, int passes, int* sink,
                            unsigned long long* clk) {
  size_t tid = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  size_t stride = (size_t)gridDim.x * blockDim.x;
  long long c0 = 0;
  unsigned long long g0 = 0;
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    c0 = clock64();
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
  }
  int acc = 0;
  for (int ps = 0; ps < passes; ++ps) {
    size_t i = tid;
    for (; i + 3 * stride < nvec; i += 4 * stride) {
      int4 a = __ldcg(p + i);
      int4 b = __ldcg(p + i + stride);
      int4 c = __ldcg(p + i + 2 * stride);
      int4 d = __ldcg(p + i + 3 * stride);
      acc ^= a.x ^ a.y ^ a.z ^ a.w ^ b.x ^ b.y ^ b.z ^ b.w ^ c.x ^ c.y ^ c.z ^ c.w ^ d.x ^ d.y ^ d.z ^ d.w;
    }
    for (; i < nvec; i += stride) {
      int4 a = __ldcg(p + i);
      acc ^= a.x ^ a.y ^ a.z ^ a.w;
    }
  }
  if (acc == 0x7fffffff) sink[0] = acc;
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    long long c1 = clock64();
    unsigned long long g1;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
    clk[0] = (unsigned long long)(c1 - c0);
    clk[1] = g1 - g0;
  }
}

__global__ void copy_kernel(const int4* __restrict__ s, int4* __restrict__ d, size_t nvec) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (; i + stride < nvec; i += 2 * stride) {
    int4 a = __ldcs(s + i);
    int4 b = __ldcs(s + i + stride);
    __stcs(d + i, a);
    __stcs(d + i + stride, b);
  }
  for (; i < nvec; i += stride) __stcs(d + i, __ldcs(s + i));
}

int main(int argc, char** argv) {
  bool smoke = argc > 1 && std::string(argv[1]) == "--smoke";
  int sms = num_sms();
  const size_t big = smoke ? (size_t(256) << 20) : (size_t(4) << 30);
  void *a, *b;
  int* sink;
  unsigned long long* clk;
  CK(cudaMalloc(&a, big));
  CK(cudaMalloc(&b, big / 2));
  CK(cudaMalloc(&sink, 16));
  CK(cudaMalloc(&clk, 16));
  fill_random(a, big);
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  const int threads = 256, blocks = sms * 8;
  const int reps = getenv("MEMBW_NCU") != nullptr ? 1 : smoke ? 3 : 7;
  printf("test,buffer_bytes,bytes_per_launch,launches,median_us,best_us,median_gbps,best_gbps,sm_mhz_in_kernel\n");

  auto run_read = [&](const char* name, size_t bytes, int passes) {
    std::vector<float> t;
    std::vector<double> mhz;
    size_t nvec = bytes / 16;
    read_kernel<<<blocks, threads>>>((const int4*)a, nvec, passes, sink, clk);  // warm-up
    CKL();
    CK(cudaDeviceSynchronize());
    for (int r = 0; r < reps; ++r) {
      t.push_back(event_us(e0, e1, [&] {
        read_kernel<<<blocks, threads>>>((const int4*)a, nvec, passes, sink, clk);
      }));
      unsigned long long h[2];
      CK(cudaMemcpy(h, clk, 16, cudaMemcpyDeviceToHost));
      mhz.push_back(h[1] ? (double)h[0] / (double)h[1] * 1000.0 : 0.0);
    }
    double moved = (double)bytes * passes;
    float med = median_of(t), best = *std::min_element(t.begin(), t.end());
    printf("%s,%zu,%.0f,%d,%.2f,%.2f,%.1f,%.1f,%.0f\n", name, bytes, moved, reps, med, best, moved / med / 1e3,
           moved / best / 1e3, median_of(mhz));
    fflush(stdout);
  };

  run_read("dram_read", big, 1);
  {
    std::vector<float> t;
    size_t bytes = big / 2;
    copy_kernel<<<blocks, threads>>>((const int4*)a, (int4*)b, bytes / 16);
    CKL();
    CK(cudaDeviceSynchronize());
    for (int r = 0; r < reps; ++r) {
      t.push_back(event_us(e0, e1, [&] {
        copy_kernel<<<blocks, threads>>>((const int4*)a, (int4*)b, bytes / 16);
      }));
    }
    double moved = 2.0 * bytes;  // read + write
    float med = median_of(t), best = *std::min_element(t.begin(), t.end());
    printf("dram_copy_rw,%zu,%.0f,%d,%.2f,%.2f,%.1f,%.1f,\n", bytes, moved, reps, med, best, moved / med / 1e3,
           moved / best / 1e3);
    fflush(stdout);
  }
  const int l2_mb[] = {2, 4, 8, 16, 24, 32, 40, 48, 56, 64, 96};
  for (int mb : l2_mb) {
    size_t bytes = size_t(mb) << 20;
    if (bytes > big) continue;
    int passes = (int)std::max<size_t>(1, (smoke ? (size_t(1) << 30) : (size_t(8) << 30)) / bytes);
    run_read("l2_read", bytes, passes);
  }
  CK(cudaFree(a));
  CK(cudaFree(b));
  return 0;
}
