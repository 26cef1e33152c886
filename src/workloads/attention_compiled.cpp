// What the compiled attention kernels execute and occupy beyond their data flow, read off the
// H200 SASS and Nsight Compute counts (validation/data/h200/sass, validation/data/h200/ncu):
// the softmax's instruction mix per tile, the epilogue's, and the machine code's size. The
// program generator that uses them is attention.cpp.
#include <cstdint>

#include "workloads/attention.h"

namespace asyncsim::workloads {

// Instructions per thread per K/V iteration of Triton's attention loop that are neither FP32,
// MUFU, F2FP nor HGMMA, counted in the H200 SASS of the four builds
// (validation/data/h200/sass/attn_*.sass: 108, 105, 111, 109; uniform-datapath address and
// phase arithmetic, moves, predicates, the 8 SHFL.BFLY of the two row reductions), less the 12
// that the program models as instructions of their own (4 SYNCS, 3 BAR.SYNC, 2 UTMALDG,
// 3 WARPGROUP). The count barely moves with D and BN: it is loop overhead.
constexpr int64_t kTritonScalarInstr = 108 - 12;
// Two butterfly shuffles per row reduction (max and sum), two rows per thread in the m64 layout.
constexpr int64_t kReductionShuffles = 2 * 2 * 2;
// The causal mask's instructions per thread and K/V tile, and the scores a thread holds in that
// tile (ncu, see softmax_counts): 290 for 64 at BN = 128, 111 for 32 at BN = 64.
struct MaskCost {
  int64_t instructions;
  int64_t scores;
};
constexpr MaskCost kCausalMaskBn128{290, 64};
constexpr MaskCost kCausalMaskBn64{111, 32};

SoftmaxCounts softmax_counts(AttentionVariant v, int tm, int tn, int head_dim, bool masked,
                             bool causal) {
  const int64_t tile = int64_t{tm} * tn;
  SoftmaxCounts c;
  c.inst = v == AttentionVariant::kTriton ? kTritonScalarInstr : kReductionShuffles;
  c.fp32 = tile /*rowsum*/ + int64_t{tm} * head_dim /*rescale O*/;
  if (v == AttentionVariant::kTriton) {
    // The row max (FMNMX) runs on the half-rate ALU pipe: ncu's pipe counts of the four Triton
    // builds (validation/data/h200/ncu, sections_raw.csv) give ~146 ALU and ~285 FMA-pipe warp
    // instructions per warp and BN = 128 tile of 64 scores per thread (D = 128; 90 ALU at
    // BN = 64), which the row max on the FMA pipe would make ~82 and ~350.
    c.int_ops = tile;
  } else {
    c.fp32 += tile;  // FA3 (no counts at hand): the row max as FP32 work
  }
  c.mufu = tile;  // exp2
  c.cvt = tile;   // P to fp16
  if (v == AttentionVariant::kTriton) {
    c.fp32 += 2 * tile;  // qk * qk_scale, then qk - m_ij before exp2
  }
  if (masked && v == AttentionVariant::kTriton && causal) {
    // Triton's causal mask: its causal builds execute 3.4-4.6 more instructions per score element
    // and thread than the unmasked ones (ncu inst_executed of the four pairs in
    // validation/data/h200/ncu: +110/+112 per BN=64 tile of 32 elements, +290/+293 per BN=128
    // tile of 64), and they run on the half-rate ALU pipe (sm.int_ops): the SASS difference is
    // FSEL, ISETP, LOP3, SEL, SHF, VIADD and IMAD (validation/data/h200/sass/attn_*_causal.sass),
    // and sm__inst_executed_pipe_alu goes from 12.6 / 16.5 % of peak to 32.3 / 40.9 % (BN = 128,
    // D = 128 / 64) while the FMA pipe stays at 12-14 %.
    const MaskCost& m = tn >= 128 ? kCausalMaskBn128 : kCausalMaskBn64;
    c.int_ops += tile * m.instructions / m.scores;
  } else if (masked) {
    // A ragged-only mask (key < S) and FA3's (no SASS at hand): one compare and a select.
    c.int_ops += tile;
    c.fp32 += tile;
  }
  return c;
}

SoftmaxCounts epilogue_counts(int tm, int head_dim) {
  SoftmaxCounts c;
  c.fp32 = int64_t{tm} * head_dim;
  c.mufu = tm;
  c.cvt = int64_t{tm} * head_dim;
  return c;
}

int64_t attention_code_bytes(const AttentionSpec& spec) {
  const AttentionSpec s = attention_defaults(spec);
  // attn_bm128_bn{64,128}_s{3,2}_w8_d{64,128}[_causal].sass: instructions x 16 B.
  const bool wide = s.variant == AttentionVariant::kFa3 || s.bn >= 128;
  if (s.head_dim <= 64) {
    return wide ? (s.causal ? 19328 : 14464) : (s.causal ? 14464 : 12544);
  }
  return wide ? (s.causal ? 22912 : 18176) : (s.causal ? 18176 : 16128);
}

}  // namespace asyncsim::workloads
