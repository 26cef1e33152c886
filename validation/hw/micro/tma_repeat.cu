// Does a TMA read served by the far L2 partition leave a near copy, as an ld.global.cg read does
// (micro_l2_partition.csv: every line an SM read far is near for its partition afterwards)?
// micro_tma_issue.csv reads one L2-resident source per repetition and its n = 1 copy takes
// ~130 cycles longer than micro_tma_size.csv's (the same copy size, the same buffer offset, a
// different process), about the far-partition extra: a far source read over and over that stays
// far. For each target SM s and each mode: flush L2 (512 MiB read), then one thread on SM s reads
// each of N random lines P times (pass 0 from DRAM, passes 1.. from L2), one read at a time:
//   lsu: a dependent ld.global.cg (16 B), clock64 around it;
//   tma: mbarrier.arrive.expect_tx + one cp.async.bulk of the 128-B line + try_wait spin,
//        clock64 around it (as tma_size.cu).
// The same lines in every run, so a line's home partition shows as +~150 cycles on the SMs of
// one partition group only (SM 0's group holds SMs 0, 1, 6, 7; the other 2, 3, 4, 5).
// Columns: mode,smid,line,pass,cycles  (line = index into the fixed random line list)
#include "common.cuh"

__device__ __forceinline__ uint32_t smid() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
  return r;
}

// One CTA per SM (200 KB dynamic smem keeps it so); the CTA on SM `who` does the work.
__global__ void __launch_bounds__(32, 1)
    time_kernel(const uint8_t* __restrict__ base, const uint32_t* lines, int n, int passes, int tma,
                uint32_t who, long long* out, int* sink) {
  extern __shared__ __align__(128) uint8_t dyn[];
  __shared__ __align__(8) uint64_t bar;
  if (smid() != who || threadIdx.x != 0) return;
  mbar_init(&bar, 1);
  fence_mbar_init();
  uint32_t phase = 0;
  int acc = 0;
  for (int pass = 0; pass < passes; ++pass) {
    for (int i = 0; i < n; ++i) {
      const uint8_t* p = base + (size_t)lines[i] * 128 + (acc & 0x40000000);
      long long t0, t1;
      if (tma) {
        t0 = timed_bulk_load(dyn, p, 128, &bar);
        mbar_wait(&bar, phase);
        t1 = clock64();
        phase ^= 1;
        acc ^= dyn[i & 127] & 0x40;  // values are 0: keeps the next address unchanged
      } else {
        t0 = clock64();
        int4 v = __ldcg(reinterpret_cast<const int4*>(p));
        acc ^= v.x & 0x40000000;
        asm volatile("" ::"r"(acc));
        t1 = clock64();
      }
      out[pass * n + i] = t1 - t0;
    }
  }
  if (acc == 0x7fffffff) sink[0] = acc;
}

int main(int argc, char** argv) {
  bool smoke = argc > 1 && std::string(argv[1]) == "--smoke";
  const int n = smoke ? 32 : 192, passes = 4;
  const size_t region = size_t(64) << 20, flush_bytes = size_t(512) << 20;
  uint8_t *buf, *fl;
  int* sink;
  uint32_t* dlines;
  long long* dout;
  CK(cudaMalloc(&buf, region));
  CK(cudaMalloc(&fl, flush_bytes));
  CK(cudaMalloc(&sink, 16));
  CK(cudaMalloc(&dlines, n * sizeof(uint32_t)));
  CK(cudaMalloc(&dout, passes * n * sizeof(long long)));
  CK(cudaMemset(buf, 0, region));  // values 0: the dependent address offset stays 0
  fill_random(fl, flush_bytes, 37);
  std::vector<uint32_t> lines;
  add_random_lines(lines, n, (uint32_t)(region / 128));
  CK(cudaMemcpy(dlines, lines.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice));
  const int smem = 200 * 1024;
  CK(cudaFuncSetAttribute(time_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  const int sms = num_sms();
  printf("mode,smid,line,pass,cycles\n");
  std::vector<long long> h(passes * n);
  for (int s : {0, 2, 1, 3}) {
    for (int tma = 0; tma < 2; ++tma) {
      read_all_kernel<<<sms * 8, 256>>>((const int4*)fl, flush_bytes / 16, sink);
      CKL();
      time_kernel<<<sms, 32, smem>>>(buf, dlines, n, passes, tma, (uint32_t)s, dout, sink);
      CKL();
      CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(h.data(), dout, passes * n * sizeof(long long), cudaMemcpyDeviceToHost));
      for (int pass = 0; pass < passes; ++pass)
        for (int i = 0; i < n; ++i)
          printf("%s,%d,%d,%d,%lld\n", tma ? "tma" : "lsu", s, i, pass, h[pass * n + i]);
      fflush(stdout);
    }
  }
  return 0;
}
