// Does a line read from both L2 partitions take more of the L2 than one read from one?
// mem_bw's l2_read (all SMs x 8 CTAs x 256 threads, grid-stride int4 ld.global.cg, the buffer
// read `passes` times inside one launch) keeps full speed to 48 MiB: there every line is read by
// the same CTA, hence the same SM, in every pass. mode=rotate moves every 4 KB chunk to another
// CTA each pass (CTA b reads the chunks of CTA (b + 37 p) mod G in pass p), so a line is read by
// SMs of both partitions over the passes. mode=fixed is mem_bw's kernel.
// Columns: test,mode,buffer_bytes,bytes_per_launch,launches,median_us,median_gbps,best_gbps
#include "common.cuh"

__global__ void rot_read_kernel(const int4* __restrict__ p, size_t nvec, int passes, int shift, int* sink) {
  const size_t G = gridDim.x, B = blockDim.x, stride = G * B;
  int acc = 0;
  for (int ps = 0; ps < passes; ++ps) {
    const size_t b = (blockIdx.x + (size_t)ps * (size_t)shift) % G;
    size_t i = b * B + threadIdx.x;
    for (; i + 3 * stride < nvec; i += 4 * stride) {
      int4 a = __ldcg(p + i);
      int4 c = __ldcg(p + i + stride);
      int4 d = __ldcg(p + i + 2 * stride);
      int4 e = __ldcg(p + i + 3 * stride);
      // every component, as mem_bw.cu: with two of four used the compiler narrows the loads
      // and the kernel ran at 4.0-4.5 TB/s at every size
      acc ^= a.x ^ a.y ^ a.z ^ a.w ^ c.x ^ c.y ^ c.z ^ c.w ^ d.x ^ d.y ^ d.z ^ d.w ^ e.x ^ e.y ^ e.z ^ e.w;
    }
    for (; i < nvec; i += stride) {
      int4 a = __ldcg(p + i);
      acc ^= a.x ^ a.y ^ a.z ^ a.w;
    }
  }
  if (acc == 0x7fffffff) sink[0] = acc;
}

int main() {
  const int sms = num_sms();
  const int threads = 256, blocks = sms * 8, reps = 5;
  const size_t max_bytes = size_t(64) << 20;
  void* a;
  int* sink;
  CK(cudaMalloc(&a, max_bytes));
  CK(cudaMalloc(&sink, 16));
  fill_random(a, max_bytes);
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  printf("test,mode,buffer_bytes,bytes_per_launch,launches,median_us,median_gbps,best_gbps\n");
  for (int mb : {16, 24, 32, 40, 48, 56, 64}) {
    for (int shift : {0, 37}) {
      const size_t bytes = size_t(mb) << 20, nvec = bytes / 16;
      const int passes = (int)((size_t(4) << 30) / bytes);
      rot_read_kernel<<<blocks, threads>>>((const int4*)a, nvec, passes, shift, sink);
      CKL();
      CK(cudaDeviceSynchronize());
      std::vector<float> t;
      for (int r = 0; r < reps; ++r) {
        t.push_back(event_us(e0, e1, [&] {
          rot_read_kernel<<<blocks, threads>>>((const int4*)a, nvec, passes, shift, sink);
        }));
      }
      const double moved = (double)bytes * passes;
      const float med = median_of(t), best = *std::min_element(t.begin(), t.end());
      printf("l2_read,%s,%zu,%.0f,%d,%.2f,%.1f,%.1f\n", shift ? "rotate" : "fixed", bytes, moved, reps, med,
             moved / med / 1e3, moved / best / 1e3);
      fflush(stdout);
    }
  }
  CK(cudaFree(a));
  return 0;
}
