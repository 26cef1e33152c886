// asyncsim micro's single-CTA DRAM box micros against the committed H200 data: 2-D boxes of
// strided rows, and the same contiguous bytes by bulk copy and by box (validation/README.md).
#include <gtest/gtest.h>

#include <string>

#include "micro_rows.h"
#include "run_cli.h"

namespace {

using asyncsim::testing::kData;
using asyncsim::testing::Outcome;
using asyncsim::testing::rows;
using asyncsim::testing::run;

// tma_stride: boxes from DRAM; 128-row boxes at 2 KB and 8 KB row strides (micro_tma_stride.csv:
// 1302 / 1363 cycles median) are within 10 %. (The contiguous 128-row box, 1157 on the H200, is
// one of the points the model misses since dram.refresh_sync_pcs = 4: validation/README.md.)
TEST(Micro, TmaStrideBoxesFromDram) {
  const Outcome o = run("micro tma_stride --compare " + kData +
                        "micro_tma_stride.csv --where box_rows=128 --where boxes=1 "
                        "--where stride_bytes=2048,8192");
  ASSERT_EQ(o.code, 0) << o.out;
  const auto r = rows(o.out);
  ASSERT_EQ(r.size(), 2u) << o.out;
  // columns: stride_bytes, box_rows, boxes, measured, simulated, error_pct, within
  EXPECT_EQ(r[0][3], "1302");
  EXPECT_EQ(r[1][3], "1363");
  EXPECT_EQ(r[0][6], "yes") << o.out;
  EXPECT_EQ(r[1][6], "yes") << o.out;
}

// tma_bulk_box: the same contiguous bytes from DRAM by a bulk copy and by a box of 128-B rows, at
// tma_size.cu's and tma_stride.cu's sample spacings (validation/data/h200/micro_tma_bulk_box.csv,
// never fitted on). Judged on the mean of its 62 samples (a refresh met or not makes them
// bimodal); at 16 KB both paths and both spacings come within 10 % (1118 / 1118 / 1127 / 1150
// cycles against 1089 / 1074 / 1119 / 1150).
TEST(Micro, TmaBulkBoxMeetsDramAlikeByEitherPath) {
  const Outcome o = run("micro tma_bulk_box --compare " + kData +
                        "micro_tma_bulk_box.csv --metric mean_cycles --where bytes=16384");
  ASSERT_EQ(o.code, 0) << o.out;
  const auto r = rows(o.out);
  ASSERT_EQ(r.size(), 4u) << o.out;
  // columns: path, bytes, spacing_bytes, measured, simulated, error_pct, within
  EXPECT_EQ(r[0][0] + "," + r[0][2] + "," + r[0][3], "bulk,1052672,1089.4");
  EXPECT_EQ(r[3][0] + "," + r[3][2] + "," + r[3][3], "box,16777216,1149.5");
  for (const auto& f : r) {
    EXPECT_EQ(f[6], "yes") << o.out;
  }
  const Outcome one = run("micro tma_bulk_box --where path=box --where bytes=4096");
  ASSERT_EQ(one.code, 0) << one.out;
  const auto b = rows(one.out);
  ASSERT_EQ(b.size(), 2u) << one.out;
  EXPECT_EQ(b[0][3], "62");  // 64 samples, first 2 dropped, as on the hardware
}

}  // namespace
