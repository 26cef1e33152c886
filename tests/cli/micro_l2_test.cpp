// asyncsim micro's L2 microbenchmarks against the committed H200 data: shared tiles and groups
// of SMs (the request coalescer), how the slices share out lines, and what streams leave in the
// L2 (validation/README.md).
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "micro_rows.h"
#include "run_cli.h"

namespace {

using asyncsim::testing::kData;
using asyncsim::testing::Outcome;
using asyncsim::testing::rows;
using asyncsim::testing::run;

// l2_pairs: groups of SMs read the same tiles. An SM alone merges nothing, a TPC's two SMs merge
// every read (both as on the H200, validation/l2_hot_ncu.py pairs: 1.01 and 2.00), and the
// groups follow the config's GPC map (12 GPCs as the .cu's cluster union-find finds them: the
// side unit's four TPCs are GPCs of their own). An unknown layout is named.
TEST(Micro, PairsMergeTheReadsOfATpcsTwoSms) {
  const Outcome o =
      run("micro l2_pairs --where layout=sm,tpc,gpc --where slots=8 --where skew_copies=0 --where "
          "ctas_per_sm=1 --max-bytes 67108864 --jobs 2");
  ASSERT_EQ(o.code, 0) << o.out;
  const auto r = rows(o.out);
  ASSERT_EQ(r.size(), 3u) << o.out;
  // columns: layout, ctas_per_sm, slots, skew_copies, groups, sms_per_group, active_sms,
  // copies_per_cta, bytes_delivered, delivered_over_l2, ...
  EXPECT_EQ(r[0][4], "132");
  EXPECT_EQ(r[0][9], "1.00");
  EXPECT_EQ(r[1][4], "66");
  EXPECT_EQ(r[1][9], "2.00");
  EXPECT_EQ(r[2][4], "12");
  EXPECT_EQ(r[2][6], "132");
  EXPECT_GT(std::stod(r[2][9]), 2.0) << o.out;
  const std::string csv = ::testing::TempDir() + "pairs_bad.csv";
  std::ofstream(csv) << "layout,ctas_per_sm,slots,skew_copies,median_gbps\ntpc_d9,1,8,0,100\n";
  const Outcome bad = run("micro l2_pairs --compare " + csv);
  EXPECT_EQ(bad.code, 2) << bad.out;
  EXPECT_NE(bad.out.find("layout: expected one of sm, tpc"), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("got 'tpc_d9'"), std::string::npos) << bad.out;
}

// l2_slice_spread: the IPOLY hash (its odd residue rotated per 256-line run,
// l2.hash_rotate_residue) gives every power-of-two stride of 384 lines at most 15 lines in one
// slice of the reader's partition (8 on average; the H200 10-17, micro_l2_slice_spread.csv;
// random sets reach 14-20), and 4 KB granules alternate partitions, so half of any strided set
// is far. Bad points are named.
TEST(Micro, SliceSpreadKeepsStridesEven) {
  const Outcome o = run("micro l2_slice_spread --where pattern=stride --where reader_sm=0");
  ASSERT_EQ(o.code, 0) << o.out;
  const auto r = rows(o.out);
  ASSERT_EQ(r.size(), 17u) << o.out;
  // columns: pattern, param, reader_sm, lines, far_lines, mean_lines, max_lines
  for (size_t j = 0; j < 15; ++j) {
    EXPECT_EQ(r[j][3], "384") << j;
    EXPECT_EQ(r[j][4], "192") << j;
    EXPECT_LE(std::stoi(r[j][6]), 15) << j;
  }
  // 2^15 and 2^16 lines apart: the 1 GiB buffer holds 256 and 128, half of them far.
  EXPECT_EQ(r[15][3], "256");
  EXPECT_EQ(r[15][4], "128");
  EXPECT_LE(std::stoi(r[15][6]), 9);
  EXPECT_EQ(r[16][3], "128");
  EXPECT_EQ(r[16][4], "64");
  EXPECT_LE(std::stoi(r[16][6]), 5);
  const std::string csv = ::testing::TempDir() + "slices_bad.csv";
  std::ofstream(csv) << "pattern,param,reader_sm,max_lines\nstride,17,0,5\n";
  const Outcome bad = run("micro l2_slice_spread --compare " + csv);
  EXPECT_EQ(bad.code, 2) << bad.out;
  EXPECT_NE(bad.out.find("got pattern=stride param=17"), std::string::npos) << bad.out;
}

// l2_hot: distinct 16 KB tiles are L2-bound; two CTAs of a TPC reading the same tiles merge their
// reads and receive more; groups of far-apart CTAs merge nothing; rows 16 B into a line merge
// nothing either (l2.coalesce_partial_rows).
TEST(Micro, L2HotSharedTilesMergeOnlyNearbyAndOnSectors) {
  const Outcome o = run("micro l2_hot --compare " + kData +
                        "micro_l2_hot.csv --where ctas_per_sm=1 --where group=1,2 "
                        "--where region_bytes=16777216 --where pitch_bytes=4096,4112 "
                        "--max-bytes 134217728");
  ASSERT_EQ(o.code, 0) << o.out;
  const auto r = rows(o.out);
  // columns: pitch, rows, ctas, slots, group, members, region, measured, simulated, err, within
  ASSERT_EQ(r.size(), 5u) << o.out;
  const auto gbps = [&](const std::string& pitch, const std::string& group,
                        const std::string& members) {
    for (const auto& row : r) {
      if (row[0] == pitch && row[4] == group && row[5] == members) {
        return std::stod(row[8]);
      }
    }
    ADD_FAILURE() << "no row " << pitch << " " << group << " " << members << "\n" << o.out;
    return 0.0;
  };
  const double alone = gbps("4096", "1", "consecutive");
  EXPECT_NEAR(alone, 9064.5, 906.5) << o.out;  // the L2's rate (measured 9064.5)
  EXPECT_GT(gbps("4096", "2", "consecutive"), 1.4 * alone) << o.out;
  EXPECT_LT(gbps("4096", "2", "spread"), 1.1 * alone) << o.out;
  EXPECT_LT(gbps("4112", "2", "consecutive"), 1.1 * gbps("4112", "1", "consecutive")) << o.out;
}

// The L2 replacement-policy micros run as kernel sequences: one simulation per run gives every
// round of l2_reuse_stream; errors are in points of the 16 MiB W. With 4 MiB chunks W always
// stays (the H200 re-reads at most 15 KB of it); with 48 MiB chunks it is re-read whole.
TEST(Micro, L2ReuseStreamKeepsASmallSetAndLosesItToLargeChunks) {
  const Outcome o = run("micro l2_reuse_stream --compare " + kData +
                        "micro_l2_reuse_stream.csv --where chunk_mib=4,48 --where stream_mode=wr "
                        "--jobs 2");
  ASSERT_EQ(o.code, 0) << o.out;
  EXPECT_NE(o.out.find("error = (simulated - measured) / w_bytes"), std::string::npos) << o.out;
  const auto r = rows(o.out);
  ASSERT_EQ(r.size(), 12u) << o.out;
  // columns: chunk_mib, stream_mode, round, measured, simulated, error_pct, within
  for (const auto& f : r) {
    const double sim = std::stod(f[4]);
    if (f[0] == "4") {
      EXPECT_LT(sim, 0.01 * 16777216) << f[2];
    } else if (f[2] != "0") {
      EXPECT_GT(sim, 0.9 * 16777216) << f[2];
    }
  }
  const Outcome bad = run("micro l2_write_stream --compare " + kData +
                          "micro_l2_write_stream.csv --where w_mode=dirty");
  EXPECT_NE(bad.code, 0);
  EXPECT_NE(bad.out.find("no point"), std::string::npos) << bad.out;
}

// l2_tma_write_retain: the H200 writes W with st.global (lsu) or TMA stores (tma); the model's
// touch kernels store by ST_GLOBAL or by bulk stores accordingly.
TEST(Micro, L2TmaWriteRetainSimulatesBothStorePaths) {
  const Outcome o = run("micro l2_tma_write_retain --compare " + kData +
                        "micro_l2_tma_write_retain.csv --where kind=w_retain --where sr_mib=24 "
                        "--jobs 2");
  ASSERT_EQ(o.code, 0) << o.out;
  const auto r = rows(o.out);
  ASSERT_EQ(r.size(), 3u) << o.out;
  // columns: kind, how, sr_mib, measured, simulated, error_pct, within
  std::map<std::string, std::string> sim;
  for (const auto& f : r) {
    sim[f[1]] = f[4];
  }
  // ST_GLOBALs and bulk stores both leave near copies on the H200 config: W is kept alike.
  EXPECT_NEAR(std::stod(sim["lsu"]), std::stod(sim["tma"]), 0.01 * 16777216) << o.out;
  EXPECT_GT(std::stod(sim["read"]), 0.1 * 16777216) << o.out;  // a 24 MiB stream evicts some
  // Without near copies of TMA stores, a 24 MiB TMA-written stream takes less of the L2 than an
  // ST_GLOBAL-written one and evicts less of W.
  const Outcome e = run("micro l2_tma_write_retain --compare " + kData +
                        "micro_l2_tma_write_retain.csv --where kind=s_evict --where sr_mib=24 "
                        "--set l2.remote_copy_tma_writes=false --jobs 2");
  ASSERT_EQ(e.code, 0) << e.out;
  std::map<std::string, double> evicted;
  for (const auto& f : rows(e.out)) {
    evicted[f[1]] = std::stod(f[4]);
  }
  ASSERT_EQ(evicted.size(), 2u) << e.out;
  EXPECT_LT(evicted["tma"], 0.5 * evicted["lsu"]) << e.out;
}

}  // namespace
