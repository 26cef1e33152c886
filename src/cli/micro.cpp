// The registry of simulated microbenchmarks (the benchmarks are in micro_latency.cpp and
// micro_stream.cpp).
#include "cli/micro.h"

#include "cli/micro_detail.h"
#include "util/error.h"

namespace asyncsim::cli {

using micro_detail::bw_points;
using micro_detail::bw_simulate;
using micro_detail::dirty_retain_points;
using micro_detail::dirty_retain_run;
using micro_detail::issue_points;
using micro_detail::issue_simulate;
using micro_detail::latency_points;
using micro_detail::latency_simulate;
using micro_detail::mem_points;
using micro_detail::mem_simulate;
using micro_detail::reuse_stream_points;
using micro_detail::reuse_stream_run;
using micro_detail::size_points;
using micro_detail::size_simulate;
using micro_detail::tma_write_retain_points;
using micro_detail::tma_write_retain_run;
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
        "p90_cycles", "mean_cycles"},
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
      {"mem_bw",
       "all SMs x 8 CTAs of 1 warpgroup streaming 4 KB bulk copies through 4 slots each (the "
       "simulator has no ld.global path: same bytes and 128 KiB in flight per SM); dram_read "
       "reads the buffer once, dram_copy_rw stores each unit 2 GiB up (read + write counted), "
       "l2_read repeats the buffer after a warm-up pass",
       {"test", "buffer_bytes", "bytes_per_launch", "launches", "median_us", "best_us",
        "median_gbps", "best_gbps", "sm_mhz_in_kernel"},
       {"test", "buffer_bytes"},
       "median_gbps",
       mem_points,
       mem_simulate},
      {"l2_dirty_retain",
       "full-chip touch kernels in sequence (each 8 KB unit read or written by one SM, "
       "grid-stride): flush (96 MiB read; the hardware reads 256), W = 16 MiB written (dirty) or "
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
       "full-chip touch kernels in sequence: flush (96 MiB read), W = 16 MiB read or written, a "
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
       "full-chip touch kernels in sequence: flush (96 MiB read), W = 16 MiB read, then 6 rounds "
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
       "(how = lsu or tma: the hardware's st.global or TMA stores, alike here) or read, then a "
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
