// What a kernel costs beyond its work: launch, CTA dispatch and retirement, and the cold fetch
// of its code. Run under Nsight Compute by validation/hw/ncu_launch.py (kernel-only durations);
// prints one line per launch, in launch order, for the script to match with ncu's IDs:
//   launch,<kernel>,<grid>,<threads>,<code_insts>
// Kernels:
//   launch_empty     returns at once (grid 1 .. 16896 CTAs of 128 or 256 threads)
//   launch_store     thread 0 of each CTA stores one int (its CTA index) at 128-B spacing
//   launch_code_<N>  1 CTA of 32 threads runs N unrolled independent fadd.f32 (4 accumulators,
//                    straight-line code of N instructions, 16 B each) then stores the sum: the
//                    cold run (--cache-control all) minus the warm one gives the code fetch
//   launch_bulk      1 CTA, thread 0 copies one 8 KB block (cp.async.bulk, mbarrier) into shared
//                    memory, waits, stores one value: a first copy without a tensor map
//   launch_tma       the same 8 KB as one 64 x 64 fp16 box of a 2-D tensor map passed as a
//                    __grid_constant__ parameter (cp.async.bulk.tensor.2d): the difference to
//                    launch_bulk is what the tensor map's first use costs (a GEMM's first load)
// Each configuration is launched REPS times back to back.
#include "common.cuh"

__global__ void launch_empty() {}

__global__ void launch_store(int* out) {
  if (threadIdx.x == 0) out[(size_t)blockIdx.x * 32] = (int)blockIdx.x;
}

template <int N>
__global__ void launch_code(float* out, float x) {
  float a0 = x, a1 = x + 1.f, a2 = x + 2.f, a3 = x + 3.f;
#pragma unroll
  for (int i = 0; i < N / 4; ++i) {
    asm volatile("add.f32 %0, %0, %4;\n\tadd.f32 %1, %1, %4;\n\tadd.f32 %2, %2, %4;\n\t"
                 "add.f32 %3, %3, %4;"
                 : "+f"(a0), "+f"(a1), "+f"(a2), "+f"(a3)
                 : "f"(x));
  }
  out[threadIdx.x] = a0 + a1 + a2 + a3;
}

__global__ void launch_bulk(const void* src, int* out) {
  __shared__ alignas(128) uint8_t buf[8192];
  __shared__ alignas(8) uint64_t bar;
  if (threadIdx.x == 0) {
    mbar_init(&bar, 1);
    fence_mbar_init();
    mbar_expect_tx(&bar, sizeof buf);
    bulk_g2s(buf, src, sizeof buf, &bar);
    mbar_wait(&bar, 0);
    out[0] = buf[100];
  }
}

__global__ void launch_tma(const __grid_constant__ CUtensorMap map, int* out) {
  __shared__ alignas(128) uint8_t buf[8192];
  __shared__ alignas(8) uint64_t bar;
  if (threadIdx.x == 0) {
    mbar_init(&bar, 1);
    fence_mbar_init();
    mbar_expect_tx(&bar, sizeof buf);
    tma_load_2d(buf, &map, 0, 0, &bar);
    mbar_wait(&bar, 0);
    out[0] = buf[100];
  }
}

static const int REPS = 6;

template <int N>
static void run_code(float* out) {
  for (int r = 0; r < REPS; ++r) {
    launch_code<N><<<1, 32>>>(out, 1.0f);
    CKL();
    CK(cudaDeviceSynchronize());
    printf("launch,launch_code_%d,1,32,%d\n", N, N);
  }
}

int main(int argc, char** argv) {
  const bool smoke = argc > 1 && std::string(argv[1]) == "--smoke";
  int* iout;
  float* fout;
  CK(cudaMalloc(&iout, (size_t)16896 * 128));
  CK(cudaMalloc(&fout, 4096));
  std::vector<int> grids = {1, 66, 132, 264, 528, 1056, 2112, 4224, 8448, 16896};
  if (smoke) grids = {1, 132};
  for (int threads : {128, 256}) {
    for (int g : grids) {
      for (int r = 0; r < REPS; ++r) {
        launch_empty<<<g, threads>>>();
        CKL();
        CK(cudaDeviceSynchronize());
        printf("launch,launch_empty,%d,%d,0\n", g, threads);
      }
    }
  }
  for (int g : grids) {
    for (int r = 0; r < REPS; ++r) {
      launch_store<<<g, 128>>>(iout);
      CKL();
      CK(cudaDeviceSynchronize());
      printf("launch,launch_store,%d,128,0\n", g);
    }
  }
  {
    void* src;
    CK(cudaMalloc(&src, 1 << 20));
    CK(cudaMemset(src, 1, 1 << 20));
    const uint64_t dims[2] = {64, 1024}, strides[1] = {128};
    const uint32_t box[2] = {64, 64};
    const CUtensorMap map = make_tmap(src, 2, dims, strides, box);
    for (int r = 0; r < REPS; ++r) {
      launch_bulk<<<1, 32>>>(src, iout);
      CKL();
      CK(cudaDeviceSynchronize());
      printf("launch,launch_bulk,1,32,0\n");
    }
    for (int r = 0; r < REPS; ++r) {
      launch_tma<<<1, 32>>>(map, iout);
      CKL();
      CK(cudaDeviceSynchronize());
      printf("launch,launch_tma,1,32,0\n");
    }
    CK(cudaFree(src));
  }
  run_code<64>(fout);
  run_code<512>(fout);
  run_code<2048>(fout);
  run_code<8192>(fout);
  CK(cudaFree(iout));
  CK(cudaFree(fout));
  return 0;
}
