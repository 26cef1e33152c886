// Which lines a TMA 2-D box reads slowly, line by line over a whole region, and whether a box of
// several rows pays for them. tma_partition.cu found a quarter of L2-resident lines ~125 cycles
// slower by a 64x1 fp16 box than by ld.global.cg or a bulk copy, from every SM, the same lines
// on the H200 and the H100 and in any allocation (validation/README.md, "Near and far lines by
// TMA"); 192 lines were too few to find the rule.
// SM 0 (one CTA per SM by smem; the others exit) reads a 1 MiB region ([128 x 4096] fp16, 8 KB
// rows) once by ld.global.cg (its own partition keeps a copy of every line), then times, one
// copy at a time (tma2d_on_sm_kernel):
//   box=1:  every line by a 64x1 box (8192 copies, x = column, y = row)
//   box=2:  every pair of rows by a 64x2 box (4096 copies: lines y and y + 1 at column x)
//   box=64: every 64x64 box (128 copies, 8 KB, 64 rows)
//   bulk:   every line by a 1-D cp.async.bulk of 128 B (8192 copies)
// each kind twice (rep 0, 1). Columns: kind,rep,x,y,cycles (x, y: the box's first column and row).
#include "tma_on_sm.cuh"

int main(int argc, char** argv) {
  const bool smoke = argc > 1 && std::string(argv[1]) == "--smoke";
  const int sms = num_sms(), target = 0, COLS = 4096, ROWS = smoke ? 8 : 128;
  const size_t region = (size_t)ROWS * COLS * 2;
  uint8_t* buf;
  int *sink, *ran;
  int2* dcoords;
  long long* dout;
  const int maxn = ROWS * (COLS / 64);
  CK(cudaMalloc(&buf, region));
  CK(cudaMalloc(&sink, 16));
  CK(cudaMalloc(&ran, 4));
  CK(cudaMalloc(&dcoords, maxn * sizeof(int2)));
  CK(cudaMalloc(&dout, maxn * sizeof(long long)));
  fill_random(buf, region, 3);
  const int smem = 200 * 1024;
  CK(cudaFuncSetAttribute(tma2d_on_sm_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  CK(cudaFuncSetAttribute(line_on_sm_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  CK(cudaFuncSetAttribute(self_read_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  self_read_kernel<<<sms, 1024, smem>>>((const int4*)buf, region / 16, target, sink);
  CKL();
  CK(cudaDeviceSynchronize());
  printf("kind,rep,x,y,cycles\n");
  std::vector<long long> h(maxn);
  for (int rows : {1, 2, 64, 0}) {  // 0: bulk
    const int box_rows = rows == 0 ? 1 : rows;
    std::vector<int2> hc;
    for (int y = 0; y + box_rows <= ROWS; y += box_rows)
      for (int x = 0; x < COLS; x += 64) hc.push_back(int2{x, y});
    const int n = (int)hc.size();
    CK(cudaMemcpy(dcoords, hc.data(), n * sizeof(int2), cudaMemcpyHostToDevice));
    uint64_t dims[2] = {(uint64_t)COLS, (uint64_t)ROWS};
    uint64_t strides[1] = {(uint64_t)COLS * 2};
    uint32_t box[2] = {64, (uint32_t)box_rows};
    CUtensorMap map = make_tmap(buf, 2, dims, strides, box);
    for (int rep = 0; rep < 2; ++rep) {
      CK(cudaMemset(ran, 0xff, 4));
      if (rows == 0) {
        line_on_sm_kernel<<<sms, 32, smem>>>((const int4*)buf, dcoords, n, target, 1, dout, ran);
      } else {
        tma2d_on_sm_kernel<<<sms, 32, smem>>>(map, dcoords, n, 128u * box_rows, target, 0, dout, ran);
      }
      CKL();
      if (!ran_on(ran, target)) return 1;
      CK(cudaMemcpy(h.data(), dout, n * sizeof(long long), cudaMemcpyDeviceToHost));
      const char* kind = rows == 0 ? "bulk" : rows == 1 ? "box1" : rows == 2 ? "box2" : "box64";
      for (int i = 0; i < n; ++i) printf("%s,%d,%d,%d,%lld\n", kind, rep, hc[i].x, hc[i].y, h[i]);
    }
  }
  return 0;
}
