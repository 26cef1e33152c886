// Round trip of one ld.global.cg by how many bytes a warp asks for: W warps of one CTA, each a
// dependent chain over the 512-B blocks of a buffer (a random cycle; every 4-byte word of a
// block holds the next block's index, so any lane and width reads it without a shuffle).
// Lane l reads `width` bytes at block + (l % lanes) * width: lanes = 1 is one sector for the
// whole warp, 8 x 16 B one line, 32 x 16 B four lines. clock64 of lane 0 around each load,
// first 8 of 1024 dropped. src=l2: the buffer (4 MiB) read by all SMs first; src=dram: 1 GiB
// after a 512 MiB flush (every block visited once).
// Prints CSV on stdout: src,buffer_bytes,warps,lanes,width,bytes_per_warp,samples,lat_p10,
// lat_median,lat_p90
#include "common.cuh"

template <int kWidth>
__global__ void chain_kernel(const uint32_t* __restrict__ p, int lanes, int n, long long* lat,
                             int* sink) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  uint32_t j = (uint32_t)warp * 977u;  // warps start at different blocks
  const size_t off = (size_t)(lane % lanes) * (kWidth / 4);
  for (int s = 0; s < n; ++s) {
    const long long t0 = clock64();
    const uint32_t* q = p + (size_t)j * 128 + off;
    uint32_t nx;
    if (kWidth == 16) {
      uint32_t a, b, c;
      asm volatile("ld.global.cg.v4.u32 {%0,%1,%2,%3}, [%4];"
                   : "=r"(nx), "=r"(a), "=r"(b), "=r"(c)
                   : "l"(q));
      nx |= (a & b & c & 0x80000000u);  // all four words are used: one 128-bit load
    } else {
      asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(nx) : "l"(q));
    }
    j = nx;
    asm volatile("" ::"r"(j));
    const long long t1 = clock64();
    if (lane == 0) lat[(size_t)warp * n + s] = t1 - t0;
  }
  if (j == 0xffffffffu) sink[0] = (int)j;
}

int main(int argc, char** argv) {
  const bool smoke = argc > 1 && std::string(argv[1]) == "--smoke";
  const int sms = num_sms();
  const size_t big = size_t(1) << 30, flush_bytes = size_t(512) << 20;
  uint32_t* buf;
  uint8_t* fl;
  int* sink;
  long long* lat;
  const int n = smoke ? 64 : 1024;
  CK(cudaMalloc(&buf, big));
  CK(cudaMalloc(&fl, flush_bytes));
  CK(cudaMemset(fl, 1, flush_bytes));
  CK(cudaMalloc(&sink, 16));
  CK(cudaMalloc(&lat, 4 * n * sizeof(long long)));
  printf("src,buffer_bytes,warps,lanes,width,bytes_per_warp,samples,lat_p10,lat_median,lat_p90\n");
  for (const char* src : {"l2", "dram"}) {
    const bool l2 = std::string(src) == "l2";
    const size_t bytes = l2 ? (size_t(4) << 20) : big, blocks = bytes / 512;
    // A random cycle over the blocks (all warps walk the same cycle from different starts).
    std::vector<uint32_t> perm(blocks);
    for (size_t i = 0; i < blocks; ++i) perm[i] = (uint32_t)i;
    uint64_t x = 0x2545F4914F6CDD1Dull;
    for (size_t i = blocks - 1; i > 0; --i) {
      x ^= x << 13; x ^= x >> 7; x ^= x << 17;
      std::swap(perm[i], perm[x % (i + 1)]);
    }
    std::vector<uint32_t> h(bytes / 4);
    for (size_t i = 0; i < blocks; ++i) {
      const uint32_t next = perm[(i + 1) % blocks];
      for (int w = 0; w < 128; ++w) h[(size_t)perm[i] * 128 + w] = next;
    }
    CK(cudaMemcpy(buf, h.data(), bytes, cudaMemcpyHostToDevice));
    for (int width : {4, 16}) {
      for (int lanes : {1, 8, 32}) {
        for (int warps : {1, 4}) {
          if (l2) {
            read_all_kernel<<<sms * 8, 256>>>((const int4*)buf, bytes / 16, sink);
          } else {
            read_all_kernel<<<sms * 8, 256>>>((const int4*)fl, flush_bytes / 16, sink);
          }
          CKL();
          if (width == 16) chain_kernel<16><<<1, 32 * warps>>>(buf, lanes, n, lat, sink);
          else chain_kernel<4><<<1, 32 * warps>>>(buf, lanes, n, lat, sink);
          CKL();
          CK(cudaDeviceSynchronize());
          std::vector<long long> hl((size_t)warps * n);
          CK(cudaMemcpy(hl.data(), lat, hl.size() * sizeof(long long), cudaMemcpyDeviceToHost));
          std::vector<long long> v;
          for (int w = 0; w < warps; ++w)
            for (int s = 8; s < n; ++s) v.push_back(hl[(size_t)w * n + s]);
          std::sort(v.begin(), v.end());
          auto q = [&](double f) { return v[(size_t)(f * (v.size() - 1))]; };
          printf("%s,%zu,%d,%d,%d,%d,%zu,%lld,%lld,%lld\n", src, bytes, warps, lanes, width,
                 lanes * width, v.size(), q(0.1), q(0.5), q(0.9));
          fflush(stdout);
        }
      }
    }
  }
  return 0;
}
