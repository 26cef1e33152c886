// Labels on COMPUTE and WGMMA: kept by the text format and used as timeline slice names.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "program/parser.h"
#include "program/writer.h"
#include "stats/timeline.h"
#include "test_util.h"
#include "util/error.h"

namespace asyncsim {
namespace {

using program::KernelBuilder;

program::Kernel labelled_kernel() {
  KernelBuilder b("labels");
  b.begin_role("main", 1);
  KernelBuilder::ComputeOps ops;
  ops.fp32 = "1280";
  b.compute(ops, false, "softmax");
  b.compute(ops);
  b.wgmma("64", "2", program::DType::kF16, false, "QK^T");
  b.wgmma_commit();
  b.wgmma_wait("0");
  b.end_role();
  return b.finish();
}

TEST(Labels, BuilderInternsAndTextFormatRoundTrips) {
  const program::Kernel k = labelled_kernel();
  ASSERT_EQ(k.labels, (std::vector<std::string>{"softmax", "QK^T"}));
  const auto& code = k.roles[0].code;
  EXPECT_EQ(*k.label_of(code[0]), "softmax");
  EXPECT_EQ(k.label_of(code[1]), nullptr);
  const std::string text = program::write_program(k);
  EXPECT_NE(text.find("COMPUTE fp32=1280 label=softmax"), std::string::npos) << text;
  EXPECT_NE(text.find("repeat=2 label=QK^T"), std::string::npos) << text;
  const program::Kernel again = program::parse_program(text, "labels.asim");
  EXPECT_EQ(again.labels, k.labels);
  EXPECT_EQ(program::write_program(again), text);
}

TEST(Labels, BadLabelIsAnInputError) {
  KernelBuilder b("bad");
  b.begin_role("main", 1);
  EXPECT_THROW(b.compute({}, false, "two words"), InputError);
  EXPECT_THROW(b.wgmma("64", "1", program::DType::kF16, false, "a=b"), InputError);
}

// The simple GPU's FP32 unit does 128 ops/cycle: the labelled COMPUTE is a 10-cycle "softmax"
// slice, the unlabelled one a "compute" slice, and the wgmma group a "QK^T" slice on the
// tensor track.
TEST(Labels, TimelineSlicesCarryTheLabel) {
  const GpuConfig cfg = testing::simple_gpu();
  Timeline tl(ClockDomain::from_mhz(cfg.sm.clock_mhz).period_ps, 1000);
  simulate(labelled_kernel(), cfg, {}, &tl);
  const std::string path = ::testing::TempDir() + "labels_timeline.json";
  tl.write(path);
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string trace = ss.str();
  EXPECT_NE(trace.find("\"name\":\"softmax\""), std::string::npos);
  EXPECT_NE(trace.find("\"name\":\"compute\""), std::string::npos);
  EXPECT_NE(trace.find("\"name\":\"QK^T\",\"pid\":0,\"tid\":1001"), std::string::npos) << trace;
  std::remove(path.c_str());
}

}  // namespace
}  // namespace asyncsim
