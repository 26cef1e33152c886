// Exact-cycle tests of the tensor pipe on tiny programs (wgmma service, groups, the pipe's
// queue, and the what-ifs that stretch its service), on the round-number GPU of
// tests/data/simple_gpu.yaml (all clocks 1 GHz: 1 cycle = 1 ns). Each expected number is
// derived in the comment above it from the parameters of that file and configs/h200.yaml.
#include <gtest/gtest.h>

#include <algorithm>

#include "engines/tensor_engine.h"
#include "test_util.h"

namespace asyncsim {
namespace {

using program::DType;
using program::KernelBuilder;
using testing::simple_gpu;

// Four dependent m64n128k16 wgmma in one group, then wait_group 0.
program::Kernel wgmma_chain() {
  KernelBuilder b("wgmma_chain");
  b.begin_role("main", 1);
  b.wgmma("128", "4", DType::kF16, false);
  b.wgmma_commit();
  b.wgmma_wait("0");
  b.end_role();
  return b.finish();
}

TEST(Primitives, WgmmaChain) {
  const SimResult r = simulate(wgmma_chain(), simple_gpu());
  // Service of one m64n128k16: 2*64*128*16 / 4096 = 64 cycles. Issued at 0,1,2,3 but the pipe
  // serialises them: they finish service at 64, 128, 192, 256; the last completes 24 cycles of
  // latency later, at 280. The warpgroup issues for 4 cycles (one slot per wgmma), commits at
  // 4, enters wait_group 0 at 5 and waits until 280: 275 cycles waiting.
  EXPECT_EQ(r.cycles, 280);
  EXPECT_DOUBLE_EQ(r.flops, 4 * 2.0 * 64 * 128 * 16);
  EXPECT_EQ(r.stall_cycles.at("main").at("wait_wgmma"), 275);
}

// tensor.slow_gpcs / tensor.slow_factor: the chain above on an SM of a slowed GPC. simple_gpu
// puts TPC t in GPC t mod 2, so SM 0 (TPC 0) sits in GPC 0.
TEST(Primitives, SlowGpcsServeWgmmaLonger) {
  const program::Kernel k = wgmma_chain();
  // GPC 1 only: SM 0 keeps its 64-cycle services, 4 x 64 + 24.
  EXPECT_EQ(simulate(k, simple_gpu({"tensor.slow_gpcs=2", "tensor.slow_factor=1.5"})).cycles, 280);
  // GPC 0: each service takes 1.5 x 64 = 96 cycles, 4 x 96 + 24.
  EXPECT_EQ(simulate(k, simple_gpu({"tensor.slow_gpcs=1", "tensor.slow_factor=1.5"})).cycles, 408);
}

// tensor.cta_jitter: CTA c serves every wgmma cta_tensor_factor(a, c) times as long.
TEST(Primitives, CtaJitterScalesEachCtasWgmmaService) {
  EXPECT_EQ(cta_tensor_factor(0.0, 7), 1.0);
  double sum = 0;
  double lo = 2;
  double hi = 0;
  constexpr int kCtas = 4096;
  for (int c = 0; c < kCtas; ++c) {
    const double f = cta_tensor_factor(0.1, c);
    EXPECT_EQ(f, cta_tensor_factor(0.1, c));  // the same CTA, the same factor
    sum += f;
    lo = std::min(lo, f);
    hi = std::max(hi, f);
  }
  EXPECT_GE(lo, 0.9);
  EXPECT_LT(hi, 1.1);
  EXPECT_LT(lo, 0.901);  // the whole range is used
  EXPECT_GT(hi, 1.099);
  EXPECT_NEAR(sum / kCtas, 1.0, 0.005);  // zero mean
  // The one CTA of wgmma_chain: four 64-cycle services stretched by its factor, then 24.
  const double f = cta_tensor_factor(0.3, 0);
  EXPECT_NE(f, 1.0);
  const SimResult r = simulate(wgmma_chain(), simple_gpu({"tensor.cta_jitter=0.3"}));
  EXPECT_NEAR(static_cast<double>(r.cycles), 4 * 64 * f + 24, 1.0);
}

// wait_group 1 keeps one group in flight: the second group's issue overlaps the first.
TEST(Primitives, WaitGroupKeepsOneInFlight) {
  KernelBuilder b("wait_group");
  b.begin_role("main", 1);
  b.loop("k", "0", "3");
  b.wgmma("256", "1", DType::kF16, false);
  b.wgmma_commit();
  b.wgmma_wait("1");
  b.end_loop();
  b.wgmma_wait("0");
  b.end_role();
  const SimResult r = simulate(b.finish(), simple_gpu());
  // m64n256k16 serves for 128 cycles. Group 0 issues at 0 (done 128+24=152); wait_group 1 at
  // cycle 2 passes (one pending). Group 1 issues at 3: starts at 128, done 256+24=280; its
  // wait_group 1 at 5 must wait for group 0 (152). Group 2 issues at 152: starts at 256, done
  // 384+24 = 408; wait_group 1 at 154 waits for group 1 (280). Final wait_group 0 at 280 waits
  // for 408. Exit at 408.
  EXPECT_EQ(r.cycles, 408);
}

// tensor.queue_depth: one warpgroup issues twelve m64n256k16 (128 cycles of the pipe each, one
// issue cycle each on the simple GPU) and waits for them. With no limit it issues them at
// cycles 0-11. With 8: the ninth (cycle 8) waits for the first to leave the pipe at 128 and the
// next three for the second to fourth (256, 384, 512); the last issue cycle ends at 513, and the
// commit takes one more (issue time 514 against 13 without the limit). Either
// way the pipe ends at 12 x 128 = 1536 and the group completes 24 cycles later.
TEST(Primitives, TensorQueueDepthStallsWgmmaIssue) {
  KernelBuilder b("queue");
  b.begin_role("w", 1);
  for (int i = 0; i < 12; ++i) {
    b.wgmma("256", "1", DType::kF16, false);
  }
  b.wgmma_commit();
  b.wgmma_wait("0");
  b.end_role();
  const program::Kernel k = b.finish();
  const SimResult free = simulate(k, simple_gpu({"tensor.queue_depth=0"}));
  const SimResult queued = simulate(k, simple_gpu({"tensor.queue_depth=8"}));
  EXPECT_EQ(free.cycles, queued.cycles);
  EXPECT_EQ(free.stall_cycles.at("w").at("issue"), 13);
  EXPECT_EQ(queued.stall_cycles.at("w").at("issue"), 514);
}

}  // namespace
}  // namespace asyncsim
