// l2_partition.cu's experiment with TMA loads: how much more a 128-B TMA read of an L2-resident
// line costs when the line's home slice is in the other L2 partition. micro_l2_partition.csv
// measured it for ld.global.cg (far 180 SM cycles more, median); configs/h200.yaml's
// l2.far_extra_cycles (129 L2 cycles = 150 SM cycles) was read off tma_latency's 128-B means,
// whose near/far split is not known line by line (validation/README.md, TMA latency).
// For every target SM s: 512 MiB L2 flush, then SM 0 (the helper) TMA-loads N random lines of a
// 64 MiB region once (now in L2 at home, and near SM 0), then SM s TMA-loads each line twice
// (pass 0, then pass 1 in a second launch), each load timed alone (tma2d_on_sm_kernel: clock64
// around arrive.expect_tx + cp.async.bulk.tensor.2d of a 64x1 fp16 box + try_wait spin, as
// tma_latency's 128-B box). A far line costs the extra in pass 0 and, with a near copy left by
// pass 0, not in pass 1; near lines cost the same in both passes.
// Pass 2 reads each line once more by a dependent ld.global.cg from the same SM (is a line that
// stays slow for TMA slow for the load/store unit too?), pass 3 by TMA again, pass 4 by a 1-D
// cp.async.bulk of the line (no tensor map), pass 5 by TMA 2-D through a second map of the same
// bytes with 4 KB rows ([16384 x 2048] fp16: the same line at other box coordinates; do the
// lines slow by TMA 2-D follow the address or the coordinates?).
// --cold (twenty-eighth session): does a DRAM miss on a far-homed line pay the far extra too?
// Per SM: flush, pass 6 loads each line from DRAM by TMA 2-D; flush, pass 7 the same by
// ld.global.cg; flush, the helper's loads and pass 0 (which tells the lines far from this SM's
// partition, for SMs of the other group than the helper's).
// Options: --helper H (the helper SM, default 0), --cold (passes 6, 7, 0 only), --smoke (32
// lines, every 33rd SM).
// (Until 27f2b86 the TMA 2-D passes timed every fourth load with the L2 round trip of the next
// coordinates: tma_on_sm.cuh.)
// Columns: helper,smid,line,pass,cycles (line = index into the random line list; the first load
// of a TMA launch also fetches the tensor map).
#include "tma_on_sm.cuh"

int main(int argc, char** argv) {
  bool smoke = false, cold = false;
  int helper = 0;
  for (int a = 1; a < argc; ++a) {
    if (std::string(argv[a]) == "--smoke") smoke = true;
    if (std::string(argv[a]) == "--cold") cold = true;
    if (std::string(argv[a]) == "--helper" && a + 1 < argc) helper = std::atoi(argv[++a]);
  }
  const int sms = num_sms(), n = smoke ? 32 : 192, COLS = 4096;
  const size_t region = size_t(64) << 20, flush_bytes = size_t(512) << 20;
  void *buf, *fl;
  int *sink, *ran;
  int2* dcoords;
  long long* dout;
  CK(cudaMalloc(&buf, region));
  CK(cudaMalloc(&fl, flush_bytes));
  CK(cudaMalloc(&sink, 16));
  CK(cudaMalloc(&ran, 4));
  CK(cudaMalloc(&dcoords, n * sizeof(int2)));
  CK(cudaMalloc(&dout, n * sizeof(long long)));
  fill_random(buf, region, 7);
  fill_random(fl, flush_bytes, 31);
  // The region as an [8192 x 4096] fp16 tensor: line L is row L / 64, columns (L % 64) * 64.
  const uint64_t rows = region / (COLS * 2);
  uint64_t dims[2] = {(uint64_t)COLS, rows};
  uint64_t strides[1] = {(uint64_t)COLS * 2};
  uint32_t box[2] = {64, 1};
  CUtensorMap map = make_tmap(buf, 2, dims, strides, box);
  uint64_t dims2[2] = {(uint64_t)COLS / 2, rows * 2};
  uint64_t strides2[1] = {(uint64_t)COLS};
  CUtensorMap map2 = make_tmap(buf, 2, dims2, strides2, box);
  int2* dcoords2;
  CK(cudaMalloc(&dcoords2, n * sizeof(int2)));
  std::vector<uint32_t> lines;
  add_random_lines(lines, n, (uint32_t)(region / 128));
  std::vector<int2> hc(n);
  for (int i = 0; i < n; ++i) hc[i] = int2{(int)(lines[i] % 64) * 64, (int)(lines[i] / 64)};
  CK(cudaMemcpy(dcoords, hc.data(), n * sizeof(int2), cudaMemcpyHostToDevice));
  // Line L in the 4 KB-row map: row L / 32, columns (L % 32) * 64.
  for (int i = 0; i < n; ++i) hc[i] = int2{(int)(lines[i] % 32) * 64, (int)(lines[i] / 32)};
  CK(cudaMemcpy(dcoords2, hc.data(), n * sizeof(int2), cudaMemcpyHostToDevice));
  const int smem = 200 * 1024;
  CK(cudaFuncSetAttribute(tma2d_on_sm_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  CK(cudaFuncSetAttribute(line_on_sm_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  printf("helper,smid,line,pass,cycles\n");
  std::vector<long long> h(n);
  // One load on SM `s` per line, by TMA 2-D (pass 0, 1, 3; 5 through the 4 KB-row map),
  // ld.global.cg (2, 7) or 1-D bulk copy (4) (tma_on_sm.cuh); 6 and 7 find a flushed L2; false
  // if no CTA ran there.
  auto loads = [&](int s, int pass) {
    CK(cudaMemset(ran, 0xff, 4));
    if (pass == 2 || pass == 4 || pass == 7) {
      line_on_sm_kernel<<<sms, 32, smem>>>((const int4*)buf, dcoords, n, s, pass == 4, dout, ran);
    } else {
      tma2d_on_sm_kernel<<<sms, 32, smem>>>(pass == 5 ? map2 : map, pass == 5 ? dcoords2 : dcoords, n, 128,
                                            s, 0, dout, ran);
    }
    CKL();
    if (!ran_on(ran, s)) return false;
    CK(cudaMemcpy(h.data(), dout, n * sizeof(long long), cudaMemcpyDeviceToHost));
    return true;
  };
  auto flush = [&]() {
    read_all_kernel<<<sms * 8, 256>>>((const int4*)fl, flush_bytes / 16, sink);
    CKL();
  };
  for (int s = 0; s < sms; s += smoke ? 33 : 1) {
    if (cold) {
      for (int pass : {6, 7}) {
        flush();
        if (!loads(s, pass)) return 1;
        for (int i = 0; i < n; ++i) printf("%d,%d,%d,%d,%lld\n", helper, s, i, pass, h[i]);
      }
    }
    flush();
    if (!loads(helper, 0)) return 1;
    for (int pass = 0; pass < (cold ? 1 : 6); ++pass) {
      if (!loads(s, pass)) return 1;
      for (int i = 0; i < n; ++i) printf("%d,%d,%d,%d,%lld\n", helper, s, i, pass, h[i]);
    }
    fflush(stdout);
  }
  return 0;
}
