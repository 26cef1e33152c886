// The timed gather of dram_spread.cu and dram_repeat.cu: one warp, sample i: lane j < rows loads
// one 4-byte word (ld.global.cg) at base + offs[i * 32 + j], all lanes in one instruction;
// clock64 before it and after a warp reduction of the loaded words. out[2i] is that time, out[2i+1]
// the same loads again at once (L2 hits).
#pragma once
#include "common.cuh"

__global__ void __launch_bounds__(32, 1)
    spread_kernel(const uint8_t* __restrict__ base, const unsigned long long* __restrict__ offs,
                  int rows, int n, long long* out, int* sink) {
  const int lane = threadIdx.x;
  uint32_t acc = 0;
  for (int i = 0; i < n; ++i) {
    const unsigned long long o = offs[(size_t)i * 32 + lane];
    const uint32_t* p = (const uint32_t*)(base + o);
    // Every lane's address is in its register before the first clock read.
    acc += __reduce_or_sync(0xffffffffu, (uint32_t)o);
    for (int pass = 0; pass < 2; ++pass) {
      const long long t0 = clock64();
      uint32_t v = 0;
      if (lane < rows) asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p));
      const uint32_t r = __reduce_or_sync(0xffffffffu, v);
      asm volatile("" ::"r"(r));
      const long long t1 = clock64();
      acc += r;
      if (lane == 0) out[(size_t)i * 2 + pass] = t1 - t0;
    }
  }
  if (acc == 0x12345678u) sink[0] = (int)acc;
}
