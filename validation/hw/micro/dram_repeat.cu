// Is the slowness of a gathered DRAM set a property of its addresses or of the moment it is read?
// dram_spread.cu's gather (dram_spread.cuh) run on the same sets several times, with a 512 MiB L2
// flush before every run: if a set's latency comes from where its lines lie (channels, banks,
// near / far L2 partition), a slow set is slow in every run; if it comes from when it is read
// (a refresh in progress, say), which sets are slow changes from run to run.
// Sets: random = R distinct lines uniform over a 2 GiB buffer (R = 16, 32), stride = R lines D
// bytes apart (16 x 8 KB, 32 x 128 B; sample i at i * 4 MiB + (i * 7 mod 64) * 128), single =
// one random line; 64 sets (single: 128), 6 runs each with the GPU otherwise idle, then 2 runs
// while a background kernel (1 CTA of 128 threads per SM, one 16-B ld.global.cg in flight per
// thread over a separate 1 GiB buffer, 270 KB in flight: under a tenth of the DRAM bandwidth) keeps
// every channel busy: a cost of waking idle channels would vanish there, a refresh would not.
// Every sample is printed (cold cycles).
// Columns: pattern,rows,stride_bytes,background,sample,run,cycles
#include "dram_spread.cuh"

// Reads [p, p + nvec) in a grid-stride loop, over and over, for `cycles` SM cycles (longer than
// the timed kernel beside it runs).
__global__ void background_kernel(const int4* __restrict__ p, size_t nvec, long long cycles,
                                  int* sink) {
  const size_t tid = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  const size_t step = (size_t)gridDim.x * blockDim.x;
  int acc = 0;
  size_t i = tid;
  const long long t0 = clock64();
  while (clock64() - t0 < cycles) {
    int4 v;
    asm volatile("ld.global.cg.v4.s32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p + i));
    acc += v.x ^ v.w;
    i = (i + step) % nvec;
  }
  if (acc == 0x12345678) sink[1] = acc;
}

int main() {
  const size_t total = size_t(2) << 30, flush_bytes = size_t(512) << 20;
  uint8_t *base, *flush;
  int* sink;
  CK(cudaMalloc(&base, total));
  CK(cudaMalloc(&flush, flush_bytes));
  CK(cudaMalloc(&sink, 16));
  const size_t bg_bytes = size_t(1) << 30;
  uint8_t* bg;
  CK(cudaMalloc(&bg, bg_bytes));
  fill_random(bg, bg_bytes, 33);
  cudaStream_t s_bg, s_main;
  CK(cudaStreamCreateWithFlags(&s_bg, cudaStreamNonBlocking));
  CK(cudaStreamCreateWithFlags(&s_main, cudaStreamNonBlocking));
  cudaEvent_t ev_main, ev_bg;
  CK(cudaEventCreate(&ev_main));
  CK(cudaEventCreate(&ev_bg));
  fill_random(base, total, 31);
  fill_random(flush, flush_bytes, 32);
  const int max_samp = 128, runs = 8, idle_runs = 6, sms = num_sms();
  unsigned long long* doffs;
  long long* dout;
  CK(cudaMalloc(&doffs, max_samp * 32 * sizeof(unsigned long long)));
  CK(cudaMalloc(&dout, max_samp * 2 * sizeof(long long)));
  printf("pattern,rows,stride_bytes,background,sample,run,cycles\n");
  uint64_t rng = 0xD1B54A32D192ED03ull;
  auto next = [&rng]() {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
  };
  struct Config {
    const char* pattern;
    int rows;
    uint64_t stride;
  };
  const Config configs[] = {
      {"random", 32, 0}, {"random", 16, 0}, {"stride", 16, 8192}, {"stride", 32, 128}, {"single", 1, 0}};
  for (const Config& cf : configs) {
    const bool stride = cf.pattern[0] == 's' && cf.pattern[1] == 't';
    const int nsamp = cf.rows == 1 ? 128 : 64;
    std::vector<unsigned long long> h((size_t)nsamp * 32);
    for (int i = 0; i < nsamp; ++i) {
      std::vector<uint64_t> set;
      while ((int)set.size() < 32) {
        const uint64_t line = stride ? (uint64_t)i * (4u << 20) + (uint64_t)(i * 7 % 64) * 128 + set.size() * cf.stride
                                     : (next() % (total / 128)) * 128;
        if (std::find(set.begin(), set.end(), line) == set.end()) set.push_back(line);
      }
      for (int j = 0; j < 32; ++j) h[(size_t)i * 32 + j] = set[j];
    }
    CK(cudaMemcpy(doffs, h.data(), h.size() * sizeof(unsigned long long), cudaMemcpyHostToDevice));
    for (int run = 0; run < runs; ++run) {
      const bool busy = run >= idle_runs;
      read_all_kernel<<<sms * 8, 256>>>((const int4*)flush, flush_bytes / 16, sink);
      CKL();
      CK(cudaDeviceSynchronize());
      if (busy) {  // 4 ms of background, the timed kernel takes well under 1 ms
        background_kernel<<<sms, 128, 0, s_bg>>>((const int4*)bg, bg_bytes / 16, 8000000, sink);
        CKL();
      }
      spread_kernel<<<1, 32, 0, s_main>>>(base, doffs, cf.rows, nsamp, dout, sink);
      CKL();
      CK(cudaEventRecord(ev_main, s_main));
      CK(cudaEventRecord(ev_bg, s_bg));
      CK(cudaDeviceSynchronize());
      if (busy) {  // the timed kernel must end while the background still runs
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, ev_main, ev_bg));
        fprintf(stderr, "%s R=%d run %d: background ended %.3f ms after the timed kernel\n",
                cf.pattern, cf.rows, run, ms);
      }
      std::vector<long long> all(nsamp * 2);
      CK(cudaMemcpy(all.data(), dout, all.size() * sizeof(long long), cudaMemcpyDeviceToHost));
      for (int i = 0; i < nsamp; ++i) {
        printf("%s,%d,%llu,%d,%d,%d,%lld\n", cf.pattern, cf.rows, (unsigned long long)cf.stride,
               busy ? 1 : 0, i, run, all[i * 2]);
      }
      fflush(stdout);
    }
  }
  return 0;
}
