// MUFU ex2 (ex2.approx.ftz.f32) and, for reference, FFMA on one SM (clock64):
//  latency : 1 thread, one dependent chain                      -> cycles per op
//  tput    : 1024 threads (32 warps) x 8 independent chains     -> ops per cycle per SM
// Columns: op,test,threads,chains,ops_per_thread,cycles,cycles_per_op_per_thread,ops_per_cycle_sm
#include "common.cuh"

template <int OP>
__device__ __forceinline__ float f(float x) {
  float y;
  if (OP == 0)
    asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  else
    asm volatile("fma.rn.f32 %0, %1, %1, %1;" : "=f"(y) : "f"(x));
  return y;
}

template <int OP, int CHAINS>
__global__ void __launch_bounds__(1024) op_kernel(int iters, long long* out, float* sink, float seed) {
  float x[CHAINS];
#pragma unroll
  for (int c = 0; c < CHAINS; ++c) x[c] = seed * (float)(threadIdx.x + c) * 1e-6f - 0.5f;
  __syncthreads();
  long long t0 = clock64();
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int u = 0; u < 8; ++u)
#pragma unroll
      for (int c = 0; c < CHAINS; ++c) x[c] = f<OP>(x[c]);
  }
  __syncthreads();
  long long t1 = clock64();
  if (threadIdx.x == 0) out[0] = t1 - t0;
  float s = 0.f;
#pragma unroll
  for (int c = 0; c < CHAINS; ++c) s += x[c];
  if (s == 1234.5f) sink[threadIdx.x] = s;
}

template <int OP, int CHAINS>
static void run(const char* op, const char* test, int threads, int iters, long long* dout, float* sink) {
  std::vector<long long> v;
  for (int r = 0; r < 5; ++r) {
    op_kernel<OP, CHAINS><<<1, threads>>>(iters, dout, sink, 1.0f + r);
    CKL();
    CK(cudaDeviceSynchronize());
    long long h;
    CK(cudaMemcpy(&h, dout, sizeof(h), cudaMemcpyDeviceToHost));
    v.push_back(h);
  }
  long long cyc = median_of(v);
  double per = (double)iters * 8 * CHAINS;
  printf("%s,%s,%d,%d,%.0f,%lld,%.3f,%.3f\n", op, test, threads, CHAINS, per, cyc, cyc / per, per * threads / cyc);
  fflush(stdout);
}

int main(int argc, char** argv) {
  bool smoke = argc > 1 && std::string(argv[1]) == "--smoke";
  const int iters = smoke ? 32 : 512;
  long long* dout;
  float* sink;
  CK(cudaMalloc(&dout, 16));
  CK(cudaMalloc(&sink, 1024 * sizeof(float)));
  printf("op,test,threads,chains,ops_per_thread,cycles,cycles_per_op_per_thread,ops_per_cycle_sm\n");
  run<0, 1>("ex2", "latency", 1, iters, dout, sink);
  run<0, 8>("ex2", "tput", 1024, iters / 4, dout, sink);
  run<0, 8>("ex2", "tput", 512, iters / 4, dout, sink);
  run<1, 1>("ffma", "latency", 1, iters, dout, sink);
  run<1, 8>("ffma", "tput", 1024, iters / 4, dout, sink);
  return 0;
}
