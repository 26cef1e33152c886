// Which L2 slice serves each line: the H200's slice hash, which no document gives (the model
// uses an IPOLY hash, configs/h200.yaml l2.hash; tma_align_burst.csv's aligned rows run 18 %
// below other L2-bound streams on the H200 and not in the model, which an uneven hash for that
// pattern would explain). Meant to run under Nsight Compute with per-instance L2 counters:
//   L2MAP_PART=k ncu --clock-control none --cache-control none --kernel-name probe --csv
//     --print-units base --print-metric-instances values
//     --metrics lts__t_requests_srcunit_tex_op_read.sum <build>/l2_slice_map > raw_k.csv
// One launch reads 12 lines from one SM, line i (i = 0..11) 32 << i times (ld.global.cg, the
// lines passed as kernel parameters so nothing else is read), so a slice's request count, divided
// by 32, is the sum of 2^i over the lines it served: every slice's lines decode at once
// (validation/l2_slice_map.py). Each set is read from SM 0 and from SM 2 (other GPCs; on the
// lent H200 SM 0 sits next to L2 partition 0 and SM 2 next to partition 1, micro_l2_partition.csv):
// a far line's repeated reads are served by a near copy in the reader's partition, so the two
// readers give a line's home slice and its copy's slice. A launch with no lines measures what
// else reaches the slices. Lines (128 B each) of a 1 GiB buffer, in sets of 12:
//   contiguous  lines 0..2047 (256 KB)
//   strided     lines 2^j * m for j = 4..22 (2 KB .. 512 MB apart), m = 1..24
// L2MAP_PART=k (0..7) runs the k-th eighth of the sets (default: all). Prints, per launch:
// set,reader_sm,smid,lines (12, ';'-separated) in launch order, so the ncu rows pair up.
#include <vector>

#include "common.cuh"

constexpr int kLines = 12;
constexpr int kRep = 32;  // reads of line i: kRep << i (a stray read per line stays below kRep / 2)

struct LineSet {
  unsigned long long off[kLines];  // byte offsets into the buffer
  int n;                           // lines used (the rest read nothing)
};

__global__ void probe(const uint8_t* __restrict__ buf, LineSet set, int want_sm, int* where,
                      uint32_t* sink) {
  uint32_t smid;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  if ((int)smid != want_sm || threadIdx.x != 0) return;
  *where = (int)smid;
  uint32_t acc = 0;
  for (int i = 0; i < set.n; ++i) {
    const uint8_t* p = buf + set.off[i];
    for (int r = 0; r < (kRep << i); ++r) {
      uint32_t v;
      asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
      acc += v;
    }
  }
  sink[blockIdx.x] = acc;  // a write, not counted by the read metric
}

int main(int argc, char** argv) {
  const bool smoke = argc > 1 && std::string(argv[1]) == "--smoke";
  const int sms = num_sms();
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  const size_t bytes = size_t(1) << 30;
  uint8_t* buf;
  CK(cudaMalloc(&buf, bytes));
  fill_random(buf, bytes, 5);
  int* d_where;
  uint32_t* d_sink;
  CK(cudaMalloc(&d_where, sizeof(int)));
  CK(cudaMalloc(&d_sink, sms * sizeof(uint32_t)));
  // One CTA per SM (shared memory), so the reader is on the SM asked for.
  const size_t smem = p.sharedMemPerBlockOptin;
  CK(cudaFuncSetAttribute(probe, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));

  std::vector<unsigned long long> lines;
  for (unsigned long long l = 0; l < (smoke ? 24ull : 2048ull); ++l) lines.push_back(l);
  for (int j = 4; j <= 22 && !smoke; ++j)
    for (unsigned long long m = 1; m <= 24; ++m) {
      const unsigned long long l = m << j;
      if (l * 128 < bytes) lines.push_back(l);
    }
  std::vector<LineSet> sets(1);  // set 0: no lines
  sets[0].n = 0;
  for (size_t i = 0; i < lines.size(); i += kLines) {
    LineSet s{};
    s.n = (int)std::min<size_t>(kLines, lines.size() - i);
    for (int k = 0; k < s.n; ++k) s.off[k] = lines[i + k] * 128;
    sets.push_back(s);
  }
  const char* part = getenv("L2MAP_PART");
  const int k = part ? atoi(part) : -1;
  printf("set,reader_sm,smid,lines\n");
  for (size_t si = 0; si < sets.size(); ++si) {
    if (k >= 0 && (int)(si % 8) != k && si != 0) continue;
    for (int reader : {0, 2}) {
      CK(cudaMemset(d_where, 0xff, sizeof(int)));
      probe<<<sms, 32, smem>>>(buf, sets[si], reader, d_where, d_sink);
      CKL();
      CK(cudaDeviceSynchronize());
      int where = -1;
      CK(cudaMemcpy(&where, d_where, sizeof(int), cudaMemcpyDeviceToHost));
      printf("%zu,%d,%d,", si, reader, where);
      for (int i = 0; i < sets[si].n; ++i) printf("%s%llu", i ? ";" : "", sets[si].off[i] / 128);
      printf("\n");
    }
  }
  fflush(stdout);
  CK(cudaFree(buf));
  return 0;
}
