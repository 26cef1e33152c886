#include "analytic/measured.h"

#include <gtest/gtest.h>

#include "test_support.h"
#include "util/error.h"

namespace asyncsim::analytic {
namespace {

constexpr const char* kGemmCsv =
    "# date: 2026-11-30\n"
    "# method: ncu\n"
    "kernel,variant,split,M,N,K,BM,BN,BK,stages,warps,cycles,dram_read_bytes,dram_write_bytes,"
    "l2_bytes\n"
    "gemm,128x128x64_s3_w4,calib,256,256,256,128,128,64,3,4,1000,262144,131072,655360\n"
    "gemm_persistent,128x128x64_s3_w4,frontend,256,256,256,128,128,64,3,4,1000,1,1,1\n";

constexpr const char* kAttentionCsv =
    "kernel,variant,split,B,H,HKV,S,SKV,D,BM,BN,stages,warps,causal,dram_read_bytes,"
    "dram_write_bytes,l2_bytes\r\n"
    "attention,bm128_bn64_s3_w8,sweep,1,2,2,256,256,64,128,64,3,8,1,100,200,300\r\n";

TEST(Measured, ParsesGemmRowsAndSkipsUnmodelledKernels) {
  int skipped = 0;
  const auto rows = parse_measured_csv(kGemmCsv, "gemm.csv", skipped);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(skipped, 1);
  EXPECT_TRUE(rows[0].is_gemm);
  EXPECT_EQ(rows[0].gemm.k, 256);
  EXPECT_EQ(rows[0].dram_write_bytes, 131072);
  const std::string table = measured_table(rows, testing::small_gpu(132, 1 << 25));
  // Model read = (256+256)·256·2 = 262144 B: exact, so a +0.0 % error.
  EXPECT_NE(table.find("| 0.26 | 0.26 | +0.0 |"), std::string::npos) << table;
  EXPECT_NE(table.find("MAPE"), std::string::npos);
}

TEST(Measured, ParsesAttentionRowsWithCrLf) {
  int skipped = 0;
  const auto rows = parse_measured_csv(kAttentionCsv, "attention.csv", skipped);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_FALSE(rows[0].is_gemm);
  EXPECT_TRUE(rows[0].attention.causal);
  EXPECT_EQ(rows[0].l2_bytes, 300);
}

TEST(Measured, NamesFileAndLineOfABadRow) {
  int skipped = 0;
  try {
    parse_measured_csv("kernel,variant,split,M\ngemm,v,calib,abc\n", "g.csv", skipped);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("g.csv:2"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace asyncsim::analytic
