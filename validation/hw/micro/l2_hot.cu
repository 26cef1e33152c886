// L2 read throughput when SMs share the lines they read (GEMM operand tiles), against reads of
// distinct lines. All SMs, C CTAs per SM, one issuing thread per CTA keeping a ring of S smem
// slots in flight (one mbarrier per slot, a slot reissued when its copy completed, no
// consumer). Every copy is a GEMM operand tile: a 2-D box of 64 fp16 columns (128 B) x R rows
// of an L2-resident [W / P rows x P / 2 columns] fp16 tensor with row pitch P bytes
// (P = 4096: the B tile of a K = 2048 GEMM; P = 128: the tile's rows are contiguous).
// CTAs share tiles in groups of g: copy n of CTA b reads tile (k + n * ceil(G / g)) mod T with
// k = b / g (members = consecutive: CTA ids next to each other, mostly one TPC or GPC) or
// k = b mod ceil(G / g) (members = spread: ids ceil(G / g) apart, other GPCs), so the g CTAs of
// a group read the same tile sequence at about the same time (g = 1: every CTA reads other
// tiles, as tma_bw; g = G: all read the same tile). Tile u is column block u mod C, row block
// u / C, C = the largest power of two <= P / 128 (P = 4112 / 4160: rows start 16 / 64 B into a
// line, so every row is two partial-line requests).
// Time by CUDA events, median of 5 launches after a warm-up launch (which also makes the
// tensor L2-resident); GB/s = bytes delivered to shared memory / time.
// With L2HOT_NCU=1 each point runs once after its warm-up (for ncu's L2 counters; no timing).
// Columns: pitch_bytes,box_rows,ctas_per_sm,slots,group,members,region_bytes,copies_per_cta,
//          bytes_delivered,median_us,median_gbps,best_gbps
#include "common.cuh"

__global__ void __launch_bounds__(32)
    l2_hot_kernel(const __grid_constant__ CUtensorMap map, uint32_t bytes, int nslots, long long T,
                  int log2_cols, int rows_per_box, int group, int spread, long long copies) {
  extern __shared__ __align__(1024) uint8_t dsm[];
  __shared__ __align__(8) uint64_t bars[64];
  if (threadIdx.x != 0) return;
  for (int s = 0; s < nslots; ++s) mbar_init(&bars[s], 1);
  fence_mbar_init();
  prefetch_tmap(&map);
  const long long groups = (gridDim.x + group - 1) / group;
  tile_ring(dsm, bars, &map, bytes, nslots, T, log2_cols, rows_per_box,
            spread ? blockIdx.x % groups : blockIdx.x / group, groups, copies);
}

static void run(uint8_t* buf, size_t region, uint32_t pitch, int rows_per_box, int ctas_per_sm,
                int slots, int group_arg, int sms, int reps, double target_bytes, bool ncu,
                int spread = 0) {
  const uint64_t rows = region / pitch;
  uint64_t dims[2] = {pitch / 2, rows};
  uint64_t str[1] = {pitch};
  uint32_t box[2] = {64, (uint32_t)rows_per_box};
  CUtensorMap map = make_tmap(buf, 2, dims, str, box);
  const uint32_t bytes = 128u * (uint32_t)rows_per_box;
  int log2_cols = 0;
  while ((128u << (log2_cols + 1)) <= pitch) ++log2_cols;
  const int cols = 1 << log2_cols;
  const long long T = (long long)cols * (long long)(rows / rows_per_box);
  const int grid = sms * ctas_per_sm;
  const int group = group_arg <= 0 ? grid : std::min(group_arg, grid);
  const long long copies = std::max(1LL, (long long)(target_bytes / ((double)grid * bytes)));
  const size_t smem = (size_t)slots * bytes;
  CK(cudaFuncSetAttribute(l2_hot_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  // Warm-up: the whole tensor once from every group's sequence (T copies per group at least).
  const long long warm = std::max(copies, (T + grid - 1) / grid * group);
  l2_hot_kernel<<<grid, 32, smem>>>(map, bytes, slots, T, log2_cols, rows_per_box, group, spread, warm);
  CKL();
  CK(cudaDeviceSynchronize());
  const std::vector<float> t = timed_launches(ncu ? 1 : reps, [&] {
    l2_hot_kernel<<<grid, 32, smem>>>(map, bytes, slots, T, log2_cols, rows_per_box, group, spread, copies);
  });
  const double moved = (double)grid * (double)copies * bytes;
  const float med = median_of(t), best = *std::min_element(t.begin(), t.end());
  printf("%u,%d,%d,%d,%d,%s,%zu,%lld,%.0f,%.2f,%.1f,%.1f\n", pitch, rows_per_box, ctas_per_sm, slots, group,
         spread ? "spread" : "consecutive", region, copies, moved, med, moved / med / 1e3, moved / best / 1e3);
  fflush(stdout);
}

int main(int argc, char** argv) {
  const bool smoke = argc > 1 && std::string(argv[1]) == "--smoke";
  const bool ncu = getenv("L2HOT_NCU") != nullptr;
  const int sms = num_sms();
  const int reps = smoke ? 2 : 5;
  const double target = smoke ? 256.0 * (1 << 20) : 4.0 * (1 << 30);
  const size_t w16 = size_t(16) << 20, w32 = size_t(32) << 20;
  uint8_t* buf;
  CK(cudaMalloc(&buf, w32));
  fill_kernel<<<1024, 256>>>((uint32_t*)buf, w32 / 4, 11);
  CKL();
  CK(cudaDeviceSynchronize());
  printf("pitch_bytes,box_rows,ctas_per_sm,slots,group,members,region_bytes,copies_per_cta,bytes_delivered,"
         "median_us,median_gbps,best_gbps\n");
  if (getenv("L2HOT_SWEEP") != nullptr) {
    // L2HOT_SWEEP=1 (micro_l2_hot_slots.csv): how merging and the per-SM ceiling depend on the
    // copies each CTA keeps in flight.
    for (int s : {1, 2, 4, 12})
      for (int g : {1, 4, 0}) run(buf, w16, 4096, 128, 1, s, g, sms, reps, target, ncu);
    for (int c : {2, 4})
      for (int g : {1, 0}) run(buf, w16, 4096, 128, c, 8 / c, g, sms, reps, target, ncu);
    CK(cudaFree(buf));
    return 0;
  }
  if (getenv("L2HOT_ROWS") != nullptr) {
    // L2HOT_ROWS=1 (micro_l2_hot_rows.csv): one issuing thread's ring against the box's size.
    // Merged (g = all) the L2 does not bind, so a copy's cycles are the thread's loop: the same
    // for every box if the loop's own instructions set it, growing with the rows if the TMA
    // unit's walk of the box holds the thread (16 KB boxes: ~288 cycles, 4-8 KB in tma_loop:
    // 258). Distinct tiles (g = 1) for the L2's side.
    // (256-row boxes: 6 slots, 192 KB of shared memory.)
    for (int rows : {16, 32, 64, 128, 256})
      for (int g : {0, 1}) run(buf, w16, 4096, rows, 1, rows == 256 ? 6 : 8, g, sms, reps, target, ncu);
    for (int rows : {32, 64}) run(buf, w16, 4096, rows, 1, 16, 0, sms, reps, target, ncu);
    CK(cudaFree(buf));
    return 0;
  }
  // The GEMM tile (P = 4096, 128 rows = 16 KB), 128 KB in flight per SM, shared by g CTAs.
  for (int g : {1, 2, 4, 8, 16, 33, 66, 0}) run(buf, w16, 4096, 128, 1, 8, g, sms, reps, target, ncu);
  // Two CTAs per SM with a GEMM's 3-slot ring each.
  for (int g : {1, 4, 0}) run(buf, w16, 4096, 128, 2, 3, g, sms, reps, target, ncu);
  // Contiguous 16 KB tiles (P = 128).
  for (int g : {1, 4, 0}) run(buf, w16, 128, 128, 1, 8, g, sms, reps, target, ncu);
  // A 32 MiB region.
  for (int g : {1, 4, 0}) run(buf, w32, 4096, 128, 1, 8, g, sms, reps, target, ncu);
  // Groups whose CTAs lie far apart in id (other TPCs and GPCs).
  for (int g : {2, 4, 16}) run(buf, w16, 4096, 128, 1, 8, g, sms, reps, target, ncu, 1);
  // Rows that start inside a line (16 B, 64 B): partial-line requests.
  for (uint32_t p : {4112u, 4160u})
    for (int g : {1, 2, 0}) run(buf, w16, p, 128, 1, 8, g, sms, reps, target, ncu);
  CK(cudaFree(buf));
  return 0;
}
