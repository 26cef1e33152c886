// tma_bw's bulk ring (one CTA per SM, one issuing thread, S slots of 8 KB, grid-stride units),
// timed copy by copy and CTA by CTA (twenty-sixth session). tma_bw's 2-slot points miss in both
// directions (L2 −12 %, DRAM +13 % in the model), and the model's L2 point is held back by its
// slowest CTAs: those that lead the convoys take most of the DRAM misses (validation/README.md,
// "Memory bandwidth"). Per copy: clock64 before its issue and after the wait that sees it
// complete (the next use of its slot, or the drain), the difference stored; per CTA: %smid and
// %globaltimer at entry and after the drain. Points: src=l2, 32 MiB re-read `passes` times
// after a warm-up launch (S = 2, 4, 16; passes = 16: the 512 MiB the model's mirror moves, and
// 256: tma_bw's 8 GiB); src=dram, 512 MiB read once from lines no launch read before (S = 2, 4).
// Each point: a warm-up launch, then 3 timed (CUDA events); the per-copy and per-CTA data are
// the last launch's.
// Columns: table,src,slots,passes,kernel_us,gbps,cta,smid,start_ns,end_ns,copies,p10,p50,p90,mean,bin,count
//   table=cta: one row per CTA of the last launch (cycles of its copies: p10/p50/p90/mean;
//              start_ns/end_ns from the earliest CTA start of the launch)
//   table=hist: the last launch's copies over all CTAs in 50-cycle bins (bin = lower edge)
#include "common.cuh"

constexpr uint32_t kBytes = 8192;
constexpr int kMaxCopies = 8192;  // per CTA: 32 MiB x 256 passes / 8 KB / 132 = 7944

__global__ void __launch_bounds__(32, 1)
    ring_kernel(const uint8_t* __restrict__ src, int nslots, long long T, int passes, uint32_t* lat,
                unsigned long long* cta_t, int* cta_sm) {
  extern __shared__ __align__(1024) uint8_t dsm[];
  __shared__ __align__(8) uint64_t bars[16];
  __shared__ long long issued[16];
  if (threadIdx.x != 0) return;
  unsigned long long t_start, t_end;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t_start));
  int smid;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  for (int s = 0; s < nslots; ++s) mbar_init(&bars[s], 1);
  fence_mbar_init();
  uint32_t* mine = lat + (size_t)blockIdx.x * kMaxCopies;
  const long long total = T * passes;
  const long long G = gridDim.x;
  long long t = blockIdx.x;
  int s = 0, n = 0;
  uint32_t round = 0;
  for (long long idx = blockIdx.x; idx < total; idx += G) {
    if (round > 0) {
      mbar_wait(&bars[s], (round - 1) & 1);
      const int prev = n - nslots;  // the copy this slot held
      if (prev < kMaxCopies) mine[prev] = (uint32_t)(clock64() - issued[s]);
    }
    mbar_expect_tx(&bars[s], kBytes);
    issued[s] = clock64();
    bulk_g2s(dsm + (uint32_t)s * kBytes, src + (unsigned long long)t * kBytes, kBytes, &bars[s]);
    ++n;
    t += G;
    if (t >= T) t -= T;
    if (++s == nslots) {
      s = 0;
      ++round;
    }
  }
  // Drain in issue order: slot s (the oldest) first.
  for (int k = 0; k < nslots; ++k) {
    const int slot = (s + k) % nslots;
    const int copy = n - nslots + k;
    if (copy < 0) continue;
    const uint32_t uses = round + (slot < s ? 1u : 0u);
    mbar_wait(&bars[slot], (uses - 1) & 1);
    if (copy < kMaxCopies) mine[copy] = (uint32_t)(clock64() - issued[slot]);
  }
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t_end));
  cta_t[2 * blockIdx.x] = t_start;
  cta_t[2 * blockIdx.x + 1] = t_end;
  cta_sm[blockIdx.x] = smid;
}

static void point(const char* srcname, const uint8_t* base, size_t region, bool fresh, int slots,
                  int passes, int sms, uint32_t* dlat, unsigned long long* dt, int* dsm) {
  const long long T = (long long)(region / kBytes);
  const size_t smem = (size_t)slots * kBytes;
  CK(cudaFuncSetAttribute(ring_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  int launch = 0;
  auto src = [&] { return base + (fresh ? (size_t)launch * region : 0); };
  ring_kernel<<<sms, 32, smem>>>(src(), slots, T, passes, dlat, dt, dsm);  // warm-up
  CKL();
  CK(cudaDeviceSynchronize());
  ++launch;
  std::vector<float> us;
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  for (int r = 0; r < 3; ++r, ++launch) {
    CK(cudaMemset(dlat, 0, (size_t)sms * kMaxCopies * sizeof(uint32_t)));
    us.push_back(event_us(e0, e1, [&] { ring_kernel<<<sms, 32, smem>>>(src(), slots, T, passes, dlat, dt, dsm); }));
  }
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
  const float med = median_of(us);
  const double moved = (double)T * kBytes * passes;
  std::vector<uint32_t> lat((size_t)sms * kMaxCopies);
  std::vector<unsigned long long> ct(2 * (size_t)sms);
  std::vector<int> csm(sms);
  CK(cudaMemcpy(lat.data(), dlat, lat.size() * sizeof(uint32_t), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(ct.data(), dt, ct.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(csm.data(), dsm, csm.size() * sizeof(int), cudaMemcpyDeviceToHost));
  unsigned long long t0 = ct[0];
  for (int c = 0; c < sms; ++c) t0 = std::min(t0, ct[2 * c]);
  std::vector<long long> hist(200, 0);
  for (int c = 0; c < sms; ++c) {
    const long long copies = (T * passes - c + sms - 1) / sms;
    const int kept = (int)std::min<long long>(copies, kMaxCopies);
    std::vector<uint32_t> v(lat.begin() + (size_t)c * kMaxCopies, lat.begin() + (size_t)c * kMaxCopies + kept);
    double sum = 0;
    for (uint32_t x : v) {
      sum += x;
      ++hist[std::min<uint32_t>(x / 50, 199)];
    }
    printf("cta,%s,%d,%d,%.2f,%.1f,%d,%d,%llu,%llu,%lld,%u,%u,%u,%.1f,,\n", srcname, slots, passes, med,
           moved / med / 1e3, c, csm[c], ct[2 * c] - t0, ct[2 * c + 1] - t0, copies, pct_of(v, 0.1),
           pct_of(v, 0.5), pct_of(v, 0.9), sum / kept);
  }
  for (int b = 0; b < 200; ++b)
    if (hist[b] > 0)
      printf("hist,%s,%d,%d,%.2f,%.1f,,,,,,,,,,%d,%lld\n", srcname, slots, passes, med, moved / med / 1e3,
             b * 50, hist[b]);
  fflush(stdout);
}

int main(int argc, char** argv) {
  const bool smoke = argc > 1 && std::string(argv[1]) == "--smoke";
  const int sms = num_sms();
  const size_t l2b = size_t(32) << 20;
  const size_t dramb = size_t(512) << 20;
  // The L2 region, then per DRAM point 4 launches (warm-up + 3) x 512 MiB of lines never read.
  const int dram_slots[] = {2, 4};
  const size_t total = l2b + (smoke ? 0 : 2 * 4 * dramb);
  uint8_t* buf;
  uint32_t* dlat;
  unsigned long long* dt;
  int* dsm;
  CK(cudaMalloc(&buf, total));
  CK(cudaMalloc(&dlat, (size_t)sms * kMaxCopies * sizeof(uint32_t)));
  CK(cudaMalloc(&dt, 2 * (size_t)sms * sizeof(unsigned long long)));
  CK(cudaMalloc(&dsm, (size_t)sms * sizeof(int)));
  fill_random(buf, total, 7);
  printf("table,src,slots,passes,kernel_us,gbps,cta,smid,start_ns,end_ns,copies,p10,p50,p90,mean,bin,count\n");
  const int l2_slots[] = {2, 4, 16};
  for (int passes : {16, 256}) {
    if (smoke && passes > 16) break;
    for (int s : l2_slots) point("l2", buf, l2b, false, s, passes, sms, dlat, dt, dsm);
  }
  if (!smoke)
    for (int i = 0; i < 2; ++i)
      point("dram", buf + l2b + (size_t)i * 4 * dramb, dramb, true, dram_slots[i], 1, sms, dlat, dt, dsm);
  return 0;
}
