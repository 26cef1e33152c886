// The latency of one line while every SM streams from DRAM (twenty-ninth session). The model's
// DRAM adds little latency under load where the H200 adds much: tma_bw's 2-slot DRAM point is
// +14.7 % fast in the model, and tma_ring's loaded copies take 1275 cycles (median) on the H200
// against the model's 1117 (validation/README.md, "Memory bandwidth"). This measures the
// latency-against-load curve directly, and whether the added latency is the DRAM's (probe
// lines from DRAM) or the fabric's and the L2's (probe lines resident in L2).
//
// One CTA per SM (grid = SMs, 128 KB of shared memory each), two warps, lane 0 of each:
//   warp 0, the stream: `slots` bulk copies of 8 KB in flight (one mbarrier per slot, a slot
//     reissued when its copy completed), 600 copies per CTA, copy n of CTA c = unit
//     c + n * grid of a 2 GiB region (tma_bw's grid-stride order; lines no copy of the launch
//     read before, from DRAM after the flush); slots = 0: no stream
//   warp 1, the probe: `samples` dependent ld.global.cg.u32 (the next address adds the loaded
//     word, which is 0), clock64 before the load and after an instruction on its value (as
//     tma_on_sm.cuh's loads: an empty asm alone let clock64 run before the data came); the
//     line of sample k of CTA c is a hash of (c, k): probe=dram, over a 4 GiB region no one else reads
//     (every sample a line not read before, from DRAM), probe=l2, over a 1 MiB region every SM
//     read before the launch (the lines stay resident: every SM re-reads them all the time);
//     probe=tma_dram: the dram probe's lines by one 128-B cp.async.bulk each (clock64 around
//     arrive.expect_tx + copy + try_wait spin), through the TMA unit the stream keeps busy;
//     probe=l2hot (thirtieth session): the l2 probe over the region's first 32 KB (256 lines, every
//     one re-read by some SM every few microseconds, so the stream cannot evict them): whether an
//     L2 hit waits behind the stream's misses, i.e. whether the queue is in front of the L2's tag
//     lookup or behind it (the 1 MiB region's lines are partly evicted under load)
// Per launch: a 512 MiB flush (read_all_kernel), for probe=l2 a read of the 1 MiB region, then
// the kernel; 3 launches (rep) per point, the first 8 samples of each CTA dropped, and with a
// stream only the samples that ended before the CTA's stream did (by the SM's clock64).
// Columns: probe,slots,rep,stream_gbps,sm_mhz,inside,samples,min,p10,p25,median,p75,p90,mean,p95,p99,max
//   (p95, p99, max since the thirty-third session: a copy of 64 lines ends with its slowest, so
//   the lines' tail, not their median, sets a loaded copy's time)
//   stream_gbps: stream bytes / (last stream end - first stream start), %globaltimer
//   sm_mhz: median over CTAs of the stream warp's (probe warp's without a stream) clock64 over
//     %globaltimer
//   inside: the share of CTAs whose probe ended before their stream did (1 = every sample was
//     taken under load)
//   rep = all: every launch's samples of the point together
// --quiet N (thirty-second session): CTAs c with c % N == 0 do not stream, they only probe, while
// the others stream and probe as above; probes dram and l2hot, S = 0, 2, 4, 6, 8, 16. A probe's
// end is then taken by %globaltimer and kept if it came before the first streaming CTA ended.
// Rows probe_quiet (the quiet CTAs' samples) and probe_stream (the streaming CTAs') of the same
// launches: whether a probe waits behind its own SM's stream (a queue at the SM, only
// probe_stream slows) or in the memory system every SM shares (both slow alike).
// --hit-stream (thirty-fourth session): the stream reads an 8 MiB region every SM read before
// the launch (copy n of CTA c = unit (c + n * grid) mod 1024), so it loads the fabric and the L2
// slices with hits and leaves the DRAM idle; probes dram and l2hot (rows dram_hitstream,
// l2hot_hitstream), S = 0, 1, 2, 3, 4, 6, 8, 16. What an L2-bound kernel's loads (a GEMM's operand
// tiles) wait for: the model's slice serves a read in arrival order or behind a busy-until horizon.
// With --quiet N as well: rows PROBE_hitquiet (CTAs that only probe) and PROBE_hitbusy.
// LOADED_STREAM_SMS=a,b,... (environment): only the listed SMs (by %smid) stream; with it the
// stream_gbps column counts only CTAs that streamed, and the other CTAs' samples are dropped
// (their stream never ran). For ncu runs that ask which slices one partition's SMs load. With
// --per-sm too, the SMs that do not stream keep their samples that ended (%globaltimer) before the
// first streaming CTA's stream did (stream_us 0): whether a load waits where the streaming SMs'
// responses queue (their GPCs) or where every SM's requests meet (the slices).
// --per-sm (with --hit-stream or alone, not with --quiet): instead of the pooled rows, one row per
// SM and point, columns probe,slots,smid,samples,p10,median,p90,stream_us (the SM's samples of the
// three launches; stream_us the mean of its stream's %globaltimer spans): whether some SMs' loads
// wait and others' do not (the model's two partitions serve their own SMs from near copies).
#include "common.cuh"

constexpr uint32_t kBytes = 8192;
constexpr int kCopies = 600;
constexpr int kMaxSamples = 512;
constexpr int kDrop = 8;
constexpr size_t kSmem = size_t(128) << 10;  // one CTA per SM

__device__ __forceinline__ uint32_t mix32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

__global__ void __launch_bounds__(64, 1)
    loaded_kernel(const uint8_t* __restrict__ stream, int nslots, const uint32_t* probe,
                  uint32_t line_mask, int samples, uint32_t seed, bool bulk, uint32_t* lat,
                  long long* ends, unsigned long long* info, int quiet_every, uint32_t units,
                  const unsigned char* stream_sms) {
  extern __shared__ __align__(1024) uint8_t dsm[];
  __shared__ __align__(8) uint64_t bars[16];
  __shared__ __align__(8) uint64_t pbar;
  __shared__ __align__(128) uint8_t pbuf[128];
  if (threadIdx.x == 0) {
    for (int s = 0; s < nslots; ++s) mbar_init(&bars[s], 1);
    mbar_init(&pbar, 1);
    fence_mbar_init();
  }
  __syncthreads();
  if (threadIdx.x % 32 != 0) return;
  unsigned long long* my = info + (size_t)blockIdx.x * 8;
  unsigned long long g0, g1;
  long long c0, c1;
  if (threadIdx.x == 0) {
    if (nslots == 0 || (quiet_every > 0 && blockIdx.x % quiet_every == 0)) return;
    if (stream_sms != nullptr) {  // LOADED_STREAM_SMS: only the listed SMs stream
      int sm;
      asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
      if (!stream_sms[sm]) return;
    }
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
    c0 = clock64();
    long long u = blockIdx.x;
    int s = 0;
    uint32_t round = 0;
    for (int n = 0; n < kCopies; ++n) {
      if (round > 0) mbar_wait(&bars[s], (round - 1) & 1);
      mbar_expect_tx(&bars[s], kBytes);
      bulk_g2s(dsm + (uint32_t)s * kBytes, stream + (unsigned long long)u * kBytes, kBytes, &bars[s]);
      u += gridDim.x;
      // --hit-stream: wrap by a subtraction (units > grid); a 64-bit modulo per copy held the
      // issuing thread ~500 cycles, capping the stream at ~17 B per SM cycle (a first run)
      if (units > 0 && u >= (long long)units) u -= units;
      if (++s == nslots) {
        s = 0;
        ++round;
      }
    }
    ring_drain(bars, nslots, round, s);
    c1 = clock64();
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
    my[0] = g0;
    my[1] = g1;
    my[2] = (unsigned long long)c0;
    my[3] = (unsigned long long)c1;
    return;
  }
  int smid;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
  c0 = clock64();
  uint32_t v = 0;
  uint32_t* mine = lat + (size_t)blockIdx.x * kMaxSamples;
  long long* mine_end = ends + (size_t)blockIdx.x * kMaxSamples;
  for (int k = 0; k < samples; ++k) {
    const uint32_t line = (mix32(seed ^ mix32(blockIdx.x * 0x10001U + (uint32_t)k * 0x9E3779B9U)) + v) & line_mask;
    long long t0;
    if (bulk) {  // probe=tma_dram: a 128-B bulk copy through the SM's TMA unit, which the stream uses
      t0 = timed_bulk_load(pbuf, probe + (size_t)line * 32, 128, &pbar);
      mbar_wait(&pbar, (uint32_t)k & 1);
    } else {
      t0 = clock64();
      uint32_t nx;
      asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(nx) : "l"(probe + (size_t)line * 32));
      v ^= nx & 0x40000000U;  // a real instruction on the loaded word (always 0): clock64 waits for it
      asm volatile("" ::"r"(v));
    }
    const long long t1 = clock64();
    mine[k] = (uint32_t)(t1 - t0);
    if (quiet_every > 0 || stream_sms != nullptr) {
      unsigned long long g;
      asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g));
      mine_end[k] = (long long)g;
    } else {
      mine_end[k] = t1;
    }
  }
  c1 = clock64();
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
  my[4] = g0;
  my[5] = g1;
  my[6] = (unsigned long long)(c1 - c0);
  my[7] = (unsigned long long)smid;
}

static void print_row(const char* probe, int slots, const char* rep, double gbps, double mhz, double inside,
                      std::vector<uint32_t> v) {
  std::sort(v.begin(), v.end());
  double sum = 0;
  for (uint32_t x : v) sum += x;
  auto q = [&](double p) { return v[(size_t)(p * (double)(v.size() - 1))]; };
  printf("%s,%d,%s,%.1f,%.0f,%.2f,%zu,%u,%u,%u,%u,%u,%u,%.1f,%u,%u,%u\n", probe, slots, rep, gbps, mhz, inside,
         v.size(), v.front(), q(0.1), q(0.25), v[v.size() / 2], q(0.75), q(0.9), sum / (double)v.size(), q(0.95),
         q(0.99), v.back());
}

// A row's probe name: PROBE, PROBE_hitstream; with --quiet PROBE_quiet / PROBE_stream (the CTAs
// that only probe / that stream and probe), PROBE_hitquiet / PROBE_hitbusy with --hit-stream too.
static std::string row_name(const char* probe, bool quiet, bool hit, bool quiet_cta) {
  const std::string p(probe);
  if (!quiet) return hit ? p + "_hitstream" : p;
  if (hit) return p + (quiet_cta ? "_hitquiet" : "_hitbusy");
  return p + (quiet_cta ? "_quiet" : "_stream");
}

int main(int argc, char** argv) {
  bool smoke = false, hit_stream = false, per_sm = false, bad = false;
  int quiet = 0;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    if (arg == "--smoke") {
      smoke = true;
    } else if (arg == "--hit-stream") {
      hit_stream = true;
    } else if (arg == "--per-sm") {
      per_sm = true;
    } else if (arg == "--quiet" && a + 1 < argc) {
      quiet = std::atoi(argv[++a]);
      bad = bad || quiet < 2;
    } else {
      bad = true;
    }
  }
  if (bad || (smoke && (quiet > 0 || hit_stream || per_sm)) || (per_sm && quiet > 0)) {
    fprintf(stderr, "usage: loaded_latency [--smoke | [--quiet N (N >= 2) | --per-sm] [--hit-stream]]\n");
    return 2;
  }
  const size_t hit_bytes = size_t(8) << 20;  // --hit-stream: the region the stream re-reads
  const uint32_t units = hit_stream ? (uint32_t)(hit_bytes / kBytes) : 0;
  const int sms = num_sms();
  const size_t stream_bytes = size_t(2) << 30;
  const size_t dram_probe = size_t(4) << 30;
  const size_t l2_probe = size_t(1) << 20;
  const size_t flush_bytes = size_t(512) << 20;
  if ((size_t)sms * kCopies * kBytes > stream_bytes) {
    fprintf(stderr, "stream region too small\n");
    return 1;
  }
  uint8_t* stream;
  uint32_t* probe_dram;
  uint32_t* probe_l2;
  int4* flush;
  int* sink;
  uint32_t* dlat;
  long long* dends;
  unsigned long long* dinfo;
  CK(cudaMalloc(&stream, stream_bytes));
  CK(cudaMalloc(&probe_dram, dram_probe));
  CK(cudaMalloc(&probe_l2, l2_probe));
  CK(cudaMalloc(&flush, flush_bytes));
  CK(cudaMalloc(&sink, sizeof(int)));
  CK(cudaMalloc(&dlat, (size_t)sms * kMaxSamples * sizeof(uint32_t)));
  CK(cudaMalloc(&dends, (size_t)sms * kMaxSamples * sizeof(long long)));
  CK(cudaMalloc(&dinfo, (size_t)sms * 8 * sizeof(unsigned long long)));
  fill_random(stream, stream_bytes, 11);
  fill_random(flush, flush_bytes, 12);
  CK(cudaMemset(probe_dram, 0, dram_probe));
  CK(cudaMemset(probe_l2, 0, l2_probe));
  unsigned char* stream_sms = nullptr;
  if (const char* list = getenv("LOADED_STREAM_SMS")) {
    std::vector<unsigned char> flags(sms, 0);
    for (const char* p = list; *p;) {
      const int sm = atoi(p);
      if (sm >= 0 && sm < sms) flags[sm] = 1;
      while (*p && *p != ',') ++p;
      if (*p == ',') ++p;
    }
    CK(cudaMalloc(&stream_sms, sms));
    CK(cudaMemcpy(stream_sms, flags.data(), sms, cudaMemcpyHostToDevice));
  }
  CK(cudaFuncSetAttribute(loaded_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)kSmem));
  if (per_sm)
    printf("probe,slots,smid,samples,p10,median,p90,stream_us\n");
  else
    printf("probe,slots,rep,stream_gbps,sm_mhz,inside,samples,min,p10,p25,median,p75,p90,mean,p95,p99,max\n");
  const std::vector<int> all_slots =
      quiet > 0 ? std::vector<int>{0, 2, 4, 6, 8, 16} : std::vector<int>{0, 1, 2, 3, 4, 6, 8, 16};
  const std::vector<const char*> probes =
      quiet > 0 || hit_stream ? std::vector<const char*>{"dram", "l2hot"}
                              : std::vector<const char*>{"dram", "l2", "tma_dram", "l2hot"};
  uint32_t seed = 1;
  for (const char* probe : probes) {
    const bool hot = std::string(probe) == "l2hot";
    const bool dram = std::string(probe) != "l2" && !hot;
    const bool bulk = std::string(probe) == "tma_dram";
    const int samples = dram ? 192 : 256;
    const uint32_t mask = (uint32_t)((dram ? dram_probe : hot ? size_t(32) << 10 : l2_probe) / 128 - 1);
    for (int slots : all_slots) {
      if (smoke && slots > 2) break;
      std::vector<uint32_t> pooled, pooled_q;
      std::vector<std::vector<uint32_t>> by_sm(per_sm ? sms : 0);  // --per-sm: samples by %smid
      std::vector<double> sm_us(per_sm ? sms : 0, 0.0);
      std::vector<double> gsum, msum, fsum;
      for (int rep = 0; rep < 3; ++rep, ++seed) {
        read_all_kernel<<<sms * 4, 512>>>(flush, flush_bytes / sizeof(int4), sink);
        CKL();
        if (!dram) {
          read_all_kernel<<<sms * 4, 512>>>(reinterpret_cast<const int4*>(probe_l2), l2_probe / sizeof(int4), sink);
          CKL();
        }
        if (hit_stream) {
          read_all_kernel<<<sms * 4, 512>>>(reinterpret_cast<const int4*>(stream), hit_bytes / sizeof(int4), sink);
          CKL();
        }
        CK(cudaMemset(dinfo, 0, (size_t)sms * 8 * sizeof(unsigned long long)));
        loaded_kernel<<<sms, 64, kSmem>>>(stream, slots, dram ? probe_dram : probe_l2, mask, samples, seed * 0x51ED27U,
                                          bulk, dlat, dends, dinfo, quiet, units, stream_sms);
        CKL();
        CK(cudaDeviceSynchronize());
        std::vector<uint32_t> lat((size_t)sms * kMaxSamples);
        std::vector<long long> ends((size_t)sms * kMaxSamples);
        std::vector<unsigned long long> info((size_t)sms * 8);
        CK(cudaMemcpy(ends.data(), dends, ends.size() * sizeof(long long), cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(lat.data(), dlat, lat.size() * sizeof(uint32_t), cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(info.data(), dinfo, info.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
        std::vector<uint32_t> v, vq;
        std::vector<double> mhz;
        unsigned long long first = ~0ULL, last = 0;
        int inside = 0;
        // --quiet: samples count until the first streaming CTA ended (%globaltimer)
        unsigned long long stream_end = ~0ULL;
        for (int c = 0; c < sms && quiet > 0 && slots > 0; ++c)
          if (c % quiet != 0) stream_end = std::min(stream_end, info[(size_t)c * 8 + 1]);
        // LOADED_STREAM_SMS: every sample's end is %globaltimer; a CTA that did not stream keeps
        // (with --per-sm) the samples that ended before the first streaming CTA's stream did
        if (stream_sms != nullptr && slots > 0)
          for (int c = 0; c < sms; ++c)
            if (info[(size_t)c * 8 + 1] != 0) stream_end = std::min(stream_end, info[(size_t)c * 8 + 1]);
        int streaming = 0;
        for (int c = 0; c < sms; ++c) {
          const unsigned long long* m = &info[(size_t)c * 8];
          if (quiet > 0) {
            const bool q = c % quiet == 0;
            for (int k = kDrop; k < samples; ++k)
              if (slots == 0 || (unsigned long long)ends[(size_t)c * kMaxSamples + k] <= stream_end)
                (q ? vq : v).push_back(lat[(size_t)c * kMaxSamples + k]);
            if (q) continue;
          }
          if (slots > 0 && stream_sms != nullptr && m[1] == 0) {  // did not stream
            for (int k = kDrop; k < samples && per_sm && m[7] < (unsigned long long)sms; ++k)
              if ((unsigned long long)ends[(size_t)c * kMaxSamples + k] <= stream_end)
                by_sm[m[7]].push_back(lat[(size_t)c * kMaxSamples + k]);
            continue;
          }
          if (slots > 0) ++streaming;
          // Only samples that ended while this CTA's stream ran (clock64 of one SM; %globaltimer
          // with LOADED_STREAM_SMS).
          const long long own_end = stream_sms != nullptr ? (long long)m[1] : (long long)m[3];
          for (int k = kDrop; k < samples && quiet == 0; ++k)
            if (slots == 0 || ends[(size_t)c * kMaxSamples + k] <= own_end) {
              v.push_back(lat[(size_t)c * kMaxSamples + k]);
              if (per_sm && m[7] < (unsigned long long)sms) by_sm[m[7]].push_back(lat[(size_t)c * kMaxSamples + k]);
            }
          if (per_sm && slots > 0 && m[7] < (unsigned long long)sms) sm_us[m[7]] += (double)(m[1] - m[0]) / 3e3;
          if (slots > 0) {
            first = std::min(first, m[0]);
            last = std::max(last, m[1]);
            mhz.push_back((double)(m[3] - m[2]) / (double)(m[1] - m[0]) * 1e3);
            inside += m[5] <= m[1] ? 1 : 0;
          } else {
            mhz.push_back((double)m[6] / (double)(m[5] - m[4]) * 1e3);
          }
        }
        const double gbps = slots > 0 ? (double)streaming * kCopies * kBytes / (double)(last - first) : 0.0;
        const double frac = slots > 0 ? (double)inside / (quiet > 0 ? std::max(streaming, 1) : sms) : 1.0;
        if (v.empty()) v.push_back(0);
        if (vq.empty()) vq.push_back(0);
        const std::string name = row_name(probe, quiet > 0, hit_stream, false);
        if (!per_sm) print_row(name.c_str(), slots, std::to_string(rep).c_str(), gbps, median_of(mhz), frac, v);
        if (quiet > 0)
          print_row(row_name(probe, true, hit_stream, true).c_str(), slots, std::to_string(rep).c_str(), gbps,
                    median_of(mhz), frac, vq);
        pooled.insert(pooled.end(), v.begin(), v.end());
        pooled_q.insert(pooled_q.end(), vq.begin(), vq.end());
        gsum.push_back(gbps);
        msum.push_back(median_of(mhz));
        fsum.push_back(frac);
      }
      const std::string name = row_name(probe, quiet > 0, hit_stream, false);
      for (int sm = 0; per_sm && sm < sms; ++sm) {
        std::vector<uint32_t>& w = by_sm[sm];
        if (w.empty()) continue;
        std::sort(w.begin(), w.end());
        auto q = [&](double p) { return w[(size_t)(p * (double)(w.size() - 1))]; };
        printf("%s,%d,%d,%zu,%u,%u,%u,%.1f\n", name.c_str(), slots, sm, w.size(), q(0.1), w[w.size() / 2], q(0.9),
               sm_us[sm]);
      }
      if (!per_sm)
        print_row(name.c_str(), slots, "all", median_of(gsum), median_of(msum), *std::min_element(fsum.begin(), fsum.end()),
                  pooled);
      if (quiet > 0)
        print_row(row_name(probe, true, hit_stream, true).c_str(), slots, "all", median_of(gsum), median_of(msum),
                  *std::min_element(fsum.begin(), fsum.end()), pooled_q);
      fflush(stdout);
    }
  }
  return 0;
}
