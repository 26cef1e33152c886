// Where does the L2 keep a line: in its home slice (the whole L2 serves one partition's readers)
// or in the partition of the SMs that read it (half the L2 each)? Only the SMs of one set
// (L2HALF_A .. L2HALF_D: comma-separated %smid lists; the sets are also run with every SM)
// read a buffer of F bytes, int4 ld.global.cg, grid-stride, `passes` times inside one launch.
// Under ncu (--cache-control none) each launch's hits, DRAM bytes and fabric sectors tell the
// two apart: held at home, a group alone keeps hitting up to the whole L2's size; held where it
// is read, only up to half of it.
// Rows "fill": per footprint and reader set, a warm-up launch (2 passes) then the measured one
// (passes moving ~1 GiB). Rows "move_1/2/3": F read by A (4 passes), then by B (4), then by A
// (1; likewise C, D): does the third launch find its lines near (no fabric), far (fabric) or
// gone (DRAM)?
// The active CTAs take ranks when they start (all CTAs are resident: sms x 4 x 256 threads) and
// wait for every CTA to check in, so the active ones split the buffer among themselves.
// L2HALF_MIB and L2HALF_ONLY (below) choose other footprints and fewer sets.
// Columns: test,readers,buffer_bytes,passes,active_ctas,launch_us,gbps,ok
#include <algorithm>
#include <cstring>
#include <vector>

#include "common.cuh"

__global__ void half_read_kernel(const int4* __restrict__ p, size_t nvec, int passes,
                                 const unsigned char* allowed, int* counters, int* sink) {
  __shared__ int s_rank, s_active;
  if (threadIdx.x == 0) {
    int sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    const bool on = allowed[sm] != 0;
    s_rank = on ? atomicAdd(&counters[0], 1) : -1;
    __threadfence();
    atomicAdd(&counters[1], 1);
    const long long t0 = clock64();
    while (atomicAdd(&counters[1], 0) < (int)gridDim.x) {
      if (clock64() - t0 > 2000000000LL) {  // ~1 s: not all CTAs resident
        counters[2] = 1;
        break;
      }
    }
    s_active = atomicAdd(&counters[0], 0);
  }
  __syncthreads();
  if (s_rank < 0) return;
  const size_t B = blockDim.x, stride = (size_t)s_active * B;
  int acc = 0;
  for (int ps = 0; ps < passes; ++ps) {
    size_t i = (size_t)s_rank * B + threadIdx.x;
    for (; i + 3 * stride < nvec; i += 4 * stride) {
      int4 a = __ldcg(p + i);
      int4 c = __ldcg(p + i + stride);
      int4 d = __ldcg(p + i + 2 * stride);
      int4 e = __ldcg(p + i + 3 * stride);
      acc ^= a.x ^ a.y ^ a.z ^ a.w ^ c.x ^ c.y ^ c.z ^ c.w ^ d.x ^ d.y ^ d.z ^ d.w ^ e.x ^ e.y ^ e.z ^ e.w;
    }
    for (; i < nvec; i += stride) {
      int4 a = __ldcg(p + i);
      acc ^= a.x ^ a.y ^ a.z ^ a.w;
    }
  }
  if (acc == 0x7fffffff) sink[0] = acc;
}

static std::vector<unsigned char> sm_flags(const char* env, int sms) {
  std::vector<unsigned char> flags(sms, 0);
  const char* list = getenv(env);
  if (list == nullptr || strcmp(list, "all") == 0) {  // unset: every SM
    std::fill(flags.begin(), flags.end(), 1);
    return flags;
  }
  for (const char* q = list; *q;) {
    const int sm = atoi(q);
    if (sm >= 0 && sm < sms) flags[sm] = 1;
    while (*q && *q != ',') ++q;
    if (*q == ',') ++q;
  }
  return flags;
}

int main() {
  const int sms = num_sms();
  const int threads = 256, blocks = sms * 4;
  int dev = 0, l2 = 0;
  CK(cudaGetDevice(&dev));
  CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
  const size_t max_bytes = size_t(64) << 20;
  void* a;
  int *sink, *counters;
  CK(cudaMalloc(&a, max_bytes));
  CK(cudaMalloc(&sink, 16));
  CK(cudaMalloc(&counters, 16));
  fill_random(a, max_bytes);
  // Reader sets: every SM, then L2HALF_A .. L2HALF_D where given (A / B: one partition grouping,
  // C / D: another), each a comma-separated %smid list.
  std::vector<unsigned char*> sets;
  std::vector<std::string> names;
  // L2HALF_ONLY=all,C,...: only those sets (default: every set given).
  const char* only = getenv("L2HALF_ONLY");
  for (const char* n : {"all", "A", "B", "C", "D"}) {
    const std::string env = std::string("L2HALF_") + n;
    if (strcmp(n, "all") != 0 && getenv(env.c_str()) == nullptr) continue;
    if (only != nullptr && ("," + std::string(only) + ",").find("," + std::string(n) + ",") == std::string::npos)
      continue;
    const auto f = strcmp(n, "all") == 0 ? std::vector<unsigned char>(sms, 1) : sm_flags(env.c_str(), sms);
    unsigned char* d;
    CK(cudaMalloc(&d, sms));
    CK(cudaMemcpy(d, f.data(), sms, cudaMemcpyHostToDevice));
    sets.push_back(d);
    names.push_back(n);
  }
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  auto launch = [&](const char* test, int set, size_t bytes, int passes) {
    CK(cudaMemset(counters, 0, 16));
    const float us = event_us(e0, e1, [&] {
      half_read_kernel<<<blocks, threads>>>((const int4*)a, bytes / 16, passes, sets[set], counters, sink);
    });
    int c[3];
    CK(cudaMemcpy(c, counters, sizeof(c), cudaMemcpyDeviceToHost));
    const double moved = (double)bytes * passes;
    printf("%s,%s,%zu,%d,%d,%.2f,%.1f,%d\n", test, names[set].c_str(), bytes, passes, c[0], us,
           moved / us / 1e3, c[2] == 0 && c[1] == blocks);
    fflush(stdout);
  };
  printf("test,readers,buffer_bytes,passes,active_ctas,launch_us,gbps,ok\n");
  // Footprints as fractions of the L2 (in 1/25ths: 4/25 .. 24/25), whole MiB; L2HALF_MIB=a,b,...:
  // those MiB instead.
  std::vector<size_t> sizes;
  if (const char* mib = getenv("L2HALF_MIB")) {
    for (const char* q = mib; *q;) {
      sizes.push_back((size_t)atoi(q) << 20);
      while (*q && *q != ',') ++q;
      if (*q == ',') ++q;
    }
  } else {
    for (int k : {4, 8, 10, 12, 14, 16, 20, 24}) sizes.push_back(((size_t)l2 * k / 25) >> 20 << 20);
  }
  for (const size_t bytes : sizes) {
    if (bytes == 0 || bytes > max_bytes) continue;
    const int passes = (int)std::max<size_t>(1, (size_t(1) << 30) / bytes);
    for (int set = 0; set < (int)sets.size(); ++set) {
      launch("warm", set, bytes, 2);
      launch("fill", set, bytes, passes);
    }
  }
  // Moves: the sets in pairs (A, B), (C, D), when all five run.
  for (int first = 1; sets.size() == 5 && first + 1 < (int)sets.size(); first += 2) {
    for (int k : {8, 14}) {
      const size_t bytes = ((size_t)l2 * k / 25) >> 20 << 20;
      launch("move_1", first, bytes, 4);
      launch("move_2", first + 1, bytes, 4);
      launch("move_3", first, bytes, 1);
    }
  }
  CK(cudaFree(a));
  return 0;
}
