// Shared pieces of the simulated microbenchmarks (src/cli/micro*.cpp): point columns, the
// statistics of validation/hw/micro/common.cuh, instruction-trace timing and the full-chip
// touch kernel, plus each benchmark's points/simulate pair for the registry in micro.cpp.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cli/micro.h"
#include "program/ir.h"
#include "sim/simulator.h"

namespace asyncsim::cli::micro_detail {

constexpr int64_t kKiB = 1024;
constexpr int64_t kMiB = 1024 * 1024;

int64_t key_int(const MicroRow& r, const std::string& k);
const std::string& key_str(const MicroRow& r, const std::string& k);
std::string s(int64_t v);

// The statistics of validation/hw/micro/common.cuh: median = v[n/2], pct = v[p*(n-1)].
struct Summary {
  int64_t min, p10, median, p90;
  double mean;
};
Summary summarize(std::vector<int64_t> v);
// common.cuh's pct_of on samples already sorted: sorted[p * (n - 1)].
int64_t pct_of_sorted(const std::vector<int64_t>& sorted, double p);
// `key` plus the latency micros' columns: samples, min_cycles, p10_cycles, median_cycles,
// p90_cycles, mean_cycles of `v`.
MicroRow with_latency_columns(MicroRow key, const std::vector<int64_t>& v);

// Every simulation of a microbenchmark goes through these two, which also write the kernels as
// .asim programs when `asyncsim micro --emit DIR` asked for them (the point being simulated on
// this thread is set by set_emit_target) and keep their results for `--stats`.
SimResult micro_simulate(const program::Kernel& k, const GpuConfig& c, const RunOptions& ro = {});
std::vector<SimResult> micro_sequence(const std::vector<const program::Kernel*>& kernels,
                                      const GpuConfig& c, const RunOptions& ro = {});
// `dir` empty: nothing is written. `stem` names the point (file DIR/STEM.N.asim, N = the
// kernel's place in the point's launch sequence); `what` goes into each file's first line.
void set_emit_target(const std::string& dir, const std::string& stem, const std::string& what);
// With `asyncsim micro --stats FILE`: the results of every kernel simulated on this thread are
// appended to `*sink` (nullptr: kept nowhere).
void set_stats_sink(std::vector<SimResult>* sink);

int64_t sm_cycles(const GpuConfig& c, Time t);
// Simulates `k` and returns the issue times of its traced warpgroup's instructions.
std::vector<IssueMark> traced_run(const program::Kernel& k, const GpuConfig& c);
// Times of the traced warpgroup's instructions with op `op`, then of its EXIT.
std::vector<Time> marks(const std::vector<IssueMark>& trace, program::Op op);
// Samples of "clock64 before arrive.expect_tx ... clock64 after the wait": the interval from
// one MB_ARRIVE_EXPECT_TX to the next (the loop has nothing else), the last one to EXIT.
std::vector<int64_t> iteration_cycles(const GpuConfig& c, const std::vector<IssueMark>& trace);
// A full-chip read (or, with `write`, a write) of [base, base + bytes) in the hardware touch
// kernel's grid-stride order.
// Writes are bulk (TMA engine) stores, or with `lsu` ST_GLOBALs (the hardware's torch fill_).
program::Kernel touch_kernel(const GpuConfig& c, uint64_t base, int64_t bytes, bool write = false,
                             bool lsu = false);
// The same loop over `units` units of `unit_bytes` each, unit u at base + u * pitch (a strided
// 2-D region: rows of unit_bytes, `pitch` bytes apart).
program::Kernel touch_rows_kernel(const GpuConfig& c, uint64_t base, int64_t units,
                                  int64_t unit_bytes, int64_t pitch, bool write = false,
                                  bool lsu = false);

// A grid-stride thread loop of int4 loads / stores at warpgroup granularity (micro_lsu.cpp): the
// grid's threads cover elements cta * threads + thread; a main-loop iteration handles `unroll`
// elements `ctas * threads` apart in the order of `main` (L: the next element's LD_GLOBAL, S:
// its ST_GLOBAL, wN: LD_WAIT N) plus `main_inst` other instructions; a remainder loop (`rest`,
// one element per iteration) takes the elements the main loop leaves; `passes` times over.
struct LsuStream {
  int64_t ctas = 1;
  int threads = 256;        // per CTA, a multiple of 128
  int64_t base = 0;         // byte address of element 0
  int64_t store_base = -1;  // where S writes element i (>= 0: a copy), else base
  int64_t nvec = 0;         // int4 elements
  int64_t passes = 1;
  int64_t rotate = 0;  // pass p: CTA c takes the elements of CTA (c + rotate * p) mod ctas
  int unroll = 1;
  std::string main = "Lw0";
  int main_inst = 0;
  std::string rest;  // empty: no remainder loop
  int rest_inst = 0;
  int pass_cycles = 0;  // raw cycles at the end of every pass (the pass loop's dependent chain)
};
program::Kernel lsu_stream_kernel(const LsuStream& st, const std::string& name);
double lsu_stream_us(const GpuConfig& config, const LsuStream& st,
                     const std::vector<const program::Kernel*>& before);
const std::vector<std::string>& lsu_columns();
std::vector<MicroRow> lsu_latency_points();
MicroRow lsu_latency_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions& o);
std::vector<MicroRow> lsu_sm_points();
MicroRow lsu_sm_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions& o);
std::vector<MicroRow> lsu_chip_points();
MicroRow lsu_chip_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions& o);
std::vector<MicroRow> lsu_vector_add_points();
std::vector<MicroRow> lsu_chain_points();
MicroRow lsu_chain_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions& o);
MicroRow lsu_vector_add_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions& o);
std::vector<MicroRow> launch_points();
MicroRow launch_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions& o);
std::vector<MicroRow> lsu_vector_add_ncu_points();
MicroRow lsu_vector_add_ncu_simulate(const MicroRow& key, const GpuConfig& c,
                                     const MicroOptions& o);

// One line's latency while every SM streams from DRAM (micro_loaded.cpp).
const std::vector<std::string>& loaded_columns();
std::vector<MicroRow> loaded_points();
MicroRow loaded_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions& o);
// Single-CTA latency benchmarks (micro_latency.cpp).
std::vector<MicroRow> latency_points();
MicroRow latency_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions& o);
std::vector<MicroRow> size_points();
MicroRow size_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions& o);
std::vector<MicroRow> issue_points();
MicroRow issue_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions& o);
std::vector<MicroRow> rotate_points();
MicroRow rotate_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions& o);
std::vector<MicroRow> stride_points();
MicroRow stride_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions& o);
// Samples per point of the cold-L2 box micros (tma_stride, dram_pair, dram_width's TMA path).
constexpr int kBoxSamples = 64;
// A 2-D fp16 tensor map named `name` at `base`: `nrows` rows `row_bytes` long (the row stride),
// boxes of `box_cols` columns x `box_rows` rows.
program::TensorMap row_map(const char* name, uint64_t base, int64_t row_bytes, int64_t nrows,
                           int64_t box_rows, int box_cols = 64);
// One thread (`smem` bytes of shared memory, as the hardware kernel), kBoxSamples samples of
// MB_ARRIVE_EXPECT_TX(bytes) + one TMA_LOAD of each map at the sample's coordinates + MB_WAIT, in a
// cold L2 (the hardware flushes it); cycles per sample, the first 2 dropped as the hardware does.
std::vector<int64_t> cold_box_samples(
    const GpuConfig& c, const std::string& name, int64_t smem,
    const std::vector<program::TensorMap>& maps, int64_t bytes,
    const std::function<std::pair<int64_t, int64_t>(int)>& coords);
std::vector<MicroRow> bulk_box_points();
MicroRow bulk_box_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions& o);
std::vector<MicroRow> pair_points();
MicroRow pair_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions& o);
std::vector<MicroRow> spread_points();
MicroRow spread_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions& o);
std::vector<MicroRow> dram_repeat_points();
std::vector<MicroRow> bank_points();
MicroRow bank_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions& o);
std::vector<MicroRow> dram_repeat_run(const MicroRow& run, const GpuConfig& c,
                                      const MicroOptions& o);
std::vector<MicroRow> width_points();
MicroRow width_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions& o);
std::vector<MicroRow> sector_points();
MicroRow sector_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions& o);
std::vector<MicroRow> loop_points();
MicroRow loop_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions& o);
std::vector<MicroRow> repeat_points();
std::vector<MicroRow> repeat_run(const MicroRow& run, const GpuConfig& c, const MicroOptions& o);
// Streaming (micro_stream.cpp): every SM runs ctas_per_sm CTAs of one issuing thread; each CTA
// keeps `slots` copies in flight (one mbarrier per slot, a slot reissued when its copy
// completed); copy j of CTA b is unit (b + j * CTAs) mod T of the buffer (tma_bw.cu's
// grid-stride order).
enum class CopyKind { kBulk, kTensor1d, kTensor2d, kTensor3d, kTile };

struct Stream {
  CopyKind kind = CopyKind::kBulk;
  int64_t bytes = 8192;  // per copy
  int slots = 16;
  int ctas_per_sm = 1;
  int64_t buffer = 0;  // bytes
  int64_t passes = 1;
  int64_t store_offset = -1;  // >= 0: each loaded unit is stored back at +offset (a copy)
  // kTile (l2_hot.cu): a box of 64 fp16 columns x tile_rows rows of a tensor with row pitch
  // `pitch` bytes; unit u = column block u mod (pitch / 128), row block u / (pitch / 128).
  int64_t pitch = 4096;
  int64_t tile_rows = 128;
  // group > 0 (l2_hot.cu): copy j of CTA b is unit (b / group + j * ceil(CTAs / group)) mod T,
  // `copies` per CTA; 0: tma_bw.cu's grid-stride order over `passes` passes.
  int64_t group = 0;
  int64_t copies = 0;
  bool spread = false;  // a group's CTAs are ceil(CTAs / group) ids apart, not consecutive
  // Non-empty (l2_pairs.cu): an expression (of `sm`, the CTA's SM) giving where the CTA starts
  // in its group's tile sequence, < 0 for a CTA that exits at once; copy j is unit
  // (start + j * start_stride) mod T, `copies` per CTA.
  std::string start_expr;
  int64_t start_stride = 1;
  int64_t smem = 0;  // shared memory per CTA (0: the ring's slots and barriers)
};
// kTile: column blocks per row block, the largest power of two <= pitch / 128 (as l2_hot.cu).
int64_t tile_columns(const Stream& st);
// The copies one pass over the buffer takes.
int64_t stream_units(const Stream& st);
program::Kernel stream_kernel(const GpuConfig& c, const Stream& st, const std::string& name);

// Full-chip streaming benchmarks (micro_stream.cpp).
std::vector<MicroRow> pairs_points();
std::vector<MicroRow> slice_spread_points();
MicroRow slice_spread_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions& o);
MicroRow pairs_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions& o);
std::vector<MicroRow> bw_points();
MicroRow bw_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions& o);
std::vector<MicroRow> hot_points();
MicroRow hot_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions& o);
std::vector<MicroRow> fill_points();
MicroRow fill_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions& o);
std::vector<MicroRow> mem_points();
MicroRow mem_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions& o);
// L2 replacement-policy benchmarks: kernel sequences measured kernel by kernel (micro_l2.cpp).
std::vector<MicroRow> dirty_retain_points();
std::vector<MicroRow> dirty_retain_run(const MicroRow& run, const GpuConfig& c,
                                       const MicroOptions& o);
std::vector<MicroRow> write_stream_points();
std::vector<MicroRow> write_stream_run(const MicroRow& run, const GpuConfig& c,
                                       const MicroOptions& o);
std::vector<MicroRow> reuse_stream_points();
std::vector<MicroRow> reuse_stream_run(const MicroRow& run, const GpuConfig& c,
                                       const MicroOptions& o);
std::vector<MicroRow> tma_write_retain_points();
std::vector<MicroRow> tma_write_retain_run(const MicroRow& run, const GpuConfig& c,
                                           const MicroOptions& o);
std::vector<MicroRow> stride_retain_points();
MicroRow stride_retain_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions& o);

}  // namespace asyncsim::cli::micro_detail
