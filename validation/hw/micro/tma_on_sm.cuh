// Shared by tma_touch.cu and tma_tail.cu: kernels that run on one chosen SM. Launch one CTA per
// SM (dynamic shared memory large enough that only one fits); the CTA on SM `target` works, the
// others exit.
#pragma once
#include "common.cuh"

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
  int id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  if (id != target || threadIdx.x != 0) return;
  *ran = id;
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
