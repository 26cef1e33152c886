#include "program/writer.h"

#include <gtest/gtest.h>

#include "program/builder.h"
#include "test_support.h"

namespace asyncsim::program {
namespace {

// Two expressions agree on a spread of CTA ids, warpgroups and loop counters.
void expect_same_expr(const Kernel& a, ExprId x, const Kernel& b, ExprId y) {
  ASSERT_EQ(x == kNoExpr, y == kNoExpr);
  if (x == kNoExpr) {
    return;
  }
  for (int64_t s = 1; s < 6; ++s) {
    int64_t vars[kNumVars] = {};
    for (int v = 0; v < kNumVars; ++v) {
      vars[v] = (s * (v + 3)) % 7 + 1;
    }
    EXPECT_EQ(a.exprs.eval(x, vars), b.exprs.eval(y, vars));
  }
}

// Same kernel up to source lines and expression pool layout.
void expect_equivalent(const Kernel& a, const Kernel& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.grid, b.grid);
  EXPECT_EQ(a.regs_per_thread, b.regs_per_thread);
  EXPECT_EQ(a.smem_bytes, b.smem_bytes);
  EXPECT_EQ(a.code_bytes, b.code_bytes);
  ASSERT_EQ(a.maps.size(), b.maps.size());
  for (size_t i = 0; i < a.maps.size(); ++i) {
    EXPECT_EQ(a.maps[i].dims, b.maps[i].dims);
    EXPECT_EQ(a.maps[i].strides, b.maps[i].strides);
    EXPECT_EQ(a.maps[i].box, b.maps[i].box);
    EXPECT_EQ(a.maps[i].base, b.maps[i].base);
    EXPECT_EQ(a.maps[i].swizzle, b.maps[i].swizzle);
  }
  ASSERT_EQ(a.barriers.size(), b.barriers.size());
  ASSERT_EQ(a.rings.size(), b.rings.size());
  ASSERT_EQ(a.roles.size(), b.roles.size());
  for (size_t r = 0; r < a.roles.size(); ++r) {
    ASSERT_EQ(a.roles[r].code.size(), b.roles[r].code.size());
    EXPECT_EQ(a.roles[r].loop_names, b.roles[r].loop_names);
    for (size_t pc = 0; pc < a.roles[r].code.size(); ++pc) {
      const Instr& x = a.roles[r].code[pc];
      const Instr& y = b.roles[r].code[pc];
      EXPECT_EQ(x.op, y.op);
      EXPECT_EQ(x.flags, y.flags);
      EXPECT_EQ(x.dtype, y.dtype);
      EXPECT_EQ(x.ref, y.ref);
      EXPECT_EQ(x.jump, y.jump);
      EXPECT_EQ(x.bar.array, y.bar.array);
      expect_same_expr(a, x.bar.index, b, y.bar.index);
      for (int i = 0; i < kMaxArgs; ++i) {
        expect_same_expr(a, x.args[i], b, y.args[i]);
      }
    }
  }
}

// write -> parse -> write gives the same text, and the parsed kernel is equivalent.
void expect_round_trip(const Kernel& k) {
  const std::string text = write_program(k);
  const Kernel again = parse_program(text, "written.asim");
  EXPECT_EQ(write_program(again), text);
  expect_equivalent(k, again);
}

TEST(Writer, CanonicalText) {
  const Kernel k = parse_program(R"(kernel small
param S = 2
grid 4 S
resources smem=1024
tensormap X dtype=bf16 dims=[64, 8] box=[64, 8] base=4096
mbarrier bar[S] arrivals=2
ring kv stages=S consumers=2
role r warpgroups=2
  loop k = 0, 8
    STAGE_WAIT kv k
    MB_WAIT bar[k % S] suspend parity=(k / S) % 2
    if k < 4 && wg == 1
      WGMMA m64n(S * 64)k16 bf16 rs
    else
      COMPUTE fp32=k * 2
    end
    STAGE_RELEASE kv k
  end
  MB_ARRIVE bar[0] count=2
  MB_ARRIVE kv.full[wg]
  TMA_STORE X [0, cta]
  BAR_WAIT 1 threads=256
end
)",
                                 "small.asim");
  const std::string expected = R"(kernel small
grid 4 2 1
resources regs=128 smem=1024
tensormap X dtype=bf16 dims=[64, 8] strides=[128] box=[64, 8] base=0x1000 swizzle=none
mbarrier bar[2] arrivals=2
ring kv stages=2 consumers=2

role r warpgroups=2
  loop k = 0, 8
    STAGE_WAIT kv k
    MB_WAIT bar[k % 2] suspend parity=(k / 2) % 2
    if (k < 4) && (wg == 1)
      WGMMA m64n128k16 bf16 rs
    else
      COMPUTE fp32=k * 2
    end
    STAGE_RELEASE kv k
  end
  MB_ARRIVE bar[0] count=2
  MB_ARRIVE kv.full[wg]
  TMA_STORE X [0, cta]
  BAR_SYNC 1 threads=256
  EXIT
end
)";
  EXPECT_EQ(write_program(k), expected);
  expect_round_trip(k);
}

TEST(Writer, TinyGemmExampleRoundTrips) {
  expect_round_trip(parse_program_file(test::example_path("gemm_tiny.asim")));
}

// A program built through the API the workload generators use, touching every instruction.
Kernel built_kernel() {
  KernelBuilder b("built");
  b.set_constant("BN", 128);
  b.set_grid(8, 2);
  b.set_resources(96, 65536);
  b.set_code_bytes(8320);
  TensorMap m;
  m.name = "A";
  m.dtype = DType::kFP8E4M3;
  m.rank = 3;
  m.dims = {256, 64, 4, 0, 0};
  m.strides = {1, 256, 256 * 64, 0, 0};
  m.box = {128, 64, 1, 0, 0};
  m.base = 0xabc000;
  m.swizzle = Swizzle::k64B;
  b.add_map(m);
  b.add_barrier("done", 1, 1);
  b.add_ring("kv", 4, 1);
  b.begin_role("producer", 1);
  b.loop("tile", "cta", "nctas * 2");
  b.loop("k", "0", "16");
  b.stage_acquire("kv", "tile * 16 + k");
  b.mb_arrive_expect_tx("kv.full", "k % 4", "128 * 64 + 256");
  b.tma_load("A", {"k * 128", "tile % 64", "0"}, "kv.full", "k % 4");
  b.bulk_load("0x100000 + k * 256", "256", "kv.full", "k % 4");
  b.end_loop();
  b.end_loop();
  b.mb_expect_tx("done", "0", "0");
  b.mb_arrive("done", "0", "1");
  b.end_role();
  b.begin_role("consumer", 1);
  b.loop("tile", "cta", "nctas * 2");
  b.loop("k", "0", "16");
  b.stage_wait("kv", "tile * 16 + k");
  b.wgmma("BN / (1 + wg)", "k < 8 ? 2 : 1", DType::kFP8E5M2, false);
  b.wgmma_commit();
  b.wgmma_wait("1");
  b.stage_release("kv", "tile * 16 + k");
  b.end_loop();
  b.if_("!(tile % 2)");
  b.bar_arrive("2", "256");
  b.else_();
  b.bar_sync("2", "256");
  b.end_if();
  b.end_loop();
  KernelBuilder::ComputeOps ops;
  ops.mufu = "-(-4)";
  ops.int_ops = "max(cta, 3)";
  ops.cycles = "7";
  b.compute(ops, true);
  b.bulk_store("0x200000 + cta * 4096", "4096");
  b.tma_store_wait("0");
  b.mb_wait("done", "0", "0", true);
  b.end_role();
  return b.finish();
}

TEST(Writer, BuilderKernelRoundTrips) {
  const Kernel k = built_kernel();
  expect_round_trip(k);
  const std::string text = write_program(k);
  EXPECT_NE(text.find("WGMMA m64n(128 / (1 + wg))k32 e5m2 ss repeat=(k < 8) ? 2 : 1\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("COMPUTE measured mufu=4 int=max(cta, 3) cycles=7\n"), std::string::npos);
  EXPECT_NE(text.find("resources regs=96 smem=65536 code=8320\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  loop tile = cta, nctas * 2\n    loop k = 0, 16\n"), std::string::npos);
  EXPECT_NE(text.find("ring kv stages=4 consumers=1\n"), std::string::npos);
  EXPECT_NE(text.find("dtype=e4m3 dims=[256, 64, 4] strides=[256, 16384] box=[128, 64, 1] "
                      "base=0xabc000 swizzle=64B\n"),
            std::string::npos);
}

TEST(Writer, UnnamedLoopCountersArePrintedByDepth) {
  Kernel k = built_kernel();
  for (Role& r : k.roles) {
    r.loop_names.clear();
  }
  const std::string text = write_program(k);
  EXPECT_NE(text.find("  loop i0 = cta, nctas * 2\n    loop i1 = 0, 16\n      STAGE_ACQUIRE kv "
                      "(i0 * 16) + i1\n"),
            std::string::npos)
      << text;
  const Kernel again = parse_program(text, "written.asim");
  EXPECT_EQ(write_program(again), text);
}

TEST(Writer, SwizzleNames) {
  for (const Swizzle s : {Swizzle::kNone, Swizzle::k32B, Swizzle::k64B, Swizzle::k128B}) {
    Swizzle back = Swizzle::kNone;
    ASSERT_TRUE(parse_swizzle(swizzle_name(s), back));
    EXPECT_EQ(back, s);
  }
  Swizzle out = Swizzle::k32B;
  EXPECT_FALSE(parse_swizzle("128", out));
  EXPECT_EQ(out, Swizzle::k32B);
}

}  // namespace
}  // namespace asyncsim::program
