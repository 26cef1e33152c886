#include "workloads/attention.h"

#include <algorithm>

#include "program/builder.h"
#include "util/error.h"

namespace asyncsim::workloads {
namespace {

using program::KernelBuilder;
using program::TensorMap;

constexpr int kElem = 2;  // fp16 bytes
constexpr uint64_t kBase = uint64_t{1} << 32;
constexpr uint64_t kAlign = uint64_t{2} << 20;

uint64_t align_up(uint64_t v, uint64_t a) {
  return (v + a - 1) / a * a;
}
int64_t cdiv(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

// Columns one TMA copy moves. A box stays within one 128-byte swizzle span, so wider rows take
// several copies, the widest of 64/32/16 elements dividing D. FA3 (CUTLASS) issues them one
// after another. Triton 3.6 issues them from different warps at once: its H200 PTX for D=128
// predicates each load on `tid < 64 && elect.sync` with column (warp & 1) * 64, so warps 0 and 1
// each copy one half (validation/traces/round3 sidecars). The warpgroup is the unit of issue
// here, so the halves are modelled as one copy of the whole row: the same lines and bytes, one
// issue time, as on the H200.
int copy_width(int d, AttentionVariant v) {
  if (v == AttentionVariant::kTriton || d <= 64) {
    return d;
  }
  return d % 64 == 0 ? 64 : (d % 32 == 0 ? 32 : 16);
}

int groups(const AttentionSpec& s) {
  return s.variant == AttentionVariant::kFa3 ? 2 : s.warps / 4;
}
int rows_per_group(const AttentionSpec& s) {
  return s.bm / groups(s);
}
bool fa3(const AttentionSpec& s) {
  return s.variant == AttentionVariant::kFa3;
}

// The Triton kernel masks every tile when causal or when a block straddles the sequence end.
bool triton_masks_all(const AttentionSpec& s) {
  return s.causal || s.seq % s.bm != 0 || s.seq_kv % s.bn != 0;
}

// FA3 addresses every tensor per head; Triton views Q/K/V as 2-D and stores O per head only when
// a ragged tile would otherwise spill into the next head.
bool o_per_head(const AttentionSpec& s) {
  return fa3(s) || s.seq % s.bm != 0 || s.seq_kv % s.bn != 0;
}

void check_shape(const AttentionSpec& s) {
  if (s.batch < 1 || s.heads < 1 || s.seq < 1 || s.seq_kv < 1) {
    throw_input_error("--batch/--heads/--seq/--seq-kv", "sizes must be positive, got {}/{}/{}/{}",
                      s.batch, s.heads, s.seq, s.seq_kv);
  }
  if (s.kv_heads < 1 || s.heads % s.kv_heads != 0) {
    throw_input_error("--kv-heads", "must divide --heads={} (GQA groups), got {}", s.heads,
                      s.kv_heads);
  }
  if (s.head_dim < 16 || s.head_dim > 256 || s.head_dim % 16 != 0) {
    throw_input_error("--head-dim", "must be a multiple of 16 in [16, 256] (wgmma K and N), got {}",
                      s.head_dim);
  }
}

void check_tiles(const AttentionSpec& s) {
  if (fa3(s) && s.bm != 128 && s.bm != 256) {
    throw_input_error("--block-m",
                      "fa3 needs 128 or 256 (two consumer warpgroups of 64k rows), "
                      "got {}",
                      s.bm);
  }
  if (!fa3(s) && (s.warps < 4 || s.warps % 4 != 0 || s.warps > 16)) {
    throw_input_error("--warps", "must be 4, 8, 12 or 16 (whole warpgroups), got {}", s.warps);
  }
  if (!fa3(s) && (s.bm > 256 || s.bm % (64 * groups(s)) != 0)) {
    throw_input_error("--block-m",
                      "BM={} must be at most 256 and split into {} warpgroups of a "
                      "multiple of 64 rows",
                      s.bm, groups(s));
  }
  if (s.bn < 16 || s.bn > 256 || s.bn % 16 != 0) {
    throw_input_error("--block-n",
                      "BN={} must be a multiple of 16 in [16, 256] (QK^T wgmma N, PV "
                      "wgmma K)",
                      s.bn);
  }
  const int min_stages = fa3(s) ? 1 : 2;
  if (s.stages < min_stages || s.stages > 16) {
    throw_input_error("--stages",
                      "must be in [{}, 16] for {} (Triton loads stages-1 tiles "
                      "ahead), got {}",
                      min_stages, attention_variant_name(s.variant), s.stages);
  }
}

void check_resources(const AttentionSpec& s, const GpuConfig& c) {
  const int64_t smem = attention_smem_bytes(s);
  if (smem > c.sm.smem_per_cta_max) {
    throw_input_error("--stages/--block-n",
                      "{} needs {} B of shared memory per CTA (Q {}x{}, {} "
                      "stages of K and V {}x{}) but {} allows {} B",
                      attention_variant_name(s.variant), smem, s.bm, s.head_dim, s.stages, s.bn,
                      s.head_dim, c.name, c.sm.smem_per_cta_max);
  }
}

// Tensor maps over fp16 rows of D elements: 2-D (D, rows) or 3-D (D, seq, heads) so a box clips
// at the end of each head.
TensorMap make_map(const std::string& name, int d, int width, int64_t rows, int64_t seq,
                   int box_rows, bool per_head, uint64_t base) {
  TensorMap m;
  m.name = name;
  m.dtype = program::DType::kF16;
  m.rank = per_head ? 3 : 2;
  const int64_t row_bytes = int64_t{d} * kElem;
  if (per_head) {
    m.dims = {d, seq, rows / seq, 1, 1};
    m.strides = {kElem, row_bytes, seq * row_bytes, 0, 0};
    m.box = {width, box_rows, 1, 1, 1};
  } else {
    m.dims = {d, rows, 1, 1, 1};
    m.strides = {kElem, row_bytes, 0, 0, 0};
    m.box = {width, box_rows, 1, 1, 1};
  }
  m.base = base;
  m.swizzle = program::Swizzle::k128B;
  return m;
}

void declare(KernelBuilder& b, const AttentionSpec& s) {
  const int64_t q_rows = s.batch * s.heads * s.seq;
  const int64_t kv_rows = s.batch * s.kv_heads * s.seq_kv;
  const uint64_t q_bytes = static_cast<uint64_t>(q_rows) * s.head_dim * kElem;
  const uint64_t kv_bytes = static_cast<uint64_t>(kv_rows) * s.head_dim * kElem;
  const uint64_t q = kBase;
  const uint64_t k = align_up(q + q_bytes, kAlign);
  const uint64_t v = align_up(k + kv_bytes, kAlign);
  const uint64_t o = align_up(v + kv_bytes, kAlign);
  const int cw = copy_width(s.head_dim, s.variant);
  b.add_map(make_map("Q", s.head_dim, cw, q_rows, s.seq, s.bm, fa3(s), q));
  b.add_map(make_map("K", s.head_dim, cw, kv_rows, s.seq_kv, s.bn, fa3(s), k));
  b.add_map(make_map("V", s.head_dim, cw, kv_rows, s.seq_kv, s.bn, fa3(s), v));
  b.add_map(make_map("O", s.head_dim, cw, q_rows, s.seq, s.bm, o_per_head(s), o));
  const std::pair<const char*, int64_t> constants[] = {
      {"S", s.seq},
      {"SKV", s.seq_kv},
      {"H", s.heads},
      {"HKV", s.kv_heads},
      {"G", s.heads / s.kv_heads},
      {"D", s.head_dim},
      {"BM", s.bm},
      {"BN", s.bn},
      {"ST", s.stages},
      {"CW", cw},
      {"DC", s.head_dim / cw},
      {"Q_BYTES", int64_t{s.bm} * s.head_dim * kElem},
      {"KV_BYTES", int64_t{s.bn} * s.head_dim * kElem},
      {"QK_REP", rows_per_group(s) / 64 * (s.head_dim / 16)},
      {"PV_REP", rows_per_group(s) / 64 * (s.bn / 16)},
      {"THREADS", groups(s) * 128},
  };
  for (const auto& [name, value] : constants) {
    b.set_constant(name, value);
  }
}

// Names of the tile coordinates: Triton's grid is (m blocks, B*H); FA3's (m blocks, H, B).
struct Coords {
  std::string q_row;    // 2-D row of the Q tile (Triton)
  std::string kv_row;   // 2-D row of K/V tile 0 (Triton)
  std::string head;     // linear query head b*H + h
  std::string kv_head;  // linear K/V head b*HKV + h/G
};

Coords coords(const AttentionSpec& s) {
  if (fa3(s)) {
    return {"", "", "cta.z * H + cta.y", "cta.z * HKV + cta.y / G"};
  }
  return {"cta.y * S + cta.x * BM", "(cta.y / H * HKV + cta.y % H / G) * SKV", "cta.y",
          "cta.y / H * HKV + cta.y % H / G"};
}

// K/V tiles of query block cta.x; causal attention is aligned to the bottom right (decode).
std::string trip_count(const AttentionSpec& s) {
  return s.causal ? "cdiv(max(0, min(SKV, (cta.x + 1) * BM + SKV - S)), BN)" : "cdiv(SKV, BN)";
}

// FA3 masks only tiles crossing the causal diagonal or the end of the keys.
std::string fa3_masked(const AttentionSpec& s, const std::string& j) {
  std::string cond = "(" + j + " + 1) * BN > SKV";
  if (s.causal) {
    cond += " || (" + j + " + 1) * BN > cta.x * BM + SKV - S";
  }
  return cond;
}

// The copies of one tile, unrolled so each sits in the block of the expect_tx that arms `bar`.
void copies(KernelBuilder& b, const AttentionSpec& s, const std::string& map,
            const std::string& row, const std::string& bar, const std::string& index) {
  const Coords c = coords(s);
  const int width = copy_width(s.head_dim, s.variant);
  for (int col = 0; col < s.head_dim; col += width) {
    if (fa3(s)) {
      b.tma_load(map, {std::to_string(col), row, map == "Q" ? c.head : c.kv_head}, bar, index);
    } else {
      b.tma_load(map, {std::to_string(col), row}, bar, index);
    }
  }
}

void load_q(KernelBuilder& b, const AttentionSpec& s) {
  b.mb_arrive_expect_tx("q", "0", "Q_BYTES");
  copies(b, s, "Q", fa3(s) ? "cta.x * BM" : coords(s).q_row, "q", "0");
}

// One K or V tile `it` into its ring slot; `bar` is the slot's barrier array.
void load_kv(KernelBuilder& b, const AttentionSpec& s, const std::string& map,
             const std::string& bar, const std::string& it) {
  const std::string slot = "(" + it + ") % ST";
  b.mb_arrive_expect_tx(bar, slot, "KV_BYTES");
  const std::string row = fa3(s) ? "(" + it + ") * BN" : coords(s).kv_row + " + (" + it + ") * BN";
  copies(b, s, map, row, bar, slot);
}

KernelBuilder::ComputeOps ops_of(const SoftmaxCounts& c, int64_t smem_bytes = 0) {
  KernelBuilder::ComputeOps ops;
  ops.fp32 = std::to_string(c.fp32);
  ops.mufu = std::to_string(c.mufu);
  ops.cvt = std::to_string(c.cvt);
  ops.int_ops = std::to_string(c.int_ops);
  ops.smem_bytes = std::to_string(smem_bytes);
  ops.inst = std::to_string(c.inst);
  return ops;
}

void softmax(KernelBuilder& b, const AttentionSpec& s, bool masked) {
  const int tm = rows_per_group(s);
  b.compute(ops_of(softmax_counts(s.variant, tm, s.bn, s.head_dim, masked, s.causal)), false,
            "softmax");
}

// One wgmma instruction per K step (as the kernels issue them), so the SM's warpgroup scheduler
// decides how two warpgroups' instructions interleave on the tensor pipe.
void wgmmas(KernelBuilder& b, int n, int count, bool a_in_registers, const std::string& label) {
  for (int i = 0; i < count; ++i) {
    b.wgmma(std::to_string(n), "1", program::DType::kF16, a_in_registers, label);
  }
  b.wgmma_commit();
}

void qk(KernelBuilder& b, const AttentionSpec& s) {
  wgmmas(b, s.bn, rows_per_group(s) / 64 * (s.head_dim / 16), false, "QK^T");
}

void pv(KernelBuilder& b, const AttentionSpec& s) {
  // P comes from registers (Triton and FA3 both feed the converted scores as the A operand).
  wgmmas(b, s.head_dim, rows_per_group(s) / 64 * (s.bn / 16), true, "PV");
}

// Normalise, convert and write O to shared memory, then one warpgroup stores it with TMA.
void epilogue(KernelBuilder& b, const AttentionSpec& s, int bar_id) {
  const int tm = rows_per_group(s);
  b.compute(ops_of(epilogue_counts(tm, s.head_dim), int64_t{tm} * s.head_dim * kElem), false,
            "epilogue");
  b.bar_sync(std::to_string(bar_id), "THREADS");
  b.if_("wg == 0");
  b.loop("c", "0", "DC");
  const Coords c = coords(s);
  const bool per_head = o_per_head(s);
  const std::string row = per_head ? "cta.x * BM" : c.q_row;
  if (per_head) {
    b.tma_store("O", {"c * CW", row, c.head});
  } else {
    b.tma_store("O", {"c * CW", row});
  }
  b.end_loop();
  b.tma_store_wait("0");
  b.end_if();
}

// Triton's software pipeline as the H200 SASS shows it (validation/data/h200/sass/attn_*.sass):
// warpgroup 0 issues Q and the first ST-1 K/V tiles; each iteration waits K, computes
// S = QK^T and waits for it (wait_group 0, which also retires the previous PV), passes a
// CTA-wide bar.sync, waits V, runs the softmax, issues O += PV (left in flight), then refills
// K and then V for tile j+ST-1, each behind another CTA-wide bar.sync.
void build_triton(KernelBuilder& b, const AttentionSpec& s) {
  const std::string nt = trip_count(s);
  const std::string refill = "j + ST - 1 < " + nt + " && wg == 0";
  b.add_barrier("q", 1, 1);
  b.add_barrier("k", s.stages, 1);
  b.add_barrier("v", s.stages, 1);
  b.begin_role("main", groups(s));
  b.if_("wg == 0");
  load_q(b, s);
  b.loop("i", "0", "min(ST - 1, " + nt + ")");
  load_kv(b, s, "K", "k", "i");
  load_kv(b, s, "V", "v", "i");
  b.end_loop();
  b.end_if();
  b.mb_wait("q", "0", "0");
  b.loop("j", "0", nt);
  b.mb_wait("k", "j % ST", "(j / ST) % 2");
  qk(b, s);
  b.wgmma_wait("0");
  b.bar_sync("0", "THREADS");
  b.mb_wait("v", "j % ST", "(j / ST) % 2");
  softmax(b, s, triton_masks_all(s));
  pv(b, s);
  b.bar_sync("0", "THREADS");
  b.if_(refill);
  load_kv(b, s, "K", "k", "j + ST - 1");
  b.end_if();
  b.bar_sync("0", "THREADS");
  b.if_(refill);
  load_kv(b, s, "V", "v", "j + ST - 1");
  b.end_if();
  b.end_loop();
  b.wgmma_wait("0");
  epilogue(b, s, 0);
  b.end_role();
}

void fa3_producer(KernelBuilder& b, const AttentionSpec& s) {
  b.begin_role("producer", 1);
  load_q(b, s);
  b.loop("j", "0", trip_count(s));
  b.stage_acquire("k", "j");
  load_kv(b, s, "K", "k.full", "j");
  b.stage_acquire("v", "j");
  load_kv(b, s, "V", "v.full", "j");
  b.end_loop();
  b.end_role();
}

// Ping-pong (FA3's warp_scheduler_barrier_*): barrier 2+wg is "my turn". Before QK^T a consumer
// waits for its turn (BAR_SYNC: its 128 threads plus the other's 128 arrivals); once its GEMMs
// are issued, before the wait and the softmax, it hands the turn over (BAR_ARRIVE on 3-wg).
// Consumer 1 arrives once up front so consumer 0 goes first. Turns strictly alternate.
void turn_wait(KernelBuilder& b, const AttentionSpec& s) {
  if (s.pingpong) {
    b.bar_sync("2 + wg", "256");
  }
}
void turn_pass(KernelBuilder& b, const AttentionSpec& s) {
  if (s.pingpong) {
    b.bar_arrive("3 - wg", "256");
  }
}

void fa3_softmax(KernelBuilder& b, const AttentionSpec& s, const std::string& j) {
  b.if_(fa3_masked(s, j));
  softmax(b, s, true);
  b.else_();
  softmax(b, s, false);
  b.end_if();
}

// Sim-FA §VI-B order: QK^T, wait_group 0, release K, softmax, PV, wait_group 0, release V.
void fa3_serial_loop(KernelBuilder& b, const AttentionSpec& s) {
  b.loop("j", "0", trip_count(s));
  b.stage_wait("k", "j");
  turn_wait(b, s);
  qk(b, s);
  turn_pass(b, s);
  b.wgmma_wait("0");
  b.stage_release("k", "j");
  fa3_softmax(b, s, "j");
  b.stage_wait("v", "j");
  pv(b, s);
  b.wgmma_wait("0");
  b.stage_release("v", "j");
  b.end_loop();
}

// Intra-warpgroup overlap (FA3 §3.2): PV of tile j-1 is issued right after QK^T of tile j, so
// the softmax of tile j runs while PV(j-1) is on the tensor core.
void fa3_overlap_loop(KernelBuilder& b, const AttentionSpec& s) {
  const std::string nt = trip_count(s);
  b.loop("j", "0", nt);
  b.stage_wait("k", "j");
  turn_wait(b, s);
  qk(b, s);
  b.if_("j > 0");
  b.stage_wait("v", "j - 1");
  pv(b, s);
  b.end_if();
  turn_pass(b, s);
  b.wgmma_wait("min(j, 1)");
  b.stage_release("k", "j");
  fa3_softmax(b, s, "j");
  b.if_("j > 0");
  b.wgmma_wait("0");
  b.stage_release("v", "j - 1");
  b.end_if();
  b.end_loop();
  b.if_(nt + " > 0");
  b.stage_wait("v", nt + " - 1");
  pv(b, s);
  b.wgmma_wait("0");
  b.stage_release("v", nt + " - 1");
  b.end_if();
}

void build_fa3(KernelBuilder& b, const AttentionSpec& s) {
  b.add_barrier("q", 1, 1);
  b.add_ring("k", s.stages, 2);
  b.add_ring("v", s.stages, 2);
  fa3_producer(b, s);
  b.begin_role("consumer", 2);
  b.mb_wait("q", "0", "0");
  if (s.pingpong) {
    b.if_("wg == 1");
    b.bar_arrive("2", "256");
    b.end_if();
  }
  if (s.intra_overlap) {
    fa3_overlap_loop(b, s);
  } else {
    fa3_serial_loop(b, s);
  }
  epilogue(b, s, 1);
  b.end_role();
}

// K/V tiles of query block m (see trip_count) and how many of them FA3 masks.
int64_t tiles_of_block(const AttentionSpec& s, int64_t m) {
  if (!s.causal) {
    return cdiv(s.seq_kv, s.bn);
  }
  const int64_t hi = std::min(s.seq_kv, (m + 1) * s.bm + s.seq_kv - s.seq);
  return cdiv(std::max<int64_t>(0, hi), s.bn);
}

int64_t masked_of_block(const AttentionSpec& s, int64_t m) {
  const int64_t nt = tiles_of_block(s, m);
  if (!fa3(s)) {
    return triton_masks_all(s) ? nt : 0;
  }
  int64_t masked = 0;
  for (int64_t j = 0; j < nt; ++j) {
    const int64_t end = (j + 1) * s.bn;
    masked += (end > s.seq_kv || (s.causal && end > m * s.bm + s.seq_kv - s.seq)) ? 1 : 0;
  }
  return masked;
}

}  // namespace

AttentionVariant parse_attention_variant(const std::string& text, const std::string& flag) {
  if (text == "triton") {
    return AttentionVariant::kTriton;
  }
  if (text == "fa3") {
    return AttentionVariant::kFa3;
  }
  throw_input_error(flag, "expected triton or fa3, got '{}'", text);
}

const char* attention_variant_name(AttentionVariant v) {
  return v == AttentionVariant::kFa3 ? "fa3" : "triton";
}

AttentionSpec attention_defaults(const AttentionSpec& spec) {
  AttentionSpec s = spec;
  s.kv_heads = s.kv_heads == 0 ? s.heads : s.kv_heads;
  s.seq_kv = s.seq_kv == 0 ? s.seq : s.seq_kv;
  if (s.stages == 0) {
    s.stages = fa3(s) ? 2 : 3;
  }
  if (s.bn == 0 && !fa3(s)) {
    s.bn = 64;
  } else if (s.bn == 0) {
    // FlashAttention-3's hopper/tile_size.h for fp16 with two consumer warpgroups.
    const int d = s.head_dim;
    s.bn = d <= 64 ? 128 : d <= 128 ? (s.causal ? 128 : 176) : d <= 192 ? 112 : 80;
  }
  return s;
}

int64_t attention_smem_bytes(const AttentionSpec& spec) {
  const AttentionSpec s = attention_defaults(spec);
  const int64_t q = int64_t{s.bm} * s.head_dim * kElem;
  const int64_t kv = int64_t{s.stages} * s.bn * s.head_dim * kElem * 2;
  // mbarriers: Q, then one per K and V slot (Triton) or a full and an empty per slot (FA3). The
  // O tile reuses Q's buffer (dead after the last QK^T).
  const int64_t barriers = 8 * (1 + s.stages * (fa3(s) ? 4 : 2));
  return q + kv + barriers;
}

int attention_regs_per_thread(const AttentionSpec& spec) {
  const AttentionSpec s = attention_defaults(spec);
  if (fa3(s)) {
    return 168;  // 384 threads under __launch_bounds__(384, 1): 65536 / 384 rounded down to 8
  }
  // Per thread: the fp32 O accumulator, the fp32 scores and their fp16 copy, plus 27 for
  // addresses and row statistics (matches the 4 PTX register counts of attention_ptx.json to 1).
  const int threads = groups(s) * 128;
  const int acc = rows_per_group(s) * s.head_dim * groups(s) / threads;
  const int scores = rows_per_group(s) * s.bn * groups(s) / threads;
  return std::min(255, acc + scores + scores / 2 + 27);
}

program::Kernel build_attention(const AttentionSpec& spec, const GpuConfig& config) {
  const AttentionSpec s = attention_defaults(spec);
  check_shape(s);
  check_tiles(s);
  check_resources(s, config);
  const std::string name =
      fmt::format("attention_{}_b{}_h{}_hkv{}_s{}_skv{}_d{}_t{}x{}_s{}{}",
                  attention_variant_name(s.variant), s.batch, s.heads, s.kv_heads, s.seq, s.seq_kv,
                  s.head_dim, s.bm, s.bn, s.stages, s.causal ? "_causal" : "");
  KernelBuilder b(name, "attention");
  b.set_resources(attention_regs_per_thread(s), attention_smem_bytes(s));
  b.set_code_bytes(attention_code_bytes(s));
  declare(b, s);
  const int64_t mt = cdiv(s.seq, s.bm);
  if (fa3(s)) {
    b.set_grid(mt, s.heads, s.batch);
    build_fa3(b, s);
  } else {
    b.set_grid(mt, s.batch * s.heads);
    build_triton(b, s);
  }
  return b.finish();
}

AttentionCounts attention_counts(const AttentionSpec& spec) {
  const AttentionSpec s = attention_defaults(spec);
  AttentionCounts c;
  const int64_t mt = cdiv(s.seq, s.bm);
  const int64_t heads = s.batch * s.heads;
  c.ctas = mt * heads;
  for (int64_t m = 0; m < mt; ++m) {
    c.kv_tiles += tiles_of_block(s, m) * heads;
    c.masked_tiles += masked_of_block(s, m) * heads;
  }
  const int64_t dc = s.head_dim / copy_width(s.head_dim, s.variant);
  c.wgmma_instructions = c.kv_tiles * (s.bm / 64) * (s.head_dim + s.bn) / 16;
  c.tma_loads = c.ctas * dc + c.kv_tiles * 2 * dc;
  c.tma_stores = c.ctas * dc;
  c.load_bytes = (c.ctas * s.bm + c.kv_tiles * 2 * s.bn) * s.head_dim * kElem;
  c.store_bytes = c.ctas * s.bm * s.head_dim * kElem;
  c.flops = 4.0 * static_cast<double>(c.kv_tiles) * s.bm * s.bn * s.head_dim;
  return c;
}

}  // namespace asyncsim::workloads
