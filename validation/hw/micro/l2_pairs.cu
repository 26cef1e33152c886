// Which SMs' shared reads merge before the L2. l2_hot.csv shows a TPC's two SMs merging their
// reads of the same tiles completely (2.00x fewer L2 read sectors than delivered) and groups of
// 4-132 nearby CTAs only 3.0-3.8x in all, where a coalescer per GPC would merge ~16x; GEMMs
// (ncu_l2/l2_raw.csv) merge up to 2.6x. Here groups are made of SMs, not of CTA ids, so the
// structure can be read off: the GPCs are found first by cluster launches (the CTAs of a
// cluster share a GPC; union-find over the SMs of clusters of 16, 8, 4 and 2 CTAs), TPC t
// is SMs 2t and 2t+1, and a GPC's TPCs are listed by ascending id. Every SM of a group reads
// the same 16 KB tiles in the same order (l2_hot's GEMM tile: 64 fp16 columns x 128 rows, row
// pitch 4096 B, of a 16 MiB L2-resident tensor; group k of G reads tile (k + n G) mod T), each
// through one issuing thread's ring of S slots (common.cuh tile_ring); SMs a layout leaves out
// exit at once, so the chip-wide ratio of delivered to L2 read sectors (ncu) is the groups'.
// The CTAs of an SM (C per SM, placed by shared memory) take their SM's group.
// Layouts:
//   sm        every SM alone (no sharing: the control)
//   tpc       the two SMs of a TPC
//   tpc_d<d>  two TPCs d apart in their GPC's list, d = 1..4
//   tpc_xgpc  the i-th TPC of GPC 2m with the i-th of GPC 2m + 1
//   sm_d1     SM 2t with SM 2u, and 2t + 1 with 2u + 1, for TPCs t, u adjacent in the list
//   tpc3      three consecutive TPCs of a GPC's list
//   gpc       all SMs of a GPC
//   chip      all SMs
// Time by CUDA events, median of 5 launches after a warm-up launch (which also makes the tensor
// L2-resident); GB/s = bytes delivered to shared memory / time. With L2PAIRS_NCU=1 each point
// runs once after its warm-up (for ncu's L2 counters; no timing). The GPC map goes to stderr.
// Members of a group start `skew` copies apart in its sequence (rank by SM id; 0: together).
// Columns: layout,ctas_per_sm,slots,skew_copies,groups,sms_per_group,active_sms,copies_per_cta,
//          bytes_delivered,median_us,median_gbps,best_gbps
#include <functional>
#include <map>

#include "common.cuh"

__global__ void cluster_smid(int* smid) {
  uint32_t s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  if (threadIdx.x == 0) smid[blockIdx.x] = (int)s;
  uint64_t t, t1;  // stay resident so the clusters of one launch occupy the chip together
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
  } while (t1 - t < 50000);
}

// GPC index (0..) of every SM: union-find over the SMs of each cluster of 16, 8, 4 and 2 CTAs
// (four launches of each size the device accepts; a cluster's CTAs share a GPC).
static std::vector<int> gpc_of_sm(int sms) {
  std::vector<int> parent(sms);
  for (int i = 0; i < sms; ++i) parent[i] = i;
  std::function<int(int)> root = [&](int i) { return parent[i] == i ? i : parent[i] = root(parent[i]); };
  int* d_sm;
  const int cap = 4 * sms;
  CK(cudaMalloc(&d_sm, cap * sizeof(int)));
  CK(cudaFuncSetAttribute(cluster_smid, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  std::vector<int> h(cap);
  int launches = 0;
  for (int cl : {16, 8, 4, 2}) {
    for (int rep = 0; rep < 4; ++rep) {
      const int grid = cl * (2 * sms / cl);
      if (launch_clusters(cl, grid, 32, cluster_smid, d_sm) != cudaSuccess) {
        cudaGetLastError();  // a size the device refuses (16 is non-portable)
        break;
      }
      CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(h.data(), d_sm, grid * sizeof(int), cudaMemcpyDeviceToHost));
      for (int i = 0; i < grid; ++i) parent[root(h[i])] = root(h[i - i % cl]);
      ++launches;
    }
  }
  CK(cudaFree(d_sm));
  if (!launches) {
    fprintf(stderr, "l2_pairs: no cluster launch accepted\n");
    exit(1);
  }
  std::map<int, int> id;
  std::vector<int> gpc(sms);
  for (int i = 0; i < sms; ++i) {
    const int r = root(i);
    if (!id.count(r)) id[r] = (int)id.size();
    gpc[i] = id[r];
  }
  fprintf(stderr, "# gpc_of_sm (%d cluster launches of 16, 8, 4, 2 CTAs):", launches);
  for (int i = 0; i < sms; ++i) fprintf(stderr, " %d", gpc[i]);
  fprintf(stderr, "\n");
  return gpc;
}

// The group of every SM under `layout` (-1: left out); returns the number of groups.
static int make_groups(const std::string& layout, const std::vector<int>& gpc, std::vector<int>& group) {
  const int sms = (int)gpc.size();
  group.assign(sms, -1);
  std::map<int, std::vector<int>> tpcs;  // GPC -> its TPCs, ascending (a TPC whose SMs disagree is dropped)
  for (int t = 0; 2 * t + 1 < sms; ++t)
    if (gpc[2 * t] == gpc[2 * t + 1]) tpcs[gpc[2 * t]].push_back(t);
  int g = 0;
  const auto put_tpcs = [&](std::initializer_list<int> ts) {
    for (int t : ts) group[2 * t] = group[2 * t + 1] = g;
    ++g;
  };
  if (layout == "sm") {
    for (int i = 0; i < sms; ++i) group[i] = g++;
  } else if (layout == "chip") {
    for (int i = 0; i < sms; ++i) group[i] = 0;
    g = 1;
  } else if (layout == "gpc") {
    for (int i = 0; i < sms; ++i) group[i] = gpc[i];
    g = *std::max_element(gpc.begin(), gpc.end()) + 1;
  } else if (layout == "tpc") {
    for (auto& [k, l] : tpcs)
      for (int t : l) put_tpcs({t});
  } else if (layout.rfind("tpc_d", 0) == 0) {
    const int d = std::stoi(layout.substr(5));
    for (auto& [k, l] : tpcs)
      for (int j = 0; j + d < (int)l.size(); ++j)
        if ((j / d) % 2 == 0) put_tpcs({l[j], l[j + d]});
  } else if (layout == "tpc_xgpc") {
    for (auto a = tpcs.begin(); a != tpcs.end(); ++a) {
      auto b = std::next(a);
      if (b == tpcs.end()) break;
      for (size_t i = 0; i < std::min(a->second.size(), b->second.size()); ++i) put_tpcs({a->second[i], b->second[i]});
      a = b;
    }
  } else if (layout == "sm_d1") {
    for (auto& [k, l] : tpcs)
      for (int j = 0; j + 1 < (int)l.size(); j += 2)
        for (int h = 0; h < 2; ++h) {
          group[2 * l[j] + h] = group[2 * l[j + 1] + h] = g;
          ++g;
        }
  } else if (layout == "one") {  // SM 0 alone: one SM's ceiling without L2 contention
    group[0] = g++;
  } else if (layout == "one_tpc") {  // SMs 0 and 1 (TPC 0) reading the same tiles
    group[0] = group[1] = g++;
  } else if (layout == "one_tpc_split") {  // SMs 0 and 1, each its own tiles
    group[0] = g++;
    group[1] = g++;
  } else if (layout == "even") {  // one SM of every TPC (2t), all the same tiles
    for (int i = 0; i < sms; i += 2) group[i] = 0;
    g = 1;
  } else if (layout == "gpc0") {  // the SMs of SM 0's GPC, the same tiles
    for (int i = 0; i < sms; ++i)
      if (gpc[i] == gpc[0]) group[i] = 0;
    g = 1;
  } else if (layout == "tpc3") {
    for (auto& [k, l] : tpcs)
      for (int j = 0; j + 2 < (int)l.size(); j += 3) put_tpcs({l[j], l[j + 1], l[j + 2]});
  } else {
    fprintf(stderr, "l2_pairs: unknown layout %s\n", layout.c_str());
    exit(1);
  }
  return g;
}

__global__ void __launch_bounds__(32)
    l2_pairs_kernel(const __grid_constant__ CUtensorMap map, const long long* __restrict__ start_of_sm,
                    int groups, uint32_t bytes, int nslots, long long T, int log2_cols, long long copies) {
  extern __shared__ __align__(1024) uint8_t dsm[];
  __shared__ __align__(8) uint64_t bars[64];
  if (threadIdx.x != 0) return;
  uint32_t smid;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  const long long u0 = start_of_sm[smid];
  if (u0 < 0) return;
  for (int s = 0; s < nslots; ++s) mbar_init(&bars[s], 1);
  fence_mbar_init();
  prefetch_tmap(&map);
  tile_ring(dsm, bars, &map, bytes, nslots, T, log2_cols, 128, u0, groups, copies);
}

int main(int argc, char** argv) {
  const bool smoke = argc > 1 && std::string(argv[1]) == "--smoke";
  const bool ncu = getenv("L2PAIRS_NCU") != nullptr;
  const int sms = num_sms();
  const int reps = smoke ? 2 : 5;
  const double target = smoke ? 256.0 * (1 << 20) : 4.0 * (1 << 30);
  const size_t region = size_t(16) << 20;
  const uint32_t pitch = 4096, bytes = 128u * 128u;
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  const std::vector<int> gpc = gpc_of_sm(sms);
  uint8_t* buf;
  CK(cudaMalloc(&buf, region));
  fill_random(buf, region, 11);
  const uint64_t rows = region / pitch;
  uint64_t dims[2] = {pitch / 2, rows};
  uint64_t str[1] = {pitch};
  uint32_t box[2] = {64, 128};
  CUtensorMap map = make_tmap(buf, 2, dims, str, box);
  const int log2_cols = 5;  // 32 column blocks of 128 B in a 4096-B row
  const long long T = 32LL * (long long)(rows / 128);
  long long* d_start;
  CK(cudaMalloc(&d_start, sms * sizeof(long long)));
  printf("layout,ctas_per_sm,slots,skew_copies,groups,sms_per_group,active_sms,copies_per_cta,bytes_delivered,median_us,"
         "median_gbps,best_gbps\n");
  const auto run = [&](const std::string& layout, int ctas_per_sm, int slots, int skew) {
    std::vector<int> group;
    const int groups = make_groups(layout, gpc, group);
    const int active = (int)std::count_if(group.begin(), group.end(), [](int k) { return k >= 0; });
    // Where each SM starts in its group's tile sequence: the member of rank r (by SM id) `skew`
    // copies after rank r - 1, so with skew > 0 the members read each tile that many copies apart.
    std::vector<long long> start(sms, -1);
    std::vector<int> rank(groups, 0);
    for (int i = 0; i < sms; ++i)
      if (group[i] >= 0) start[i] = group[i] + (long long)rank[group[i]]++ * skew * groups;
    CK(cudaMemcpy(d_start, start.data(), sms * sizeof(long long), cudaMemcpyHostToDevice));
    // Shared memory that lets exactly ctas_per_sm CTAs onto an SM (1 KB reserved per CTA).
    const size_t smem = std::max<size_t>((size_t)slots * bytes,
                                         std::min(p.sharedMemPerBlockOptin,
                                                  p.sharedMemPerMultiprocessor / ctas_per_sm - 2048));
    CK(cudaFuncSetAttribute(l2_pairs_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    const int grid = sms * ctas_per_sm;
    const long long copies = std::max(1LL, (long long)(target / ((double)active * ctas_per_sm * bytes)));
    const long long warm = std::max(copies, T);
    l2_pairs_kernel<<<grid, 32, smem>>>(map, d_start, groups, bytes, slots, T, log2_cols, warm);
    CKL();
    CK(cudaDeviceSynchronize());
    const std::vector<float> t = timed_launches(ncu ? 1 : reps, [&] {
      l2_pairs_kernel<<<grid, 32, smem>>>(map, d_start, groups, bytes, slots, T, log2_cols, copies);
    });
    const double moved = (double)active * ctas_per_sm * (double)copies * bytes;
    const float med = median_of(t), best = *std::min_element(t.begin(), t.end());
    printf("%s,%d,%d,%d,%d,%.2f,%d,%lld,%.0f,%.2f,%.1f,%.1f\n", layout.c_str(), ctas_per_sm, slots, skew, groups,
           (double)active / groups, active, copies, moved, med, moved / med / 1e3, moved / best / 1e3);
    fflush(stdout);
  };
  // L2PAIRS_POINTS="layout:C:S:skew;...": those points instead of the default list.
  if (const char* pts = getenv("L2PAIRS_POINTS")) {
    std::string all(pts);
    for (size_t at = 0; at < all.size();) {
      size_t end = all.find(';', at);
      if (end == std::string::npos) end = all.size();
      const std::string pt = all.substr(at, end - at);
      at = end + 1;
      char name[32];
      int c, sl, sk;
      if (sscanf(pt.c_str(), "%31[^:]:%d:%d:%d", name, &c, &sl, &sk) != 4 || c < 1 || sl < 1 || sl > 64 || sk < 0) {
        fprintf(stderr, "l2_pairs: bad point '%s' in L2PAIRS_POINTS (layout:C:S:skew)\n", pt.c_str());
        return 1;
      }
      run(name, c, sl, sk);
    }
  } else {
    for (int slots : {8, 1})
      for (const char* layout : {"sm", "tpc", "tpc_d1", "tpc_d2", "tpc_d3", "tpc_d4", "tpc_xgpc", "sm_d1", "tpc3",
                                 "gpc", "chip"})
        run(layout, 1, slots, 0);
    // Two CTAs on each SM: do an SM's own CTAs merge (sm), and how much then with more sharers?
    for (const char* layout : {"sm", "tpc", "chip"}) run(layout, 2, 3, 0);
    // Members a few copies apart: how long does a read stay mergeable (an in-flight window)?
    for (const char* layout : {"tpc", "gpc"})
      for (int skew : {1, 2, 4, 8}) run(layout, 1, 8, skew);
  }
  CK(cudaFree(d_start));
  CK(cudaFree(buf));
  return 0;
}
