// Which lines share a DRAM bank: the H200's address -> pseudo-channel / bank map, which no
// document gives (the model interleaves 256 B per pseudo-channel, configs/h200.yaml
// dram.interleave_bytes, a choice; validation/README.md, "The tail of one line").
// dram_spread's gather (dram_spread.cuh) of two cold lines A and A + k issued together: when
// they lie in one bank but in different rows the second waits a row cycle (tRAS + tRP, ~50 ns,
// ~95 SM cycles) for the first; in one row (same bank, same page) it is a row hit; in other banks
// the two overlap. 64 pairs per offset k (A_i = i x 16 MiB + (i x 7 mod 64) x 128 of a 2 GiB
// buffer, the same A_i for every k), a 512 MiB L2 flush before each offset; k = 128 B .. 8 KB in
// steps of 128 B, then 16 KB .. 512 MiB by powers of two; k = 0 is A alone (one line). The
// whole sweep runs 3 times (rep). Every sample is printed (cold cycles). A_i lies in the first
// 8 KB of a 2 MiB page, so up to k = 1 MiB both lines share a physical page and the offset is a
// physical one; beyond, the page map decides and a bank relation shows only as a spread.
// Columns: k_bytes,rep,sample,cycles
#include "dram_spread.cuh"

int main() {
  const size_t total = size_t(2) << 30, flush_bytes = size_t(512) << 20;
  uint8_t *base, *flush;
  int* sink;
  CK(cudaMalloc(&base, total));
  CK(cudaMalloc(&flush, flush_bytes));
  CK(cudaMalloc(&sink, 16));
  fill_random(base, total, 41);
  fill_random(flush, flush_bytes, 42);
  const int nsamp = 64, reps = 3, sms = num_sms();
  unsigned long long* doffs;
  long long* dout;
  CK(cudaMalloc(&doffs, nsamp * 32 * sizeof(unsigned long long)));
  CK(cudaMalloc(&dout, nsamp * 2 * sizeof(long long)));
  std::vector<unsigned long long> ks = {0};
  for (unsigned long long k = 128; k <= 8192; k += 128) ks.push_back(k);
  for (unsigned long long k = 16384; k <= (512ull << 20); k *= 2) ks.push_back(k);
  printf("k_bytes,rep,sample,cycles\n");
  for (int rep = 0; rep < reps; ++rep) {
    for (unsigned long long k : ks) {
      std::vector<unsigned long long> h((size_t)nsamp * 32);
      for (int i = 0; i < nsamp; ++i) {
        const unsigned long long a = (unsigned long long)i * (16ull << 20) + (unsigned long long)(i * 7 % 64) * 128;
        for (int j = 0; j < 32; ++j) h[(size_t)i * 32 + j] = (j == 1 && k > 0) ? a + k : a;
      }
      CK(cudaMemcpy(doffs, h.data(), h.size() * sizeof(unsigned long long), cudaMemcpyHostToDevice));
      read_all_kernel<<<sms * 8, 256>>>((const int4*)flush, flush_bytes / 16, sink);
      CKL();
      CK(cudaDeviceSynchronize());
      spread_kernel<<<1, 32>>>(base, doffs, k > 0 ? 2 : 1, nsamp, dout, sink);
      CKL();
      CK(cudaDeviceSynchronize());
      std::vector<long long> all(nsamp * 2);
      CK(cudaMemcpy(all.data(), dout, all.size() * sizeof(long long), cudaMemcpyDeviceToHost));
      for (int i = 0; i < nsamp; ++i) printf("%llu,%d,%d,%lld\n", k, rep, i, all[i * 2]);
      fflush(stdout);
    }
  }
  return 0;
}
