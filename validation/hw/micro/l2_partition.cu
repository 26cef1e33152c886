// Which L2 partition each SM sits in, and whether a far read leaves a near copy (asyncsim issues
// 4/5: the model puts GPCs 0-3 in partition 0 and copies every far read into the near
// partition, Sim-FA's remote-copy proxy; micro_tma_align_burst.csv contradicts that pair).
// For every target SM s: flush L2 (512 MiB read), then a helper CTA on SM `helper` reads N
// lines once (they are now in L2: at their home slice, and in the helper's partition if far
// reads leave copies), then one thread on SM s reads each line twice (pass 0, then pass 1 after
// all of pass 0), timing each dependent ld.global.cg with clock64. Lines homed in the other
// partition than s read far (~150 cycles more) unless a copy near s exists.
// Columns: helper,smid,line,pass,cycles  (line = index into the fixed random line list)
#include "common.cuh"

// One CTA per SM (1 KB of static smem and 200 KB dynamic keep it so); the CTA on SM `who`
// does the work.
__device__ __forceinline__ uint32_t smid() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
  return r;
}

__global__ void __launch_bounds__(32, 1)
    touch_kernel(const int4* __restrict__ base, const uint32_t* lines, int n, uint32_t who, int* sink) {
  extern __shared__ uint8_t pad[];
  if (smid() != who || threadIdx.x != 0) return;
  int acc = 0;
  for (int i = 0; i < n; ++i) {
    int4 v = __ldcg(base + (size_t)lines[i] * 8);
    acc ^= v.x;
  }
  if (acc == 0x7fffffff) sink[0] = acc + pad[0];
}

__global__ void __launch_bounds__(32, 1)
    time_kernel(const int4* __restrict__ base, const uint32_t* lines, int n, uint32_t who,
                long long* out, int* sink) {
  extern __shared__ uint8_t pad[];
  if (smid() != who || threadIdx.x != 0) return;
  int acc = 0;
  for (int pass = 0; pass < 2; ++pass) {
    for (int i = 0; i < n; ++i) {
      // The address depends on the previous load's value (always 0 here), so loads do not overlap.
      const int4* p = base + (size_t)lines[i] * 8 + (acc & 0x40000000);
      const long long t0 = clock64();
      int4 v = __ldcg(p);
      acc ^= v.x & 0x40000000;
      asm volatile("" ::"r"(acc));
      const long long t1 = clock64();
      out[pass * n + i] = t1 - t0;
    }
  }
  if (acc == 0x7fffffff) sink[0] = acc + pad[0];
}

int main(int argc, char** argv) {
  bool smoke = argc > 1 && std::string(argv[1]) == "--smoke";
  // --contiguous: 1024 consecutive lines from 1 MiB into the region instead of 192 random ones,
  // timed from 4 SMs of each partition group (micro_l2_partition.csv: SM 0's group holds SMs 0,
  // 1, 6, 7, the other 2, 3, 4, 5): how finely the address space alternates between partitions.
  const bool contiguous = argc > 1 && std::string(argv[argc - 1]) == "--contiguous";
  const int sms = num_sms();
  const int n = contiguous ? 1024 : smoke ? 32 : 192;
  const size_t region = size_t(64) << 20, flush_bytes = size_t(512) << 20;
  uint8_t *buf, *fl;
  int* sink;
  uint32_t* dlines;
  long long* dout;
  CK(cudaMalloc(&buf, region));
  CK(cudaMalloc(&fl, flush_bytes));
  CK(cudaMalloc(&sink, 16));
  CK(cudaMalloc(&dlines, n * sizeof(uint32_t)));
  CK(cudaMalloc(&dout, 2 * n * sizeof(long long)));
  CK(cudaMemset(buf, 0, region));  // values 0: the dependent address offset stays 0
  fill_random(fl, flush_bytes, 31);
  // Distinct random lines of the 64 MiB region.
  std::vector<uint32_t> lines;
  for (int i = 0; contiguous && i < n; ++i) lines.push_back(8192u + (uint32_t)i);
  add_random_lines(lines, n, (uint32_t)(region / 128));
  CK(cudaMemcpy(dlines, lines.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice));
  const int smem = 200 * 1024;
  CK(cudaFuncSetAttribute(touch_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  CK(cudaFuncSetAttribute(time_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  printf("helper,smid,line,pass,cycles\n");
  std::vector<int> helpers = {0};
  std::vector<int> targets;
  if (contiguous) {
    targets = {0, 1, 6, 7, 2, 3, 4, 5};
  } else {
    for (int s = 0; s < sms; s += smoke ? 33 : 1) targets.push_back(s);
  }
  std::vector<long long> h(2 * n);
  for (int helper : helpers) {
    for (int s : targets) {
      read_all_kernel<<<sms * 8, 256>>>((const int4*)fl, flush_bytes / 16, sink);
      CKL();
      touch_kernel<<<sms, 32, smem>>>((const int4*)buf, dlines, n, (uint32_t)helper, sink);
      CKL();
      time_kernel<<<sms, 32, smem>>>((const int4*)buf, dlines, n, (uint32_t)s, dout, sink);
      CKL();
      CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(h.data(), dout, 2 * n * sizeof(long long), cudaMemcpyDeviceToHost));
      for (int pass = 0; pass < 2; ++pass)
        for (int i = 0; i < n; ++i) printf("%d,%d,%d,%d,%lld\n", helper, s, i, pass, h[pass * n + i]);
    }
  }
  return 0;
}
