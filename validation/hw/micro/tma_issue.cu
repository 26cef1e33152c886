// TMA issue gap and admission limit: one thread issues n copies back to back
// (n = 1..32, each to its own shared-memory slot, all completing on one mbarrier
// armed once with expect_tx(n*bytes)); clock64 before the first issue, after the
// last issue, and after completion.
// n=0 is the baseline (clock reads, loop, barrier arming with 0 bytes).
// issue_cycles(n) slope below the knee = issue gap; a jump in slope = admission limit.
// copy: bulk (1-D cp.async.bulk, 1 KB or 4 KB) or tensor2d (64x32 fp16 box = 4 KB).
// src=l2: the same n sources every repetition (first repetition dropped);
// src=dram: fresh sources every repetition, L2 flushed once before.
// Columns: copy,src,bytes_each,n,samples,issue_cycles_median,complete_cycles_median,
//          issue_cycles_min,complete_cycles_min
#include "common.cuh"

// mode 0: bulk; mode 1: tensor 2d. Source selection: tile/offset index
// t = base_t + rep*n + k (fresh) or base_t + k (reuse).
__global__ void __launch_bounds__(32, 1)
    issue_kernel(const __grid_constant__ CUtensorMap map, const uint8_t* __restrict__ src, int mode,
                 uint32_t bytes, int n, int reps, int fresh, int cx0, long long* out /* [reps][2] */) {
  extern __shared__ __align__(1024) uint8_t dsm[];
  __shared__ __align__(8) uint64_t bar;
  if (threadIdx.x != 0) return;
  mbar_init(&bar, 1);
  fence_mbar_init();
  prefetch_tmap(&map);
  uint32_t phase = 0;
  const uint32_t sbase = smem_u32(dsm);
  const uint32_t bar_a = smem_u32(&bar);
  const uint64_t map_a = reinterpret_cast<uint64_t>(&map);
  for (int r = 0; r < reps; ++r) {
    int t0i = fresh ? r * n : 0;
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar_a), "r"(bytes * n)
                 : "memory");
    long long t0 = clock64();
    if (mode == 0) {
      for (int k = 0; k < n; ++k) {
        size_t t = (size_t)(t0i + k);
        const uint8_t* s = src + t * (size_t(256) << 10);  // 256 KiB apart
        asm volatile(
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                sbase + k * bytes),
            "l"(s), "r"(bytes), "r"(bar_a)
            : "memory");
      }
    } else {
      for (int k = 0; k < n; ++k) {
        int t = t0i + k;
        int cy = (t % 4096) * 32;  // row block (box is 32 rows)
        int cx = cx0 + ((t / 4096) % 64) * 64;
        asm volatile(
            "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], "
            "[%4];" ::"r"(sbase + k * bytes),
            "l"(map_a), "r"(cx), "r"(cy), "r"(bar_a)
            : "memory");
      }
    }
    long long t1 = clock64();
    mbar_wait(&bar, phase);
    long long t2 = clock64();
    phase ^= 1;
    out[2 * r] = t1 - t0;
    out[2 * r + 1] = t2 - t0;
  }
}

int main(int argc, char** argv) {
  bool smoke = argc > 1 && std::string(argv[1]) == "--smoke";
  int sms = num_sms();
  const size_t big = size_t(2) << 30, flush_bytes = size_t(512) << 20;
  uint8_t *buf, *fl;
  int* sink;
  CK(cudaMalloc(&buf, big));
  CK(cudaMalloc(&fl, flush_bytes));
  CK(cudaMalloc(&sink, 16));
  fill_random(buf, big, 3);
  fill_random(fl, flush_bytes, 4);
  // 2-D tensor over the big buffer: 4096 fp16 columns (8 KB rows), 131072 rows
  const int COLS = 4096;
  uint64_t rows = big / (COLS * 2);
  uint64_t dims[2] = {(uint64_t)COLS, rows};
  uint64_t strides[1] = {(uint64_t)COLS * 2};
  uint32_t box[2] = {64, 32};
  CUtensorMap map = make_tmap(buf, 2, dims, strides, box);
  const int reps = smoke ? 4 : 9;
  const int maxn = 32;
  long long* dout;
  CK(cudaMalloc(&dout, reps * 2 * sizeof(long long)));
  CK(cudaFuncSetAttribute(issue_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 32 * 4096));
  printf("copy,src,bytes_each,n,samples,issue_cycles_median,complete_cycles_median,issue_cycles_min,"
         "complete_cycles_min\n");
  struct K { const char* name; int mode; uint32_t bytes; };
  const K kinds[] = {{"bulk", 0, 1024}, {"bulk", 0, 4096}, {"tensor2d", 1, 4096}};
  size_t fresh_base_bytes = 0;  // bulk: advance source region between runs
  int fresh_tile_base = 0;
  for (int src_mode = 0; src_mode < 2; ++src_mode) {
    if (src_mode == 1) {
      read_all_kernel<<<sms * 8, 256>>>((const int4*)fl, flush_bytes / 16, sink);
      CKL();
      CK(cudaDeviceSynchronize());
    }
    for (K kd : kinds) {
      for (int n = 0; n <= (smoke ? 2 : maxn); ++n) {  // n=0: clock + arm overhead baseline
        const uint8_t* src = buf;
        CUtensorMap m = map;
        int cx0 = 0;
        if (src_mode == 1) {
          // fresh region per (kind, n): bulk sources 256 KiB apart, reps*n of them
          src = buf + (fresh_base_bytes % (big / 2)) + 64 * (n % 16);
          fresh_base_bytes += 4096 + 16 * 1024;
          if (kd.mode == 1) {
            // fresh lines: a new 128-byte column (cx0) per run, a new row range every 64 runs
            cx0 = (fresh_tile_base % 64) * 64;
            int row_off = ((fresh_tile_base / 64) % 8) * 10240;
            fresh_tile_base += 1;
            uint64_t d2[2] = {(uint64_t)COLS, rows - (uint64_t)row_off};
            m = make_tmap(buf + (size_t)row_off * COLS * 2, 2, d2, strides, box);
          }
        }
        issue_kernel<<<1, 32, 32 * 4096>>>(m, src, kd.mode, kd.bytes, n, reps, src_mode == 1 ? 1 : 0, cx0, dout);
        CKL();
        CK(cudaDeviceSynchronize());
        std::vector<long long> h(reps * 2);
        CK(cudaMemcpy(h.data(), dout, reps * 2 * sizeof(long long), cudaMemcpyDeviceToHost));
        std::vector<long long> is, cs;
        for (int r = 1; r < reps; ++r) {  // drop the first (descriptor / cold)
          is.push_back(h[2 * r]);
          cs.push_back(h[2 * r + 1]);
        }
        printf("%s,%s,%u,%d,%zu,%lld,%lld,%lld,%lld\n", kd.name, src_mode == 0 ? "l2" : "dram", kd.bytes, n,
               is.size(), median_of(is), median_of(cs), *std::min_element(is.begin(), is.end()),
               *std::min_element(cs.begin(), cs.end()));
        fflush(stdout);
      }
    }
  }
  return 0;
}
