// Shared by tma_touch.cu, tma_tail.cu, tma_partition.cu and tma_linemap.cu: kernels that run
// on one chosen SM. Launch one CTA per SM (dynamic shared memory large enough that only one
// fits); the CTA on SM `target` works, the others exit.
#pragma once
#include "common.cuh"

// True in thread 0 of the CTA on SM `target`, which also writes its SM to *ran.
__device__ __forceinline__ bool timing_thread_on(int target, int* ran) {
  int id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  if (id != target || threadIdx.x != 0) return false;
  *ran = id;
  return true;
}

// After a launch of one of the kernels below (with *ran set to -1 before it): waits for it and
// says whether a CTA ran on SM `target`, printing why not.
static bool ran_on(const int* ran, int target) {
  CK(cudaDeviceSynchronize());
  int id = -1;
  CK(cudaMemcpy(&id, ran, 4, cudaMemcpyDeviceToHost));
  if (id != target) fprintf(stderr, "no CTA ran on SM %d\n", target);
  return id == target;
}

// One CTA per SM (large dynamic smem); only the CTA on SM `target` works.
__global__ void self_read_kernel(const int4* __restrict__ p, size_t nvec, int target, int* sink) {
  int id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  if (id != target) return;
  int acc = 0;
  for (size_t i = threadIdx.x; i < nvec; i += blockDim.x) {
    int4 a = __ldcg(p + i);
    acc ^= a.x ^ a.w;
  }
  if (acc == 0x7fffffff) sink[0] = acc;
}

// Thread 0 of the CTA on SM `target` times n TMA 2-D loads of the tiles at `coords` (clock64,
// arrive.expect_tx and the copy in one asm block; then the wait: try_wait spin, or test_wait
// spin when `test`), and writes its SM to *ran. The coordinates are first copied into shared
// memory (64 KB into the dynamic buffer, n <= 8192): until 27f2b86 each iteration loaded the
// next tile's from global memory between the copy and the closing clock, and the clock waited
// for that load, so every fourth sample (an L1 miss every four 8-B coordinates) ended with the
// load's L2 round trip rather than its copy (validation/README.md, "Near and far lines by TMA";
// micro_tma_touch.csv, micro_tma_tail.csv and micro_tma_partition*.csv were taken so).
__global__ void __launch_bounds__(32, 1)
    tma2d_on_sm_kernel(const __grid_constant__ CUtensorMap map, const int2* __restrict__ coords, int n,
                uint32_t box_bytes, int target, int test, long long* out, int* ran) {
  extern __shared__ __align__(1024) uint8_t dsm[];
  __shared__ __align__(8) uint64_t bar;
  if (!timing_thread_on(target, ran)) return;
  mbar_init(&bar, 1);
  fence_mbar_init();
  prefetch_tmap(&map);
  int2* sc = reinterpret_cast<int2*>(dsm + 65536);
  for (int i = 0; i < n; ++i) sc[i] = coords[i];
  uint32_t phase = 0;
  int2 c = sc[0];
  for (int i = 0; i < n; ++i) {
    long long t0, t1;
    asm volatile(
        "{\n"
        "mov.u64 %0, %%clock64;\n"
        "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%3], %4;\n"
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%1], [%2, {%5, %6}], [%3];\n"
        "}\n"
        : "=l"(t0)
        : "r"(smem_u32(dsm)), "l"(reinterpret_cast<uint64_t>(&map)), "r"(smem_u32(&bar)), "r"(box_bytes),
          "r"(c.x), "r"(c.y)
        : "memory");
    int2 cn = sc[i + 1 < n ? i + 1 : i];
    if (test) {
      while (!mbar_test_wait(&bar, phase)) {
      }
    } else {
      mbar_wait(&bar, phase);
    }
    t1 = clock64();
    phase ^= 1;
    out[i] = t1 - t0;
    c = cn;
  }
}

// Thread 0 of the CTA on SM `target` times a dependent ld.global.cg (bulk = 0) or a 1-D
// cp.async.bulk of 128 B + try_wait spin (bulk = 1) of each of n lines: line i is column
// coords[i].x (fp16) of row coords[i].y of 8 KB rows from `base`. The coordinates are read
// before each sample's opening clock.
__global__ void __launch_bounds__(32, 1)
    line_on_sm_kernel(const int4* __restrict__ base, const int2* __restrict__ coords, int n, int target,
                      int bulk, long long* out, int* ran) {
  extern __shared__ __align__(1024) uint8_t dsm[];
  __shared__ __align__(8) uint64_t bar;
  if (!timing_thread_on(target, ran)) return;
  mbar_init(&bar, 1);
  fence_mbar_init();
  uint32_t phase = 0;
  int acc = 0;
  for (int i = 0; i < n; ++i) {
    // 16-B vector (y * 8192 + x * 2) / 16; acc is always 0 (it orders the dependent loads).
    const int4* p = base + ((size_t)coords[i].y * 512 + coords[i].x / 8) + (acc & 0x40000000);
    if (bulk) {
      const long long t0 = timed_bulk_load(dsm, p, 128, &bar);
      mbar_wait(&bar, phase);
      out[i] = clock64() - t0;
      phase ^= 1;
      continue;
    }
    const long long t0 = clock64();
    int4 v = __ldcg(p);
    acc ^= v.x & 0x40000000;
    asm volatile("" ::"r"(acc));
    out[i] = clock64() - t0;
  }
}
