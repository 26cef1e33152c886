#include "analytic/params.h"

#include <gtest/gtest.h>

#include "analytic/gemm_model.h"
#include "analytic/report.h"
#include "test_support.h"
#include "util/error.h"

namespace asyncsim::analytic {
namespace {

TEST(Sweep, ParsesRangesInclusively) {
  const SweepSpec s = parse_sweep("k=1024:4096:1024", "--sweep");
  EXPECT_EQ(s.param, "k");
  EXPECT_EQ(s.values, (std::vector<std::string>{"1024", "2048", "3072", "4096"}));
}

TEST(Sweep, ParsesLists) {
  const SweepSpec s = parse_sweep("tile=128x128x64,128x256x64", "--sweep");
  EXPECT_EQ(s.param, "tile");
  EXPECT_EQ(s.values, (std::vector<std::string>{"128x128x64", "128x256x64"}));
}

TEST(Sweep, RejectsMalformedText) {
  EXPECT_THROW(parse_sweep("k", "--sweep"), InputError);
  EXPECT_THROW(parse_sweep("k=1:2", "--sweep"), InputError);
  EXPECT_THROW(parse_sweep("k=8:1:1", "--sweep"), InputError);
  EXPECT_THROW(parse_sweep("k=1:8:0", "--sweep"), InputError);
  EXPECT_THROW(parse_sweep("k=1,,2", "--sweep"), InputError);
  EXPECT_THROW(parse_sweep("k=a:8:1", "--sweep"), InputError);
}

TEST(Params, SetsFieldsByFlagName) {
  GemmShape g;
  set_param(g, "tile", "128x256x64", "--sweep");
  set_param(g, "k", "4096", "--sweep");
  EXPECT_EQ(g.block_n, 256);
  EXPECT_EQ(g.k, 4096);
  AttentionShape a;
  set_param(a, "kv-heads", "8", "--sweep");
  set_param(a, "causal", "1", "--sweep");
  EXPECT_EQ(a.kv_heads, 8);
  EXPECT_TRUE(a.causal);
  EXPECT_THROW(set_param(g, "q", "1", "--sweep"), InputError);
  EXPECT_THROW(set_param(g, "m", "12x", "--sweep"), InputError);
  EXPECT_THROW(set_tile(g, "128x128", "--tile"), InputError);
}

TEST(Report, JsonCarriesTheContractKeys) {
  GemmShape s;
  s.m = s.n = s.k = 256;
  const GpuConfig gpu = testing::small_gpu(132, 1 << 25);
  const nlohmann::json j = to_json(estimate_gemm(s, gpu), gpu);
  for (const char* key :
       {"flops", "l2_bytes", "dram_bytes_ideal", "dram_bytes_wave", "arithmetic_intensity",
        "roofline_us", "genz_roofline_us", "waves", "ctas_per_sm"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  // 1 TFLOP/s and 1000 GB/s: 33.5 MFLOP → 33.55 us compute; 393216 B → 0.39 us memory.
  EXPECT_DOUBLE_EQ(j["roofline_us"].get<double>(), 2.0 * 256 * 256 * 256 / 1e6);
  EXPECT_EQ(j["bound"], "compute");
}

}  // namespace
}  // namespace asyncsim::analytic
