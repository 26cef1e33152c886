// Where the CTAs of a many-CTAs-per-SM grid land, and what that does to a kernel whose early
// CTAs alone have work (asyncsim issue 4: micro_mem_bw.csv's l2_read at 2 MiB, where only the
// first 512 of 1056 CTAs load anything, runs 35 % slower than a model that spreads those CTAs
// 4 per SM).
//
// table=dispatch: one launch of grid = SMs x k CTAs of 256 threads (threads limit an SM to 8),
// no shared memory; each CTA records %smid and its globaltimer at entry and stays 100 us.
// k = 3, 4, 8; k = 8 twice (is the placement the same launch to launch?).
// table=l2_read: mem_bw.cu's read_kernel (same loop, same ld.global.cg, SMs x 8 CTAs x 256
// threads) on an L2-resident buffer of B bytes (4 KB .. 4 MiB: the first B / 4 KB CTAs have work), 2048 passes; thread 0 of every CTA records %smid
// and globaltimer at entry, and after a __syncthreads at the end; 3 launches after a warm-up.
// kernel_us = CUDA events around the launch.
// Columns: table,k_or_bytes,launch,cta,smid,start_ns,end_ns,kernel_us
#include "common.cuh"

__global__ void where_am_i(int* smid, long long* t_ns) {
  uint32_t s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  if (threadIdx.x == 0) {
    smid[blockIdx.x] = static_cast<int>(s);
    t_ns[blockIdx.x] = static_cast<long long>(t);
  }
  uint64_t t1;
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
  } while (t1 - t < 100000);
}

// mem_bw.cu's read_kernel with the per-CTA record added around it.
__global__ void read_kernel_placed(const int4* __restrict__ p, size_t nvec, int passes, int* sink,
                                   int* smid, long long* t0, long long* t1) {
  if (threadIdx.x == 0) {
    uint32_t s;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    smid[blockIdx.x] = static_cast<int>(s);
    t0[blockIdx.x] = static_cast<long long>(t);
  }
  size_t tid = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  size_t stride = (size_t)gridDim.x * blockDim.x;
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
  __syncthreads();
  if (threadIdx.x == 0) {
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    t1[blockIdx.x] = static_cast<long long>(t);
  }
}

int main(int argc, char** argv) {
  bool smoke = argc > 1 && std::string(argv[1]) == "--smoke";
  const int sms = num_sms();
  const int cap = sms * 8;
  int *d_sm, *sink;
  long long *d_t0, *d_t1;
  CK(cudaMalloc(&d_sm, cap * sizeof(int)));
  CK(cudaMalloc(&d_t0, cap * sizeof(long long)));
  CK(cudaMalloc(&d_t1, cap * sizeof(long long)));
  CK(cudaMalloc(&sink, 16));
  std::vector<int> h_sm(cap);
  std::vector<long long> h_t0(cap), h_t1(cap);
  printf("table,k_or_bytes,launch,cta,smid,start_ns,end_ns,kernel_us\n");

  const int ks[] = {3, 4, 8, 8};
  for (int li = 0; li < 4; ++li) {
    const int grid = sms * ks[li];
    where_am_i<<<grid, 256>>>(d_sm, d_t0);
    CKL();
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(h_sm.data(), d_sm, grid * sizeof(int), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(h_t0.data(), d_t0, grid * sizeof(long long), cudaMemcpyDeviceToHost));
    const long long base = *std::min_element(h_t0.begin(), h_t0.begin() + grid);
    for (int i = 0; i < grid; ++i) {
      printf("dispatch,%d,%d,%d,%d,%lld,,\n", ks[li], li, i, h_sm[i], h_t0[i] - base);
    }
  }

  const size_t big = size_t(4) << 20;
  void* a;
  CK(cudaMalloc(&a, big));
  fill_random(a, big);
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  const int grid = sms * 8, passes = smoke ? 64 : 2048;
  // G x 4 KB puts work in the first G CTAs only (one int4 per thread per pass)
  const size_t sizes[] = {size_t(1) << 12,   size_t(8) << 12,   size_t(32) << 12, size_t(64) << 12,
                          size_t(128) << 12, size_t(192) << 12, size_t(1) << 20,  size_t(2) << 20,
                          size_t(3) << 20,   size_t(4) << 20};
  for (size_t bytes : sizes) {
    const size_t nvec = bytes / 16;
    read_kernel_placed<<<grid, 256>>>((const int4*)a, nvec, passes, sink, d_sm, d_t0, d_t1);
    CKL();
    CK(cudaDeviceSynchronize());
    for (int launch = 0; launch < 3; ++launch) {
      CK(cudaEventRecord(e0));
      read_kernel_placed<<<grid, 256>>>((const int4*)a, nvec, passes, sink, d_sm, d_t0, d_t1);
      CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1));
      CKL();
      float ms;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      CK(cudaMemcpy(h_sm.data(), d_sm, grid * sizeof(int), cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(h_t0.data(), d_t0, grid * sizeof(long long), cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(h_t1.data(), d_t1, grid * sizeof(long long), cudaMemcpyDeviceToHost));
      const long long base = *std::min_element(h_t0.begin(), h_t0.begin() + grid);
      for (int i = 0; i < grid; ++i) {
        printf("l2_read,%zu,%d,%d,%d,%lld,%lld,%.2f\n", bytes, launch, i, h_sm[i], h_t0[i] - base,
               h_t1[i] - base, ms * 1000.f);
      }
      fflush(stdout);
    }
  }
  CK(cudaFree(a));
  return 0;
}
