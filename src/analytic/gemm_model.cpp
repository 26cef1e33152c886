// GEMM analogue of Sim-FA §III: each CTA streams its A row-block (BM×K) and B column-block
// (BN×K) once and writes its C tile once. In row-major pid order the A row-block is reused by
// nN consecutive CTAs and all of B is reused by every tile row, so B plays the role of K/V.
#include "analytic/gemm_model.h"

#include "analytic/occupancy.h"
#include "analytic/wave.h"

namespace asyncsim::analytic {
namespace {

struct Grid {
  int64_t tiles_m = 0;
  int64_t tiles_n = 0;
  int64_t tiles_k = 0;
  int64_t ctas = 0;
  int64_t wave_ctas = 0;
  int64_t waves = 0;
};

// DRAM bytes of B under the wave model when B does not fit: each wave re-reads every B
// column-block it touches. A wave of at least tiles_n consecutive pids touches all of B; a
// shorter one touches a cyclic run of column-blocks and none twice.
int64_t b_bytes_wave(const GemmShape& s, const Grid& g) {
  const int64_t col_bytes = s.block_n * s.k * kFp16Bytes;  // a full column-block
  const int64_t tail_short = (g.tiles_n * s.block_n - s.n) * s.k * kFp16Bytes;  // clipped part
  const int64_t all_b = s.n * s.k * kFp16Bytes;
  if (g.wave_ctas < g.tiles_n) {
    return g.tiles_m * all_b;  // no two CTAs of a wave share a column-block
  }
  const int64_t last_first = (g.waves - 1) * g.wave_ctas;
  const int64_t last_len = g.ctas - last_first;
  int64_t last = all_b;
  if (last_len < g.tiles_n) {
    const int64_t c0 = last_first % g.tiles_n;
    last = last_len * col_bytes - (c0 + last_len >= g.tiles_n ? tail_short : 0);
  }
  return (g.waves - 1) * all_b + last;
}

// Number of wave boundaries b·W (0 < b < waves) that fall strictly inside one of the equal,
// back-to-back pid ranges of length `run` (a boundary on a range start splits nothing).
int64_t interior_boundaries(const Grid& g, int64_t run) {
  int64_t a = g.wave_ctas;
  int64_t b = run;
  while (b != 0) {
    const int64_t t = a % b;
    a = b;
    b = t;
  }
  const int64_t period = run / a;  // boundaries b·W land on a range start every `period` waves
  return (g.waves - 1) - (g.waves - 1) / period;
}

// DRAM bytes of A under the wave model: a row-block larger than effective L2 is re-read by
// every wave its nN CTAs span.
int64_t a_bytes_wave(const GemmShape& s, const Grid& g) {
  const int64_t spans = g.tiles_m + interior_boundaries(g, g.tiles_n);
  const int64_t last_rows = s.m - (g.tiles_m - 1) * s.block_m;
  const int64_t last_spans = waves_spanned((g.tiles_m - 1) * g.tiles_n, g.tiles_n, g.wave_ctas);
  return (spans * s.block_m - last_spans * (s.block_m - last_rows)) * s.k * kFp16Bytes;
}

void fill_l2(const GemmShape& s, const Grid& g, int64_t sector, Estimate& e) {
  // One row of an operand over the whole K loop: full k-tiles plus the clipped tail in sectors.
  const int64_t k_tail = s.k - (g.tiles_k - 1) * s.block_k;
  const int64_t k_row =
      (g.tiles_k - 1) * s.block_k * kFp16Bytes + sector_round(k_tail * kFp16Bytes, sector);
  const int64_t n_tail = s.n - (g.tiles_n - 1) * s.block_n;
  const int64_t c_row =
      (g.tiles_n - 1) * s.block_n * kFp16Bytes + sector_round(n_tail * kFp16Bytes, sector);
  // Σ over CTAs of clipped rows: every row of A is read by nN CTAs, every row of B by nM.
  e.l2_read_bytes = (g.tiles_n * s.m + g.tiles_m * s.n) * k_row;
  e.l2_write_bytes = s.m * c_row;
  const int64_t tile_k_bytes = g.tiles_k * s.block_k * kFp16Bytes;
  e.l2_bytes_boxes = g.ctas * ((int64_t{s.block_m} + s.block_n) * tile_k_bytes +
                               int64_t{s.block_m} * s.block_n * kFp16Bytes);
}

void fill_dram(const GemmShape& s, const Grid& g, int64_t effective_l2, Estimate& e) {
  const int64_t a_all = s.m * s.k * kFp16Bytes;
  const int64_t b_all = s.n * s.k * kFp16Bytes;
  e.dram_read_bytes_ideal = a_all + b_all;
  e.dram_write_bytes = s.m * s.n * kFp16Bytes;
  // Eq. 4 analogue: all of B must stay resident between tile rows; one A row-block between
  // the CTAs of its row.
  e.reuse_set_bytes = b_all;
  const bool b_fits = b_all <= effective_l2;
  const bool a_fits = s.block_m * s.k * kFp16Bytes <= effective_l2;
  e.reuse_fits = b_fits && a_fits;
  e.dram_read_bytes_wave =
      (a_fits ? a_all : a_bytes_wave(s, g)) + (b_fits ? b_all : b_bytes_wave(s, g));
}

}  // namespace

Estimate estimate_gemm(const GemmShape& s, const GpuConfig& gpu) {
  validate(s);
  Estimate e;
  e.occupancy = occupancy(gemm_cta_resources(s), gpu, "analyze gemm");
  Grid g;
  g.tiles_m = ceil_div(s.m, s.block_m);
  g.tiles_n = ceil_div(s.n, s.block_n);
  g.tiles_k = ceil_div(s.k, s.block_k);
  g.ctas = g.tiles_m * g.tiles_n;
  g.wave_ctas = int64_t{gpu.sm.count} * e.occupancy.ctas_per_sm;
  g.waves = ceil_div(g.ctas, g.wave_ctas);
  e.ctas = g.ctas;
  e.wave_ctas = g.wave_ctas;
  e.waves = g.waves;
  e.flops = 2.0 * static_cast<double>(s.m) * static_cast<double>(s.n) * static_cast<double>(s.k);
  e.flops_executed = 2.0 * static_cast<double>(g.ctas) * s.block_m * s.block_n *
                     static_cast<double>(g.tiles_k * s.block_k);
  fill_l2(s, g, gpu.mem.sector_bytes, e);
  fill_dram(s, g, gpu.analytic.effective_l2_bytes, e);
  return e;
}

}  // namespace asyncsim::analytic
