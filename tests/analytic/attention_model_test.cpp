// Hand-computed attention cases. D=64 rows are 128 B; BM=128, BN=64 unless stated.
#include "analytic/attention_model.h"

#include <gtest/gtest.h>

#include "test_support.h"
#include "util/error.h"

namespace asyncsim::analytic {
namespace {

using testing::small_gpu;

AttentionShape attn(int64_t heads, int64_t kv_heads, int64_t seq, bool causal = false) {
  AttentionShape s;
  s.batch = 1;
  s.heads = heads;
  s.kv_heads = kv_heads;
  s.seq = seq;
  s.head_dim = 64;
  s.causal = causal;
  return s;
}

constexpr int64_t kRow = 64 * 2;

TEST(AttentionModel, NonCausalMatchesSimFaEquations) {
  // B=1 H=2 S=256: 2 Q tiles per head, 4 CTAs. Eq. 2: 2·N·T_M·D + 2·N·S·D elements.
  const Estimate e = estimate_attention(attn(2, 2, 256), small_gpu(132, 1 << 25));
  EXPECT_EQ(e.ctas, 4);
  EXPECT_EQ(e.flops, 4.0 * 2 * 256 * 256 * 64);
  EXPECT_EQ(e.l2_bytes(), (2 * 4 * 128 * 64 + 2 * 4 * 256 * 64) * 2);
  EXPECT_EQ(e.l2_write_bytes, 2 * 256 * kRow);
  // Eq. 3: Q, K, V once, O once.
  EXPECT_EQ(e.dram_read_bytes_ideal, 3 * 2 * 256 * kRow);
  EXPECT_EQ(e.dram_write_bytes, 2 * 256 * kRow);
  EXPECT_EQ(e.dram_read_bytes_wave, e.dram_read_bytes_ideal);
}

TEST(AttentionModel, OccupancyOfTheD64KernelIsRegisterLimited) {
  // Shared 16 KiB Q + 3·2·8 KiB K/V = 64 KiB → 3 per SM; registers (128·64 + 128·64 + 128·64/2)
  // / 256 threads + 40 = 120 per thread → 30720 per CTA → 2 per SM.
  const Estimate e = estimate_attention(attn(2, 2, 256), small_gpu(132, 1 << 25));
  EXPECT_EQ(e.occupancy.ctas_per_sm, 2);
  EXPECT_EQ(e.occupancy.limit, OccupancyLimit::kRegisters);
}

TEST(AttentionModel, GqaSharesKvAcrossTheGroup) {
  // H=4 HKV=2: Q/O and L2 scale with 4 heads, K/V in DRAM with 2.
  const Estimate e = estimate_attention(attn(4, 2, 256), small_gpu(132, 1 << 25));
  EXPECT_EQ(e.ctas, 8);
  EXPECT_EQ(e.l2_read_bytes, 4 * (256 + 2 * 2 * 256) * kRow);
  EXPECT_EQ(e.dram_read_bytes_ideal, 4 * 256 * kRow + 2 * 2 * 256 * kRow);
  EXPECT_EQ(e.reuse_set_bytes, 2 * 256 * kRow);
}

TEST(AttentionModel, WaveModelRereadsKvPerWaveAGroupSpans) {
  // H=4 HKV=2 S=256: groups are pids 0-3 and 4-7; 3 SMs × 2 CTAs → waves {0-5} {6-7}.
  // K+V of one head is 65536 B: at that capacity it fits, one byte less it does not, and the
  // second group, split over both waves, reads its K/V twice.
  const int64_t kv = 2 * 256 * kRow;
  const Estimate fits = estimate_attention(attn(4, 2, 256), small_gpu(3, kv));
  EXPECT_TRUE(fits.reuse_fits);
  EXPECT_EQ(fits.dram_read_bytes_wave, fits.dram_read_bytes_ideal);
  const Estimate spills = estimate_attention(attn(4, 2, 256), small_gpu(3, kv - 1));
  EXPECT_FALSE(spills.reuse_fits);
  EXPECT_EQ(spills.waves, 2);
  EXPECT_EQ(spills.dram_read_bytes_wave, 4 * 256 * kRow + 3 * kv);
  EXPECT_EQ(spills.dram_read_bytes_ideal, 4 * 256 * kRow + 2 * kv);
}

TEST(AttentionModel, CausalSkipsMaskedTiles) {
  // S=512: Q tiles 0..3 visit 2, 4, 6, 8 K/V tiles (128, 256, 384, 512 rows).
  const Estimate e = estimate_attention(attn(1, 1, 512, true), small_gpu(132, 1 << 25));
  EXPECT_EQ(e.flops, 4.0 * (512.0 * 513 / 2) * 64);
  EXPECT_EQ(e.flops_executed, 4.0 * 20 * 128 * 64 * 64);
  EXPECT_EQ(e.l2_read_bytes, (512 + 2 * 1280) * kRow);
  EXPECT_EQ(e.l2_bytes_boxes, (2 * 4 * 128 + 2 * 20 * 64) * kRow);
  EXPECT_EQ(e.dram_read_bytes_ideal, 3 * 512 * kRow);
}

TEST(AttentionModel, CausalWaveReadsOnlyTheTilesThatWaveNeeds) {
  // 1 SM × 2 CTAs: wave 0 holds Q tiles 0-1 (K/V rows < 256), wave 1 tiles 2-3 (all 512).
  const int64_t kv = 2 * 512 * kRow;
  const Estimate e = estimate_attention(attn(1, 1, 512, true), small_gpu(1, kv - 1));
  EXPECT_EQ(e.dram_read_bytes_wave, 512 * kRow + 2 * (256 + 512) * kRow);
}

TEST(AttentionModel, CausalWaveCoveringAHeadEndReadsAllKv) {
  // H=2 HKV=1: one group of 8 pids; waves of 6 = {head 0 all, head 1 tiles 0-1} {head 1 2-3}:
  // both waves include a last Q tile, so both read the whole K/V head.
  const int64_t kv = 2 * 512 * kRow;
  const Estimate e = estimate_attention(attn(2, 1, 512, true), small_gpu(3, kv - 1));
  EXPECT_EQ(e.dram_read_bytes_wave, 2 * 512 * kRow + 2 * kv);
}

TEST(AttentionModel, NonDivisibleSequenceClipsToTheHead) {
  // S=200: 2 Q tiles, 4 K/V tiles of which the last holds 8 rows.
  const Estimate e = estimate_attention(attn(1, 1, 200), small_gpu(132, 1 << 25));
  EXPECT_EQ(e.l2_read_bytes, (200 + 2 * 2 * 200) * kRow);
  EXPECT_EQ(e.l2_write_bytes, 200 * kRow);
  EXPECT_EQ(e.l2_bytes_boxes, (2 * 2 * 128 + 2 * 2 * 4 * 64) * kRow);
  EXPECT_EQ(e.dram_read_bytes_ideal, 3 * 200 * kRow);
  EXPECT_EQ(e.flops, 4.0 * 200 * 200 * 64);
  EXPECT_EQ(e.flops_executed, 4.0 * 2 * 4 * 128 * 64 * 64);
  const Estimate c = estimate_attention(attn(1, 1, 200, true), small_gpu(132, 1 << 25));
  EXPECT_EQ(c.l2_read_bytes, (200 + 2 * (128 + 200)) * kRow);
  EXPECT_EQ(c.flops, 4.0 * (200.0 * 201 / 2) * 64);
}

TEST(AttentionModel, LongerKvSequence) {
  AttentionShape s = attn(1, 1, 128);
  s.seq_kv = 1000;
  const Estimate e = estimate_attention(s, small_gpu(132, 1 << 25));
  EXPECT_EQ(e.l2_read_bytes, (128 + 2 * 1000) * kRow);
  EXPECT_EQ(e.flops_executed, 4.0 * 16 * 128 * 64 * 64);
  EXPECT_EQ(e.dram_read_bytes_ideal, (128 + 2 * 1000) * kRow);
}

TEST(AttentionModel, RejectsBadShapes) {
  const GpuConfig gpu = small_gpu(132, 1 << 25);
  EXPECT_THROW(estimate_attention(attn(6, 4, 256), gpu), InputError);  // 6 % 4
  AttentionShape d = attn(2, 2, 256);
  d.head_dim = 72;
  EXPECT_THROW(estimate_attention(d, gpu), InputError);
  AttentionShape smem = attn(2, 2, 256);
  smem.head_dim = 256;
  smem.block_n = 128;
  smem.stages = 4;  // 64 KiB Q + 4·2·64 KiB K/V
  EXPECT_THROW(estimate_attention(smem, gpu), InputError);
}

TEST(AttentionModel, SimFaLongSequenceRegimeOnH200) {
  // B=1 H=16 D=128, the sweep of validation/hw/attention.py: K+V of one head is S·512 B, so
  // 16K and 32K fit in the 30 MiB effective L2 and 64K (32 MiB) does not.
  const GpuConfig gpu = load_gpu_config("h200");
  AttentionShape s = attn(16, 16, 32768);
  s.head_dim = 128;
  EXPECT_TRUE(estimate_attention(s, gpu).reuse_fits);
  s.seq = 65536;
  const Estimate e = estimate_attention(s, gpu);
  EXPECT_FALSE(e.reuse_fits);
  EXPECT_EQ(e.occupancy.ctas_per_sm, 1);
  // 512 CTAs per head over waves of 132: 16·512 = 8192 CTAs, 63 interior boundaries (none
  // lands on a head start: 132·b = 512·k needs b a multiple of 128).
  EXPECT_EQ(e.waves, 63);
  const int64_t kv = int64_t{2} * 65536 * 256;
  EXPECT_EQ(e.dram_read_bytes_wave, 16 * 65536 * 256 + (16 + 62) * kv);
}

}  // namespace
}  // namespace asyncsim::analytic
