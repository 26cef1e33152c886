// The registry of simulated microbenchmarks (the benchmarks are in micro_latency.cpp and
// micro_stream.cpp).
#include "cli/micro.h"

#include "cli/micro_detail.h"
#include "util/error.h"

namespace asyncsim::cli {

using micro_detail::bank_points;
using micro_detail::bank_simulate;
using micro_detail::bulk_box_points;
using micro_detail::bulk_box_simulate;
using micro_detail::bw_points;
using micro_detail::bw_simulate;
using micro_detail::dirty_retain_points;
using micro_detail::dirty_retain_run;
using micro_detail::dram_repeat_points;
using micro_detail::dram_repeat_run;
using micro_detail::hot_points;
using micro_detail::hot_simulate;
using micro_detail::issue_points;
using micro_detail::issue_simulate;
using micro_detail::latency_points;
using micro_detail::latency_simulate;
using micro_detail::launch_points;
using micro_detail::launch_simulate;
using micro_detail::loaded_columns;
using micro_detail::loaded_points;
using micro_detail::loaded_simulate;
using micro_detail::loop_points;
using micro_detail::loop_simulate;
using micro_detail::lsu_chain_points;
using micro_detail::lsu_chain_simulate;
using micro_detail::lsu_chip_points;
using micro_detail::lsu_chip_simulate;
using micro_detail::lsu_columns;
using micro_detail::lsu_latency_points;
using micro_detail::lsu_latency_simulate;
using micro_detail::lsu_sm_points;
using micro_detail::lsu_sm_simulate;
using micro_detail::lsu_vector_add_ncu_points;
using micro_detail::lsu_vector_add_ncu_simulate;
using micro_detail::lsu_vector_add_points;
using micro_detail::lsu_vector_add_simulate;
using micro_detail::mem_points;
using micro_detail::mem_simulate;
using micro_detail::pair_points;
using micro_detail::pair_simulate;
using micro_detail::pairs_points;
using micro_detail::pairs_simulate;
using micro_detail::repeat_points;
using micro_detail::repeat_run;
using micro_detail::reuse_stream_points;
using micro_detail::reuse_stream_run;
using micro_detail::rotate_points;
using micro_detail::rotate_simulate;
using micro_detail::sector_points;
using micro_detail::sector_simulate;
using micro_detail::size_points;
using micro_detail::size_simulate;
using micro_detail::slice_spread_points;
using micro_detail::slice_spread_simulate;
using micro_detail::spread_points;
using micro_detail::spread_simulate;
using micro_detail::stride_points;
using micro_detail::stride_retain_points;
using micro_detail::stride_retain_simulate;
using micro_detail::stride_simulate;
using micro_detail::tma_write_retain_points;
using micro_detail::tma_write_retain_run;
using micro_detail::width_points;
using micro_detail::width_simulate;
using micro_detail::write_stream_points;
using micro_detail::write_stream_run;

const std::vector<MicroBench>& micro_benches() {
  static const std::vector<MicroBench> benches = {
      {"tma_latency",
       "1 CTA 1 warpgroup: MB_ARRIVE_EXPECT_TX + 2-D TMA_LOAD + MB_WAIT per sample, timed from "
       "one MB_ARRIVE_EXPECT_TX issue to the next; the 2048 tiles of tma_latency.cu (same "
       "mt19937_64 seed and draws) of an [W/8KB x 4096] fp16 tensor; working set first read by "
       "a full-chip bulk-copy kernel (memory state carried over); first 8 samples dropped",
       {"box_bytes", "working_set_bytes", "samples", "min_cycles", "p10_cycles", "median_cycles",
        "p90_cycles", "mean_cycles", "p05_cycles", "p25_cycles", "p75_cycles", "p95_cycles"},
       {"box_bytes", "working_set_bytes"},
       "median_cycles",
       latency_points,
       latency_simulate},
      {"tma_size",
       "1 CTA 1 warpgroup: one BULK_LOAD of S bytes per sample (arrive.expect_tx to wait end); "
       "src=l2 the same source every sample, src=dram fresh sources 1 MiB + 4 KiB apart in a "
       "cold L2; 512 samples, first 4 dropped",
       {"copy", "src", "size_bytes", "samples", "min_cycles", "p10_cycles", "median_cycles",
        "p90_cycles"},
       {"copy", "src", "size_bytes"},
       "median_cycles",
       size_points,
       size_simulate},
      {"tma_issue",
       "1 CTA 1 warpgroup: 9 repetitions (first dropped) of MB_ARRIVE_EXPECT_TX(n x bytes), n "
       "copies to distinct slots on one mbarrier, MB_WAIT; issue = first copy to MB_WAIT issue, "
       "complete = first copy to the wait's end; the sources of tma_issue.cu; src=dram in a "
       "cold L2",
       {"copy", "src", "bytes_each", "n", "samples", "issue_cycles_median",
        "complete_cycles_median", "issue_cycles_min", "complete_cycles_min"},
       {"copy", "src", "bytes_each", "n"},
       "complete_cycles_median",
       issue_points,
       issue_simulate},
      {"tma_loop",
       "1 CTA 1 warpgroup (steady: `grid` CTAs), one copy per mbarrier of `slots` from an "
       "L2-resident 32 MiB source (read by a full-chip copy first): issue = "
       "MB_ARRIVE_EXPECT_TX + copy per slot, wait_try / wait_test = MB_WAIT on the slot's "
       "completed phase first (alike), wait_only = the MB_WAITs alone; cycles per slot from the "
       "section's first instruction to the next's, 16 repetitions, first dropped; steady = "
       "tma_bw's ring for 8 rounds, per iteration over rounds 2..8 of CTA 0",
       {"test", "copy", "bytes", "slots", "grid", "samples", "median_cycles", "min_cycles",
        "max_cycles"},
       {"test", "copy", "bytes", "slots", "grid"},
       "median_cycles",
       loop_points,
       loop_simulate},
      {"tma_stride",
       "1 CTA 1 warpgroup: 64 samples of MB_ARRIVE_EXPECT_TX + 1 or 2 TMA_LOADs of 64 fp16 "
       "columns x box_rows rows at row stride stride_bytes (the second box from a tensor 1 GiB "
       "away) + MB_WAIT, every line read for the first time, in a cold L2 (tma_stride.cu "
       "flushes it); the coordinates of tma_stride.cu; first 2 samples dropped",
       {"stride_bytes", "box_rows", "boxes", "bytes", "samples", "min_cycles", "p10_cycles",
        "median_cycles", "p90_cycles", "mean_cycles"},
       {"stride_bytes", "box_rows", "boxes"},
       "median_cycles",
       stride_points,
       stride_simulate},
      {"tma_bulk_box",
       "1 CTA 1 warpgroup: 64 samples of MB_ARRIVE_EXPECT_TX + one BULK_LOAD of `bytes` contiguous "
       "bytes (path bulk) or one TMA_LOAD of the same bytes as a box of bytes / 128 rows of 128 B "
       "(path box) + MB_WAIT, sample i at (i + 64 for box) x spacing_bytes, every line read for "
       "the first time, in a cold L2 (tma_bulk_box.cu flushes it); first 2 samples dropped",
       {"path", "bytes", "spacing_bytes", "samples", "min_cycles", "p10_cycles", "median_cycles",
        "p90_cycles", "mean_cycles"},
       {"path", "bytes", "spacing_bytes"},
       "median_cycles",
       bulk_box_points,
       bulk_box_simulate},
      {"dram_pair",
       "1 CTA 1 warpgroup: 64 samples of MB_ARRIVE_EXPECT_TX + one TMA_LOAD of `rows` rows of "
       "128 B, rows stride_bytes apart, + MB_WAIT, every line read for the first time (sample i "
       "at byte i x 4 MiB + (i x 7 mod 32) x 128), in a cold L2 (dram_pair.cu flushes it); "
       "first 2 samples dropped",
       {"rows", "stride_bytes", "samples", "min_cycles", "p10_cycles", "median_cycles",
        "p90_cycles", "mean_cycles"},
       {"rows", "stride_bytes"},
       "median_cycles",
       pair_points,
       pair_simulate},
      {"dram_spread",
       "1 CTA 1 warpgroup: 64 samples of R single-line LD_GLOBALs of 4 bytes (the hardware's one "
       "warp gather) + LD_WAIT 0, in a cold L2 (dram_spread.cu flushes it), then the same loads "
       "again (hot); sets: stride = R lines stride_bytes apart, random = R lines of 2 GiB, "
       "random1m / random8k / random32k / random128k = R lines of one region of that size, "
       "dram_spread.cu's draws; first 2 samples dropped",
       {"pattern", "rows", "stride_bytes", "samples", "min_cycles", "p10_cycles", "median_cycles",
        "p90_cycles", "mean_cycles", "hot_p10_cycles", "hot_median_cycles", "hot_p90_cycles"},
       {"pattern", "rows", "stride_bytes"},
       "median_cycles",
       spread_points,
       spread_simulate},
      {"dram_repeat",
       "1 CTA 1 warpgroup: dram_spread's gather (R single-line LD_GLOBALs of 4 bytes + LD_WAIT 0 "
       "+ the .cu's harness) on dram_repeat.cu's sets (random = R lines of 2 GiB, stride = R "
       "lines stride_bytes apart, single = 1 random line; 64 sets, single 128, its draws), 6 "
       "runs each from a cold L2 (the .cu flushes it), each starting 1931 cycles later in "
       "simulated time; quantile = p10 / p50 / p90 / p95 / p99 of every sample of every run",
       {"pattern", "rows", "stride_bytes", "quantile", "samples", "cycles"},
       {"pattern", "rows", "stride_bytes", "quantile"},
       "cycles",
       dram_repeat_points,
       nullptr,
       {"pattern", "rows", "stride_bytes"},
       dram_repeat_run},
      {"dram_bank",
       "1 CTA 1 warpgroup: dram_bank.cu's pairs of cold lines A and A + k_bytes read together "
       "(dram_spread's gather of 2 lines + the .cu's harness; k_bytes = 0: A alone), 64 pairs "
       "per offset from a cold L2 (the .cu flushes it), A_i = i x 16 MiB + (i x 7 mod 64) x 128; "
       "a second line in A's bank but another row waits a row cycle",
       {"k_bytes", "samples", "min_cycles", "p10_cycles", "median_cycles", "p90_cycles",
        "mean_cycles"},
       {"k_bytes"},
       "median_cycles",
       bank_points,
       bank_simulate},
      {"dram_width",
       "32 rows stride_bytes apart from a cold L2 (dram_width.cu flushes it), sample i's at "
       "i x 4 MiB + (i x 7 mod 64) x 128: tma = 1 warpgroup, MB_ARRIVE_EXPECT_TX + one TMA_LOAD "
       "of 32 rows of width_bytes + MB_WAIT; gather = 32 single-row LD_GLOBALs of 4 bytes (the "
       "hardware's one warp gather; width 128: four per row, one per sector) + LD_WAIT 0 + the "
       ".cu's harness; first 2 samples dropped",
       {"path", "width_bytes", "rows", "stride_bytes", "samples", "min_cycles", "p10_cycles",
        "median_cycles", "p90_cycles", "mean_cycles"},
       {"path", "width_bytes", "stride_bytes"},
       "median_cycles",
       width_points,
       width_simulate},
      {"dram_sector",
       "1 warpgroup, from a cold L2 (dram_sector.cu flushes it), 64 samples on dram_sector.cu's "
       "random lines: LD_GLOBAL of 4 bytes at sector 0, COMPUTE of gap_cycles, LD_GLOBAL of 4 "
       "bytes at the second address (sector 1 or 3 of the line, sector 0 again, another line; "
       "none: no second load), LD_WAIT 0 and the .cu's harness; compared on both_median (the "
       ".cu's time until both values are used); first 2 samples dropped",
       {"second", "gap_cycles", "samples", "both_median"},
       {"second", "gap_cycles"},
       "both_median",
       sector_points,
       sector_simulate},
      {"tma_repeat",
       "1 CTA of 1 warpgroup placed on SM smid: each of tma_repeat.cu's 192 lines (a 64 MiB "
       "region from address 0) read 4 times from a cold L2, one read at a time: lsu = LD_GLOBAL "
       "of 16 B + LD_WAIT, tma = MB_ARRIVE_EXPECT_TX + 128-B bulk copy + MB_WAIT; cycles = one "
       "read's first instruction to the next read's",
       {"mode", "smid", "line", "pass", "cycles"},
       {"mode", "smid", "line", "pass"},
       "cycles",
       repeat_points,
       nullptr,
       {"mode", "smid"},
       repeat_run},
      {"tma_bw",
       "all SMs x ctas_per_sm CTAs of 1 warpgroup, a ring of `slots` copies per CTA (one "
       "mbarrier per slot, reissued on completion), grid-stride units as tma_bw.cu; tensor1d "
       "as a [256 x 2] f32 box (the same 2 KB); try_wait and test_wait simulate alike; dram: "
       "the buffer read once (up to --max-bytes), l2: 32 MiB read repeatedly after a warm-up "
       "pass; GB/s = bytes / simulated kernel time",
       {"copy", "src", "wait", "ctas_per_sm", "bytes_per_copy", "slots", "inflight_bytes_per_sm",
        "buffer_bytes", "bytes_moved", "median_us", "median_gbps", "best_gbps"},
       {"copy", "src", "wait", "ctas_per_sm", "bytes_per_copy", "slots"},
       "median_gbps",
       bw_points,
       bw_simulate},
      {"l2_hot",
       "all SMs x ctas_per_sm CTAs of 1 warpgroup, a ring of `slots` copies per CTA (one "
       "mbarrier per slot, reissued on completion) of 16 KB GEMM operand tiles (64 fp16 columns "
       "x 128 rows, row pitch pitch_bytes) of an L2-resident tensor; copy n of CTA b is tile "
       "(b / group + n * ceil(G / group)) mod T, so `group` consecutive CTAs read the same tiles "
       "together (members consecutive) or ceil(G / group) ids apart (spread); ~4 GiB delivered (up "
       "to --max-bytes) after a warm-up launch; GB/s = bytes "
       "delivered / simulated kernel time",
       {"pitch_bytes", "box_rows", "ctas_per_sm", "slots", "group", "members", "region_bytes",
        "copies_per_cta", "bytes_delivered", "median_us", "median_gbps", "best_gbps"},
       {"pitch_bytes", "box_rows", "ctas_per_sm", "slots", "group", "members", "region_bytes"},
       "median_gbps",
       hot_points,
       hot_simulate},
      {"l2_pairs",
       "every SM (1 or 2 CTAs of 1 warpgroup) a ring of `slots` 16 KB GEMM operand tiles (64 fp16 "
       "columns x 128 rows, pitch 4096 B) of an L2-resident 16 MiB tensor; groups of SMs (not CTA "
       "ids) by layout over the config's TPCs and GPCs (sm.tpc_gpcs; the side unit's TPCs are "
       "GPCs of their own, as the .cu's cluster union-find finds them) read the same tiles in "
       "the same order, members skew_copies apart; SMs a layout leaves out exit; ~4 GiB "
       "delivered (up to --max-bytes) after a warm-up launch; delivered_over_l2 = TMA bytes / L2 "
       "read bytes (the H200's from ncu: validation/l2_hot_ncu.py pairs)",
       {"layout", "ctas_per_sm", "slots", "skew_copies", "groups", "sms_per_group", "active_sms",
        "copies_per_cta", "bytes_delivered", "delivered_over_l2", "median_us", "median_gbps",
        "best_gbps"},
       {"layout", "ctas_per_sm", "slots", "skew_copies"},
       "median_gbps",
       pairs_points,
       pairs_simulate},
      {"l2_slice_spread",
       "no timing: l2_slice_map.cu's set launches (one SM reads n lines: k * 2^j for j = 0..16, "
       "n <= 384 of a 1 GiB buffer, or 384 random lines of one mt19937_64 seeded 20261205), "
       "each line counted at the slice of the reader's partition it reaches first (a near "
       "line's home, a far line's near copy under l2.remote_copy's pairing); max_lines = the "
       "most lines one slice received (the H200's from ncu's max over slices)",
       {"pattern", "param", "reader_sm", "lines", "far_lines", "mean_lines", "max_lines"},
       {"pattern", "param", "reader_sm"},
       "max_lines",
       slice_spread_points,
       slice_spread_simulate},
      {"l2_rotate",
       "mem_bw's l2_read thread loop (all SMs x 8 CTAs x 256 threads, LD_GLOBAL int4 as its "
       "SASS) over a 16-64 MiB buffer, 4 GiB per launch (up to --max-bytes) after a warm-up "
       "launch: fixed = every CTA the same elements each pass, rotate = CTA c takes CTA "
       "(c + 37 p) mod G's elements in pass p",
       {"test", "mode", "buffer_bytes", "bytes_per_launch", "launches", "median_us", "median_gbps",
        "best_gbps"},
       {"test", "mode", "buffer_bytes"},
       "median_gbps",
       rotate_points,
       rotate_simulate},
      {"lsu_latency",
       "1 warpgroup: 4096 dependent 4-byte LD_GLOBAL over the buffer's lines in a scattered "
       "order ((k * 1000003 + 1) mod lines; lsu.cu draws a random permutation), a sample from "
       "one load's issue to the next's, first 8 dropped; src=l2 after a full-chip read of the "
       "buffer, src=dram from a cold L2 (lsu.cu: after a 512 MiB flush)",
       lsu_columns(),
       {"table", "op", "src", "buffer_bytes"},
       "lat_median",
       lsu_latency_points,
       lsu_latency_simulate,
       {},
       nullptr,
       {},
       {{"table", "latency"}}},
      {"loaded_latency",
       "every SM one CTA of two roles: a probe warpgroup (the .cu's one thread) times 192 "
       "(probe=dram) or 256 (probe=l2) dependent 4-byte LD_GLOBAL of scattered lines ((cta x "
       "7919 + k + rep x 104729) x 1000003 + 1 mod lines; the .cu hashes (c, k)) of a 4 GiB "
       "region from a cold L2 or of a 1 MiB region after a full-chip read of it, a sample from "
       "one load's issue to the next's, first 8 dropped and, with a stream, those that end after "
       "the stream's EXIT; a stream warpgroup keeps `slots` 8 KB "
       "bulk copies in flight, 600 per CTA (fewer if --max-bytes is under 650 MB), copy j of CTA c "
       "= unit c + j x SMs of a 2 GiB "
       "region (none at slots=0); probe=tma_dram: the dram lines by one 128-B bulk copy each "
       "(MB_ARRIVE_EXPECT_TX + BULK_LOAD + MB_WAIT, a sample from one arrive to the next); three "
       "runs (reps), every CTA's probe samples pooled, each kept if it ended before its CTA's "
       "stream did; stream_gbps = the stream's bytes over first copy to last exit of all CTAs; "
       "probes PROBE_quiet / PROBE_stream (dram, l2hot; the .cu's --quiet 8): CTAs c with "
       "c mod 8 = 0 only probe, the others stream and probe, samples kept if they ended before "
       "the first streaming CTA's stream did; probes PROBE_hitstream (the .cu's --hit-stream; "
       "PROBE_hitquiet / PROBE_hitbusy with --quiet 8 too): copy j of CTA c = unit (c + j x "
       "SMs) mod 1024 of an 8 MiB region every SM read before (a touch kernel), a stream of L2 "
       "hits",
       loaded_columns(),
       {"probe", "slots", "rep"},
       "median",
       loaded_points,
       loaded_simulate,
       {},
       nullptr,
       {},
       {{"rep", "all"}}},
      {"lsu_chain",
       "1 warpgroup standing for lsu_chain.cu's one warp: 1024 dependent LD_GLOBAL of lanes x "
       "width bytes (width=4 or 16) at scattered 512-B blocks ((k * 1000003 + 1) mod blocks), "
       "a sample from one load's issue to the next's, first 8 dropped; src=l2 after a "
       "full-chip read of the 4 MiB buffer, src=dram from a cold L2; the hardware's warps = 1 "
       "rows",
       {"src", "buffer_bytes", "warps", "lanes", "width", "bytes_per_warp", "samples", "lat_p10",
        "lat_median", "lat_p90"},
       {"src", "buffer_bytes", "warps", "lanes", "width"},
       "lat_median",
       lsu_chain_points,
       lsu_chain_simulate,
       {},
       nullptr,
       {},
       {{"warps", "1"}}},
      {"lsu_sm",
       "1 CTA of T threads (T/128 warpgroups) on one SM, lsu.cu's stream_kernel<U> loop as its "
       "SASS issues it (int4 loads: U=4 issues 3, waits for the oldest, issues the 4th; U=8 "
       "likewise in steps), the loop's other instructions as issue slots; src=l2: 4 MiB read "
       "(written) 4 times after a full-chip read; src=dram: 64 MiB once from a cold L2; bytes "
       "per SM cycle of the kernel",
       lsu_columns(),
       {"table", "op", "src", "threads", "unroll"},
       "bytes_per_sm_cycle",
       lsu_sm_points,
       lsu_sm_simulate,
       {},
       nullptr,
       {},
       {{"table", "sm"}}},
      {"lsu_chip",
       "every SM x C CTAs x 256 threads, lsu.cu's stream_kernel<U> as its SASS issues it; "
       "src=l2: 32 MiB read (written) repeatedly after a full-chip read (passes up to "
       "--max-bytes, at least 2; the hardware 64); src=dram: 4 GiB read (2 GiB written) once, "
       "up to --max-bytes, from a cold L2; GB/s = bytes / simulated kernel time",
       lsu_columns(),
       {"table", "op", "src", "ctas_per_sm", "unroll"},
       "median_gbps",
       lsu_chip_points,
       lsu_chip_simulate,
       {},
       nullptr,
       {},
       {{"table", "chip"}}},
      {"lsu_vector_add",
       "c[i] = a[i] + b[i] over N fp32, C CTAs x 256 threads (2 warpgroups) in a grid-stride "
       "loop: per iteration two 2 KB LD_GLOBAL, LD_WAIT 0, COMPUTE fp32=512 inst=12, one "
       "ST_GLOBAL (the SASS of lsu_vec.cu's vector_add); the time of a second launch (the "
       "first warms the L2, as the harness does), launch cost included; GB/s counts 12 B per "
       "element. The hardware's CUDA-event times add 2-5 us of host overhead per launch "
       "(lsu_vector_add_ncu compares kernel times). Not used to fit anything",
       {"table", "warps", "buffer_bytes", "elements", "ctas", "threads", "samples", "lat_p10",
        "lat_median", "lat_p90", "median_us", "median_gbps", "sm_mhz"},
       {"table", "elements", "ctas"},
       "median_us",
       lsu_vector_add_points,
       lsu_vector_add_simulate,
       {},
       nullptr,
       {},
       {{"table", "vector_add"}}},
      {"lsu_vector_add_ncu",
       "lsu_vector_add's kernel, the time of its second launch (the first warms the L2), against "
       "the kernel-only durations Nsight Compute measured for the same launches "
       "(micro_lsu_vec_ncu.csv; the event-timed micro_lsu_vec.csv adds host launch overhead). "
       "Not used to fit anything",
       {"elements", "ctas", "launches", "kernel_us_median", "cycles_median", "sm_mhz",
        "dram_read_bytes", "dram_write_bytes"},
       {"elements", "ctas"},
       "kernel_us_median",
       lsu_vector_add_ncu_points,
       lsu_vector_add_ncu_simulate},
      {"launch",
       "launch.cu's kernels, one cold launch each (the hardware's --cache-control all rows): "
       "launch_empty (one instruction per warpgroup; 128 / 256 threads = 1 / 2 warpgroups), "
       "launch_store (one 4-B ST_GLOBAL per CTA at 128-B spacing), launch_bulk / launch_tma (1 "
       "CTA: MB_ARRIVE_EXPECT_TX, one 8 KB BULK_LOAD from DRAM or one 64 x 64 fp16 TMA_LOAD "
       "box, MB_WAIT, a 4-B store), launch_code_N (COMPUTE cycles=N, a 128-B store); each with "
       "`resources code=` its SASS size (micro_launch_sass.txt, 16 B per instruction)",
       {"kernel", "grid", "threads", "code_insts", "cache_control", "launches", "kernel_us_median",
        "kernel_us_min", "cycles_median", "sm_mhz"},
       {"kernel", "grid", "threads", "cache_control"},
       "kernel_us_median",
       launch_points,
       launch_simulate,
       {},
       nullptr,
       {},
       {{"cache_control", "all"}}},
      {"cta_fill",
       "mem_bw's l2_read thread loop (all SMs x 8 CTAs x 256 threads, LD_GLOBAL int4 as its "
       "SASS) on a buffer of G x 4 KB, so only CTAs 0..G-1 load, 2048 passes (up to "
       "--max-bytes moved) after a warm-up pass; sm_pass_ns = kernel time / passes (the "
       "hardware: the slowest working CTA's time / passes)",
       {"working_ctas", "buffer_bytes", "passes", "kernel_us", "sm_pass_ns"},
       {"working_ctas"},
       "sm_pass_ns",
       micro_detail::fill_points,
       micro_detail::fill_simulate},
      {"mem_bw",
       "all SMs x 8 CTAs x 256 threads (2 warpgroups), mem_bw.cu's grid-stride loops of int4 "
       "LD_GLOBAL / ST_GLOBAL in the order its SASS issues them (read: 2 loads, then one more "
       "after each consumed; copy: 2 loads, wait, 2 stores; remainder loops one element at a "
       "time); dram_read reads the buffer once (up to --max-bytes), dram_copy_rw copies it to "
       "another buffer (read + write counted), l2_read repeats it after a warm-up pass",
       {"test", "buffer_bytes", "bytes_per_launch", "launches", "median_us", "best_us",
        "median_gbps", "best_gbps", "sm_mhz_in_kernel"},
       {"test", "buffer_bytes"},
       "median_gbps",
       mem_points,
       mem_simulate},
      {"l2_dirty_retain",
       "full-chip touch kernels in sequence (each 8 KB unit read, or written by ST_GLOBALs as "
       "the hardware's fill_, by one SM, grid-stride): flush (96 MiB read; the hardware reads "
       "256), W = 16 MiB written (dirty) or "
       "read (clean), a clean stream of sr_mib read, W read again: its DRAM reads",
       {"rep", "sr_mib", "mode", "w_bytes", "measured_dram_read_bytes", "measured_l2_bytes",
        "r_dram_read_bytes", "cycles"},
       {"sr_mib", "mode"},
       "measured_dram_read_bytes",
       dirty_retain_points,
       nullptr,
       {"sr_mib", "mode"},
       dirty_retain_run,
       "w_bytes"},
      {"l2_write_stream",
       "full-chip touch kernels in sequence (writes by ST_GLOBAL): flush (96 MiB read), W = 16 "
       "MiB read or written, a "
       "stream of stream_mib read (rd) or written (wr), W read again: its DRAM reads",
       {"stream_mib", "w_mode", "stream_mode", "w_bytes", "measured_dram_read_bytes",
        "stream_dram_read_bytes", "stream_dram_write_bytes", "measured_dram_write_bytes"},
       {"stream_mib", "w_mode", "stream_mode"},
       "measured_dram_read_bytes",
       write_stream_points,
       nullptr,
       {"stream_mib", "w_mode", "stream_mode"},
       write_stream_run,
       "w_bytes"},
      {"l2_reuse_stream",
       "full-chip touch kernels in sequence (writes by ST_GLOBAL): flush (96 MiB read), W = 16 "
       "MiB read, then 6 rounds "
       "of (a fresh chunk of chunk_mib written or read, W read again: its DRAM reads)",
       {"chunk_mib", "stream_mode", "round", "w_bytes", "measured_dram_read_bytes",
        "chunk_dram_read_bytes", "chunk_dram_write_bytes"},
       {"chunk_mib", "stream_mode", "round"},
       "measured_dram_read_bytes",
       reuse_stream_points,
       nullptr,
       {"chunk_mib", "stream_mode"},
       reuse_stream_run,
       "w_bytes"},
      {"l2_tma_write_retain",
       "full-chip touch kernels in sequence: flush (96 MiB read); w_retain: W = 16 MiB written "
       "(how = lsu or tma: ST_GLOBALs or bulk stores, as the hardware's st.global or TMA stores) "
       "or read, then a "
       "clean stream of sr_mib read; s_evict: W read, then a stream of sr_mib written; W read "
       "again: its DRAM reads",
       {"kind", "how", "sr_mib", "w_bytes", "measured_dram_read_bytes", "measured_l2_bytes",
        "k1_dram_write_bytes", "k2_dram_write_bytes", "k1_cycles", "k2_cycles"},
       {"kind", "how", "sr_mib"},
       "measured_dram_read_bytes",
       tma_write_retain_points,
       nullptr,
       {"kind", "how", "sr_mib"},
       tma_write_retain_run,
       "w_bytes"},
      {"l2_stride_retain",
       "full-chip touch kernels in sequence: flush (96 MiB read), a strided region read twice "
       "(rows of width_lines lines, pitch_lines lines apart, footprint_mib MiB in all; one CTA "
       "per SM reads rows cta, cta + SMs, ... by bulk copies, 8 in flight): the second read's "
       "DRAM reads",
       {"pitch_lines", "width_lines", "footprint_mib", "region_bytes", "measured_dram_read_bytes",
        "warm_dram_read_bytes", "cycles"},
       {"pitch_lines", "width_lines", "footprint_mib"},
       "measured_dram_read_bytes",
       stride_retain_points,
       stride_retain_simulate,
       {},
       nullptr,
       "region_bytes"},
  };
  return benches;
}

const MicroBench& find_micro(const std::string& name, const std::string& flag) {
  std::string names;
  for (const MicroBench& b : micro_benches()) {
    if (b.name == name) {
      return b;
    }
    names += (names.empty() ? "" : ", ") + b.name;
  }
  throw_input_error(flag, "unknown microbenchmark '{}'; expected one of {}", name, names);
}

}  // namespace asyncsim::cli
