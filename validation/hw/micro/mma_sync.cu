// mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 on one SM (clock64):
//  latency  : 1 warp, one dependent chain (D feeds C)      -> cycles per mma
//  issue    : 1 warp, 8 independent accumulators          -> cycles between issues
//  sm_tput  : W warps x 8 independent accumulators         -> mma per cycle per SM
// Columns: test,warps,chains,mma_per_warp,cycles,cycles_per_mma_per_warp,mma_per_cycle_sm,flop_per_cycle_sm
#include "common.cuh"

__device__ __forceinline__ void mma16816(float* d, const uint32_t* a, const uint32_t* b) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

template <int CHAINS>
__global__ void __launch_bounds__(1024) mma_kernel(int iters, long long* out, float* sink, uint32_t seed) {
  uint32_t a[4], b[2];
  for (int i = 0; i < 4; ++i) a[i] = 0x3C003C00u ^ ((seed + threadIdx.x * 7 + i) & 0x00FF00FFu);
  for (int i = 0; i < 2; ++i) b[i] = 0x3C003C00u ^ ((seed * 3 + threadIdx.x + i) & 0x00FF00FFu);
  float d[CHAINS][4];
#pragma unroll
  for (int c = 0; c < CHAINS; ++c)
    for (int j = 0; j < 4; ++j) d[c][j] = 0.f;
  __syncthreads();
  long long t0 = clock64();
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int u = 0; u < 4; ++u)
#pragma unroll
      for (int c = 0; c < CHAINS; ++c) mma16816(d[c], a, b);
  }
  __syncthreads();
  long long t1 = clock64();
  if (threadIdx.x == 0) out[0] = t1 - t0;
  float s = 0.f;
#pragma unroll
  for (int c = 0; c < CHAINS; ++c) s += d[c][0] + d[c][1] + d[c][2] + d[c][3];
  if (s == 1234.5f) sink[threadIdx.x] = s;
}

template <int CHAINS>
static void run(const char* name, int warps, int iters, long long* dout, float* sink) {
  std::vector<long long> v;
  for (int r = 0; r < 5; ++r) {
    mma_kernel<CHAINS><<<1, 32 * warps>>>(iters, dout, sink, 17 + r);
    CKL();
    CK(cudaDeviceSynchronize());
    long long h;
    CK(cudaMemcpy(&h, dout, sizeof(h), cudaMemcpyDeviceToHost));
    v.push_back(h);
  }
  long long cyc = median_of(v);
  double per_warp = (double)iters * 4 * CHAINS;
  printf("%s,%d,%d,%.0f,%lld,%.3f,%.3f,%.1f\n", name, warps, CHAINS, per_warp, cyc, cyc / per_warp,
         per_warp * warps / cyc, per_warp * warps * 2.0 * 16 * 8 * 16 / cyc);
  fflush(stdout);
}

int main(int argc, char** argv) {
  bool smoke = argc > 1 && std::string(argv[1]) == "--smoke";
  const int iters = smoke ? 64 : 1024;
  long long* dout;
  float* sink;
  CK(cudaMalloc(&dout, 16));
  CK(cudaMalloc(&sink, 1024 * sizeof(float)));
  printf("test,warps,chains,mma_per_warp,cycles,cycles_per_mma_per_warp,mma_per_cycle_sm,flop_per_cycle_sm\n");
  run<1>("latency", 1, iters, dout, sink);
  run<8>("issue", 1, iters, dout, sink);
  for (int w : {4, 8, 16, 32}) run<8>("sm_tput", w, iters / 4, dout, sink);
  return 0;
}
