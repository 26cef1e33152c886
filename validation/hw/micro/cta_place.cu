// A CTA's first bulk copy at kernel start from L2, on chosen sets of SMs (twenty-fifth session):
// cta_start.cu's 8 x 32 KB burst takes 775 cycles where one copy takes 632, and the model has no
// such cost (validation/README.md, "A CTA's first load at kernel start"). Which SMs copy together
// separates a per-GPC (or per-unit) path from a chip-wide one: the same 8 or 16 copies in one
// GPC or spread over all eight. One CTA per SM (grid = SMs, 200 KB dynamic smem); the CTAs whose
// %smid is in the set copy S bytes (their own 32 KB, at smid * S) and time it, the others exit.
// Each set: a warm-up launch (its bytes then near the SMs that copy), then 5 timed launches.
// GPCs as configs/h200.yaml's sm.tpc_gpcs (micro_sm_map.csv): TPC t = SMs 2t, 2t+1; TPCs 0-31
// in GPC t mod 8; TPCs 32-59 round GPCs 1-7; 60, 61 in GPCs 6, 7; 62-65 (SMs 124-131) the side
// unit.
// Columns: set,sms,size_bytes,launches,median_cycles,p90_cycles,max_cycles
#include "common.cuh"

__global__ void __launch_bounds__(32, 1)
    placed_load_kernel(const uint8_t* __restrict__ src, uint32_t size, const int* __restrict__ on,
                       long long* cycles) {
  extern __shared__ __align__(128) uint8_t buf[];
  __shared__ __align__(8) uint64_t bar;
  if (threadIdx.x != 0) return;
  int smid;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  if (!on[smid]) return;
  mbar_init(&bar, 1);
  fence_mbar_init();
  const long long t0 = timed_bulk_load(buf, src + (size_t)smid * size, size, &bar);
  mbar_wait(&bar, 0);
  cycles[smid] = clock64() - t0;
}

int main(int argc, char** argv) {
  const bool smoke = argc > 1 && std::string(argv[1]) == "--smoke";
  const int sms = num_sms();
  const uint32_t sizes[] = {32768, 8192};
  uint8_t* buf;
  int* don;
  long long* dcyc;
  CK(cudaMalloc(&buf, (size_t)sms * 32768));
  CK(cudaMalloc(&don, sms * sizeof(int)));
  CK(cudaMalloc(&dcyc, sms * sizeof(long long)));
  fill_random(buf, (size_t)sms * 32768, 41);
  const int smem = 200 * 1024;
  CK(cudaFuncSetAttribute(placed_load_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  // TPC -> GPC (sm.tpc_gpcs); the side unit is -1.
  std::vector<int> gpc_of_tpc(sms / 2, -1);
  for (int t = 0; t < 32; ++t) gpc_of_tpc[t] = t % 8;
  for (int t = 32; t < 60; ++t) gpc_of_tpc[t] = 1 + (t - 32) % 7;
  gpc_of_tpc[60] = 6;
  gpc_of_tpc[61] = 7;
  auto tpcs_of = [&](int g) {
    std::vector<int> v;
    for (int t = 0; t < (int)gpc_of_tpc.size(); ++t)
      if (gpc_of_tpc[t] == g) v.push_back(t);
    return v;
  };
  std::vector<std::pair<std::string, std::vector<int>>> sets;
  sets.push_back({"one", {0}});
  sets.push_back({"tpc", {0, 1}});
  sets.push_back({"side_8", {124, 125, 126, 127, 128, 129, 130, 131}});
  sets.push_back({"side_4_one_per_tpc", {124, 126, 128, 130}});
  {
    std::vector<int> a, b, c;
    for (int t : tpcs_of(1)) {
      if (a.size() < 8) a.push_back(2 * t);
      if (b.size() < 16) {
        b.push_back(2 * t);
        b.push_back(2 * t + 1);
      }
      c.push_back(2 * t);
      c.push_back(2 * t + 1);
    }
    sets.push_back({"gpc1_8_one_per_tpc", a});
    sets.push_back({"gpc1_16", b});
    sets.push_back({"gpc1_all", c});
  }
  {
    std::vector<int> a, b;
    for (int t : tpcs_of(0)) {
      a.push_back(2 * t);
      a.push_back(2 * t + 1);
    }
    for (int t = 0; t < 8; ++t) b.push_back(2 * t);  // TPCs 0-7: one SM in each GPC
    sets.push_back({"gpc0_8", a});
    sets.push_back({"spread_8_one_per_gpc", b});
    std::vector<int> c;
    for (int t = 0; t < 16; ++t) c.push_back(2 * t);  // TPCs 0-15: two TPCs of each GPC
    sets.push_back({"spread_16_two_per_gpc", c});
    std::vector<int> d;
    for (int t = 0; t < 32; ++t) d.push_back(2 * t);  // TPCs 0-31: four of each GPC
    sets.push_back({"spread_32_four_per_gpc", d});
  }
  {
    std::vector<int> all;
    for (int s = 0; s < sms; ++s) all.push_back(s);
    sets.push_back({"all", all});
  }
  {
    // Twenty-sixth session: the cost by SMs within one GPC (4 / 12 / 18), and whether the side
    // unit shares GPC 0's way in (GPC 0 + side against GPC 0 + 8 SMs of GPC 1).
    auto both_sms = [](const std::vector<int>& tpcs, size_t n) {
      std::vector<int> v;
      for (size_t i = 0; i < n && i < tpcs.size(); ++i) {
        v.push_back(2 * tpcs[i]);
        v.push_back(2 * tpcs[i] + 1);
      }
      return v;
    };
    sets.push_back({"gpc1_4", both_sms(tpcs_of(1), 2)});
    sets.push_back({"gpc1_12", both_sms(tpcs_of(1), 6)});
    sets.push_back({"gpc6_18", both_sms(tpcs_of(6), 9)});
    std::vector<int> g0 = both_sms(tpcs_of(0), 4);
    std::vector<int> g0s = g0, g01 = g0;
    for (int s = 124; s < 132; ++s) g0s.push_back(s);
    for (int s : both_sms(tpcs_of(1), 4)) g01.push_back(s);
    sets.push_back({"gpc0_and_side_16", g0s});
    sets.push_back({"gpc0_and_gpc1_16", g01});
  }
  printf("set,sms,size_bytes,launches,median_cycles,p90_cycles,max_cycles\n");
  const int launches = smoke ? 2 : 5;
  for (uint32_t size : sizes) {
    for (const auto& [name, list] : sets) {
      std::vector<int> on(sms, 0);
      for (int s : list)
        if (s < sms) on[s] = 1;
      CK(cudaMemcpy(don, on.data(), sms * sizeof(int), cudaMemcpyHostToDevice));
      std::vector<long long> all_cycles;
      for (int l = 0; l < launches + 1; ++l) {
        CK(cudaMemset(dcyc, 0, sms * sizeof(long long)));
        placed_load_kernel<<<sms, 32, smem>>>(buf, size, don, dcyc);
        CKL();
        CK(cudaDeviceSynchronize());
        if (l == 0) continue;
        std::vector<long long> h(sms);
        CK(cudaMemcpy(h.data(), dcyc, sms * sizeof(long long), cudaMemcpyDeviceToHost));
        for (int s = 0; s < sms; ++s)
          if (on[s]) all_cycles.push_back(h[s]);
      }
      printf("%s,%zu,%u,%d,%lld,%lld,%lld\n", name.c_str(), list.size(), size, launches,
             median_of(all_cycles), pct_of(all_cycles, 0.9),
             *std::max_element(all_cycles.begin(), all_cycles.end()));
      fflush(stdout);
    }
  }
  return 0;
}
