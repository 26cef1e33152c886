// Requests no SM or device of the config could hold (src/sim/resource_check.cpp): each is an
// InputError naming what and how much, raised before anything is built for the kernel.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "test_util.h"
#include "util/error.h"

namespace asyncsim {
namespace {

using program::KernelBuilder;
using testing::simple_gpu;

// A kernel of one empty role with the given shared memory and barriers.
program::Kernel empty_kernel(int64_t smem, int barriers = 0) {
  KernelBuilder b("resources");
  b.set_resources(128, smem);
  if (barriers > 0) {
    b.add_barrier("full", barriers, 1);
  }
  b.begin_role("main", 1);
  b.end_role();
  return b.finish();
}

// The message of the InputError simulate() raises, or "" when it raises none.
std::string input_error(const program::Kernel& k, const GpuConfig& gpu) {
  try {
    simulate(k, gpu);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Resources, CtaThatDoesNotFitIsAnInputError) {
  EXPECT_NE(input_error(empty_kernel(300000), simple_gpu()).find("300000 bytes of shared memory"),
            std::string::npos);
}

// sm.smem_bytes below a CTA's need (with sm.smem_per_cta_max above it) is an impossible request,
// reported as such, not as a deadlock of a kernel none of whose CTAs could start.
TEST(Resources, CtaLargerThanTheSmsSharedMemoryIsAnInputError) {
  GpuConfig gpu = simple_gpu();
  gpu.sm.smem_per_cta_max = 200000;
  gpu.sm.smem_reserved_per_cta = 1024;
  gpu.sm.smem_bytes = 1000;
  EXPECT_NE(input_error(empty_kernel(4096), gpu)
                .find("a CTA needs 4096 bytes of shared memory (+ 1024 reserved, "
                      "sm.smem_reserved_per_cta); an SM has 1000 (sm.smem_bytes)"),
            std::string::npos);
  gpu.sm.smem_bytes = 4096 + 1024;  // exactly one CTA's worth with the reserve: it runs
  EXPECT_EQ(input_error(empty_kernel(4096), gpu), "");
  gpu.sm.smem_bytes = 4096 + 1023;  // the CTA's own 4096 fit, the reserve does not
  EXPECT_NE(input_error(empty_kernel(4096), gpu), "");
}

// mbarriers live in shared memory (8 B each): a CTA of 100000 is an input error, found before
// the SMs allocate every CTA slot's barrier state (which took minutes and gigabytes).
TEST(Resources, MoreMbarriersThanSharedMemoryIsAnInputError) {
  EXPECT_NE(input_error(empty_kernel(0, 100000), simple_gpu())
                .find("a CTA's 100000 mbarriers need 800000 bytes of shared memory; simple "
                      "allows at most 232448 per CTA"),
            std::string::npos);
}

// dram.capacity_bytes bounds the bytes a kernel's tensor maps cover, as a union: two maps of one
// 1 MiB buffer fit 1.5 MiB of device memory, two buffers side by side do not.
TEST(Resources, TensorsBeyondDeviceMemoryAreAnInputError) {
  GpuConfig gpu = simple_gpu();
  gpu.mem.dram_capacity_bytes = 3 << 19;  // 1.5 MiB
  const auto kernel = [](uint64_t second_base) {
    KernelBuilder b("two_maps");
    b.add_map(testing::map2d("a", 512, 1024, 2, 64, 0));  // 512 x 1024 fp16 = 1 MiB
    b.add_map(testing::map2d("b", 512, 1024, 2, 64, second_base));
    b.begin_role("main", 1);
    b.end_role();
    return b.finish();
  };
  EXPECT_EQ(input_error(kernel(0), gpu), "");
  EXPECT_EQ(input_error(kernel(1 << 19), gpu), "");  // overlapping by half: 1.5 MiB in all
  EXPECT_NE(input_error(kernel(1 << 20), gpu)
                .find("the kernel's tensors cover 2097152 bytes (0.0021 GB); simple has 1572864 "
                      "bytes of device memory (dram.capacity_bytes)"),
            std::string::npos);
}

}  // namespace
}  // namespace asyncsim
