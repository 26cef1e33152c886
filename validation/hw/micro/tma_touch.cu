// tma_latency's samples one by one, with who read each line first. tma_latency's 8 KB box is as
// fast at 16 MiB (all 2048 tiles, most read for the first time since the warm-up) as at 1 MiB,
// while its 128-B box has a slow tail (p90 ~520 cycles) at every size: is a tile's first read
// after an all-SM warm-up slow when some of its lines were warmed from the other L2 partition?
// Per configuration: a 512 MiB L2 flush, a warm-up read of the working set, then SM `target`
// times 2048 TMA loads of tiles drawn as tma_latency.cu draws them (mt19937_64 seeded 12345 per
// configuration, with replacement when the set has at most 8192 tiles).
//   warm=all:  tma_latency's read_all_kernel (SMs x 8 CTAs x 256 threads, grid-stride int4
//              ld.global.cg: 4 KB chunk k is read by CTA k mod (SMs x 8)); every CTA's %smid is
//              written as a `map` row (cta, smid)
//   warm=self: the same bytes read by one CTA of 1024 threads on SM `target` itself
// Rows: sample,box_bytes,working_set_bytes,warm,i,x,y,cycles (x, y: the tile's first column and
// row of the [W/8KB x 4096] fp16 tensor) and map,0,working_set_bytes,warm,cta,smid,0,0; the
// timed CTA's SM is in the `target` row. The first 8 samples are kept (tma_latency drops them).
#include <random>
#include "tma_on_sm.cuh"

__global__ void smid_kernel(const int4* __restrict__ p, size_t nvec, int* sink, int* smids) {
  if (threadIdx.x == 0) {
    int id;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
    smids[blockIdx.x] = id;
  }
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  size_t stride = (size_t)gridDim.x * blockDim.x;
  int acc = 0;
  for (; i < nvec; i += stride) {
    int4 a = __ldcg(p + i);
    acc ^= a.x ^ a.w;
  }
  if (acc == 0x7fffffff) sink[0] = acc;
}

int main() {
  const int sms = num_sms();
  const int COLS = 4096, target = 0, nsamp = 2048;
  const size_t max_ws = size_t(24) << 20, flush_bytes = size_t(512) << 20;
  void *base, *flush;
  int *sink, *smids, *ran;
  CK(cudaMalloc(&base, max_ws));
  CK(cudaMalloc(&flush, flush_bytes));
  CK(cudaMalloc(&sink, 16));
  CK(cudaMalloc(&ran, 4));
  CK(cudaMalloc(&smids, sms * 8 * sizeof(int)));
  fill_random(base, max_ws, 99);
  fill_random(flush, flush_bytes, 5);
  int2* dcoords;
  long long* dout;
  CK(cudaMalloc(&dcoords, nsamp * sizeof(int2)));
  CK(cudaMalloc(&dout, nsamp * sizeof(long long)));
  const size_t big_smem = 200 * 1024;
  CK(cudaFuncSetAttribute(tma2d_on_sm_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)big_smem));
  CK(cudaFuncSetAttribute(self_read_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)big_smem));
  printf("kind,box_bytes,working_set_bytes,warm,i,x,y,cycles\n");
  struct Cfg {
    int w, h, mb;
  };
  const Cfg cfgs[] = {{64, 64, 1}, {64, 64, 8}, {64, 64, 16}, {64, 64, 24}, {64, 1, 1}, {64, 1, 16}};
  for (const char* warm : {"all", "self"}) {
    for (Cfg cf : cfgs) {
      std::mt19937_64 rng(12345);
      const size_t ws = size_t(cf.mb) << 20;
      const uint64_t rows = ws / (COLS * 2);
      uint64_t dims[2] = {(uint64_t)COLS, rows};
      uint64_t strides[1] = {(uint64_t)COLS * 2};
      uint32_t box[2] = {(uint32_t)cf.w, (uint32_t)cf.h};
      CUtensorMap map = make_tmap(base, 2, dims, strides, box);
      const uint64_t tiles_x = COLS / cf.w, tiles_y = rows / cf.h, ntiles = tiles_x * tiles_y;
      std::vector<int2> hc(nsamp);
      std::vector<uint64_t> seen;
      std::uniform_int_distribution<uint64_t> dist(0, ntiles - 1);
      for (int i = 0; i < nsamp; ++i) {
        uint64_t t = dist(rng);
        if (ntiles > (uint64_t)nsamp * 4) {
          for (int k = 0; k < 4 && std::find(seen.begin(), seen.end(), t) != seen.end(); ++k) t = dist(rng);
        }
        seen.push_back(t);
        hc[i].x = (int)((t % tiles_x) * cf.w);
        hc[i].y = (int)((t / tiles_x) * cf.h);
      }
      CK(cudaMemcpy(dcoords, hc.data(), nsamp * sizeof(int2), cudaMemcpyHostToDevice));
      read_all_kernel<<<sms * 8, 256>>>((const int4*)flush, flush_bytes / 16, sink);
      CKL();
      const bool all = std::string(warm) == "all";
      if (all) {
        smid_kernel<<<sms * 8, 256>>>((const int4*)base, ws / 16, sink, smids);
      } else {
        self_read_kernel<<<sms, 1024, big_smem>>>((const int4*)base, ws / 16, target, sink);
      }
      CKL();
      CK(cudaDeviceSynchronize());
      const uint32_t bb = (uint32_t)(cf.w * cf.h * 2);
      CK(cudaMemset(ran, 0xff, 4));
      tma2d_on_sm_kernel<<<sms, 32, big_smem>>>(map, dcoords, nsamp, bb, target, 0, dout, ran);
      CKL();
      if (!ran_on(ran, target)) return 1;
      std::vector<long long> v(nsamp);
      CK(cudaMemcpy(v.data(), dout, nsamp * sizeof(long long), cudaMemcpyDeviceToHost));
      for (int i = 0; i < nsamp; ++i)
        printf("sample,%u,%zu,%s,%d,%d,%d,%lld\n", bb, ws, warm, i, hc[i].x, hc[i].y, v[i]);
      if (all) {
        std::vector<int> m(sms * 8);
        CK(cudaMemcpy(m.data(), smids, m.size() * sizeof(int), cudaMemcpyDeviceToHost));
        for (int b = 0; b < sms * 8; ++b) printf("map,0,%zu,%s,%d,%d,0,0\n", ws, warm, b, m[b]);
      }
      fflush(stdout);
    }
  }
  printf("target,0,0,none,%d,0,0,0\n", target);
  return 0;
}
