// Where the H200 puts CTAs, and which SMs share a GPC (asyncsim issue 4/5: the request
// coalescer and the L2 partition are per GPC, and CTA placement decides which tiles a GPC shares).
//
// table=dispatch: one launch of `grid` CTAs whose shared memory allows `ctas_per_sm` per SM
// (a single wave); every CTA records %smid and its globaltimer at entry (ns since the first CTA).
// table=cluster: launches of clusters of `cluster` CTAs (cudaLaunchKernelEx, non-portable sizes
// allowed). The CTAs of one cluster always share a GPC, so SMs seen in one cluster are in the
// same GPC; `group` numbers the cluster across all launches. Union-find over the rows gives the
// GPCs (validation/sm_map.py).
#include "common.cuh"

__global__ void where_am_i(int* smid, long long* t_ns) {
  uint32_t s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  extern __shared__ char pad[];
  pad[threadIdx.x] = 0;
  if (threadIdx.x == 0) {
    smid[blockIdx.x] = static_cast<int>(s);
    t_ns[blockIdx.x] = static_cast<long long>(t);
  }
  // stay resident long enough that every CTA of the wave is placed before any leaves
  uint64_t t1;
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
  } while (t1 - t < 200000);
}

__global__ void cluster_where(int* smid, int* cluster_id) {
  uint32_t s, c;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(c));
  if (threadIdx.x == 0) {
    smid[blockIdx.x] = static_cast<int>(s);
    cluster_id[blockIdx.x] = static_cast<int>(c);
  }
  uint64_t t, t1;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
  } while (t1 - t < 100000);
}

int main() {
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  const int sms = p.multiProcessorCount;
  const size_t max_smem = p.sharedMemPerMultiprocessor;
  int* d_sm;
  long long* d_t;
  int* d_c;
  const int cap = 64 * 1024;
  CK(cudaMalloc(&d_sm, cap * sizeof(int)));
  CK(cudaMalloc(&d_t, cap * sizeof(long long)));
  CK(cudaMalloc(&d_c, cap * sizeof(int)));
  CK(cudaFuncSetAttribute(where_am_i, cudaFuncAttributeMaxDynamicSharedMemorySize,
                           static_cast<int>(p.sharedMemPerBlockOptin)));
  printf("table,grid,ctas_per_sm,cluster,cta,smid,group,t_ns\n");
  std::vector<int> h_sm(cap), h_c(cap);
  std::vector<long long> h_t(cap);
  for (int per : {1, 2}) {
    // shared memory so that exactly `per` CTAs fit on an SM (1 KB reserved per CTA)
    const size_t smem = std::min(p.sharedMemPerBlockOptin, (max_smem / per) - 2048);
    const int grid = sms * per;
    where_am_i<<<grid, 128, smem>>>(d_sm, d_t);
    CKL();
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(h_sm.data(), d_sm, grid * sizeof(int), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(h_t.data(), d_t, grid * sizeof(long long), cudaMemcpyDeviceToHost));
    const long long t0 = *std::min_element(h_t.begin(), h_t.begin() + grid);
    for (int i = 0; i < grid; ++i) {
      printf("dispatch,%d,%d,1,%d,%d,%d,%lld\n", grid, per, i, h_sm[i], 0, h_t[i] - t0);
    }
  }
  CK(cudaFuncSetAttribute(cluster_where, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  int group_base = 0;
  for (int cl : {2, 4, 8, 16}) {
    for (int rep = 0; rep < 4; ++rep) {
      const int grid = cl * (sms / cl) * 2;
      cudaError_t e = launch_clusters(cl, grid, 128, cluster_where, d_sm, d_c);
      if (e != cudaSuccess) {
        fprintf(stderr, "cluster %d: %s\n", cl, cudaGetErrorString(e));
        cudaGetLastError();
        break;
      }
      CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(h_sm.data(), d_sm, grid * sizeof(int), cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(h_c.data(), d_c, grid * sizeof(int), cudaMemcpyDeviceToHost));
      for (int i = 0; i < grid; ++i) {
        printf("cluster,%d,0,%d,%d,%d,%d,0\n", grid, cl, i, h_sm[i], group_base + i / cl);
      }
      group_base += grid / cl;
    }
  }
  return 0;
}
