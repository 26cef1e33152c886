// Where lsu.cu's chip-table CTAs land and when each finishes (asyncsim issue 4: with the side
// unit's faster fill modelled, a grid of 2 CTAs per SM puts 3 on each of SMs 124-131 and 1 on
// eight others; the model's st rows then run 16-20 % slower than micro_lsu.csv, because the
// 3-CTA SMs get no more of the saturated L2 than the others. Does the H200 place them so, and
// do those CTAs finish last?)
//
// lsu.cu's stream_kernel (the same loop, ld.global.cg / st.global int4, U in flight per thread)
// with thread 0 of every CTA recording %smid and globaltimer at entry (after the opening
// __syncthreads) and after the closing __syncthreads. Every SM x C CTAs x 256 threads (threads
// cap an SM at 8 CTAs; no shared memory). src=l2: 32 MiB read by all SMs first, then read or
// written 64 times inside the launch; src=dram: 2 GiB written once after a 512 MiB flush (st
// only). 3 launches after a warm-up; kernel_us = CUDA events around the launch.
// Columns: op,src,ctas_per_sm,unroll,launch,cta,smid,start_ns,end_ns,kernel_us
#include "common.cuh"

__device__ __forceinline__ int4 ldcg(const int4* p) {
  int4 v;
  asm volatile("ld.global.cg.v4.s32 {%0,%1,%2,%3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p));
  return v;
}
__device__ __forceinline__ void stg(int4* p, int4 v) {
  asm volatile("st.global.v4.s32 [%0], {%1,%2,%3,%4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z),
               "r"(v.w)
               : "memory");
}

__device__ __forceinline__ long long now_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return static_cast<long long>(t);
}

template <int U, bool kStore>
__global__ void stream_placed(int4* __restrict__ p, size_t nvec, int passes, int* sink, int* smid,
                              long long* t0, long long* t1) {
  const size_t tid = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  __syncthreads();
  if (threadIdx.x == 0) {
    uint32_t s;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
    smid[blockIdx.x] = static_cast<int>(s);
    t0[blockIdx.x] = now_ns();
  }
  int acc = 0;
#pragma unroll 1
  for (int ps = 0; ps < passes; ++ps) {
    size_t i = tid;
#pragma unroll 1
    while (i + (U - 1) * stride < nvec) {
      if (kStore) {
        int4 v = make_int4((int)i, ps, acc, 1);
#pragma unroll
        for (int u = 0; u < U; ++u) stg(p + i + u * stride, v);
      } else {
        int4 v[U];
#pragma unroll
        for (int u = 0; u < U; ++u) v[u] = ldcg(p + i + u * stride);
#pragma unroll
        for (int u = 0; u < U; ++u) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
      }
      i += U * stride + (acc == 0x7fffffff ? 1 : 0);
    }
  }
  if (acc == 0x7fffffff) sink[0] = acc;
  __syncthreads();
  if (threadIdx.x == 0) t1[blockIdx.x] = now_ns();
}

template <bool kStore>
static void launch(int u, int blocks, int4* p, size_t nvec, int passes, int* sink, int* sm,
                   long long* t0, long long* t1) {
  switch (u) {
    case 1: stream_placed<1, kStore><<<blocks, 256>>>(p, nvec, passes, sink, sm, t0, t1); break;
    case 8: stream_placed<8, kStore><<<blocks, 256>>>(p, nvec, passes, sink, sm, t0, t1); break;
    default: fprintf(stderr, "bad unroll %d\n", u); exit(1);
  }
  CKL();
}

int main(int argc, char** argv) {
  const bool smoke = argc > 1 && std::string(argv[1]) == "--smoke";
  const int sms = num_sms();
  const int cap = sms * 8;
  const size_t big = size_t(2) << 30, flush_bytes = size_t(512) << 20;
  uint8_t *buf, *fl;
  int *sink, *d_sm;
  long long *d_t0, *d_t1;
  CK(cudaMalloc(&buf, big));
  CK(cudaMalloc(&fl, flush_bytes));
  CK(cudaMalloc(&sink, 16));
  CK(cudaMalloc(&d_sm, cap * sizeof(int)));
  CK(cudaMalloc(&d_t0, cap * sizeof(long long)));
  CK(cudaMalloc(&d_t1, cap * sizeof(long long)));
  CK(cudaMemset(buf, 0, big));
  CK(cudaMemset(fl, 1, flush_bytes));
  std::vector<int> h_sm(cap);
  std::vector<long long> h_t0(cap), h_t1(cap);
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  printf("op,src,ctas_per_sm,unroll,launch,cta,smid,start_ns,end_ns,kernel_us\n");

  struct Point {
    bool st;
    bool l2;
    int ctas;
    int u;
  };
  const Point points[] = {{false, true, 2, 1}, {true, true, 2, 1}, {false, true, 2, 8},
                          {true, true, 2, 8},  {true, false, 2, 1}, {false, true, 8, 1},
                          {true, true, 8, 1}};
  for (const Point& pt : points) {
    const size_t bytes = pt.l2 ? (size_t(32) << 20) : big;
    const int passes = pt.l2 ? (smoke ? 4 : 64) : 1;
    const int grid = sms * pt.ctas;
    int4* p = (int4*)buf;
    for (int r = 0; r < (smoke ? 2 : 4); ++r) {
      if (pt.l2) {
        read_all_kernel<<<sms * 8, 256>>>((const int4*)p, bytes / 16, sink);
      } else {
        read_all_kernel<<<sms * 8, 256>>>((const int4*)fl, flush_bytes / 16, sink);
      }
      CKL();
      CK(cudaEventRecord(e0));
      if (pt.st) launch<true>(pt.u, grid, p, bytes / 16, passes, sink, d_sm, d_t0, d_t1);
      else launch<false>(pt.u, grid, p, bytes / 16, passes, sink, d_sm, d_t0, d_t1);
      CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1));
      float ms;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      if (r == 0) continue;  // warm-up
      CK(cudaMemcpy(h_sm.data(), d_sm, grid * sizeof(int), cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(h_t0.data(), d_t0, grid * sizeof(long long), cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(h_t1.data(), d_t1, grid * sizeof(long long), cudaMemcpyDeviceToHost));
      const long long base = *std::min_element(h_t0.begin(), h_t0.begin() + grid);
      for (int i = 0; i < grid; ++i) {
        printf("%s,%s,%d,%d,%d,%d,%d,%lld,%lld,%.2f\n", pt.st ? "st" : "ld", pt.l2 ? "l2" : "dram",
               pt.ctas, pt.u, r - 1, i, h_sm[i], h_t0[i] - base, h_t1[i] - base, ms * 1000.f);
      }
      fflush(stdout);
    }
  }
  return 0;
}
