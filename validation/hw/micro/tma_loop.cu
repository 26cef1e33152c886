// Where one issuing thread's time goes in a TMA copy loop (tma_bw's 1-CTA rows run at one copy
// per ~210-240 cycles, ~70 more than try_wait + expect_tx + the issue gap measured alone).
// 1 thread, `slots` mbarriers, one copy per slot from an L2-resident source:
//   issue      per slot: mbarrier.arrive.expect_tx + copy issue (no wait)
//   wait_try   per slot: try_wait on the slot's completed phase + expect_tx + issue
//   wait_test  the same with test_wait
//   wait_only  per slot: try_wait on the completed phase alone (the copies are issued untimed)
//   steady     tma_bw's loop (wait for the slot's previous copy, expect_tx, issue) run for 8
//              rounds of the ring; cycles per iteration over rounds 2..8; grid=1: one CTA on one
//              SM, grid=SMs: every SM (median over CTAs), as tma_bw's 1-CTA rows
// clock64 around the timed loop / slots; reps of the non-steady tests: 16, first dropped.
// Columns: test,copy,bytes,slots,grid,samples,median_cycles,min_cycles,max_cycles
#include "common.cuh"

template <int MODE>
__device__ __forceinline__ void issue_copy(uint8_t* dst, const CUtensorMap* map, const uint8_t* src,
                                           uint32_t bytes, unsigned long long u, uint64_t* bar) {
  if (MODE == 0) {
    bulk_g2s(dst, src + u * bytes, bytes, bar);
  } else if (MODE == 1) {
    tma_load_1d(dst, map, (int)(u << 8), bar);
  } else {
    // fp16 box 64 x (bytes / 128) rows over [rows x 4096] (8 KB rows)
    const uint32_t h = bytes / 128;
    tma_load_2d(dst, map, (int)((u & 63) << 6), (int)((u >> 6) * h), bar);
  }
}

// test: 0 issue, 1 wait_try, 2 wait_test, 3 wait_only
template <int MODE>
__global__ void __launch_bounds__(32, 1)
    loop_kernel(const __grid_constant__ CUtensorMap map, const uint8_t* __restrict__ src, uint32_t bytes,
                int slots, int test, int reps, long long* out) {
  extern __shared__ __align__(1024) uint8_t dsm[];
  __shared__ __align__(8) uint64_t bars[64];
  if (threadIdx.x != 0) return;
  for (int s = 0; s < slots; ++s) mbar_init(&bars[s], 1);
  fence_mbar_init();
  if (MODE != 0) prefetch_tmap(&map);
  unsigned long long u = 0;
  for (int r = 0; r < reps; ++r) {
    const uint32_t prev = (uint32_t)(r - 1) & 1u, cur = (uint32_t)r & 1u;
    long long t0 = 0, t1 = 0;
    if (test == 3) {
      t0 = clock64();
      if (r > 0)
        for (int s = 0; s < slots; ++s) mbar_wait(&bars[s], prev);
      t1 = clock64();
      for (int s = 0; s < slots; ++s) {
        mbar_expect_tx(&bars[s], bytes);
        issue_copy<MODE>(dsm + (uint32_t)s * bytes, &map, src, bytes, u++ & 255, &bars[s]);
      }
    } else {
      t0 = clock64();
      for (int s = 0; s < slots; ++s) {
        if (r > 0 && test == 1) mbar_wait(&bars[s], prev);
        if (r > 0 && test == 2)
          while (!mbar_test_wait(&bars[s], prev)) {
          }
        mbar_expect_tx(&bars[s], bytes);
        issue_copy<MODE>(dsm + (uint32_t)s * bytes, &map, src, bytes, u++ & 255, &bars[s]);
      }
      t1 = clock64();
    }
    for (int s = 0; s < slots; ++s) mbar_wait(&bars[s], cur);
    out[r] = t1 - t0;
  }
}

// tma_bw's loop: `iters` copies through the ring; out[blockIdx.x] = cycles from iteration 2 *
// slots to the end, per iteration.
template <int MODE>
__global__ void __launch_bounds__(32, 1)
    steady_kernel(const __grid_constant__ CUtensorMap map, const uint8_t* __restrict__ src, uint32_t bytes,
                  int slots, int iters, long long T, long long* out) {
  extern __shared__ __align__(1024) uint8_t dsm[];
  __shared__ __align__(8) uint64_t bars[64];
  if (threadIdx.x != 0) return;
  for (int s = 0; s < slots; ++s) mbar_init(&bars[s], 1);
  fence_mbar_init();
  if (MODE != 0) prefetch_tmap(&map);
  const long long G = gridDim.x;
  long long t = blockIdx.x;
  int s = 0;
  uint32_t round = 0;
  long long t0 = 0;
  for (int i = 0; i < iters; ++i) {
    if (i == 2 * slots) t0 = clock64();
    if (round > 0) mbar_wait(&bars[s], (round - 1) & 1);
    mbar_expect_tx(&bars[s], bytes);
    issue_copy<MODE>(dsm + (uint32_t)s * bytes, &map, src, bytes, (unsigned long long)t, &bars[s]);
    t += G;
    if (t >= T) t -= T;
    if (++s == slots) {
      s = 0;
      ++round;
    }
  }
  const long long t1 = clock64();
  for (int s2 = 0; s2 < slots; ++s2) {
    uint32_t uses = round + (s2 < s ? 1u : 0u);
    if (uses > 0) mbar_wait(&bars[s2], (uses - 1) & 1);
  }
  out[blockIdx.x] = (t1 - t0) / (iters - 2 * slots);
}

static const char* kCopy[] = {"bulk", "tensor1d", "tensor2d"};

template <int MODE>
static void run(uint8_t* buf, size_t buf_bytes, uint32_t bytes, int slots, int sms, long long* dout) {
  CUtensorMap map;
  memset(&map, 0, sizeof(map));
  if (MODE == 1) {
    uint64_t dims[1] = {buf_bytes / 8};
    uint64_t str[1] = {16};
    uint32_t box[1] = {256};
    map = make_tmap(buf, 1, dims, str, box, CU_TENSOR_MAP_DATA_TYPE_UINT64);
  } else if (MODE == 2) {
    uint64_t dims[2] = {4096, buf_bytes / 8192};
    uint64_t str[1] = {8192};
    uint32_t box[2] = {64, bytes / 128};
    map = make_tmap(buf, 2, dims, str, box);
  }
  const size_t smem = (size_t)slots * bytes;
  CK(cudaFuncSetAttribute(loop_kernel<MODE>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  CK(cudaFuncSetAttribute(steady_kernel<MODE>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  const char* names[] = {"issue", "wait_try", "wait_test", "wait_only"};
  const int reps = 16;
  for (int test = 0; test < 4; ++test) {
    read_all_kernel<<<sms * 8, 256>>>((const int4*)buf, buf_bytes / 16, (int*)(dout + 4096));
    loop_kernel<MODE><<<1, 32, smem>>>(map, buf, bytes, slots, test, reps, dout);
    CKL();
    CK(cudaDeviceSynchronize());
    std::vector<long long> v(reps);
    CK(cudaMemcpy(v.data(), dout, reps * sizeof(long long), cudaMemcpyDeviceToHost));
    std::vector<double> w;
    for (int r = 1; r < reps; ++r) w.push_back((double)v[r] / slots);
    printf("%s,%s,%u,%d,1,%zu,%.1f,%.1f,%.1f\n", names[test], kCopy[MODE], bytes, slots, w.size(), median_of(w),
           *std::min_element(w.begin(), w.end()), *std::max_element(w.begin(), w.end()));
    fflush(stdout);
  }
  const long long T = (long long)(buf_bytes / bytes);
  for (int grid : {1, sms}) {
    read_all_kernel<<<sms * 8, 256>>>((const int4*)buf, buf_bytes / 16, (int*)(dout + 4096));
    steady_kernel<MODE><<<grid, 32, smem>>>(map, buf, bytes, slots, 8 * slots, T, dout);
    CKL();
    CK(cudaDeviceSynchronize());
    std::vector<long long> v(grid);
    CK(cudaMemcpy(v.data(), dout, grid * sizeof(long long), cudaMemcpyDeviceToHost));
    printf("steady,%s,%u,%d,%d,%d,%lld,%lld,%lld\n", kCopy[MODE], bytes, slots, grid, grid, median_of(v),
           *std::min_element(v.begin(), v.end()), *std::max_element(v.begin(), v.end()));
    fflush(stdout);
  }
}

int main(int argc, char** argv) {
  (void)argc;
  (void)argv;
  const int sms = num_sms();
  const size_t buf_bytes = size_t(32) << 20;  // L2-resident source, as tma_bw's l2 rows
  uint8_t* buf;
  long long* dout;
  CK(cudaMalloc(&buf, buf_bytes));
  CK(cudaMalloc(&dout, 8192 * sizeof(long long)));
  fill_random(buf, buf_bytes, 7);
  printf("test,copy,bytes,slots,grid,samples,median_cycles,min_cycles,max_cycles\n");
  run<0>(buf, buf_bytes, 1024, 32, sms, dout);
  run<0>(buf, buf_bytes, 4096, 32, sms, dout);
  run<0>(buf, buf_bytes, 8192, 16, sms, dout);
  run<1>(buf, buf_bytes, 2048, 64, sms, dout);
  run<2>(buf, buf_bytes, 4096, 32, sms, dout);
  run<2>(buf, buf_bytes, 8192, 16, sms, dout);
  CK(cudaFree(buf));
  CK(cudaFree(dout));
  return 0;
}
