// TMA load latency vs working set. One CTA, one thread: for each sample,
// clock64 -> mbarrier.arrive.expect_tx + cp.async.bulk.tensor.2d -> spin on
// mbarrier.try_wait -> clock64. Tiles are drawn in random order (host-side
// sampling without replacement) from a working set of W bytes of a
// [W/8KB rows x 4096 cols] fp16 tensor. Before each working set, a full-chip read
// kernel touches the working set (so sizes that fit in L2 are L2-resident).
// Coordinates for sample i+1 are loaded while sample i is in flight, from global memory (the
// committed micro_tma_latency.csv: every fourth such load misses the L1, and the closing clock
// waits for it, so every fourth sample ends with that load's L2 round trip rather than its copy;
// validation/README.md, "Near and far lines by TMA") or, with --smem-coords, from a copy of
// the coordinates in shared memory made before the first sample (no global load is timed).
// Boxes: 64x64 fp16 (8 KB, a GEMM tile) and 64x1 fp16 (128 B).
// Columns: box_bytes,working_set_bytes,samples,min_cycles,p10_cycles,median_cycles,
//          p90_cycles,mean_cycles
#include <random>
#include "common.cuh"

constexpr int kMaxSamples = 2048;

template <bool kSmemCoords>
__global__ void __launch_bounds__(32, 1)
    tma_lat_kernel(const __grid_constant__ CUtensorMap map, const int2* __restrict__ gcoords, int n,
                   uint32_t box_bytes, long long* out) {
  __shared__ __align__(1024) uint8_t buf[8192];
  __shared__ __align__(8) uint64_t bar;
  __shared__ int2 scoords[kSmemCoords ? kMaxSamples : 1];
  if (threadIdx.x != 0) return;
  mbar_init(&bar, 1);
  fence_mbar_init();
  prefetch_tmap(&map);
  if (kSmemCoords) {
    for (int i = 0; i < n; ++i) scoords[i] = gcoords[i];
  }
  const int2* coords = kSmemCoords ? scoords : gcoords;
  uint32_t phase = 0;
  int2 c = coords[0];
  for (int i = 0; i < n; ++i) {
    long long t0, t1;
    asm volatile(
        "{\n"
        "mov.u64 %0, %%clock64;\n"
        "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%4], %5;\n"
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%1], [%2, {%6, %7}], [%4];\n"
        "}\n"
        : "=l"(t0)
        : "r"(smem_u32(buf)), "l"(reinterpret_cast<uint64_t>(&map)), "r"(0), "r"(smem_u32(&bar)),
          "r"(box_bytes), "r"(c.x), "r"(c.y)
        : "memory");
    int2 cn = coords[i + 1 < n ? i + 1 : i];  // overlaps with the copy in flight
    mbar_wait(&bar, phase);
    t1 = clock64();
    phase ^= 1;
    out[i] = t1 - t0;
    c = cn;
  }
}

int main(int argc, char** argv) {
  bool smoke = false, smem_coords = false;
  for (int a = 1; a < argc; ++a) {
    if (std::string(argv[a]) == "--smoke") smoke = true;
    if (std::string(argv[a]) == "--smem-coords") smem_coords = true;
  }
  int sms = num_sms();
  const int COLS = 4096;  // fp16 elements per row: 8 KB rows
  const size_t max_ws = size_t(256) << 20;
  void* base;
  int* sink;
  CK(cudaMalloc(&base, max_ws));
  CK(cudaMalloc(&sink, 16));
  fill_random(base, max_ws, 99);
  const int nsamp = smoke ? 256 : 2048;
  int2* dcoords;
  long long* dout;
  CK(cudaMalloc(&dcoords, nsamp * sizeof(int2)));
  CK(cudaMalloc(&dout, nsamp * sizeof(long long)));
  std::mt19937_64 rng(12345);
  printf(
      "box_bytes,working_set_bytes,samples,min_cycles,p10_cycles,median_cycles,p90_cycles,mean_cycles,"
      "p05_cycles,p25_cycles,p75_cycles,p95_cycles\n");
  std::vector<int> ws_mb = {1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 128, 192, 256};
  if (smoke) ws_mb = {1, 256};
  struct Box { int w, h; };
  const Box boxes[] = {{64, 64}, {64, 1}};
  for (Box bx : boxes) {
    for (int mb : ws_mb) {
      size_t ws = size_t(mb) << 20;
      uint64_t rows = ws / (COLS * 2);
      uint64_t dims[2] = {(uint64_t)COLS, rows};
      uint64_t strides[1] = {(uint64_t)COLS * 2};
      uint32_t box[2] = {(uint32_t)bx.w, (uint32_t)bx.h};
      CUtensorMap map = make_tmap(base, 2, dims, strides, box);
      uint64_t tiles_x = COLS / bx.w, tiles_y = rows / bx.h, ntiles = tiles_x * tiles_y;
      // sample nsamp distinct tiles at random
      std::vector<int2> hc(nsamp);
      std::vector<uint64_t> picked;
      std::uniform_int_distribution<uint64_t> dist(0, ntiles - 1);
      std::vector<uint64_t> seen;
      for (int i = 0; i < nsamp; ++i) {
        uint64_t t = dist(rng);
        if (ntiles > (uint64_t)nsamp * 4) {
          // sparse: accept duplicates rarely; re-draw a few times
          for (int k = 0; k < 4 && std::find(seen.begin(), seen.end(), t) != seen.end(); ++k) t = dist(rng);
        }
        seen.push_back(t);
        hc[i].x = (int)((t % tiles_x) * bx.w);
        hc[i].y = (int)((t / tiles_x) * bx.h);
      }
      CK(cudaMemcpy(dcoords, hc.data(), nsamp * sizeof(int2), cudaMemcpyHostToDevice));
      read_all_kernel<<<sms * 8, 256>>>((const int4*)base, ws / 16, sink);
      CKL();
      CK(cudaDeviceSynchronize());
      uint32_t bb = (uint32_t)(bx.w * bx.h * 2);
      if (smem_coords) {
        tma_lat_kernel<true><<<1, 32>>>(map, dcoords, nsamp, bb, dout);
      } else {
        tma_lat_kernel<false><<<1, 32>>>(map, dcoords, nsamp, bb, dout);
      }
      CKL();
      CK(cudaDeviceSynchronize());
      std::vector<long long> v(nsamp);
      CK(cudaMemcpy(v.data(), dout, nsamp * sizeof(long long), cudaMemcpyDeviceToHost));
      // drop the first 8 samples (descriptor fetch, cold instruction cache)
      v.erase(v.begin(), v.begin() + 8);
      double mean = 0;
      for (auto x : v) mean += (double)x;
      mean /= v.size();
      // the quantile columns after the mean came with the twenty-eighth session (hits, near and
      // far misses in one distribution at the large working sets)
      printf("%u,%zu,%zu,%lld,%lld,%lld,%lld,%.1f,%lld,%lld,%lld,%lld\n", bb, ws, v.size(),
             *std::min_element(v.begin(), v.end()), pct_of(v, 0.10), median_of(v), pct_of(v, 0.90), mean,
             pct_of(v, 0.05), pct_of(v, 0.25), pct_of(v, 0.75), pct_of(v, 0.95));
      fflush(stdout);
    }
  }
  return 0;
}
