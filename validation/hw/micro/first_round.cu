// A TMA GEMM's first loads, without the GEMM: how long the first pipeline stages take when every
// SM starts at once (twenty-fourth session, prepared without a device). The Proton traces of the
// Triton GEMMs (validation/traces/excerpts) show a first-round CTA's stage 0 arriving ~2800-3400
// cycles after its first copy where asyncsim has ~1700 (later rounds agree: ~2750 both), and its
// fourth copy's issue taking 700-1300 cycles instead of ~80; this separates what could cost that:
//   tensor  2-D tensor-map boxes (64 fp16 columns x 128 rows, rows 8 KB apart) or the same bytes
//           as 16 KB cp.async.bulk copies (no tensor map: no descriptor fetch)
//   shared  gemm: CTA c reads A row block c / 32 and B column block c % 32, as the Triton GEMM's
//           1-D program order does (a line requested by up to 32 SMs at once); distinct: every
//           CTA its own blocks (each line requested once)
//   state   cold: an L2 flush (512 MiB read) before each launch; warm: the same launch again;
//           written (twenty-fifth session): the flush, then the inputs written as torch.randn
//           writes them before the traced GEMMs (A's first 16 MB and B's first 32 MB, the
//           2048x4096x4096 GEMM's operands, by a store kernel), then the launch
//   grid    132 (one CTA per SM) or 264 (two)
// Thread 0 of each CTA arms 2 stages of two 16 KB copies each (A, then B), as the GEMM's
// prologue, then waits for stage 0 and stage 1; clock64 after every issue and wait, from a t0
// read after the mbarrier init. 5 launches per point after a dropped warm-up; the first launch
// of the whole run (point 0's warm-up, the code and tensor maps never used) is reported on its own
// (first_launch=1).
// Columns: tensor,shared,state,grid,first_launch,launches,issue1..issue4 (median cycles at which
//   each copy's issue returned),stage0_median,stage0_p90,stage1_median,stage1_p90
#include "common.cuh"

constexpr int kStages = 2;        // the GEMM prefetches num_stages - 1 = 2 stages
constexpr uint32_t kBox = 16384;  // 64 fp16 columns x 128 rows
constexpr int kTilesN = 32;       // B column blocks (N = 4096), as 2048x4096x4096
constexpr int kBlocks = 264;      // row / column blocks in each operand (distinct needs one a CTA)
constexpr uint64_t kK = 4096;     // columns (fp16): rows 8 KB apart
constexpr size_t kWrittenA = size_t(16) << 20;  // written: 2048 x 4096 fp16
constexpr size_t kWrittenB = size_t(32) << 20;  // written: 4096 x 4096 fp16

struct Rec {
  long long issue[2 * kStages];
  long long ready[kStages];
};

__global__ void __launch_bounds__(128, 2)
    first_round_kernel(const __grid_constant__ CUtensorMap a, const __grid_constant__ CUtensorMap b,
                       const uint8_t* __restrict__ abulk, const uint8_t* __restrict__ bbulk,
                       int tensor, int shared, Rec* rec) {
  extern __shared__ __align__(1024) uint8_t smem[];
  __shared__ __align__(8) uint64_t bar[kStages];
  if (threadIdx.x != 0) return;
  for (int s = 0; s < kStages; ++s) mbar_init(&bar[s], 1);
  fence_mbar_init();
  const int c = blockIdx.x;
  const int rb = shared ? c / kTilesN : c;
  const int cb = shared ? c % kTilesN : c;
  Rec r;
  const long long t0 = clock64();
  for (int s = 0; s < kStages; ++s) {
    uint8_t* da = smem + (2 * s) * kBox;
    uint8_t* db = smem + (2 * s + 1) * kBox;
    mbar_expect_tx(&bar[s], 2 * kBox);
    if (tensor) {
      tma_load_2d(da, &a, 64 * s, 128 * rb, &bar[s]);
    } else {
      bulk_g2s(da, abulk + ((size_t)rb * kStages + s) * kBox, kBox, &bar[s]);
    }
    r.issue[2 * s] = clock64() - t0;
    if (tensor) {
      tma_load_2d(db, &b, 64 * s, 128 * cb, &bar[s]);
    } else {
      bulk_g2s(db, bbulk + ((size_t)cb * kStages + s) * kBox, kBox, &bar[s]);
    }
    r.issue[2 * s + 1] = clock64() - t0;
  }
  for (int s = 0; s < kStages; ++s) {
    mbar_wait(&bar[s], 0);
    r.ready[s] = clock64() - t0;
  }
  rec[c] = r;
}

int main(int argc, char** argv) {
  const bool smoke = argc > 1 && std::string(argv[1]) == "--smoke";
  const int sms = num_sms();
  const size_t operand = (size_t)kBlocks * 128 * kK * 2;  // 264 x 128 rows x 8 KB = 277 MB
  const size_t flush_bytes = size_t(512) << 20;
  uint8_t *abuf, *bbuf, *fl;
  int* sink;
  Rec* drec;
  CK(cudaMalloc(&abuf, operand));
  CK(cudaMalloc(&bbuf, operand));
  CK(cudaMalloc(&fl, flush_bytes));
  CK(cudaMalloc(&sink, 16));
  CK(cudaMalloc(&drec, 2 * sms * sizeof(Rec)));
  fill_random(abuf, operand, 21);
  fill_random(bbuf, operand, 22);
  fill_random(fl, flush_bytes, 23);
  const uint64_t dims[2] = {kK, (uint64_t)kBlocks * 128};
  const uint64_t st[1] = {kK * 2};
  const uint32_t box[2] = {64, 128};
  const CUtensorMap ma = make_tmap(abuf, 2, dims, st, box);
  const CUtensorMap mb = make_tmap(bbuf, 2, dims, st, box);
  // 100 KB of dynamic shared memory: two CTAs fit on an SM, as the 128x128 GEMM's (96 KB) do.
  const int smem = 100 * 1024;
  CK(cudaFuncSetAttribute(first_round_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  printf("tensor,shared,state,grid,first_launch,launches,issue1,issue2,issue3,issue4,"
         "stage0_median,stage0_p90,stage1_median,stage1_p90\n");
  const int launches = smoke ? 2 : 5;
  bool first = true;
  for (int tensor = 1; tensor >= 0; --tensor) {
    for (int shared = 1; shared >= 0; --shared) {
      for (int st_i = 0; st_i < 3; ++st_i) {  // 0 cold, 1 warm, 2 written
        for (int g : {sms, 2 * sms}) {
          std::vector<long long> iss[2 * kStages], rd[kStages];
          for (int l = 0; l < launches + 1; ++l) {
            if (st_i != 1) {
              read_all_kernel<<<sms * 8, 256>>>((const int4*)fl, flush_bytes / 16, sink);
              CKL();
            }
            if (st_i == 2) {
              fill_kernel<<<sms * 8, 256>>>((uint32_t*)abuf, kWrittenA / 4, 31 + l);
              CKL();
              fill_kernel<<<sms * 8, 256>>>((uint32_t*)bbuf, kWrittenB / 4, 32 + l);
              CKL();
            }
            CK(cudaDeviceSynchronize());
            first_round_kernel<<<g, 128, smem>>>(ma, mb, abuf, bbuf, tensor, shared, drec);
            CKL();
            CK(cudaDeviceSynchronize());
            std::vector<Rec> h(g);
            CK(cudaMemcpy(h.data(), drec, g * sizeof(Rec), cudaMemcpyDeviceToHost));
            if (first) {  // the run's very first launch: cold code, cold tensor maps
              std::vector<long long> f[2 * kStages + kStages];
              for (const Rec& r : h) {
                for (int i = 0; i < 2 * kStages; ++i) f[i].push_back(r.issue[i]);
                for (int s = 0; s < kStages; ++s) f[2 * kStages + s].push_back(r.ready[s]);
              }
              printf("%s,%s,%s,%d,1,1,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld\n",
                     tensor ? "tensor" : "bulk", shared ? "gemm" : "distinct",
                     st_i == 0 ? "cold" : st_i == 1 ? "warm" : "written", g, median_of(f[0]), median_of(f[1]),
                     median_of(f[2]), median_of(f[3]), median_of(f[4]), pct_of(f[4], 0.9),
                     median_of(f[5]), pct_of(f[5], 0.9));
              first = false;
            }
            if (l == 0) continue;
            for (const Rec& r : h) {
              for (int i = 0; i < 2 * kStages; ++i) iss[i].push_back(r.issue[i]);
              for (int s = 0; s < kStages; ++s) rd[s].push_back(r.ready[s]);
            }
          }
          printf("%s,%s,%s,%d,0,%d,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld\n",
                 tensor ? "tensor" : "bulk", shared ? "gemm" : "distinct",
                 st_i == 0 ? "cold" : st_i == 1 ? "warm" : "written", g, launches, median_of(iss[0]), median_of(iss[1]),
                 median_of(iss[2]), median_of(iss[3]), median_of(rd[0]), pct_of(rd[0], 0.9),
                 median_of(rd[1]), pct_of(rd[1], 0.9));
          fflush(stdout);
        }
      }
    }
  }
  return 0;
}
