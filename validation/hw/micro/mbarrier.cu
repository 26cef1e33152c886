// mbarrier costs, one CTA on one SM, clock64:
//  arrive            : back-to-back mbarrier.arrive by one thread (barrier never completes)
//  test_wait_done    : dependent chain of test_wait on an already completed phase
//  try_wait_done     : dependent chain of try_wait on an already completed phase
//  test_wait_pending : dependent chain of test_wait on a phase that never completes
//  try_wait_pending  : dependent chain of try_wait on a phase that never completes
//                      (each returns false after the hardware's suspend window)
//  wake_try / wake_test : one warp arrives (clock t_a), another warp spins with
//                      try_wait / test_wait and reads the clock when it sees the
//                      phase flip; cycles = t_seen - t_a (same SM clock), per sample
//  pingpong_try      : two warps ping-pong over two mbarriers; cycles per one-way hand-off
// Columns: test,samples,median_cycles,min_cycles,p90_cycles
#include "common.cuh"

#define NCHAIN 256

__global__ void chain_kernel(int test, long long* out, int reps) {
  __shared__ __align__(8) uint64_t bar_done, bar_pend;
  if (threadIdx.x != 0) return;
  mbar_init(&bar_done, 1);
  mbar_init(&bar_pend, (1 << 20) - 1);
  fence_mbar_init();
  mbar_arrive(&bar_done);  // phase 0 of bar_done completes
  for (int r = 0; r < reps; ++r) {
    uint32_t par = 0;
    long long t0 = clock64();
    if (test == 0) {
      for (int i = 0; i < NCHAIN; ++i) mbar_arrive(&bar_pend);
    } else if (test == 1) {
      for (int i = 0; i < NCHAIN; ++i) par ^= mbar_test_wait(&bar_done, par) ? 0u : 1u;
    } else if (test == 2) {
      for (int i = 0; i < NCHAIN; ++i) par ^= mbar_try_wait(&bar_done, par) ? 0u : 1u;
    } else if (test == 3) {
      for (int i = 0; i < NCHAIN / 8; ++i) par ^= mbar_test_wait(&bar_pend, par) ? 1u : 0u;
    } else {
      for (int i = 0; i < NCHAIN / 8; ++i) par ^= mbar_try_wait(&bar_pend, par) ? 1u : 0u;
    }
    long long t1 = clock64();
    out[r] = (t1 - t0) * 1000 / ((test >= 3) ? NCHAIN / 8 : NCHAIN) + (par == 7 ? 1 : 0);  // milli-cycles/op
  }
}

// wake latency: warp 0 lane 0 arrives, warp 1 lane 0 spins.
__global__ void wake_kernel(int use_try, int reps, long long* out) {
  __shared__ __align__(8) uint64_t bar[2];
  __shared__ long long t_arrive[64], t_seen[64];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (threadIdx.x == 0) {
    mbar_init(&bar[0], 1);
    mbar_init(&bar[1], 1);
    fence_mbar_init();
  }
  __syncthreads();
  for (int r = 0; r < reps; ++r) {
    uint32_t par = r & 1;
    if (warp == 0 && lane == 0) {
      // let the waiter start spinning
      long long s = clock64();
      while (clock64() - s < 2000) {
      }
      t_arrive[r] = clock64();
      mbar_arrive(&bar[0]);
      mbar_wait(&bar[1], par);  // waiter acknowledges
    } else if (warp == 1 && lane == 0) {
      if (use_try) {
        while (!mbar_try_wait(&bar[0], par)) {
        }
      } else {
        while (!mbar_test_wait(&bar[0], par)) {
        }
      }
      t_seen[r] = clock64();
      mbar_arrive(&bar[1]);
    }
  }
  __syncthreads();
  if (threadIdx.x == 0)
    for (int r = 0; r < reps; ++r) out[r] = t_seen[r] - t_arrive[r];
}

// ping-pong: one-way hand-off = total / (2*iters)
__global__ void pingpong_kernel(int iters, long long* out) {
  __shared__ __align__(8) uint64_t bar[2];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (threadIdx.x == 0) {
    mbar_init(&bar[0], 1);
    mbar_init(&bar[1], 1);
    fence_mbar_init();
  }
  __syncthreads();
  long long t0 = clock64();
  if (lane == 0 && warp < 2) {
    for (int i = 0; i < iters; ++i) {
      uint32_t par = i & 1;
      if (warp == 0) {
        mbar_arrive(&bar[0]);
        mbar_wait(&bar[1], par);
      } else {
        mbar_wait(&bar[0], par);
        mbar_arrive(&bar[1]);
      }
    }
  }
  long long t1 = clock64();
  if (threadIdx.x == 0) out[0] = t1 - t0;
}

static void report(const char* name, std::vector<long long> v, double scale) {
  v.erase(v.begin());  // first repetition: cold
  printf("%s,%zu,%.2f,%.2f,%.2f\n", name, v.size(), median_of(v) * scale,
         *std::min_element(v.begin(), v.end()) * scale, pct_of(v, 0.9) * scale);
  fflush(stdout);
}

int main(int argc, char** argv) {
  bool smoke = argc > 1 && std::string(argv[1]) == "--smoke";
  const int reps = smoke ? 4 : 33;
  long long* dout;
  CK(cudaMalloc(&dout, 64 * sizeof(long long)));
  printf("test,samples,median_cycles,min_cycles,p90_cycles\n");
  const char* names[] = {"arrive", "test_wait_done", "try_wait_done", "test_wait_pending", "try_wait_pending"};
  for (int t = 0; t < 5; ++t) {
    chain_kernel<<<1, 32>>>(t, dout, reps);
    CKL();
    CK(cudaDeviceSynchronize());
    std::vector<long long> v(reps);
    CK(cudaMemcpy(v.data(), dout, reps * sizeof(long long), cudaMemcpyDeviceToHost));
    report(names[t], v, 1e-3);
  }
  const int wreps = smoke ? 8 : 64;
  for (int u = 1; u >= 0; --u) {
    wake_kernel<<<1, 64>>>(u, wreps, dout);
    CKL();
    CK(cudaDeviceSynchronize());
    std::vector<long long> v(wreps);
    CK(cudaMemcpy(v.data(), dout, wreps * sizeof(long long), cudaMemcpyDeviceToHost));
    report(u ? "wake_try" : "wake_test", v, 1.0);
  }
  {
    std::vector<long long> v;
    const int iters = 1000;
    for (int r = 0; r < (smoke ? 3 : 11); ++r) {
      pingpong_kernel<<<1, 64>>>(iters, dout);
      CKL();
      CK(cudaDeviceSynchronize());
      long long h;
      CK(cudaMemcpy(&h, dout, sizeof(long long), cudaMemcpyDeviceToHost));
      v.push_back(h);
    }
    report("pingpong_try_oneway", v, 1.0 / (2.0 * iters));
  }
  return 0;
}
