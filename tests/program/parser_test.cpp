#include "program/parser.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "program/writer.h"
#include "test_support.h"

namespace asyncsim::program {
namespace {

std::map<Op, int> op_counts(const Role& r) {
  std::map<Op, int> n;
  for (const Instr& in : r.code) {
    ++n[in.op];
  }
  return n;
}

int64_t eval_const(const Kernel& k, ExprId id) {
  int64_t v = -999;
  EXPECT_TRUE(k.exprs.is_constant(id, &v));
  return v;
}

TEST(Parser, TinyGemmExample) {
  const Kernel k = parse_program_file(test::example_path("gemm_tiny.asim"));
  EXPECT_EQ(k.name, "gemm_tiny");
  EXPECT_EQ(k.source, test::example_path("gemm_tiny.asim"));
  EXPECT_EQ(k.grid, (std::array<int64_t, 3>{1, 1, 1}));
  EXPECT_EQ(k.regs_per_thread, 168);
  EXPECT_EQ(k.smem_bytes, 2 * 32768 + 32768);
  ASSERT_EQ(k.maps.size(), 3u);
  const TensorMap& a = k.maps[0];
  EXPECT_EQ(a.name, "A");
  EXPECT_EQ(a.dtype, DType::kF16);
  EXPECT_EQ(a.rank, 2);
  EXPECT_EQ(a.dims[0], 256);
  EXPECT_EQ(a.dims[1], 128);
  EXPECT_EQ(a.strides[0], 2);
  EXPECT_EQ(a.strides[1], 512);
  EXPECT_EQ(a.box[0], 64);
  EXPECT_EQ(a.box[1], 128);
  EXPECT_EQ(a.base, 0x10000000u);
  EXPECT_EQ(a.swizzle, Swizzle::k128B);
  EXPECT_EQ(k.maps[2].name, "C");
  EXPECT_EQ(k.maps[2].base, 0x30000000u);
  ASSERT_EQ(k.barriers.size(), 1u);
  EXPECT_EQ(k.barriers[0].name, "full");
  EXPECT_EQ(k.barriers[0].size, 2);
  EXPECT_EQ(k.barriers[0].arrivals, 1);
  ASSERT_EQ(k.roles.size(), 1u);
  const Role& r = k.roles[0];
  EXPECT_EQ(r.name, "main");
  EXPECT_EQ(r.warpgroups, 1);
  EXPECT_EQ(r.code.size(), 22u);
  auto n = op_counts(r);
  EXPECT_EQ(n[Op::kTmaLoad], 4);
  EXPECT_EQ(n[Op::kMbArriveExpectTx], 2);
  EXPECT_EQ(n[Op::kMbWait], 1);
  EXPECT_EQ(n[Op::kWgmma], 1);
  EXPECT_EQ(n[Op::kWgmmaCommit], 1);
  EXPECT_EQ(n[Op::kWgmmaWait], 2);
  EXPECT_EQ(n[Op::kLoop], 2);
  EXPECT_EQ(n[Op::kEndLoop], 2);
  EXPECT_EQ(n[Op::kIf], 1);
  EXPECT_EQ(n[Op::kEndIf], 1);
  EXPECT_EQ(n[Op::kCompute], 1);
  EXPECT_EQ(n[Op::kTmaStore], 2);
  EXPECT_EQ(n[Op::kTmaStoreWait], 1);
  EXPECT_EQ(n[Op::kExit], 1);
  EXPECT_EQ(r.loop_names, (std::vector<std::string>{"i", "k"}));
}

TEST(Parser, TinyGemmOperandsAndStructure) {
  const Kernel k = parse_program_file(test::example_path("gemm_tiny.asim"));
  const Role& r = k.roles[0];
  // loop i = 0, min(STAGES - 1, KT): folded to the constant 1.
  EXPECT_EQ(r.code[0].op, Op::kLoop);
  EXPECT_EQ(r.code[0].ref, 0);
  EXPECT_EQ(eval_const(k, r.code[0].args[1]), 1);
  EXPECT_EQ(r.code[0].jump, 4u);
  EXPECT_EQ(r.code[4].jump, 0u);
  EXPECT_EQ(r.code[0].line, 26u);
  const Instr& wait = r.code[6];
  ASSERT_EQ(wait.op, Op::kMbWait);
  EXPECT_EQ(wait.line, 32u);
  EXPECT_EQ(wait.flags, 0);
  int64_t vars[kNumVars] = {};
  for (int64_t kk = 0; kk < 6; ++kk) {
    vars[kVarLoop0] = kk;
    EXPECT_EQ(k.exprs.eval(wait.bar.index, vars), kk % 2);
    EXPECT_EQ(k.exprs.eval(wait.args[0], vars), (kk / 2) % 2);
  }
  const Instr& mma = r.code[7];
  ASSERT_EQ(mma.op, Op::kWgmma);
  EXPECT_EQ(eval_const(k, mma.args[0]), 128);
  EXPECT_EQ(eval_const(k, mma.args[1]), 8);
  EXPECT_EQ(mma.dtype, DType::kF16);
  const Instr& load = r.code[2];
  ASSERT_EQ(load.op, Op::kTmaLoad);
  EXPECT_EQ(load.ref, 0);
  vars[kVarLoop0] = 3;
  vars[kVarCtaY] = 2;
  EXPECT_EQ(k.exprs.eval(load.args[0], vars), 3 * 64);
  EXPECT_EQ(k.exprs.eval(load.args[1], vars), 2 * 128);
  EXPECT_EQ(load.args[2], kNoExpr);
  const Instr& compute = r.code[17];
  ASSERT_EQ(compute.op, Op::kCompute);
  EXPECT_EQ(eval_const(k, compute.args[3]), 16384);  // cvt
  EXPECT_EQ(eval_const(k, compute.args[5]), 32768);  // smem
  EXPECT_EQ(eval_const(k, compute.args[0]), 0);
}

constexpr const char* kEveryInstruction = R"(kernel every   # all instructions
param N = 64
grid 2 3 4
resources regs=200
tensormap T dtype=bf16 dims=[128, 64, 8] box=[64, 32, 1]
mbarrier bar[2] arrivals=2
mbarrier done
ring kv stages=3 consumers=2
role producer warpgroups=1
  loop k = 0, 6
    STAGE_ACQUIRE kv k
    MB_EXPECT_TX kv.full[k % 3] bytes=64 * 32 * 2 + 4096
    MB_ARRIVE kv.full[k % 3]
    TMA_LOAD T [0, k * 32, cta.z] bar=kv.full[k % 3]
    BULK_LOAD addr=0x1000 + k * 4096 bytes=4096 bar=kv.full[k % 3]
  end
  BULK_STORE addr=0x9000 bytes=N * 16
  TMA_STORE T [64, 0, wg]
  TMA_STORE_WAIT 0
  MB_ARRIVE done count=2
end
role consumer warpgroups=2
  loop k = 0, 6
    STAGE_WAIT kv k
    WGMMA m64nNk16 bf16 rs repeat=2
    WGMMA m64n(N * 2)k32 e4m3 ss
    WGMMA_COMMIT
    WGMMA_WAIT 1
    STAGE_RELEASE kv k
  end
  MB_ARRIVE_EXPECT_TX bar[wg] bytes=0
  MB_WAIT bar[wg] suspend parity=0
  MB_WAIT done parity=0
  BAR_SYNC 1 threads=256
  BAR_WAIT 1 threads=256
  BAR_ARRIVE 2 threads=384
  if wg == 0
    COMPUTE measured cycles=100
  else
    COMPUTE fp32=1 fp16=2 mufu=3 cvt=4 int=5 smem=6 cycles=7
  end
  EXIT
end
)";

TEST(Parser, EveryInstruction) {
  const Kernel k = parse_program(kEveryInstruction, "every.asim");
  EXPECT_EQ(k.grid, (std::array<int64_t, 3>{2, 3, 4}));
  EXPECT_EQ(k.regs_per_thread, 200);
  EXPECT_EQ(k.smem_bytes, 0);
  EXPECT_EQ(k.code_bytes, 0);  // not stated
  EXPECT_EQ(parse_program("kernel c\nresources code=2 * 4160\nrole r warpgroups=1\n  EXIT\nend\n",
                          "code.asim")
                .code_bytes,
            8320);
  // Packed strides by default.
  EXPECT_EQ(k.maps[0].strides[1], 256);
  EXPECT_EQ(k.maps[0].strides[2], 256 * 64);
  ASSERT_EQ(k.barriers.size(), 4u);
  EXPECT_EQ(k.barriers[1].name, "done");
  EXPECT_EQ(k.barriers[1].size, 1);
  EXPECT_EQ(k.barriers[2].name, "kv.full");
  EXPECT_EQ(k.barriers[3].name, "kv.empty");
  EXPECT_EQ(k.barriers[3].arrivals, 2);
  ASSERT_EQ(k.rings.size(), 1u);
  EXPECT_EQ(k.rings[0].stages, 3);
  EXPECT_EQ(k.rings[0].full, 2);
  EXPECT_EQ(k.rings[0].empty, 3);
  ASSERT_EQ(k.roles.size(), 2u);
  EXPECT_EQ(k.warpgroups_per_cta(), 3);
  const auto p = op_counts(k.roles[0]);
  EXPECT_EQ(p.at(Op::kStageAcquire), 1);
  EXPECT_EQ(p.at(Op::kMbExpectTx), 1);
  EXPECT_EQ(p.at(Op::kMbArrive), 2);
  EXPECT_EQ(p.at(Op::kBulkLoad), 1);
  EXPECT_EQ(p.at(Op::kBulkStore), 1);
  EXPECT_EQ(p.at(Op::kExit), 1);  // added by the end of the role
  const auto c = op_counts(k.roles[1]);
  EXPECT_EQ(c.at(Op::kWgmma), 2);
  EXPECT_EQ(c.at(Op::kBarSync), 2);  // BAR_WAIT is BAR_SYNC
  EXPECT_EQ(c.at(Op::kBarArrive), 1);
  EXPECT_EQ(c.at(Op::kMbWait), 2);
  EXPECT_EQ(c.at(Op::kElse), 1);
  EXPECT_EQ(c.at(Op::kExit), 1);
  const Instr& load = k.roles[0].code[4];
  ASSERT_EQ(load.op, Op::kTmaLoad);
  EXPECT_EQ(load.bar.array, k.rings[0].full);
  const Instr& rs = k.roles[1].code[2];
  ASSERT_EQ(rs.op, Op::kWgmma);
  EXPECT_EQ(rs.flags, kFlagRs);
  EXPECT_EQ(rs.dtype, DType::kBF16);
  EXPECT_EQ(eval_const(k, rs.args[0]), 64);
  EXPECT_EQ(eval_const(k, rs.args[1]), 2);
  EXPECT_EQ(eval_const(k, k.roles[1].code[3].args[0]), 128);
  EXPECT_EQ(k.roles[1].code[3].dtype, DType::kFP8E4M3);
  const Instr& suspend = k.roles[1].code[9];
  ASSERT_EQ(suspend.op, Op::kMbWait);
  EXPECT_EQ(suspend.flags, kFlagSuspend);
  const Instr& measured = k.roles[1].code[15];
  ASSERT_EQ(measured.op, Op::kCompute);
  EXPECT_EQ(measured.flags, kFlagMeasured);
  EXPECT_EQ(eval_const(k, measured.args[6]), 100);
  const Instr& all = k.roles[1].code[17];
  ASSERT_EQ(all.op, Op::kCompute);
  for (int i = 0; i < 7; ++i) {
    EXPECT_EQ(eval_const(k, all.args[i]), i + 1);
  }
}

// The load/store unit's instructions: defaults (rows 1, stride 0), expressions, and a write-back
// that parses to the same text.
TEST(Parser, LoadStoreUnitInstructions) {
  const char* text =
      "kernel lsu\n"
      "grid 4\n"
      "role main warpgroups=2\n"
      "  LD_GLOBAL addr=4096 bytes=2048\n"
      "  LD_GLOBAL addr=cta * 64 + wg bytes=64 rows=4 stride=1024 width=4\n"
      "  LD_WAIT 1\n"
      "  ST_GLOBAL addr=8192 bytes=512\n"
      "  LD_WAIT 0\n"
      "end\n";
  const Kernel k = parse_program(text, "lsu.asim");
  const auto& code = k.roles[0].code;
  ASSERT_EQ(code[0].op, Op::kLdGlobal);
  EXPECT_EQ(eval_const(k, code[0].args[0]), 4096);
  EXPECT_EQ(eval_const(k, code[0].args[1]), 2048);
  EXPECT_EQ(eval_const(k, code[0].args[2]), 1);
  EXPECT_EQ(eval_const(k, code[0].args[3]), 0);
  EXPECT_EQ(eval_const(k, code[0].args[4]), 16);  // 128-bit accesses unless width= says
  ASSERT_EQ(code[1].op, Op::kLdGlobal);
  EXPECT_EQ(eval_const(k, code[1].args[2]), 4);
  EXPECT_EQ(eval_const(k, code[1].args[3]), 1024);
  EXPECT_EQ(eval_const(k, code[1].args[4]), 4);
  ASSERT_EQ(code[2].op, Op::kLdWait);
  EXPECT_EQ(eval_const(k, code[2].args[0]), 1);
  ASSERT_EQ(code[3].op, Op::kStGlobal);
  EXPECT_EQ(eval_const(k, code[3].args[1]), 512);
  const std::string once = write_program(k);
  EXPECT_NE(once.find("LD_GLOBAL addr=4096 bytes=2048\n"), std::string::npos) << once;
  EXPECT_NE(once.find("rows=4 stride=1024 width=4"), std::string::npos) << once;
  EXPECT_EQ(write_program(parse_program(once, "again.asim")), once);
}

TEST(Parser, LayoutFreedoms) {
  // CRLF line ends, tabs, comments everywhere, keys in any order, a zero-trip loop.
  const std::string text =
      "# header comment\r\n"
      "kernel k\r\n"
      "\r\n"
      "mbarrier   b[1]   arrivals=1   # trailing comment\r\n"
      "role r\r\n"
      "\tloop i = 5, 2\r\n"
      "\t\tMB_WAIT b[0] parity=i % 2\r\n"
      "\tend\r\n"
      "  MB_ARRIVE b[0]\r\n"
      "end\r\n";
  const Kernel k = parse_program(text, "crlf.asim");
  ASSERT_EQ(k.roles.size(), 1u);
  EXPECT_EQ(k.roles[0].code.size(), 5u);
  EXPECT_EQ(k.roles[0].code[1].line, 7u);
}

TEST(Parser, DocumentationExamplesParse) {
  std::ifstream in(std::string(ASYNCSIM_SOURCE_DIR) + "/docs/program-format.md");
  ASSERT_TRUE(in.good());
  std::stringstream doc;
  doc << in.rdbuf();
  const std::string text = doc.str();
  int examples = 0;
  for (size_t pos = text.find("```\nkernel "); pos != std::string::npos;
       pos = text.find("```\nkernel ", pos + 1)) {
    const size_t begin = pos + 4;
    const std::string block = text.substr(begin, text.find("```", begin) - begin);
    EXPECT_NO_THROW(parse_program(block, "doc.asim")) << block;
    ++examples;
  }
  EXPECT_EQ(examples, 2);
}

TEST(Parser, EveryExampleParses) {
  int examples = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(ASYNCSIM_SOURCE_DIR) + "/examples")) {
    if (entry.path().extension() == ".asim") {
      EXPECT_NO_THROW(parse_program_file(entry.path().string())) << entry.path();
      ++examples;
    }
  }
  EXPECT_GE(examples, 1);
}

TEST(Parser, MissingFileIsAnInputErrorNamingThePath) {
  try {
    parse_program_file("/nonexistent/x.asim");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "/nonexistent/x.asim");
    EXPECT_NE(std::string(e.what()).find("cannot read the program file"), std::string::npos);
  }
}

}  // namespace
}  // namespace asyncsim::program
