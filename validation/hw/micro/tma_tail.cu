// The slow tail of single-line TMA reads (tma_latency's 128-B box: p90 ~520-650 cycles against a
// median of ~340, the same whether the lines were warmed from the other partition or by the timed
// SM itself, micro_tma_touch.csv): does it come from the wait? SM 0 warms a 1 MiB working set
// itself, then times 2048 TMA loads of tma_latency's draws (boxes 64x1 and 64x64 fp16) spinning
// on mbarrier.try_wait (wait=try) or on mbarrier.test_wait (wait=test). One CTA per SM (200 KB
// dynamic smem), the one on SM 0 works. First 8 samples dropped.
// Columns: box_bytes,working_set_bytes,wait,samples,min_cycles,p10_cycles,median_cycles,
//          p90_cycles,mean_cycles
#include <random>
#include "tma_on_sm.cuh"

int main() {
  const int sms = num_sms();
  const int COLS = 4096, target = 0, nsamp = 2048;
  const size_t ws = size_t(1) << 20;
  void* base;
  int *sink, *ran;
  CK(cudaMalloc(&base, ws));
  CK(cudaMalloc(&sink, 16));
  CK(cudaMalloc(&ran, 4));
  fill_random(base, ws, 99);
  int2* dcoords;
  long long* dout;
  CK(cudaMalloc(&dcoords, nsamp * sizeof(int2)));
  CK(cudaMalloc(&dout, nsamp * sizeof(long long)));
  const size_t big_smem = 200 * 1024;
  CK(cudaFuncSetAttribute(tma2d_on_sm_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)big_smem));
  CK(cudaFuncSetAttribute(self_read_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)big_smem));
  printf("box_bytes,working_set_bytes,wait,samples,min_cycles,p10_cycles,median_cycles,p90_cycles,mean_cycles\n");
  for (int h : {1, 64}) {
    for (int test : {0, 1}) {
      std::mt19937_64 rng(12345);
      const uint64_t rows = ws / (COLS * 2);
      uint64_t dims[2] = {(uint64_t)COLS, rows};
      uint64_t strides[1] = {(uint64_t)COLS * 2};
      uint32_t box[2] = {64, (uint32_t)h};
      CUtensorMap map = make_tmap(base, 2, dims, strides, box);
      const uint64_t tiles_x = COLS / 64, ntiles = tiles_x * (rows / h);
      std::uniform_int_distribution<uint64_t> dist(0, ntiles - 1);
      std::vector<int2> hc(nsamp);
      for (int i = 0; i < nsamp; ++i) {
        const uint64_t t = dist(rng);
        hc[i].x = (int)((t % tiles_x) * 64);
        hc[i].y = (int)((t / tiles_x) * h);
      }
      CK(cudaMemcpy(dcoords, hc.data(), nsamp * sizeof(int2), cudaMemcpyHostToDevice));
      self_read_kernel<<<sms, 1024, big_smem>>>((const int4*)base, ws / 16, target, sink);
      CKL();
      CK(cudaMemset(ran, 0xff, 4));
      tma2d_on_sm_kernel<<<sms, 32, big_smem>>>(map, dcoords, nsamp, (uint32_t)(64 * h * 2), target, test, dout, ran);
      CKL();
      if (!ran_on(ran, target)) return 1;
      std::vector<long long> v(nsamp);
      CK(cudaMemcpy(v.data(), dout, nsamp * sizeof(long long), cudaMemcpyDeviceToHost));
      v.erase(v.begin(), v.begin() + 8);
      double mean = 0;
      for (auto x : v) mean += (double)x;
      mean /= v.size();
      printf("%d,%zu,%s,%zu,%lld,%lld,%lld,%lld,%.1f\n", 64 * h * 2, ws, test ? "test" : "try", v.size(),
             *std::min_element(v.begin(), v.end()), pct_of(v, 0.10), median_of(v), pct_of(v, 0.90), mean);
      fflush(stdout);
    }
  }
  return 0;
}
