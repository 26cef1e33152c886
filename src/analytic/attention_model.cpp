// Sim-FA §III for the measured kernel: a CTA loads its Q tile, streams the K/V tiles of its kv
// head, writes its O tile. CTAs of one kv group (B index, kv head) are one contiguous pid run
// of G·ceil(S/BM) CTAs (grid axis 0 fastest, query heads of a group adjacent).
#include "analytic/attention_model.h"

#include <algorithm>

#include "analytic/occupancy.h"
#include "analytic/wave.h"

namespace asyncsim::analytic {
namespace {

struct Grid {
  int64_t q_tiles = 0;     // per query head
  int64_t group_ctas = 0;  // CTAs sharing one kv head: G · q_tiles
  int64_t groups = 0;      // B · HKV
  int64_t ctas = 0;
  int64_t wave_ctas = 0;
  int64_t waves = 0;
};

// K/V tiles Q tile m visits: all of them, or causal up to the diagonal.
int64_t kv_tiles(const AttentionShape& s, int64_t m) {
  const int64_t hi = s.causal ? std::min((m + 1) * s.block_m, s.seq_kv) : s.seq_kv;
  return ceil_div(hi, s.block_n);
}

// In-bounds K (or V) rows those tiles cover.
int64_t kv_rows(const AttentionShape& s, int64_t m) {
  return std::min(kv_tiles(s, m) * s.block_n, s.seq_kv);
}

// Number of boundaries b·W (0 < b < waves) strictly inside a group's pid run.
int64_t interior_boundaries(const Grid& g) {
  int64_t a = g.wave_ctas;
  int64_t b = g.group_ctas;
  while (b != 0) {
    const int64_t t = a % b;
    a = b;
    b = t;
  }
  return (g.waves - 1) - (g.waves - 1) / (g.group_ctas / a);
}

// Causal only: rows short of the full K/V head summed over the segments that end at an
// interior wave boundary without covering the last Q tile of any head (those stop early).
int64_t causal_deficit_rows(const AttentionShape& s, const Grid& g) {
  const int64_t full = kv_rows(s, g.q_tiles - 1);
  int64_t deficit = 0;
  for (int64_t b = 1; b < g.waves; ++b) {
    const int64_t p = b * g.wave_ctas;
    if (p % g.group_ctas == 0) {
      continue;
    }
    const int64_t seg_start = std::max(p - g.wave_ctas, p / g.group_ctas * g.group_ctas);
    const int64_t m_last = (p - 1) % g.q_tiles;
    const bool has_head_end = m_last == g.q_tiles - 1 || seg_start < p - 1 - m_last;
    if (!has_head_end) {
      deficit += full - kv_rows(s, m_last);
    }
  }
  return deficit;
}

void fill_flops(const AttentionShape& s, const Grid& g, Estimate& e, int64_t& kv_rows_sum,
                int64_t& kv_tiles_sum) {
  // Per query head, summed over its Q tiles: K/V rows read (clipped) and tiles executed.
  kv_rows_sum = 0;
  kv_tiles_sum = 0;
  if (s.causal) {
    for (int64_t m = 0; m < g.q_tiles; ++m) {
      kv_rows_sum += kv_rows(s, m);
      kv_tiles_sum += kv_tiles(s, m);
    }
  } else {
    kv_rows_sum = g.q_tiles * s.seq_kv;
    kv_tiles_sum = g.q_tiles * kv_tiles(s, 0);
  }
  // Unmasked (query, key) pairs of one head: Σ_i min(i+1, SKV) causal, S·SKV otherwise.
  double pairs = static_cast<double>(s.seq) * static_cast<double>(s.seq_kv);
  if (s.causal) {
    const double d = static_cast<double>(std::min(s.seq, s.seq_kv));
    pairs = d * (d + 1) / 2 +
            static_cast<double>(s.seq - static_cast<int64_t>(d)) * static_cast<double>(s.seq_kv);
  }
  const double heads = static_cast<double>(s.batch * s.heads);
  // Sim-FA Eq. 1: 2·L·D·S for QKᵀ plus 2·L·S·D for PV per query head.
  e.flops = 4.0 * heads * pairs * static_cast<double>(s.head_dim);
  e.flops_executed = 4.0 * heads * static_cast<double>(kv_tiles_sum) * s.block_m * s.block_n *
                     static_cast<double>(s.head_dim);
}

}  // namespace

Estimate estimate_attention(const AttentionShape& raw, const GpuConfig& gpu) {
  validate(raw);
  const AttentionShape s = resolved(raw);
  Estimate e;
  e.occupancy = occupancy(attention_cta_resources(s), gpu, "analyze attention");
  Grid g;
  g.q_tiles = ceil_div(s.seq, s.block_m);
  g.group_ctas = (s.heads / s.kv_heads) * g.q_tiles;
  g.groups = s.batch * s.kv_heads;
  g.ctas = g.q_tiles * s.batch * s.heads;
  g.wave_ctas = int64_t{gpu.sm.count} * e.occupancy.ctas_per_sm;
  g.waves = ceil_div(g.ctas, g.wave_ctas);
  e.ctas = g.ctas;
  e.wave_ctas = g.wave_ctas;
  e.waves = g.waves;

  int64_t kv_rows_sum = 0;
  int64_t kv_tiles_sum = 0;
  fill_flops(s, g, e, kv_rows_sum, kv_tiles_sum);

  const int64_t row = sector_round(s.head_dim * kFp16Bytes, gpu.mem.sector_bytes);
  const int64_t heads = s.batch * s.heads;
  // Sim-FA Eq. 2 ("Eq. 8" in §VIII): Q and O once per CTA, K and V streamed by every CTA.
  e.l2_read_bytes = heads * (s.seq + 2 * kv_rows_sum) * row;
  e.l2_write_bytes = heads * s.seq * row;
  e.l2_bytes_boxes = heads * (2 * g.q_tiles * s.block_m + 2 * kv_tiles_sum * s.block_n) * row;

  // Sim-FA Eq. 3: Q, K, V read once, O written once. Causal: the last Q tile needs every
  // K/V row up to min(S rounded to tiles, SKV), which is all of K/V when SKV <= S.
  const int64_t kv_head_rows = kv_rows(s, g.q_tiles - 1);
  const int64_t kv_head = 2 * kv_head_rows * row;
  e.dram_read_bytes_ideal = heads * s.seq * row + g.groups * kv_head;
  e.dram_write_bytes = heads * s.seq * row;
  // Sim-FA Eq. 4: ideal while one kv head's K and V fit in effective L2. Otherwise Eq. 5-6:
  // each wave a group's CTAs touch re-reads the K/V that wave needs.
  e.reuse_set_bytes = kv_head;
  e.reuse_fits = kv_head <= gpu.analytic.effective_l2_bytes;
  int64_t kv_wave = g.groups * kv_head;
  if (!e.reuse_fits) {
    const int64_t segments = g.groups + interior_boundaries(g);
    const int64_t deficit = s.causal ? causal_deficit_rows(s, g) : 0;
    kv_wave = segments * kv_head - 2 * deficit * row;
  }
  e.dram_read_bytes_wave = heads * s.seq * row + kv_wave;
  return e;
}

}  // namespace asyncsim::analytic
