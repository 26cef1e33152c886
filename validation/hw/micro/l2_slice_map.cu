// How the H200's L2 slices share out lines (the model uses an IPOLY hash, configs/h200.yaml
// l2.hash; tma_align_burst.csv's aligned rows run 18 % below other L2-bound streams on the H200
// and not in the model, which an uneven hash for that pattern would explain).
//
// Second version (twenty-first session). The first read line i of a set 32 << i times and meant
// to decode every slice's count from ncu's per-instance values: on the H200 ncu printed only the
// sum for lts__t_requests_srcunit_tex_op_read (no instance values), and each line reached the
// L2 once per launch however often it was read (ptxas merged the repeated loads). So now:
//  * every repeated read depends on the previous one (its address adds the loaded value AND a
//    zero kernel parameter), so each is its own L2 request;
//  * ncu is asked for the sum and the .max / .min over slices, which a launch can be built to
//    answer in.
// One thread on SM `reader` (one CTA per SM by shared memory, the others exit) reads lines of a
// 1 GiB buffer with ld.global.cg, the lines passed as kernel parameters (nothing else reaches
// the L2's tex port: the empty launch counts 0). Two kinds of launch:
//   set    n lines (<= 384) read `rep` times each: max / rep = the most lines any one slice
//          received from the reader (every read goes to a slice of the reader's partition first:
//          a far line's copy or its forwarding point), sum / rep = n;
//          sets: lines k * 2^j (j = 0..16, n = 384 or what 1 GiB holds), and 8 sets of 384
//          random lines (seeded), each read from SM 0 and from SM 2 (other partition);
//   pair   an anchor line read 2048 * rep times and up to 11 test lines read 2^t * rep times
//          (t = 0..10): the anchor's slice holds the maximum, so (max / rep - 2048) has bit t
//          set exactly when test t shares the anchor's slice; every pair of 97 lines (0..63,
//          2^k for k = 6..22, 3 * 2^k for k = 6..21) from SM 0.
// Run under ncu (--kernel-name probe / probe_pairs, metrics below); the binary prints, per
// launch in order: kind,set,reader_sm,smid,rep,anchor,lines (';'-separated) so the ncu rows pair
// up. Decoded by validation/l2_slice_map.py.
#include <random>
#include <vector>

#include "common.cuh"

constexpr int kMaxSet = 384;
constexpr int kRep = 4;
constexpr int kTests = 11;

struct LineSet {
  unsigned long long off[kMaxSet];  // byte offsets into the buffer
  int n;
  int rep;
};

struct PairSet {
  unsigned long long anchor;
  unsigned long long off[kTests];
  int n;
  int rep;
};

__device__ __forceinline__ uint32_t chain_reads(const uint8_t* p, int reads, uint32_t zero, uint32_t v) {
  for (int r = 0; r < reads; ++r) {
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p + (v & zero)) : "memory");
  }
  return v;
}

__device__ __forceinline__ bool on_sm(int want_sm, int* where) {
  uint32_t smid;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  if ((int)smid != want_sm || threadIdx.x != 0) return false;
  *where = (int)smid;
  return true;
}

__global__ void probe(const uint8_t* __restrict__ buf, const __grid_constant__ LineSet set, int want_sm,
                      uint32_t zero, int* where, uint32_t* sink) {
  if (!on_sm(want_sm, where)) return;
  uint32_t v = 0;
  for (int i = 0; i < set.n; ++i) v = chain_reads(buf + set.off[i], set.rep, zero, v);
  sink[blockIdx.x] = v;  // a write, not counted by the read metric
}

__global__ void probe_pairs(const uint8_t* __restrict__ buf, const __grid_constant__ PairSet set, int want_sm,
                            uint32_t zero, int* where, uint32_t* sink) {
  if (!on_sm(want_sm, where)) return;
  uint32_t v = chain_reads(buf + set.anchor, set.rep << kTests, zero, 0);
  for (int i = 0; i < set.n; ++i) v = chain_reads(buf + set.off[i], set.rep << i, zero, v);
  sink[blockIdx.x] = v;
}

int main(int argc, char** argv) {
  const bool smoke = argc > 1 && std::string(argv[1]) == "--smoke";
  const int sms = num_sms();
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  const size_t bytes = size_t(1) << 30;
  const unsigned long long nlines = bytes / 128;
  uint8_t* buf;
  CK(cudaMalloc(&buf, bytes));
  CK(cudaMemset(buf, 0, bytes));
  int* d_where;
  uint32_t* d_sink;
  CK(cudaMalloc(&d_where, sizeof(int)));
  CK(cudaMalloc(&d_sink, sms * sizeof(uint32_t)));
  const size_t smem = p.sharedMemPerBlockOptin;  // one CTA per SM: the reader is the SM asked for
  CK(cudaFuncSetAttribute(probe, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  CK(cudaFuncSetAttribute(probe_pairs, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  const char* only = getenv("L2MAP_KIND");  // set / pair (default both)
  const bool do_sets = !only || std::string(only) == "set";
  const bool do_pairs = !only || std::string(only) == "pair";
  printf("kind,set,reader_sm,smid,rep,anchor,lines\n");
  const auto report = [&](const char* kind, int set, int reader, long long anchor,
                          const unsigned long long* off, int n) {
    int where = -1;
    CK(cudaMemcpy(&where, d_where, sizeof(int), cudaMemcpyDeviceToHost));
    printf("%s,%d,%d,%d,%d,%lld,", kind, set, reader, where, kRep, anchor);
    for (int i = 0; i < n; ++i) printf("%s%llu", i ? ";" : "", off[i] / 128);
    printf("\n");
  };
  if (do_sets) {
    std::vector<std::vector<unsigned long long>> sets;
    sets.push_back({});  // set 0: no lines (what else reaches the slices)
    for (int j = 0; j <= 16; ++j) {
      std::vector<unsigned long long> s;
      for (unsigned long long k = 0; k < (unsigned long long)(smoke ? 16 : kMaxSet) && (k << j) < nlines; ++k)
        s.push_back(k << j);
      sets.push_back(s);
    }
    std::mt19937_64 rng(20261205);
    for (int r = 0; r < (smoke ? 1 : 8); ++r) {
      std::vector<unsigned long long> s;
      while ((int)s.size() < (smoke ? 16 : kMaxSet)) {
        const unsigned long long l = rng() % nlines;
        if (std::find(s.begin(), s.end(), l) == s.end()) s.push_back(l);
      }
      sets.push_back(s);
    }
    for (size_t si = 0; si < sets.size(); ++si)
      for (int reader : {0, 2}) {
        LineSet ls{};
        ls.n = (int)sets[si].size();
        ls.rep = kRep;
        for (int i = 0; i < ls.n; ++i) ls.off[i] = sets[si][i] * 128;
        CK(cudaMemset(d_where, 0xff, sizeof(int)));
        probe<<<sms, 32, smem>>>(buf, ls, reader, 0u, d_where, d_sink);
        CKL();
        CK(cudaDeviceSynchronize());
        report("set", (int)si, reader, -1, ls.off, ls.n);
      }
  }
  if (do_pairs) {
    std::vector<unsigned long long> lines;
    const char* which = getenv("L2MAP_PAIRS");  // "bits": the address-bit set below
    if (which && std::string(which) == "bits") {
      // Line 0, every line with one bit b set and every line with two bits a < b set, b <= 13
      // (all inside one 2 MiB page, so the bits are the physical address's): if the slice
      // function is linear in the address bits, its null space is line 0's class.
      lines.push_back(0);
      for (int b = 1; b <= (smoke ? 3 : 13); ++b) lines.push_back(1ull << b);
      for (int b = 2; b <= (smoke ? 3 : 13); ++b)
        for (int a = 1; a < b; ++a) lines.push_back((1ull << a) | (1ull << b));
    } else {
      for (unsigned long long l = 0; l < (smoke ? 8ull : 64ull); ++l) lines.push_back(l);
      for (int k = 6; k <= 22 && !smoke; ++k) lines.push_back(1ull << k);
      for (int k = 6; k <= 21 && !smoke; ++k) lines.push_back(3ull << k);
    }
    int set = 0;
    for (size_t a = 0; a < lines.size(); ++a)
      for (size_t b = a + 1; b < lines.size(); b += kTests) {
        PairSet ps{};
        ps.anchor = lines[a] * 128;
        ps.n = (int)std::min<size_t>(kTests, lines.size() - b);
        ps.rep = kRep;
        for (int i = 0; i < ps.n; ++i) ps.off[i] = lines[b + i] * 128;
        CK(cudaMemset(d_where, 0xff, sizeof(int)));
        probe_pairs<<<sms, 32, smem>>>(buf, ps, 0, 0u, d_where, d_sink);
        CKL();
        CK(cudaDeviceSynchronize());
        report("pair", set++, 0, (long long)lines[a], ps.off, ps.n);
      }
  }
  fflush(stdout);
  CK(cudaFree(buf));
  return 0;
}
