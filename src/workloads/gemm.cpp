#include "workloads/gemm.h"

#include <algorithm>

#include "program/builder.h"
#include "util/error.h"

namespace asyncsim::workloads {
namespace {

using program::KernelBuilder;
using program::TensorMap;

// Well-separated, 2 MiB-aligned base addresses for A, B and C.
constexpr uint64_t kBaseA = uint64_t{1} << 32;

uint64_t align_up(uint64_t v, uint64_t a) {
  return (v + a - 1) / a * a;
}

// Triton splits a TMA copy whose contiguous extent exceeds the 128-byte swizzle span into
// several copies of 128 bytes each (one instruction per copy).
constexpr int kSwizzleBytes = 128;

void check(const GemmSpec& s) {
  const std::string w = "gemm";
  if (s.m < 1 || s.n < 1 || s.k < 1) {
    throw_input_error("--m/--n/--k", "matrix sizes must be positive, got {}x{}x{}", s.m, s.n, s.k);
  }
  if (s.warps < 4 || s.warps % 4 != 0 || s.warps > 16) {
    throw_input_error("--warps", "must be 4, 8, 12 or 16 (whole warpgroups), got {}", s.warps);
  }
  const int groups = s.warps / 4;
  if (s.bm % (64 * groups) != 0) {
    throw_input_error("--tile", "BM={} must split into {} warpgroups of a multiple of 64 rows",
                      s.bm, groups);
  }
  if (s.bn < 8 || s.bn > 256 || s.bn % 8 != 0) {
    throw_input_error("--tile", "BN={} must be a multiple of 8 in [8, 256] (one wgmma N)", s.bn);
  }
  const int kinstr = program::wgmma_k(s.dtype);
  const int esize = program::dtype_bytes(s.dtype);
  if (s.bk % kinstr != 0 || s.bk * esize > kSwizzleBytes) {
    throw_input_error("--tile", "BK={} must be a multiple of {} and at most {} elements", s.bk,
                      kinstr, kSwizzleBytes / esize);
  }
  if (s.k * esize % 16 != 0 || s.n * 2 % 16 != 0) {
    throw_input_error("--k/--n",
                      "TMA needs 16-byte row strides: K*{} = {} B and N*2 = {} B must "
                      "be multiples of 16 (K and N multiples of {} and 8)",
                      esize, s.k * esize, s.n * 2, 16 / esize);
  }
  if (s.bm > 256) {
    throw_input_error("--tile", "BM={} exceeds the 256-row TMA box", s.bm);
  }
  if (s.stages < 1 || s.stages > 16) {
    throw_input_error("--stages", "must be in [1, 16], got {}", s.stages);
  }
  if (s.group_m < 1) {
    throw_input_error("--group-m", "must be >= 1, got {}", s.group_m);
  }
  if (s.ctas < 0 || (s.ctas > 0 && s.variant != GemmVariant::kPersistent)) {
    throw_input_error("--ctas", "is the persistent variant's CTA count (>= 1), got {}{}", s.ctas,
                      s.variant != GemmVariant::kPersistent ? " without --variant persistent" : "");
  }
  (void)w;
}

struct Layout {
  uint64_t a;
  uint64_t b;
  uint64_t c;
};

Layout layout(const GemmSpec& s) {
  const auto esize = static_cast<uint64_t>(program::dtype_bytes(s.dtype));
  const uint64_t size_a = static_cast<uint64_t>(s.m * s.k) * esize;
  const uint64_t size_b = static_cast<uint64_t>(s.n * s.k) * esize;
  Layout l{};
  l.a = kBaseA;
  l.b = align_up(l.a + size_a, uint64_t{2} << 20);
  l.c = align_up(l.b + size_b, uint64_t{2} << 20);
  return l;
}

TensorMap make_map(const std::string& name, program::DType dtype, int64_t inner, int64_t outer,
                   int box_inner, int box_outer, uint64_t base) {
  TensorMap m;
  m.name = name;
  m.dtype = dtype;
  m.rank = 2;
  m.dims = {inner, outer, 1, 1, 1};
  m.strides = {program::dtype_bytes(dtype), inner * program::dtype_bytes(dtype), 0, 0, 0};
  m.box = {box_inner, box_outer, 1, 1, 1};
  m.base = base;
  m.swizzle = program::Swizzle::k128B;
  return m;
}

void declare(KernelBuilder& b, const GemmSpec& s, const Layout& l) {
  const int cbox = std::min(s.bn, kSwizzleBytes / 2);
  b.add_map(make_map("A", s.dtype, s.k, s.m, s.bk, s.bm, l.a));
  b.add_map(make_map("B", s.dtype, s.k, s.n, s.bk, s.bn, l.b));
  b.add_map(make_map("C", program::DType::kF16, s.n, s.m, cbox, s.bm, l.c));
  b.set_constant("BM", s.bm);
  b.set_constant("BN", s.bn);
  b.set_constant("BK", s.bk);
  b.set_constant("S", s.stages);
  b.set_constant("KT", (s.k + s.bk - 1) / s.bk);
  b.set_constant("TN", (s.n + s.bn - 1) / s.bn);
  b.set_constant("TM", (s.m + s.bm - 1) / s.bm);
  b.set_constant("G", s.warps / 4);
  b.set_constant("GM", s.group_m);
  b.set_constant("STAGE_BYTES",
                 (static_cast<int64_t>(s.bm) + s.bn) * s.bk * program::dtype_bytes(s.dtype));
  b.set_constant("WGMMA_PER_ITER",
                 (s.bm / (s.warps / 4) / 64) * (s.bk / program::wgmma_k(s.dtype)));
  b.set_constant("ROWS_PER_WG", s.bm / (s.warps / 4));
  b.set_constant("CSTORES", (s.bn + cbox - 1) / cbox);
  b.set_constant("CBOX", cbox);
}

std::string wgmma_n(const GemmSpec& s) {
  return std::to_string(s.bn);
}

// Whether ptxas serialised the main loop's wgmma (each followed by wait_group 0). The H200 SASS
// of Triton 3.6's pipelined kernel shows it for the 128x256 tile with 8 warps (m64n256
// accumulators: WARPGROUP.DEPBAR.LE gsb0, 0x0 after every HGMMA) and not for 128x128 with 4
// warps. `auto` applies that observation to the pipelined variant with N = 256 only; other
// kernels (persistent, warp-specialised) were not inspected and are not serialised.
bool serialized_wgmma(const GemmSpec& s) {
  switch (s.wgmma_serialization) {
    case WgmmaSerialization::kOn:
      return true;
    case WgmmaSerialization::kOff:
      return false;
    case WgmmaSerialization::kAuto:
      return s.bn >= 256 && s.variant == GemmVariant::kPipelined;
  }
  return false;
}

// One iteration's wgmma: one group kept in flight (wait_group 1), or, where ptxas serialised
// them, each instruction waited for before the next.
void issue_wgmma(KernelBuilder& b, const GemmSpec& s) {
  if (serialized_wgmma(s)) {
    b.loop("w", "0", "WGMMA_PER_ITER");
    b.wgmma(wgmma_n(s), "1", s.dtype, false);
    b.wgmma_commit();
    b.wgmma_wait("0");
    b.end_loop();
    return;
  }
  b.wgmma(wgmma_n(s), "WGMMA_PER_ITER", s.dtype, false);
  b.wgmma_commit();
  b.wgmma_wait("1");
}

// One stage's loads: arm the barrier with the bytes, then the A and B boxes. `it` is the
// global iteration (stage = it % S), `kk` the K-block, `pm`/`pn` the tile coordinates.
void load_stage(KernelBuilder& b, const std::string& bar, const std::string& it,
                const std::string& kk, const std::string& pm, const std::string& pn) {
  const std::string slot = "(" + it + ") % S";
  b.mb_arrive_expect_tx(bar, slot, "STAGE_BYTES");
  b.tma_load("A", {"(" + kk + ") * BK", "(" + pm + ") * BM"}, bar, slot);
  b.tma_load("B", {"(" + kk + ") * BK", "(" + pn + ") * BN"}, bar, slot);
}

// Epilogue of one output tile: wait for the last group, convert the fp32 accumulators and write
// them to shared memory, synchronise the warpgroups, and store C with TMA from warpgroup 0.
void epilogue(KernelBuilder& b, const GemmSpec& s, const std::string& pm, const std::string& pn,
              int bar_id) {
  b.wgmma_wait("0");
  KernelBuilder::ComputeOps ops;
  ops.cvt = "ROWS_PER_WG * BN";
  ops.smem_bytes = "ROWS_PER_WG * BN * 2";
  b.compute(ops);
  b.bar_sync(std::to_string(bar_id), std::to_string(s.warps / 4 * 128));
  b.if_("wg == 0");
  b.loop("c", "0", "CSTORES");
  b.tma_store("C", {"(" + pn + ") * BN + c * CBOX", "(" + pm + ") * BM"});
  b.end_loop();
  b.tma_store_wait("0");
  b.end_if();
}

// Triton's software-pipelined loop as the H200 SASS shows it (validation/data/h200/sass/
// gemm_*.sass): loads run S-1 iterations ahead; each iteration starts with a CTA-wide bar.sync,
// waits on its stage, issues its wgmma (serialized one by one with wait_group 0 where ptxas
// serialized them, see serialized_wgmma), waits with wait_group 1, and refills the freed slot
// with bar.sync before the expect_tx and before each of the two TMA copies.
void pipelined_tile(KernelBuilder& b, const GemmSpec& s, const std::string& g0,
                    const std::string& pm, const std::string& pn) {
  const std::string all = std::to_string(s.warps / 4 * 128);
  b.if_("wg == 0");
  b.loop("i", "0", "min(S - 1, KT)");
  load_stage(b, "full", g0 + " + i", "i", pm, pn);
  b.end_loop();
  b.end_if();
  b.loop("k", "0", "KT");
  b.bar_sync("0", all);
  b.mb_wait("full", "(" + g0 + " + k) % S", "((" + g0 + " + k) / S) % 2");
  issue_wgmma(b, s);
  const std::string it = g0 + " + k + S - 1";
  const std::string slot = "(" + it + ") % S";
  b.bar_sync("0", all);
  b.if_("k + S - 1 < KT && wg == 0");
  b.mb_arrive_expect_tx("full", slot, "STAGE_BYTES");
  b.end_if();
  b.bar_sync("0", all);
  b.if_("k + S - 1 < KT && wg == 0");
  b.tma_load("A", {"(k + S - 1) * BK", "(" + pm + ") * BM"}, "full", slot);
  b.end_if();
  b.bar_sync("0", all);
  b.if_("k + S - 1 < KT && wg == 0");
  b.tma_load("B", {"(k + S - 1) * BK", "(" + pn + ") * BN"}, "full", slot);
  b.end_if();
  b.end_loop();
  epilogue(b, s, pm, pn, 0);
}

void build_pipelined(KernelBuilder& b, const GemmSpec& s) {
  b.add_barrier("full", s.stages, 1);
  b.begin_role("main", s.warps / 4);
  pipelined_tile(b, s, "0", "cta.y", "cta.x");
  b.end_role();
}

void build_persistent(KernelBuilder& b, const GemmSpec& s) {
  b.add_barrier("full", s.stages, 1);
  b.begin_role("main", s.warps / 4);
  b.loop("j", "0", "cdiv(TM * TN - cta, nctas)");
  // Tile t = cta + j * nctas in Triton's grouped order (_compute_pid of the tutorials): groups
  // of GM tile rows, column-major inside a group; GM = 1 is row-major.
  const std::string t = "(cta + j * nctas)";
  const std::string first = "(" + t + " / (GM * TN) * GM)";
  const std::string size = "min(TM - " + first + ", GM)";
  pipelined_tile(b, s, "j * KT", first + " + " + t + " % " + size, t + " % (GM * TN) / " + size);
  b.end_loop();
  b.end_role();
}

// Warp-specialised: one producer warpgroup streams A/B through a full/empty ring; the consumer
// warpgroups wait on full, issue wgmma, and release the previous slot after wait_group(1).
void build_warp_specialized(KernelBuilder& b, const GemmSpec& s) {
  b.add_ring("ab", s.stages, s.warps / 4);
  b.begin_role("producer", 1);
  b.loop("k", "0", "KT");
  b.stage_acquire("ab", "k");
  load_stage(b, "ab.full", "k", "k", "cta.y", "cta.x");
  b.end_loop();
  b.end_role();
  b.begin_role("consumer", s.warps / 4);
  b.loop("k", "0", "KT");
  b.stage_wait("ab", "k");
  issue_wgmma(b, s);
  b.if_("k > 0");
  b.stage_release("ab", "k - 1");
  b.end_if();
  b.end_loop();
  epilogue(b, s, "cta.y", "cta.x", 1);
  b.end_role();
}

int ctas_per_sm(const GemmSpec& s, const GpuConfig& c, int threads) {
  const int64_t smem = gemm_smem_bytes(s);
  const int64_t regs = (gemm_regs_per_thread(s) * 32 + 255) / 256 * 256 * (threads / 32);
  int64_t n = c.sm.max_ctas;
  n = std::min<int64_t>(n, c.sm.max_threads / threads);
  const int64_t per_cta = smem + c.sm.smem_reserved_per_cta;  // what the SM admits (sm.cpp)
  n = std::min<int64_t>(n, per_cta > 0 ? c.sm.smem_bytes / per_cta : n);
  n = std::min<int64_t>(n, c.sm.registers / regs);
  return static_cast<int>(std::max<int64_t>(n, 1));
}

}  // namespace

void parse_tile(const std::string& text, GemmSpec& spec, const std::string& flag) {
  int bm = 0;
  int bn = 0;
  int bk = 0;
  char x1 = 0;
  char x2 = 0;
  char extra = 0;
  if (std::sscanf(text.c_str(), "%d%c%d%c%d%c", &bm, &x1, &bn, &x2, &bk, &extra) != 5 ||
      x1 != 'x' || x2 != 'x' || bm <= 0 || bn <= 0 || bk <= 0) {
    throw_input_error(flag, "expected BMxBNxBK such as 128x128x64, got '{}'", text);
  }
  spec.bm = bm;
  spec.bn = bn;
  spec.bk = bk;
}

GemmVariant parse_gemm_variant(const std::string& text, const std::string& flag) {
  if (text == "pipelined") {
    return GemmVariant::kPipelined;
  }
  if (text == "ws" || text == "warp-specialized") {
    return GemmVariant::kWarpSpecialized;
  }
  if (text == "persistent") {
    return GemmVariant::kPersistent;
  }
  throw_input_error(flag, "expected pipelined, ws or persistent, got '{}'", text);
}

int64_t gemm_smem_bytes(const GemmSpec& s) {
  const int64_t esize = program::dtype_bytes(s.dtype);
  const int64_t ring = static_cast<int64_t>(s.stages) * (s.bm + s.bn) * s.bk * esize;
  const int64_t c_tile = static_cast<int64_t>(s.bm) * s.bn * 2;
  // Triton's allocator lets the epilogue tile reuse the dead pipeline buffers; the barriers and
  // allocator alignment take about 1 KB more. In a persistent kernel the pipeline is never dead
  // (the next tile's loads run while one tile's C is stored), so C gets its own buffer: the
  // H200 captures (validation/traces/persistent*_2048x4096x4096_w*.json) show 131096 B for
  // 128x128x64 s3 (3 x 32 KB + 32 KB + 24) and 213016 B for 128x256x64 s3, one CTA per SM.
  if (s.variant == GemmVariant::kPersistent) {
    return ring + c_tile + 1024;
  }
  return std::max(ring, c_tile) + 1024;
}

int gemm_regs_per_thread(const GemmSpec& s) {
  // fp32 accumulators: BM x BN over the consumer threads, plus ~40 for addresses and control.
  const int acc = s.bm * s.bn / (s.warps * 32);
  return std::min(255, acc + 40);
}

int64_t gemm_code_bytes(const GemmSpec& s) {
  if (s.variant == GemmVariant::kPersistent) {
    return 13000;  // persistent_ptx.json: 49332 / 48944 PTX characters x 0.265
  }
  // gemm_128x128x64_s3_w4.sass: 520 instructions, gemm_128x256x64_s3_w8.sass: 528 (16 B each);
  // other tiles and the warp-specialized variant (the same PTX as the tutorial kernel under
  // Triton 3.6, persistent_ptx.json) take the nearer of the two.
  return s.bn >= 256 ? 8448 : 8320;
}

program::Kernel build_gemm(const GemmSpec& s, const GpuConfig& config) {
  check(s);
  const int64_t tm = (s.m + s.bm - 1) / s.bm;
  const int64_t tn = (s.n + s.bn - 1) / s.bn;
  const std::string name = fmt::format("gemm_{}x{}x{}_t{}x{}x{}_s{}_w{}", s.m, s.n, s.k, s.bm, s.bn,
                                       s.bk, s.stages, s.warps);
  KernelBuilder b(name, "gemm");
  const int threads = (s.warps / 4 + (s.variant == GemmVariant::kWarpSpecialized ? 1 : 0)) * 128;
  b.set_resources(gemm_regs_per_thread(s), gemm_smem_bytes(s));
  b.set_code_bytes(gemm_code_bytes(s));
  declare(b, s, layout(s));
  switch (s.variant) {
    case GemmVariant::kPipelined:
      b.set_grid(tn, tm);
      build_pipelined(b, s);
      break;
    case GemmVariant::kWarpSpecialized:
      b.set_grid(tn, tm);
      build_warp_specialized(b, s);
      break;
    case GemmVariant::kPersistent: {
      const int64_t slots = static_cast<int64_t>(config.sm.count) * ctas_per_sm(s, config, threads);
      b.set_grid(s.ctas > 0 ? s.ctas : std::min(tm * tn, slots));
      build_persistent(b, s);
      break;
    }
  }
  return b.finish();
}

GemmCounts gemm_counts(const GemmSpec& s) {
  GemmCounts c;
  const int64_t tiles = ((s.m + s.bm - 1) / s.bm) * ((s.n + s.bn - 1) / s.bn);
  c.ctas = tiles;
  c.k_iterations = (s.k + s.bk - 1) / s.bk;
  c.wgmma_per_iteration = (s.bm / (s.warps / 4) / 64) * (s.bk / program::wgmma_k(s.dtype));
  c.tma_loads = tiles * c.k_iterations * 2;
  const int cbox = std::min(s.bn, kSwizzleBytes / 2);
  c.tma_stores = tiles * ((s.bn + cbox - 1) / cbox);
  c.wgmma_instructions = tiles * c.k_iterations * c.wgmma_per_iteration * (s.warps / 4);
  return c;
}

}  // namespace asyncsim::workloads
