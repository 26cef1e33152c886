#include "program/verifier.h"

#include <gtest/gtest.h>

#include <functional>

#include "program/builder.h"
#include "util/error.h"

namespace asyncsim::program {
namespace {

// A builder with a 2-D tensor map A (8 KiB boxes), an mbarrier array `full[2]`, a ring `kv` and
// one open role `main` of two warpgroups; each test adds instructions at line 7.
KernelBuilder fixture() {
  KernelBuilder b("v", "v.asim");
  TensorMap m;
  m.name = "A";
  m.dims = {64, 64, 0, 0, 0};
  m.strides = {2, 128, 0, 0, 0};
  m.box = {64, 64, 0, 0, 0};
  b.add_map(m);
  b.add_barrier("full", 2, 1);
  b.add_ring("kv", 2, 1);
  b.begin_role("main", 2);
  b.set_line(7);
  return b;
}

std::string finish_error(const std::function<void(KernelBuilder&)>& body) {
  KernelBuilder b = fixture();
  body(b);
  try {
    b.finish();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::string verify_error(const Kernel& k) {
  try {
    verify(k);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Verifier, AcceptsAWellFormedKernel) {
  EXPECT_EQ(finish_error([](KernelBuilder& b) {
              b.mb_arrive_expect_tx("full", "0", "8192");
              b.tma_load("A", {"0", "0"}, "full", "0");
              b.mb_wait("full", "0", "0");
              b.stage_acquire("kv", "0");
              b.stage_release("kv", "0");
              b.mb_arrive("kv.full", "0");
              b.stage_wait("kv", "0");
              b.bar_sync("1", "256");
            }),
            "");
}

TEST(Verifier, LoopsWithBeginAfterEndAreAccepted) {
  EXPECT_EQ(finish_error([](KernelBuilder& b) {
              b.loop("i", "8", "2");
              b.wgmma_commit();
              b.end_loop();
              b.loop("j", "0", "-5");
              b.end_loop();
            }),
            "");
}

TEST(Verifier, WgmmaInputTypeNAndRepeat) {
  EXPECT_EQ(finish_error([](KernelBuilder& b) { b.wgmma("64", "1", DType::kF32, false); }),
            "v.asim:7: wgmma does not take f32 inputs (expected f16, bf16, tf32, e4m3 or e5m2)");
  EXPECT_EQ(finish_error([](KernelBuilder& b) { b.wgmma("64", "0", DType::kF16, true); }),
            "v.asim:7: WGMMA repeat must be >= 1, got 0");
  EXPECT_EQ(finish_error([](KernelBuilder& b) { b.wgmma("wg * 8 + 8", "1", DType::kTF32, true); }),
            "");
  KernelBuilder b = fixture();
  b.wgmma("64", "1", DType::kF16, false);
  Kernel k = b.finish();
  k.roles[0].code[0].args[0] = k.exprs.constant(264);
  EXPECT_EQ(verify_error(k), "v.asim:7: wgmma N must be a multiple of 8 in [8, 256], got 264");
}

TEST(Verifier, WaitCountsAreNotNegative) {
  EXPECT_EQ(finish_error([](KernelBuilder& b) { b.wgmma_wait("-1"); }),
            "v.asim:7: WGMMA_WAIT group count must be >= 0, got -1");
  EXPECT_EQ(finish_error([](KernelBuilder& b) { b.tma_store_wait("-2"); }),
            "v.asim:7: TMA_STORE_WAIT store count must be >= 0, got -2");
  EXPECT_EQ(finish_error([](KernelBuilder& b) { b.wgmma_wait("wg - 1"); }), "");
}

TEST(Verifier, ArriveCountAndRingIteration) {
  EXPECT_EQ(finish_error([](KernelBuilder& b) { b.mb_arrive("full", "0", "0"); }),
            "v.asim:7: MB_ARRIVE count must be >= 1, got 0");
  EXPECT_EQ(finish_error([](KernelBuilder& b) { b.stage_release("kv", "-1"); }),
            "v.asim:7: STAGE_RELEASE iteration must be >= 0, got -1");
}

TEST(Verifier, BulkCopySizes) {
  EXPECT_EQ(finish_error([](KernelBuilder& b) { b.bulk_store("0", "100"); }),
            "v.asim:7: BULK_STORE size must be a positive multiple of 16 bytes, got 100");
  EXPECT_EQ(finish_error([](KernelBuilder& b) {
              b.mb_arrive_expect_tx("full", "1", "0");
              b.bulk_load("0", "0", "full", "1");
            }),
            "v.asim:7: BULK_LOAD size must be a positive multiple of 16 bytes, got 0");
}

TEST(Verifier, NamedBarriers) {
  EXPECT_EQ(finish_error([](KernelBuilder& b) { b.bar_sync("16", "128"); }),
            "v.asim:7: named barrier id must be in [0, 15], got 16");
  EXPECT_NE(finish_error([](KernelBuilder& b) {
              b.bar_arrive("0", "384");
            }).find("named barrier thread count must be a multiple of 128 in [128, 256]"),
            std::string::npos);
  EXPECT_NE(finish_error([](KernelBuilder& b) { b.bar_arrive("0", "96"); }).find("got 96"),
            std::string::npos);
}

TEST(Verifier, BarrierIndexesAndArrivals) {
  EXPECT_EQ(finish_error([](KernelBuilder& b) { b.mb_arrive("full", "-1"); }),
            "v.asim:7: mbarrier index -1 is outside 'full' (size 2)");
  EXPECT_EQ(finish_error([](KernelBuilder& b) { b.stage_wait("kv", "0"); }),
            "v.asim:7: a warpgroup waits on mbarrier 'kv.full' but no instruction ever arrives "
            "on it (MB_ARRIVE, MB_ARRIVE_EXPECT_TX or STAGE_RELEASE)");
  EXPECT_EQ(finish_error([](KernelBuilder& b) { b.stage_acquire("kv", "0"); }),
            "v.asim:7: a warpgroup waits on mbarrier 'kv.empty' but no instruction ever arrives "
            "on it (MB_ARRIVE, MB_ARRIVE_EXPECT_TX or STAGE_RELEASE)");
}

TEST(Verifier, ExpectTxMatchesLoadsOfTheBlock) {
  EXPECT_EQ(finish_error([](KernelBuilder& b) {
              b.mb_arrive_expect_tx("full", "0", "4096");
              b.tma_load("A", {"0", "0"}, "full", "0");
            }),
            "v.asim:7: expect_tx on mbarrier 'full' is 4096 bytes but the TMA loads of the same "
            "loop body deliver 8192 bytes");
  EXPECT_EQ(finish_error([](KernelBuilder& b) {
              b.mb_arrive_expect_tx("full", "0", "8192");
              b.loop("i", "0", "2");
              b.tma_load("A", {"0", "0"}, "full", "0");
              b.end_loop();
            }),
            "v.asim:7: TMA loads complete transactions on mbarrier 'full' but no expect_tx arms "
            "it in the same loop body");
}

TEST(Verifier, TensorMapCoordinatesAndReferences) {
  KernelBuilder b = fixture();
  b.tma_store("A", {"0", "0"});
  b.stage_release("kv", "0");
  b.mb_arrive("full", "0");
  const Kernel good = b.finish();
  Kernel k = good;
  k.roles[0].code[0].args[2] = k.exprs.constant(0);
  EXPECT_EQ(verify_error(k), "v.asim:7: TMA_STORE on tensor map 'A' (rank 2) has 3 coordinates");
  k = good;
  k.roles[0].code[0].ref = 1;
  EXPECT_EQ(verify_error(k), "v.asim:7: TMA_STORE refers to tensor map #1 but the kernel has 1");
  k = good;
  k.roles[0].code[1].ref = 4;
  EXPECT_EQ(verify_error(k),
            "v.asim:7: STAGE_RELEASE refers to ring #4 but the kernel has 1 "
            "(STAGE_* instructions work on rings)");
  k = good;
  k.roles[0].code[2].bar.array = 9;
  EXPECT_EQ(verify_error(k),
            "v.asim:7: MB_ARRIVE refers to mbarrier array #9 but the kernel "
            "has 3");
}

}  // namespace
}  // namespace asyncsim::program
