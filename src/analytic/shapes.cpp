#include "analytic/shapes.h"

#include "util/error.h"

namespace asyncsim::analytic {
namespace {

// Largest extent accepted for one dimension: keeps every byte count inside int64 (products of
// at most three such extents and a small tile factor).
constexpr int64_t kMaxExtent = int64_t{1} << 24;

void require_extent(const char* where, const char* name, int64_t value) {
  if (value < 1 || value > kMaxExtent) {
    throw_input_error(where, "{} must be in [1, {}], got {}", name, kMaxExtent, value);
  }
}

void require_multiple(const char* where, const char* name, int64_t value, int64_t step,
                      const char* why) {
  if (value < step || value % step != 0) {
    throw_input_error(where, "{} must be a positive multiple of {} ({}), got {}", name, step, why,
                      value);
  }
}

void require_pipeline(const char* where, int stages, int warps) {
  if (stages < 1 || stages > 16) {
    throw_input_error(where, "stages must be in [1, 16], got {}", stages);
  }
  if (warps < 4 || warps % 4 != 0 || warps > 32) {
    throw_input_error(where, "warps must be 4, 8, ... 32 (whole warpgroups), got {}", warps);
  }
}

// Every byte count is an int64; refuse shapes whose largest count (whole TMA boxes over all
// CTAs) could overflow it.
void require_countable(const char* where, double box_bytes) {
  if (box_bytes > 0x1p62) {
    throw_input_error(where, "shape too large: {:.3g} bytes of L2 traffic overflow the counters",
                      box_bytes);
  }
}

double tiles(int64_t extent, int block) {
  return static_cast<double>((extent + block - 1) / block);
}

void require_regs(const char* where, int regs) {
  if (regs != 0 && (regs < 16 || regs > 255)) {
    throw_input_error(where, "regs per thread must be in [16, 255] (0 = estimate), got {}", regs);
  }
}

}  // namespace

void validate(const GemmShape& s) {
  const char* where = "analyze gemm";
  require_extent(where, "m", s.m);
  require_extent(where, "n", s.n);
  require_extent(where, "k", s.k);
  // TMA needs 16-byte aligned global row strides: A and B rows are K long, C rows N long.
  require_multiple(where, "k", s.k, 8, "TMA row stride must be 16-byte aligned for fp16");
  require_multiple(where, "n", s.n, 8, "TMA row stride of C must be 16-byte aligned for fp16");
  require_multiple(where, "tile BM", s.block_m, 64, "wgmma m64");
  require_multiple(where, "tile BN", s.block_n, 8, "wgmma n is a multiple of 8");
  require_multiple(where, "tile BK", s.block_k, 16, "wgmma k16 for fp16");
  if (s.block_n > 256) {
    throw_input_error(where, "tile BN must be at most 256 (wgmma n), got {}", s.block_n);
  }
  require_pipeline(where, s.stages, s.warps);
  if (s.block_m % (64 * (s.warps / 4)) != 0) {
    throw_input_error(where, "tile BM={} must split into {} warpgroups of 64-row wgmma", s.block_m,
                      s.warps / 4);
  }
  require_regs(where, s.regs_per_thread);
  const double ctas = tiles(s.m, s.block_m) * tiles(s.n, s.block_n);
  const double per_cta = (s.block_m + s.block_n) * tiles(s.k, s.block_k) * s.block_k +
                         static_cast<double>(s.block_m) * s.block_n;
  require_countable(where, ctas * per_cta * kFp16Bytes);
}

AttentionShape resolved(AttentionShape s) {
  if (s.kv_heads == 0) {
    s.kv_heads = s.heads;
  }
  if (s.seq_kv == 0) {
    s.seq_kv = s.seq;
  }
  return s;
}

void validate(const AttentionShape& raw) {
  const char* where = "analyze attention";
  const AttentionShape s = resolved(raw);
  require_extent(where, "batch", s.batch);
  require_extent(where, "heads", s.heads);
  require_extent(where, "kv-heads", s.kv_heads);
  require_extent(where, "seq", s.seq);
  require_extent(where, "seq-kv", s.seq_kv);
  if (s.heads % s.kv_heads != 0) {
    throw_input_error(where, "heads ({}) must be a multiple of kv-heads ({}) for GQA", s.heads,
                      s.kv_heads);
  }
  require_multiple(where, "head-dim", s.head_dim, 16, "wgmma k16 and 32-byte sectors");
  if (s.head_dim > 256) {
    throw_input_error(where, "head-dim must be at most 256 (TMA box and wgmma n), got {}",
                      s.head_dim);
  }
  require_multiple(where, "block-m", s.block_m, 64, "wgmma m64");
  require_multiple(where, "block-n", s.block_n, 16, "wgmma k16 of the P·V product");
  if (s.block_n > 256) {
    throw_input_error(where, "block-n must be at most 256 (wgmma n), got {}", s.block_n);
  }
  require_pipeline(where, s.stages, s.warps);
  require_regs(where, s.regs_per_thread);
  const double ctas = tiles(s.seq, s.block_m) * static_cast<double>(s.batch * s.heads);
  const double per_cta = 2.0 * s.block_m + 2 * tiles(s.seq_kv, s.block_n) * s.block_n;
  require_countable(where, ctas * per_cta * static_cast<double>(s.head_dim) * kFp16Bytes);
}

}  // namespace asyncsim::analytic
