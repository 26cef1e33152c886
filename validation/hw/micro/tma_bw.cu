// TMA bandwidth, all SMs: one CTA per SM, one thread issues copies into a ring of
// slots (128 KiB of shared memory in flight per SM), each slot with its own
// mbarrier; a slot is reissued as soon as its previous copy completed (no
// consumer). Copy kinds: bulk (1-D cp.async.bulk, 8 KB), tensor1d (u64 box of
// 256 = 2 KB), tensor2d (fp16 64x64 box = 8 KB, 8 KB rows), tensor3d (fp16
// 64x8x8 box = 8 KB over a [N][16][4096] tensor). src=dram: 4 GiB buffer read once; src=l2: 32 MiB read
// repeatedly (8 GiB moved). Time by CUDA events, median of 5 launches.
// Columns: copy,src,bytes_per_copy,slots,buffer_bytes,bytes_moved,median_us,median_gbps,best_gbps
#include "common.cuh"

template <int MODE>
__global__ void __launch_bounds__(32, 1)
    tma_bw_kernel(const __grid_constant__ CUtensorMap map, const uint8_t* __restrict__ src, uint32_t bytes,
                  int nslots, long long T, int passes) {
  extern __shared__ __align__(1024) uint8_t dsm[];
  __shared__ __align__(8) uint64_t bars[64];
  if (threadIdx.x != 0) return;
  for (int s = 0; s < nslots; ++s) mbar_init(&bars[s], 1);
  fence_mbar_init();
  if (MODE != 0) prefetch_tmap(&map);
  const long long total = T * passes;
  int k = 0;
  for (long long idx = blockIdx.x; idx < total; idx += gridDim.x, ++k) {
    const int s = k % nslots;
    const uint32_t use = (uint32_t)(k / nslots);
    if (use > 0) mbar_wait(&bars[s], (use - 1) & 1);
    mbar_expect_tx(&bars[s], bytes);
    const long long t = idx % T;
    uint8_t* dst = dsm + (size_t)s * bytes;
    if (MODE == 0) {
      bulk_g2s(dst, src + (size_t)t * bytes, bytes, &bars[s]);
    } else if (MODE == 1) {
      tma_load_1d(dst, &map, (int)(t * 256), &bars[s]);
    } else if (MODE == 2) {
      tma_load_2d(dst, &map, (int)((t % 64) * 64), (int)((t / 64) * 64), &bars[s]);
    } else {
      tma_load_3d(dst, &map, (int)((t % 64) * 64), (int)(((t / 64) % 2) * 8), (int)((t / 128) * 8), &bars[s]);
    }
  }
  // drain
  for (int s = 0; s < nslots; ++s) {
    int uses = k / nslots + (s < k % nslots ? 1 : 0);
    if (uses > 0) mbar_wait(&bars[s], (uses - 1) & 1);
  }
}

template <int MODE>
static void run(const char* name, const char* srcname, uint8_t* buf, size_t buf_bytes, int passes, int sms,
                int reps) {
  CUtensorMap map;
  memset(&map, 0, sizeof(map));
  uint32_t bytes;
  if (MODE == 0) {
    bytes = 8192;
  } else if (MODE == 1) {
    uint64_t dims[1] = {buf_bytes / 8};
    uint64_t str[1] = {16};  // unused for rank 1
    uint32_t box[1] = {256};
    map = make_tmap(buf, 1, dims, str, box, CU_TENSOR_MAP_DATA_TYPE_UINT64);
    bytes = 2048;
  } else if (MODE == 2) {
    uint64_t dims[2] = {4096, buf_bytes / 8192};
    uint64_t str[1] = {8192};
    uint32_t box[2] = {64, 64};
    map = make_tmap(buf, 2, dims, str, box);
    bytes = 8192;
  } else {
    uint64_t dims[3] = {4096, 16, buf_bytes / (8192 * 16)};
    uint64_t str[2] = {8192, 8192 * 16};
    uint32_t box[3] = {64, 8, 8};
    map = make_tmap(buf, 3, dims, str, box);
    bytes = 8192;
  }
  const long long T = (long long)(buf_bytes / bytes);
  int nslots = (int)std::min<uint32_t>(64, (128 * 1024) / bytes);
  size_t smem = (size_t)nslots * bytes;
  CK(cudaFuncSetAttribute(tma_bw_kernel<MODE>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  tma_bw_kernel<MODE><<<sms, 32, smem>>>(map, buf, bytes, nslots, T, passes);  // warm-up
  CKL();
  CK(cudaDeviceSynchronize());
  std::vector<float> t;
  for (int r = 0; r < reps; ++r) {
    CK(cudaEventRecord(e0));
    tma_bw_kernel<MODE><<<sms, 32, smem>>>(map, buf, bytes, nslots, T, passes);
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    CKL();
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    t.push_back(ms * 1000.f);
  }
  double moved = (double)T * bytes * passes;
  float med = median_of(t), best = *std::min_element(t.begin(), t.end());
  printf("%s,%s,%u,%d,%zu,%.0f,%.2f,%.1f,%.1f\n", name, srcname, bytes, nslots, buf_bytes, moved, med,
         moved / med / 1e3, moved / best / 1e3);
  fflush(stdout);
}

int main(int argc, char** argv) {
  bool smoke = argc > 1 && std::string(argv[1]) == "--smoke";
  int sms = num_sms();
  const size_t big = smoke ? (size_t(256) << 20) : (size_t(4) << 30);
  const size_t l2b = size_t(32) << 20;
  const int l2passes = smoke ? 8 : 256;
  const int reps = smoke ? 2 : 5;
  uint8_t* buf;
  CK(cudaMalloc(&buf, big));
  fill_random(buf, big, 5);
  printf("copy,src,bytes_per_copy,slots,buffer_bytes,bytes_moved,median_us,median_gbps,best_gbps\n");
  run<0>("bulk", "dram", buf, big, 1, sms, reps);
  run<1>("tensor1d", "dram", buf, big, 1, sms, reps);
  run<2>("tensor2d", "dram", buf, big, 1, sms, reps);
  run<3>("tensor3d", "dram", buf, big, 1, sms, reps);
  run<0>("bulk", "l2", buf, l2b, l2passes, sms, reps);
  run<1>("tensor1d", "l2", buf, l2b, l2passes, sms, reps);
  run<2>("tensor2d", "l2", buf, l2b, l2passes, sms, reps);
  run<3>("tensor3d", "l2", buf, l2b, l2passes, sms, reps);
  return 0;
}
