#include "program/ir.h"

#include <algorithm>

namespace asyncsim::program {

int dtype_bytes(DType t) {
  switch (t) {
    case DType::kF16:
    case DType::kBF16:
      return 2;
    case DType::kTF32:
    case DType::kF32:
      return 4;
    case DType::kFP8E4M3:
    case DType::kFP8E5M2:
      return 1;
  }
  return 2;
}

const char* dtype_name(DType t) {
  switch (t) {
    case DType::kF16:
      return "f16";
    case DType::kBF16:
      return "bf16";
    case DType::kTF32:
      return "tf32";
    case DType::kF32:
      return "f32";
    case DType::kFP8E4M3:
      return "e4m3";
    case DType::kFP8E5M2:
      return "e5m2";
  }
  return "?";
}

bool parse_dtype(const std::string& s, DType& out) {
  static const std::pair<const char*, DType> kNames[] = {
      {"f16", DType::kF16},      {"fp16", DType::kF16},    {"bf16", DType::kBF16},
      {"tf32", DType::kTF32},    {"f32", DType::kF32},     {"fp32", DType::kF32},
      {"e4m3", DType::kFP8E4M3}, {"fp8", DType::kFP8E4M3}, {"e5m2", DType::kFP8E5M2}};
  for (const auto& [name, t] : kNames) {
    if (s == name) {
      out = t;
      return true;
    }
  }
  return false;
}

const char* op_name(Op op) {
  switch (op) {
    case Op::kTmaLoad:
      return "TMA_LOAD";
    case Op::kTmaStore:
      return "TMA_STORE";
    case Op::kBulkLoad:
      return "BULK_LOAD";
    case Op::kBulkStore:
      return "BULK_STORE";
    case Op::kLdGlobal:
      return "LD_GLOBAL";
    case Op::kStGlobal:
      return "ST_GLOBAL";
    case Op::kLdWait:
      return "LD_WAIT";
    case Op::kTmaStoreWait:
      return "TMA_STORE_WAIT";
    case Op::kMbArrive:
      return "MB_ARRIVE";
    case Op::kMbExpectTx:
      return "MB_EXPECT_TX";
    case Op::kMbArriveExpectTx:
      return "MB_ARRIVE_EXPECT_TX";
    case Op::kMbWait:
      return "MB_WAIT";
    case Op::kWgmma:
      return "WGMMA";
    case Op::kWgmmaCommit:
      return "WGMMA_COMMIT";
    case Op::kWgmmaWait:
      return "WGMMA_WAIT";
    case Op::kBarSync:
      return "BAR_SYNC";
    case Op::kBarArrive:
      return "BAR_ARRIVE";
    case Op::kStageAcquire:
      return "STAGE_ACQUIRE";
    case Op::kStageWait:
      return "STAGE_WAIT";
    case Op::kStageRelease:
      return "STAGE_RELEASE";
    case Op::kCompute:
      return "COMPUTE";
    case Op::kLoop:
      return "LOOP";
    case Op::kEndLoop:
      return "END";
    case Op::kIf:
      return "IF";
    case Op::kElse:
      return "ELSE";
    case Op::kEndIf:
      return "END";
    case Op::kExit:
      return "EXIT";
  }
  return "?";
}

int64_t TensorMap::box_bytes() const {
  int64_t n = dtype_bytes(dtype);
  for (int d = 0; d < rank; ++d) {
    n *= box[d];
  }
  return n;
}

int64_t TensorMap::extent_bytes() const {
  int64_t n = strides[0];  // the last element itself
  for (int d = 0; d < rank; ++d) {
    n += std::max<int64_t>(dims[static_cast<size_t>(d)] - 1, 0) * strides[static_cast<size_t>(d)];
  }
  return n;
}

int Kernel::warpgroups_per_cta() const {
  int n = 0;
  for (const auto& r : roles) {
    n += r.warpgroups;
  }
  return n;
}

template <typename T>
static int find_named(const std::vector<T>& v, const std::string& name) {
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i].name == name) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

int Kernel::find_map(const std::string& n) const {
  return find_named(maps, n);
}
int Kernel::find_barrier(const std::string& n) const {
  return find_named(barriers, n);
}
int Kernel::find_ring(const std::string& n) const {
  return find_named(rings, n);
}

const std::string* Kernel::label_of(const Instr& in) const {
  const bool labelled = in.op == Op::kCompute || in.op == Op::kWgmma;
  return labelled && in.ref > 0 && in.ref <= labels.size() ? &labels[in.ref - 1u] : nullptr;
}

int wgmma_k(DType t) {
  return 32 / dtype_bytes(t);
}

}  // namespace asyncsim::program
