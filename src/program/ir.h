// The program IR: a kernel is a grid of CTAs; a CTA is a set of roles; each role is one or more
// warpgroups that run the same instruction stream. Programs are parametric: operands are integer
// expressions over the CTA id, the warpgroup index and loop counters, and loops stay loops, so
// the size of a program does not depend on the grid or the trip counts.
// The text form of this IR is specified in docs/program-format.md.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "program/expr.h"

namespace asyncsim::program {

enum class DType : uint8_t { kF16, kBF16, kTF32, kF32, kFP8E4M3, kFP8E5M2 };
int dtype_bytes(DType t);
const char* dtype_name(DType t);
bool parse_dtype(const std::string& s, DType& out);

enum class Swizzle : uint8_t { kNone, k32B, k64B, k128B };

inline constexpr int kMaxTensorRank = 5;

// A TMA tensor map (CUtensorMap): dims[0] is the contiguous dimension.
struct TensorMap {
  std::string name;
  DType dtype = DType::kF16;
  int rank = 2;
  std::array<int64_t, kMaxTensorRank> dims{};     // elements per dimension
  std::array<int64_t, kMaxTensorRank> strides{};  // bytes; strides[0] = element size
  std::array<int32_t, kMaxTensorRank> box{};      // elements per dimension of one copy
  uint64_t base = 0;                              // global byte address
  Swizzle swizzle = Swizzle::kNone;
  int line = 0;

  int64_t box_bytes() const;  // bytes one copy delivers to shared memory (OOB included)
  // Bytes from `base` to the end of the tensor's last element (the address range it spans).
  int64_t extent_bytes() const;
};

// An array of mbarriers in each CTA's shared memory; `arrivals` is the expected arrival count
// per phase (transaction bytes are added per phase by expect_tx).
struct BarrierArray {
  std::string name;
  int size = 1;
  int arrivals = 1;
  int line = 0;
};

// A producer/consumer stage ring: barrier arrays NAME.full (1 arrival + transaction bytes) and
// NAME.empty (`consumers` arrivals), `stages` deep.
struct Ring {
  std::string name;
  int stages = 1;
  int consumers = 1;
  uint16_t full = 0;   // BarrierArray index
  uint16_t empty = 0;  // BarrierArray index
  int line = 0;
};

enum class Op : uint8_t {
  kTmaLoad,       // ref=map, args[0..rank)=coordinates (elements), bar
  kTmaStore,      // ref=map, args[0..rank)=coordinates
  kBulkLoad,      // args[0]=global address, args[1]=bytes, bar
  kBulkStore,     // args[0]=global address, args[1]=bytes
  kTmaStoreWait,  // args[0]=n: wait until at most n bulk stores still read shared memory
  kLdGlobal,    // args[0]=address, args[1]=bytes per row, args[2]=rows, args[3]=row stride (bytes),
                // args[4]=bytes per thread access (1, 2, 4, 8 or 16):
                // the warpgroup's coalesced ld.global (load/store unit, L1 bypassed), registers
  kStGlobal,    // the same operands: st.global from registers
  kLdWait,      // args[0]=n: wait until at most n LD_GLOBAL of the warpgroup are pending
  kMbArrive,    // bar, args[0]=count
  kMbExpectTx,  // bar, args[0]=bytes
  kMbArriveExpectTx,  // bar, args[0]=bytes (one arrival + expect_tx)
  kMbWait,            // bar, args[0]=parity; flags&kFlagSuspend: try_wait with a suspend hint
  kWgmma,         // args[0]=N, args[1]=repeat; dtype, flags&kFlagRs: A from registers; ref=label
  kWgmmaCommit,   //
  kWgmmaWait,     // args[0]=n: wait until at most n groups are pending
  kBarSync,       // args[0]=barrier id, args[1]=threads: arrive and wait (bar.sync/bar.wait)
  kBarArrive,     // args[0]=barrier id, args[1]=threads: arrive only
  kStageAcquire,  // ref=ring, args[0]=iteration: wait until the slot is empty
  kStageWait,     // ref=ring, args[0]=iteration: wait until the slot is full
  kStageRelease,  // ref=ring, args[0]=iteration: mark the slot empty (one consumer arrival)
  kCompute,       // args[0..7] = fp32, fp16, mufu, cvt, int, smem bytes, raw cycles, other
                  // per-thread instructions (issue slots only); ref=label
  kLoop,          // ref=depth, args[0]=begin, args[1]=end (exclusive); jump=matching kEndLoop
  kEndLoop,       // jump=matching kLoop
  kIf,            // args[0]=condition; jump=matching kElse or kEndIf
  kElse,          // jump=matching kEndIf
  kEndIf,         //
  kExit,          //
};
const char* op_name(Op op);

inline constexpr uint8_t kFlagSuspend = 1;   // kMbWait
inline constexpr uint8_t kFlagRs = 2;        // kWgmma: A operand in registers
inline constexpr uint8_t kFlagMeasured = 4;  // kCompute: cycles measured from a trace

inline constexpr int kMaxArgs = 8;
inline constexpr uint16_t kNoBarrier = UINT16_MAX;
inline constexpr int kMaxLoopDepth = 8;

// A reference to one mbarrier: array index plus an element-index expression.
struct BarrierRef {
  uint16_t array = kNoBarrier;
  ExprId index = kNoExpr;
};

struct Instr {
  Op op = Op::kExit;
  uint8_t flags = 0;
  DType dtype = DType::kF16;  // kWgmma
  uint16_t ref = 0;
  BarrierRef bar;
  std::array<ExprId, kMaxArgs> args{kNoExpr, kNoExpr, kNoExpr, kNoExpr,
                                    kNoExpr, kNoExpr, kNoExpr, kNoExpr};
  uint32_t jump = 0;
  uint32_t line = 0;  // source line, 0 when generated
};

struct Role {
  std::string name;
  int warpgroups = 1;
  std::vector<Instr> code;
  int line = 0;
  std::vector<std::string> loop_names{};  // counter of each kLoop in code order (for printing)
};

struct Kernel {
  std::string name = "kernel";
  std::string source = "<generated>";    // file name for messages
  std::array<int64_t, 3> grid{1, 1, 1};  // CTAs; x varies fastest in launch order
  int regs_per_thread = 128;
  int64_t smem_bytes = 0;  // per CTA
  // Bytes of machine code (`resources code=`; Triton / nvcc SASS: 16 B per instruction), fetched
  // cold at launch at sm.code_fetch_bytes_per_cycle. 0: as small as the launch microbenchmark's,
  // whose fetch sm.kernel_launch_cycles holds.
  int64_t code_bytes = 0;
  std::vector<TensorMap> maps;
  std::vector<BarrierArray> barriers;
  std::vector<Ring> rings;
  std::vector<Role> roles;
  // Names of COMPUTE / WGMMA work for timelines ("softmax", "QK^T"); such an instruction's ref is
  // 1 + its label's index, 0 when it has none.
  std::vector<std::string> labels;
  ExprPool exprs;

  int64_t num_ctas() const { return grid[0] * grid[1] * grid[2]; }
  int warpgroups_per_cta() const;
  int threads_per_cta() const { return warpgroups_per_cta() * 128; }
  int find_map(const std::string& n) const;
  int find_barrier(const std::string& n) const;
  int find_ring(const std::string& n) const;
  // The label of a COMPUTE or WGMMA instruction, or nullptr.
  const std::string* label_of(const Instr& in) const;
};

// Instruction shape of one wgmma: M=64 always; K from the data type (32 bytes of K).
int wgmma_k(DType t);

}  // namespace asyncsim::program
