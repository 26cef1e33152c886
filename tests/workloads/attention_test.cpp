// The attention generators against the spec's formulas, Sim-FA's softmax budget, the FA3
// ping-pong, determinism and input errors.
#include "workloads/attention.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "../sim/test_util.h"
#include "util/error.h"

namespace asyncsim {
namespace {

using testing::sum_counter;

using workloads::AttentionSpec;
using workloads::AttentionVariant;

// Sim-FA §VI-B: a 64x176 tile with D=128 on H800 costs 88 (rowmax) + 704 (exp2 on 16 MUFU/cycle)
// + 88 (rowsum) + 44 (cvt at 256/cycle) + 64 (rescale 64x128) = 988 cycles. The generator's
// operation counts must produce exactly that through configs/h800.yaml's unit throughputs.
TEST(AttentionSoftmax, SimFaBudgetOnH800Is988Cycles) {
  const auto c = workloads::softmax_counts(AttentionVariant::kFa3, 64, 176, 128, false);
  EXPECT_EQ(c.fp32, 64 * 176 * 2 + 64 * 128);
  EXPECT_EQ(c.mufu, 64 * 176);
  EXPECT_EQ(c.cvt, 64 * 176);
  EXPECT_EQ(c.int_ops, 0);
  program::KernelBuilder b("softmax_tile");
  b.begin_role("consumer", 1);
  program::KernelBuilder::ComputeOps ops;
  ops.fp32 = std::to_string(c.fp32);
  ops.mufu = std::to_string(c.mufu);
  ops.cvt = std::to_string(c.cvt);
  b.compute(ops, false, "softmax");
  b.end_role();
  const SimResult r = simulate(b.finish(), load_gpu_config("h800"));
  EXPECT_EQ(r.stall_cycles.at("consumer").at("compute"), 988);
}

// The Triton kernel scales and subtracts before exp2 (two more FP32 ops per score) and masks
// every tile when causal; FA3 masks with an integer compare and an FP32 select per score.
TEST(AttentionSoftmax, TritonAndMaskingAddTheirOperations) {
  // Triton: the row max on the ALU pipe (int_ops), the row sum, scale, subtract and O rescale
  // on the FMA pipe (ncu pipe counts).
  const auto plain = workloads::softmax_counts(AttentionVariant::kTriton, 64, 64, 128, false);
  EXPECT_EQ(plain.fp32, 3 * 64 * 64 + 64 * 128);
  EXPECT_EQ(plain.int_ops, 64 * 64);
  // FA3: the row max as FP32 work; its mask one compare and a select per score.
  const auto masked = workloads::softmax_counts(AttentionVariant::kFa3, 64, 128, 64, true);
  EXPECT_EQ(masked.int_ops, 64 * 128);
  EXPECT_EQ(masked.fp32, 3 * 64 * 128 + 64 * 64);
  // Triton's causal mask: the ncu instruction counts of its causal builds, all on the
  // half-rate ALU pipe (290 per thread for 64 scores at BN = 128, 111 for 32 at BN = 64), the
  // select among them; its ragged-only mask one compare and a select.
  const auto triton = workloads::softmax_counts(AttentionVariant::kTriton, 64, 128, 64, true, true);
  EXPECT_EQ(triton.int_ops, 64 * 128 + 64 * 128 * 290 / 64);
  EXPECT_EQ(triton.fp32, 3 * 64 * 128 + 64 * 64);
  EXPECT_EQ(workloads::softmax_counts(AttentionVariant::kTriton, 64, 64, 64, true, true).int_ops,
            64 * 64 + 64 * 64 * 111 / 32);
  const auto ragged = workloads::softmax_counts(AttentionVariant::kTriton, 64, 128, 64, true);
  EXPECT_EQ(ragged.int_ops, 2 * 64 * 128);
  EXPECT_EQ(ragged.fp32, 4 * 64 * 128 + 64 * 64);
  const auto epi = workloads::epilogue_counts(64, 128);
  EXPECT_EQ(epi.fp32, 64 * 128);
  EXPECT_EQ(epi.mufu, 64);
  EXPECT_EQ(epi.cvt, 64 * 128);
}

struct Shape {
  int64_t b, h, hkv, s, skv;
  int d, bm, bn, stages;
  bool causal;
  AttentionVariant variant;
  bool overlap;
};

AttentionSpec spec_of(const Shape& sh) {
  AttentionSpec s;
  s.batch = sh.b;
  s.heads = sh.h;
  s.kv_heads = sh.hkv;
  s.seq = sh.s;
  s.seq_kv = sh.skv;
  s.head_dim = sh.d;
  s.bm = sh.bm;
  s.bn = sh.bn;
  s.stages = sh.stages;
  s.causal = sh.causal;
  s.variant = sh.variant;
  s.intra_overlap = sh.overlap;
  return s;
}

class AttentionCounts : public ::testing::TestWithParam<Shape> {};

// Per CTA (one BM block of one head): one Q tile and, per K/V tile, one K and one V tile, each
// one copy (Triton 3.6: its D/64 halves are issued by different warps at once, modelled as one
// copy) or D/64 copies of 128-B-wide boxes (FA3); K/V tiles
// = cdiv(SKV, BN), or up to the bottom-right-aligned diagonal when causal; wgmma per tile = BM/64 x
// (D/16 for QK^T + BN/16 for PV); one O tile stored. TMA counts whole boxes, out-of-bounds rows
// included.
TEST_P(AttentionCounts, MatchSpecFormulas) {
  const AttentionSpec s = workloads::attention_defaults(spec_of(GetParam()));
  const int64_t mt = (s.seq + s.bm - 1) / s.bm;
  int64_t tiles = 0;
  for (int64_t m = 0; m < mt; ++m) {
    const int64_t hi = s.causal ? std::min(s.seq_kv, (m + 1) * s.bm + s.seq_kv - s.seq) : s.seq_kv;
    tiles += (std::max<int64_t>(hi, 0) + s.bn - 1) / s.bn * s.batch * s.heads;
  }
  const int64_t ctas = mt * s.batch * s.heads;
  const int64_t copies = s.variant == AttentionVariant::kTriton ? 1 : std::max(1, s.head_dim / 64);
  const auto c = workloads::attention_counts(s);
  EXPECT_EQ(c.ctas, ctas);
  EXPECT_EQ(c.kv_tiles, tiles);
  EXPECT_EQ(c.wgmma_instructions, tiles * (s.bm / 64) * (s.head_dim / 16 + s.bn / 16));
  const GpuConfig cfg = load_gpu_config("h200");
  const SimResult r = simulate(workloads::build_attention(s, cfg), cfg);
  EXPECT_EQ(r.ctas, ctas);
  EXPECT_EQ(sum_counter(r, ".tensor.instructions"), static_cast<double>(c.wgmma_instructions));
  EXPECT_EQ(sum_counter(r, ".tma.transactions"),
            static_cast<double>((ctas + 2 * tiles + ctas) * copies));
  EXPECT_EQ(sum_counter(r, ".tma.load_bytes"),
            static_cast<double>((ctas * s.bm + 2 * tiles * s.bn) * s.head_dim * 2));
  EXPECT_EQ(sum_counter(r, ".tma.store_bytes"), static_cast<double>(c.store_bytes));
  EXPECT_DOUBLE_EQ(r.flops, 4.0 * static_cast<double>(tiles) * s.bm * s.bn * s.head_dim);
  EXPECT_EQ(r.tma_requests, r.tma_responses);
}

constexpr auto kT = AttentionVariant::kTriton;
constexpr auto kF = AttentionVariant::kFa3;
INSTANTIATE_TEST_SUITE_P(
    Shapes, AttentionCounts,
    ::testing::Values(Shape{1, 2, 2, 256, 256, 64, 128, 64, 3, false, kT, false},
                      Shape{1, 4, 2, 300, 300, 64, 128, 64, 3, true, kT, false},     // GQA, ragged
                      Shape{2, 4, 1, 1, 1000, 128, 128, 128, 2, true, kT, false},    // decode
                      Shape{1, 2, 2, 512, 512, 128, 128, 0, 0, false, kF, false},    // 128x176
                      Shape{1, 4, 2, 384, 384, 64, 128, 0, 0, true, kF, false},      // GQA causal
                      Shape{1, 2, 2, 200, 333, 128, 128, 64, 2, false, kF, true}));  // overlap

// FA3 masks only the tiles that cross the diagonal or the end of the keys; Triton every tile.
TEST(AttentionCountsMasking, Fa3MasksDiagonalTilesTritonAll) {
  AttentionSpec s;
  s.heads = 1;
  s.seq = 512;
  s.head_dim = 64;
  s.causal = true;
  s.variant = kF;
  s.bn = 128;
  const auto fa = workloads::attention_counts(s);
  EXPECT_EQ(fa.kv_tiles, 1 + 2 + 3 + 4);
  EXPECT_EQ(fa.masked_tiles, 4);  // BM = BN: one diagonal tile per query block
  s.variant = kT;
  s.bn = 64;
  const auto tr = workloads::attention_counts(s);
  EXPECT_EQ(tr.kv_tiles, 2 + 4 + 6 + 8);
  EXPECT_EQ(tr.masked_tiles, tr.kv_tiles);
}

// Shared memory and registers as Triton 3.6 allocated them (attention_ptx.json): 131128 B for
// D=128 BN=64 3 stages and 65592 B for D=64; registers 138/187/108/156 within one.
TEST(AttentionResources, MatchTritonAllocation) {
  AttentionSpec s;
  s.head_dim = 128;
  s.bn = 64;
  s.stages = 3;
  EXPECT_EQ(workloads::attention_smem_bytes(s), 131128);
  EXPECT_NEAR(workloads::attention_regs_per_thread(s), 138, 1);
  s.head_dim = 64;
  EXPECT_EQ(workloads::attention_smem_bytes(s), 65592);
  EXPECT_NEAR(workloads::attention_regs_per_thread(s), 108, 1);
  s.bn = 128;
  s.stages = 2;
  EXPECT_NEAR(workloads::attention_regs_per_thread(s), 156, 1);
  s.head_dim = 128;
  EXPECT_NEAR(workloads::attention_regs_per_thread(s), 187, 1);
}

double tensor_fraction(bool pingpong) {
  AttentionSpec s;
  s.heads = 4;
  s.seq = 2048;
  s.head_dim = 128;
  s.variant = kF;
  s.pingpong = pingpong;
  // Round-robin issue lets the two consumers' wgmma instructions interleave on the tensor pipe,
  // which is what the ping-pong exists to prevent (with GTO one consumer's QK^T issues whole).
  const GpuConfig cfg = load_gpu_config("h800", {"sm.scheduler=lrr"});
  return simulate(workloads::build_attention(s, cfg), cfg).tensor_active_fraction;
}

TEST(AttentionFa3, PingPongKeepsTheTensorCoresBusier) {
  const double with = tensor_fraction(true);
  const double without = tensor_fraction(false);
  EXPECT_GT(with, without);
}

TEST(AttentionDeterminism, SameSpecSameResult) {
  for (AttentionVariant v : {kT, kF}) {
    AttentionSpec s;
    s.heads = 4;
    s.kv_heads = 2;
    s.seq = 640;
    s.causal = true;
    s.variant = v;
    const GpuConfig cfg = load_gpu_config("h200");
    const SimResult a = simulate(workloads::build_attention(s, cfg), cfg);
    const SimResult b = simulate(workloads::build_attention(s, cfg), cfg);
    EXPECT_EQ(a.cycles, b.cycles);
    EXPECT_EQ(a.counters, b.counters);
    EXPECT_EQ(a.stall_cycles, b.stall_cycles);
  }
}

void expect_error(AttentionSpec s, const std::string& flag) {
  const GpuConfig cfg = load_gpu_config("h200");
  try {
    workloads::build_attention(s, cfg);
    ADD_FAILURE() << "expected an InputError naming " << flag;
  } catch (const InputError& e) {
    EXPECT_NE(e.where().find(flag), std::string::npos) << e.what();
  }
}

TEST(AttentionErrors, ImpossibleSpecsNameTheirFlag) {
  AttentionSpec s;
  s.kv_heads = 5;
  expect_error(s, "--kv-heads");
  s = {};
  s.head_dim = 100;
  expect_error(s, "--head-dim");
  s = {};
  s.bn = 72;
  expect_error(s, "--block-n");
  s = {};
  s.bm = 64;  // two warpgroups need 128 rows
  expect_error(s, "--block-m");
  s = {};
  s.warps = 6;
  expect_error(s, "--warps");
  s = {};
  s.stages = 1;  // Triton loads stages-1 tiles ahead
  expect_error(s, "--stages");
  s = {};
  s.variant = kF;
  s.bm = 192;
  expect_error(s, "--block-m");
  s = {};
  s.seq = 0;
  expect_error(s, "--seq");
  EXPECT_THROW(workloads::parse_attention_variant("fa2", "--variant"), InputError);
}

// Q (32 KB) + 4 stages of K and V 128x128 (256 KB) does not fit 227 KB.
TEST(AttentionErrors, SharedMemoryOverflowNamesStages) {
  AttentionSpec s;
  s.bn = 128;
  s.stages = 4;
  expect_error(s, "--stages");
  s.variant = kF;
  s.stages = 3;
  s.bn = 176;
  expect_error(s, "--stages");
}

}  // namespace
}  // namespace asyncsim
