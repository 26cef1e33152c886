// Hand-computed GEMM cases (numbers derived in comments; docs/analytic.md has the formulas).
#include "analytic/gemm_model.h"

#include <gtest/gtest.h>

#include "test_support.h"
#include "util/error.h"

namespace asyncsim::analytic {
namespace {

using testing::small_gpu;

GemmShape gemm(int64_t m, int64_t n, int64_t k) {
  GemmShape s;
  s.m = m;
  s.n = n;
  s.k = k;
  return s;
}

TEST(GemmModel, DivisibleShapeCountsEveryTensorOnce) {
  // 2×2 tiles of 128×128, 4 k-tiles of 64.
  const Estimate e = estimate_gemm(gemm(256, 256, 256), small_gpu(132, 1 << 25));
  EXPECT_EQ(e.ctas, 4);
  EXPECT_EQ(e.flops, 2.0 * 256 * 256 * 256);
  EXPECT_EQ(e.flops_executed, e.flops);
  EXPECT_EQ(e.l2_read_bytes, (2 * 256 + 2 * 256) * 256 * 2);  // A by nN CTAs, B by nM
  EXPECT_EQ(e.l2_write_bytes, 256 * 256 * 2);
  EXPECT_EQ(e.l2_bytes_boxes, 4 * (256 * 256 * 2 + 128 * 128 * 2));
  EXPECT_EQ(e.dram_read_bytes_ideal, (256 + 256) * 256 * 2);
  EXPECT_EQ(e.dram_write_bytes, 256 * 256 * 2);
  EXPECT_EQ(e.dram_read_bytes_wave, e.dram_read_bytes_ideal);
  EXPECT_TRUE(e.reuse_fits);
}

TEST(GemmModel, OccupancyIsSharedMemoryLimitedForTheDefaultTile) {
  // Ring 3·(128+128)·64·2 = 98304 B (+24 B barriers, +1 KiB reserve) → 2 per 228 KiB;
  // registers 168/thread · 128 threads → 3; so shared memory decides.
  const Estimate e = estimate_gemm(gemm(256, 256, 256), small_gpu(132, 1 << 25));
  EXPECT_EQ(e.occupancy.ctas_per_sm, 2);
  EXPECT_EQ(e.occupancy.limit, OccupancyLimit::kSharedMemory);
  EXPECT_EQ(e.wave_ctas, 264);
  EXPECT_EQ(e.waves, 1);
}

TEST(GemmModel, NonDivisibleShapeClipsRowsAndRoundsTailsToSectors) {
  // M=200 N=136 K=72: tiles 2×2, 2 k-tiles; K tail 8 elements = 16 B → one 32 B sector,
  // so a row over the K loop is 128 + 32 B; C row tail 8 columns → 32 B.
  const Estimate e = estimate_gemm(gemm(200, 136, 72), small_gpu(132, 1 << 25));
  EXPECT_EQ(e.ctas, 4);
  EXPECT_EQ(e.l2_read_bytes, (2 * 200 + 2 * 136) * 160);
  EXPECT_EQ(e.l2_write_bytes, 200 * (256 + 32));
  EXPECT_EQ(e.l2_bytes_boxes, 4 * (256 * 128 * 2 + 128 * 128 * 2));
  EXPECT_EQ(e.dram_read_bytes_ideal, (200 + 136) * 72 * 2);
  EXPECT_EQ(e.dram_write_bytes, 200 * 136 * 2);
  EXPECT_EQ(e.flops, 2.0 * 200 * 136 * 72);
  EXPECT_EQ(e.flops_executed, 2.0 * 4 * 128 * 128 * 128);
}

TEST(GemmModel, WaveModelRereadsBWhenItDoesNotFit) {
  // M=N=320 K=64: 3×3 tiles; B = 320·64·2 = 40960 B. 2 SMs × 2 CTAs → waves of 4 pids:
  // {0-3} {4-7} touch all 3 column-blocks; {8} touches only the clipped last one (64 columns).
  const int64_t b = 320 * 64 * 2;
  const Estimate fits = estimate_gemm(gemm(320, 320, 64), small_gpu(2, b));
  EXPECT_TRUE(fits.reuse_fits);
  EXPECT_EQ(fits.dram_read_bytes_wave, 2 * b);
  const Estimate spills = estimate_gemm(gemm(320, 320, 64), small_gpu(2, b - 1));
  EXPECT_FALSE(spills.reuse_fits);
  EXPECT_EQ(spills.waves, 3);
  EXPECT_EQ(spills.reuse_set_bytes, b);
  EXPECT_EQ(spills.dram_read_bytes_wave, b + (2 * b + 64 * 64 * 2));
  EXPECT_EQ(spills.dram_read_bytes_ideal, 2 * b);
}

TEST(GemmModel, WaveNarrowerThanATileRowRereadsBOncePerRow) {
  // 1 SM × 2 CTAs: a wave never holds two CTAs of one column-block, so B is read per tile row.
  const int64_t b = 320 * 64 * 2;
  const Estimate e = estimate_gemm(gemm(320, 320, 64), small_gpu(1, b - 1));
  EXPECT_EQ(e.waves, 5);
  EXPECT_EQ(e.dram_read_bytes_wave, b + 3 * b);
}

TEST(GemmModel, ARowBlockLargerThanL2IsRereadPerWaveItSpans) {
  // A row-block 128·64·2 = 16384 B > 10000. Waves of 2: row 0 = pids 0-2 spans waves 0,1;
  // row 1 = 3-5 spans 1,2; row 2 (64 rows) = 6-8 spans 3,4. A = (2+2)·128·128 + 2·64·128.
  const Estimate e = estimate_gemm(gemm(320, 320, 64), small_gpu(1, 10000));
  const int64_t a = 4 * 128 * 128 + 2 * 64 * 128;
  EXPECT_EQ(e.dram_read_bytes_wave, a + 3 * 320 * 64 * 2);
}

TEST(GemmModel, RejectsBadShapes) {
  const GpuConfig gpu = small_gpu(132, 1 << 25);
  EXPECT_THROW(estimate_gemm(gemm(256, 256, 100), gpu), InputError);  // K·2 not 16-B aligned
  EXPECT_THROW(estimate_gemm(gemm(0, 256, 256), gpu), InputError);
  GemmShape big_ring = gemm(256, 256, 256);
  big_ring.block_n = 256;
  big_ring.block_k = 128;
  big_ring.stages = 4;  // 4·(128+256)·128·2 = 384 KiB of shared memory
  EXPECT_THROW(estimate_gemm(big_ring, gpu), InputError);
  GemmShape odd_tile = gemm(256, 256, 256);
  odd_tile.block_m = 96;
  EXPECT_THROW(estimate_gemm(odd_tile, gpu), InputError);
}

TEST(GemmModel, HugeShapesStayExactAndFinite) {
  const Estimate e = estimate_gemm(gemm(65536, 65536, 65536), small_gpu(132, 31457280));
  EXPECT_EQ(e.dram_read_bytes_ideal, int64_t{2} * 65536 * 65536 * 2);
  EXPECT_GT(e.dram_read_bytes_wave, e.dram_read_bytes_ideal);
  EXPECT_EQ(e.l2_read_bytes, int64_t{2} * 512 * 65536 * 65536 * 2);
}

}  // namespace
}  // namespace asyncsim::analytic
