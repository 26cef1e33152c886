// Shared helpers for asyncsim's H200 microbenchmarks (sm_90a).
// PTX forms follow the PTX ISA (cp.async.bulk, cp.async.bulk.tensor, mbarrier).
#pragma once
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <string>
#include <cstring>

#define CK(x)                                                                   \
  do {                                                                          \
    cudaError_t e_ = (x);                                                       \
    if (e_ != cudaSuccess) {                                                    \
      fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorName(e_),     \
              __FILE__, __LINE__, cudaGetErrorString(e_));                      \
      exit(1);                                                                  \
    }                                                                           \
  } while (0)
#define CKL() CK(cudaGetLastError())
#define CU(x)                                                                   \
  do {                                                                          \
    CUresult r_ = (x);                                                          \
    if (r_ != CUDA_SUCCESS) {                                                   \
      const char* s_ = nullptr;                                                 \
      cuGetErrorString(r_, &s_);                                                \
      fprintf(stderr, "CU error %d at %s:%d: %s\n", (int)r_, __FILE__,          \
              __LINE__, s_ ? s_ : "?");                                         \
      exit(1);                                                                  \
    }                                                                           \
  } while (0)

// Every SM reads `nvec` int4 of `p` with ld.global.cg: fills L2 with that buffer (a "touch") or,
// for a buffer larger than L2, evicts whatever was there (a "flush"). `sink` defeats dead-code
// elimination.
__global__ void read_all_kernel(const int4* __restrict__ p, size_t nvec, int* sink) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  size_t stride = (size_t)gridDim.x * blockDim.x;
  int acc = 0;
  for (; i < nvec; i += stride) {
    int4 a = __ldcg(p + i);
    acc ^= a.x ^ a.w;
  }
  if (acc == 0x7fffffff) sink[0] = acc;
}

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void mbar_init(uint64_t* bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(bar)), "r"(count) : "memory");
}
__device__ __forceinline__ void fence_mbar_init() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
__device__ __forceinline__ void fence_proxy_async() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
__device__ __forceinline__ void mbar_expect_tx(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_u32(bar)), "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_u32(bar)) : "memory");
}
// Reads clock64, arms `bar` for `size` bytes and issues one 1-D bulk copy of them from global
// `src` into shared `dst`, in one asm block so nothing is scheduled between; returns the clock.
__device__ __forceinline__ long long timed_bulk_load(void* dst, const void* src, uint32_t size,
                                                     uint64_t* bar) {
  long long t0;
  asm volatile(
      "{\n"
      "mov.u64 %0, %%clock64;\n"
      "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%3], %4;\n"
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%1], [%2], %4, [%3];\n"
      "}\n"
      : "=l"(t0)
      : "r"(smem_u32(dst)), "l"(src), "r"(smem_u32(bar)), "r"(size)
      : "memory");
  return t0;
}
__device__ __forceinline__ bool mbar_try_wait(uint64_t* bar, uint32_t parity) {
  uint32_t ok;
  asm volatile(
      "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}\n"
      : "=r"(ok)
      : "r"(smem_u32(bar)), "r"(parity)
      : "memory");
  return ok != 0;
}
__device__ __forceinline__ bool mbar_test_wait(uint64_t* bar, uint32_t parity) {
  uint32_t ok;
  asm volatile(
      "{\n .reg .pred p;\n mbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}\n"
      : "=r"(ok)
      : "r"(smem_u32(bar)), "r"(parity)
      : "memory");
  return ok != 0;
}
__device__ __forceinline__ void mbar_wait(uint64_t* bar, uint32_t parity) {
  while (!mbar_try_wait(bar, parity)) {
  }
}

// The end of a ring of `nslots` mbarrier slots filled `round` times over plus `s` slots: waits
// for the last phase each slot was used for.
__device__ __forceinline__ void ring_drain(uint64_t* bars, int nslots, uint32_t round, int s) {
  for (int s2 = 0; s2 < nslots; ++s2) {
    const uint32_t uses = round + (s2 < s ? 1u : 0u);
    if (uses > 0) mbar_wait(&bars[s2], (uses - 1) & 1);
  }
}

// 1-D bulk copy global -> shared, completing on an mbarrier (bytes % 16 == 0).
__device__ __forceinline__ void bulk_g2s(void* dst, const void* src, uint32_t bytes, uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
          smem_u32(dst)),
      "l"(src), "r"(bytes), "r"(smem_u32(bar))
      : "memory");
}
__device__ __forceinline__ void tma_load_1d(void* dst, const CUtensorMap* map, int c0, uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2}], [%3];" ::"r"(
          smem_u32(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(smem_u32(bar))
      : "memory");
}
__device__ __forceinline__ void tma_load_2d(void* dst, const CUtensorMap* map, int c0, int c1, uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
          smem_u32(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(smem_u32(bar))
      : "memory");
}

// One issuing thread's ring of `nslots` shared-memory slots (one mbarrier each, already
// initialised): `copies` 2-D boxes of 64 columns x `rows_per_box` rows, copy n reading tile
// u0 + n * step (mod T), tile u = column block u mod 2^log2_cols, row block u >> log2_cols; a
// slot is reissued once its previous copy completed. Used by l2_hot.cu and l2_pairs.cu.
__device__ __forceinline__ void tile_ring(uint8_t* dsm, uint64_t* bars, const CUtensorMap* map,
                                          uint32_t bytes, int nslots, long long T, int log2_cols,
                                          int rows_per_box, long long u0, long long step,
                                          long long copies) {
  // Incremental loop state (no 64-bit division in the issue loop; see tma_bw.cu).
  long long u = u0 % T;
  int s = 0;
  uint32_t round = 0;
  for (long long n = 0; n < copies; ++n) {
    if (round > 0) mbar_wait(&bars[s], (round - 1) & 1);
    mbar_expect_tx(&bars[s], bytes);
    const int cb = (int)(u & ((1LL << log2_cols) - 1));
    const int rb = (int)(u >> log2_cols);
    tma_load_2d(dsm + (uint32_t)s * bytes, map, cb * 64, rb * rows_per_box, &bars[s]);
    u += step;
    while (u >= T) u -= T;
    if (++s == nslots) {
      s = 0;
      ++round;
    }
  }
  ring_drain(bars, nslots, round, s);
}
__device__ __forceinline__ void tma_load_3d(void* dst, const CUtensorMap* map, int c0, int c1, int c2,
                                            uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], "
      "[%5];" ::"r"(smem_u32(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(smem_u32(bar))
      : "memory");
}
__device__ __forceinline__ void prefetch_tmap(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<uint64_t>(map)) : "memory");
}

// Tensor map (fp16 elements unless dtype given), no swizzle, no interleave.
// dims/box innermost first; strides in bytes for dims 1..rank-1.
static CUtensorMap make_tmap(void* base, int rank, const uint64_t* dims, const uint64_t* strides_bytes,
                             const uint32_t* box,
                             CUtensorMapDataType dt = CU_TENSOR_MAP_DATA_TYPE_FLOAT16) {
  CUtensorMap m;
  cuuint64_t gd[5] = {1, 1, 1, 1, 1}, gs[5] = {0, 0, 0, 0, 0};
  cuuint32_t bd[5] = {1, 1, 1, 1, 1}, es[5] = {1, 1, 1, 1, 1};
  for (int i = 0; i < rank; ++i) {
    gd[i] = dims[i];
    bd[i] = box[i];
    if (i + 1 < rank) gs[i] = strides_bytes[i];
  }
  CU(cuTensorMapEncodeTiled(&m, dt, (cuuint32_t)rank, base, gd, gs, bd, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                            CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
  return m;
}

static int num_sms() {
  int d = 0, n = 0;
  CK(cudaGetDevice(&d));
  CK(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, d));
  return n;
}

// Microseconds `launch()` (one kernel launch) takes between two CUDA events.
template <typename F>
static float event_us(cudaEvent_t e0, cudaEvent_t e1, F launch) {
  CK(cudaEventRecord(e0));
  launch();
  CK(cudaEventRecord(e1));
  CK(cudaEventSynchronize(e1));
  CKL();
  float ms;
  CK(cudaEventElapsedTime(&ms, e0, e1));
  return ms * 1000.f;
}

// Microseconds of each of `n` launches by `launch()`, timed by CUDA events.
template <typename F>
static std::vector<float> timed_launches(int n, F launch) {
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<float> t;
  for (int r = 0; r < n; ++r) t.push_back(event_us(e0, e1, launch));
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
  return t;
}

// Launches `kernel` as a 1-D grid of clusters of `cluster` CTAs (non-portable sizes need the
// kernel's cudaFuncAttributeNonPortableClusterSizeAllowed); returns the launch's error.
template <typename... K, typename... A>
static cudaError_t launch_clusters(int cluster, int grid, int block, void (*kernel)(K...), A... args) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(grid);
  cfg.blockDim = dim3(block);
  cfg.dynamicSmemBytes = 0;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = cluster;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  return cudaLaunchKernelEx(&cfg, kernel, args...);
}

template <typename T>
static T median_of(std::vector<T> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
template <typename T>
static T pct_of(std::vector<T> v, double p) {
  std::sort(v.begin(), v.end());
  size_t i = (size_t)(p * (v.size() - 1));
  return v[i];
}

// fill device buffer with pseudo-random non-zero bytes
__global__ void fill_kernel(uint32_t* p, size_t n, uint32_t seed) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (; i < n; i += stride) {
    uint32_t x = (uint32_t)i * 2654435761u + seed;
    x ^= x >> 13;
    x *= 0x5bd1e995u;
    x ^= x >> 15;
    // keep fp16 halves finite and small: exponent bits masked
    p[i] = (x & 0x3BFF3BFFu) | 0x00010001u;
  }
}
// Appends distinct pseudo-random line indices below `region_lines` to `lines` until it holds
// n (xorshift64 from a fixed seed: every run and every benchmark draws the same lines).
static void add_random_lines(std::vector<uint32_t>& lines, int n, uint32_t region_lines) {
  uint64_t x = 88172645463325252ull;
  while ((int)lines.size() < n) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    const uint32_t l = (uint32_t)(x % region_lines);
    if (std::find(lines.begin(), lines.end(), l) == lines.end()) lines.push_back(l);
  }
}
static void fill_random(void* p, size_t bytes, uint32_t seed = 1234) {
  fill_kernel<<<1024, 256>>>((uint32_t*)p, bytes / 4, seed);
  CKL();
  CK(cudaDeviceSynchronize());
}
