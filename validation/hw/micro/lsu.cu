// The load/store-unit path (ld.global.cg / st.global, no TMA): latency of one dependent load,
// and streaming bandwidth against the bytes a thread keeps in flight, on one SM and on all.
// Prints CSV on stdout with the columns:
//   table,op,src,sms,ctas_per_sm,threads,unroll,buffer_bytes,bytes_moved,median_us,
//   median_gbps,bytes_per_sm_cycle,lat_p10,lat_median,lat_p90,sm_mhz
// Tables:
//   latency  1 thread: a dependent chain of ld.global.cg over a random cyclic permutation of the
//            lines of a W-byte buffer (the next line's index is stored in each line); clock64
//            around each load; src=l2 after an all-SM read of the buffer, src=dram after a
//            512 MiB flush (W = 1 GiB: every line is read once)
//   sm       1 CTA (one SM) of T threads, each with U independent int4 loads (or stores) in
//            flight per iteration (the next iteration's addresses depend on the loaded data,
//            so exactly U are in flight); clock64 of thread 0 between __syncthreads;
//            src=l2: 4 MiB resident buffer read 4 times; src=dram: 64 MiB after a flush
//   chip     every SM x C CTAs x 256 threads, U loads (stores) in flight per thread; CUDA
//            events, median of 5 after a warm-up; src=l2: 32 MiB read 64 times inside the
//            launch; src=dram: 4 GiB read once (stores: 2 GiB written once)
#include "common.cuh"

__device__ __forceinline__ int4 ldcg(const int4* p) {
  int4 v;
  asm volatile("ld.global.cg.v4.s32 {%0,%1,%2,%3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p));
  return v;
}
__device__ __forceinline__ void stg(int4* p, int4 v) {
  asm volatile("st.global.v4.s32 [%0], {%1,%2,%3,%4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z),
               "r"(v.w)
               : "memory");
}

__global__ void chase_kernel(const uint32_t* __restrict__ p, int n, long long* lat, int* sink) {
  uint32_t j = 0;
  for (int s = 0; s < n; ++s) {
    const long long t0 = clock64();
    uint32_t nx;
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(nx) : "l"(p + (size_t)j * 32));
    j = nx;
    asm volatile("" ::"r"(j));
    const long long t1 = clock64();
    lat[s] = t1 - t0;
  }
  sink[0] = (int)j;
}

// Reads nvec int4 `passes` times; every thread keeps U loads in flight. Thread i of the grid
// reads i, i + stride, ..., i + (U-1) stride, then moves on by U * stride.
template <int U, bool kStore>
__global__ void stream_kernel(int4* __restrict__ p, size_t nvec, int passes, int* sink,
                              unsigned long long* clk) {
  const size_t tid = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  __syncthreads();
  long long c0 = 0;
  unsigned long long g0 = 0;
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    c0 = clock64();
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
  }
  int acc = 0;
#pragma unroll 1
  for (int ps = 0; ps < passes; ++ps) {
    size_t i = tid;
#pragma unroll 1
    while (i + (U - 1) * stride < nvec) {
      if (kStore) {
        int4 v = make_int4((int)i, ps, acc, 1);
#pragma unroll
        for (int u = 0; u < U; ++u) stg(p + i + u * stride, v);
      } else {
        int4 v[U];
#pragma unroll
        for (int u = 0; u < U; ++u) v[u] = ldcg(p + i + u * stride);
#pragma unroll
        for (int u = 0; u < U; ++u) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;  // all four: a 128-bit load
      }
      // The next addresses depend on the data just loaded: no more than U loads in flight.
      i += U * stride + (acc == 0x7fffffff ? 1 : 0);
    }
  }
  if (acc == 0x7fffffff) sink[0] = acc;
  __syncthreads();
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    long long c1 = clock64();
    unsigned long long g1;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
    clk[0] = (unsigned long long)(c1 - c0);
    clk[1] = g1 - g0;
  }
}

template <bool kStore>
void launch_stream(int u, int blocks, int threads, int4* p, size_t nvec, int passes, int* sink,
                   unsigned long long* clk) {
  switch (u) {
    case 1: stream_kernel<1, kStore><<<blocks, threads>>>(p, nvec, passes, sink, clk); break;
    case 2: stream_kernel<2, kStore><<<blocks, threads>>>(p, nvec, passes, sink, clk); break;
    case 4: stream_kernel<4, kStore><<<blocks, threads>>>(p, nvec, passes, sink, clk); break;
    case 8: stream_kernel<8, kStore><<<blocks, threads>>>(p, nvec, passes, sink, clk); break;
    default: fprintf(stderr, "bad unroll %d\n", u); exit(1);
  }
  CKL();
}

static double pct(std::vector<long long> v, double q) {
  std::sort(v.begin(), v.end());
  return (double)v[(size_t)(q * (v.size() - 1))];
}

int main(int argc, char** argv) {
  const bool smoke = argc > 1 && std::string(argv[1]) == "--smoke";
  const int sms = num_sms();
  const size_t big = size_t(4) << 30, flush_bytes = size_t(512) << 20;
  uint8_t *buf, *fl;
  int* sink;
  unsigned long long* clk;
  long long* lat;
  CK(cudaMalloc(&buf, big));
  CK(cudaMalloc(&fl, flush_bytes));
  CK(cudaMalloc(&sink, 16));
  CK(cudaMalloc(&clk, 16));
  const int nlat = smoke ? 256 : 4096;
  CK(cudaMalloc(&lat, nlat * sizeof(long long)));
  CK(cudaMemset(buf, 0, big));
  CK(cudaMemset(fl, 1, flush_bytes));
  auto flush = [&]() {
    read_all_kernel<<<sms * 8, 256>>>((const int4*)fl, flush_bytes / 16, sink);
    CKL();
  };
  auto touch = [&](size_t bytes) {
    read_all_kernel<<<sms * 8, 256>>>((const int4*)buf, bytes / 16, sink);
    CKL();
  };
  printf("table,op,src,sms,ctas_per_sm,threads,unroll,buffer_bytes,bytes_moved,median_us,"
         "median_gbps,bytes_per_sm_cycle,lat_p10,lat_median,lat_p90,sm_mhz\n");

  // ---- latency
  const size_t lat_mb[] = {2, 16, 32, 48, 64, 96, 1024};
  for (size_t mb : lat_mb) {
    const size_t bytes = mb << 20, lines = bytes / 128;
    std::vector<uint32_t> perm(lines);
    for (size_t i = 0; i < lines; ++i) perm[i] = (uint32_t)i;
    uint64_t x = 0x9E3779B97F4A7C15ull ^ mb;
    for (size_t i = lines - 1; i > 0; --i) {
      x ^= x << 13; x ^= x >> 7; x ^= x << 17;
      std::swap(perm[i], perm[x % (i + 1)]);
    }
    std::vector<uint32_t> next(lines * 32, 0);
    for (size_t i = 0; i < lines; ++i) next[(size_t)perm[i] * 32] = perm[(i + 1) % lines];
    CK(cudaMemcpy(buf, next.data(), lines * 128, cudaMemcpyHostToDevice));
    for (const char* src : {"l2", "dram"}) {
      if (mb == 1024 && std::string(src) == "l2") continue;
      if (std::string(src) == "l2") touch(bytes); else flush();
      chase_kernel<<<1, 1>>>((const uint32_t*)buf, nlat, lat, sink);
      CKL();
      CK(cudaDeviceSynchronize());
      std::vector<long long> h(nlat);
      CK(cudaMemcpy(h.data(), lat, nlat * sizeof(long long), cudaMemcpyDeviceToHost));
      h.erase(h.begin(), h.begin() + 8);
      printf("latency,ld,%s,1,1,1,1,%zu,%zu,,,,%.0f,%.0f,%.0f,\n", src, bytes, (size_t)nlat * 4,
             pct(h, 0.1), pct(h, 0.5), pct(h, 0.9));
      fflush(stdout);
    }
  }
  CK(cudaMemset(buf, 0, big));

  // ---- one SM
  for (const char* op : {"ld", "st"}) {
    const bool st = std::string(op) == "st";
    for (const char* src : {"l2", "dram"}) {
      const bool l2 = std::string(src) == "l2";
      for (int threads : {128, 256, 512, 1024}) {
        for (int u : {1, 2, 4, 8}) {
          const size_t bytes = l2 ? (size_t(4) << 20) : (size_t(64) << 20);
          const int passes = l2 ? 4 : 1;
          // dram: a 64 MiB region not used by the previous configuration
          static size_t rot = 0;
          int4* p = (int4*)(buf + (l2 ? 0 : (size_t(64) << 20) * (1 + (rot++ % 48))));
          std::vector<double> bpc, mhz;
          for (int r = 0; r < 3; ++r) {
            if (l2) {
              read_all_kernel<<<sms * 8, 256>>>((const int4*)p, bytes / 16, sink);
              CKL();
            } else {
              flush();
            }
            if (st) launch_stream<true>(u, 1, threads, p, bytes / 16, passes, sink, clk);
            else launch_stream<false>(u, 1, threads, p, bytes / 16, passes, sink, clk);
            CK(cudaDeviceSynchronize());
            unsigned long long h[2];
            CK(cudaMemcpy(h, clk, 16, cudaMemcpyDeviceToHost));
            bpc.push_back((double)bytes * passes / (double)h[0]);
            mhz.push_back((double)h[0] / (double)h[1] * 1000.0);
          }
          std::sort(bpc.begin(), bpc.end());
          std::sort(mhz.begin(), mhz.end());
          printf("sm,%s,%s,1,1,%d,%d,%zu,%zu,,,%.2f,,,,%.0f\n", op, src, threads, u, bytes,
                 bytes * passes, bpc[1], mhz[1]);
          fflush(stdout);
          if (smoke) break;
        }
      }
    }
  }

  // ---- all SMs
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  for (const char* op : {"ld", "st"}) {
    const bool st = std::string(op) == "st";
    for (const char* src : {"l2", "dram"}) {
      const bool l2 = std::string(src) == "l2";
      for (int ctas : {2, 8}) {
        for (int u : {1, 2, 4, 8}) {
          const size_t bytes = l2 ? (size_t(32) << 20) : (st ? (size_t(2) << 30) : big);
          const int passes = l2 ? (smoke ? 4 : 64) : 1;
          int4* p = (int4*)buf;
          std::vector<float> t;
          std::vector<double> mhz;
          for (int r = 0; r < (smoke ? 2 : 6); ++r) {
            if (l2) touch(bytes); else flush();
            CK(cudaEventRecord(e0));
            if (st) launch_stream<true>(u, sms * ctas, 256, p, bytes / 16, passes, sink, clk);
            else launch_stream<false>(u, sms * ctas, 256, p, bytes / 16, passes, sink, clk);
            CK(cudaEventRecord(e1));
            CK(cudaEventSynchronize(e1));
            float ms;
            CK(cudaEventElapsedTime(&ms, e0, e1));
            unsigned long long h[2];
            CK(cudaMemcpy(h, clk, 16, cudaMemcpyDeviceToHost));
            if (r > 0) {  // the first is a warm-up
              t.push_back(ms * 1000.f);
              mhz.push_back((double)h[0] / (double)h[1] * 1000.0);
            }
          }
          const double med = median_of(t);
          std::sort(mhz.begin(), mhz.end());
          const double moved = (double)bytes * passes;
          const double m = mhz[mhz.size() / 2];
          printf("chip,%s,%s,%d,%d,256,%d,%zu,%.0f,%.2f,%.1f,%.2f,,,,%.0f\n", op, src, sms, ctas, u,
                 bytes, moved, med, moved / med / 1e3, moved / (med * m) / sms, m);
          fflush(stdout);
        }
      }
    }
  }
  return 0;
}
