#include "program/verifier.h"

#include <map>
#include <set>

#include "util/error.h"

namespace asyncsim::program {
namespace {

std::string at(const Kernel& k, uint32_t line) {
  return format_location(k.source, static_cast<int>(line));
}

bool is_control(Op op) {
  return op == Op::kLoop || op == Op::kEndLoop || op == Op::kIf || op == Op::kElse ||
         op == Op::kEndIf || op == Op::kExit;
}

// Barrier arrays an instruction waits on / arrives on.
int waits_on(const Kernel& k, const Instr& in) {
  switch (in.op) {
    case Op::kMbWait:
      return in.bar.array;
    case Op::kStageAcquire:
      return k.rings[in.ref].empty;
    case Op::kStageWait:
      return k.rings[in.ref].full;
    default:
      return -1;
  }
}

int arrives_on(const Kernel& k, const Instr& in) {
  switch (in.op) {
    case Op::kMbArrive:
    case Op::kMbArriveExpectTx:
      return in.bar.array;
    case Op::kStageRelease:
      return k.rings[in.ref].empty;
    default:
      return -1;
  }
}

bool uses_map(Op op) {
  return op == Op::kTmaLoad || op == Op::kTmaStore;
}
bool uses_ring(Op op) {
  return op == Op::kStageAcquire || op == Op::kStageWait || op == Op::kStageRelease;
}
bool uses_barrier(Op op) {
  return op == Op::kTmaLoad || op == Op::kBulkLoad || op == Op::kMbArrive ||
         op == Op::kMbExpectTx || op == Op::kMbArriveExpectTx || op == Op::kMbWait;
}

// References into the kernel's tables; checked first so later checks may index freely.
void check_references(const Kernel& k, const Instr& in) {
  if (uses_map(in.op) && in.ref >= k.maps.size()) {
    throw_input_error(at(k, in.line), "{} refers to tensor map #{} but the kernel has {}",
                      op_name(in.op), in.ref, k.maps.size());
  }
  if (uses_ring(in.op) && in.ref >= k.rings.size()) {
    throw_input_error(at(k, in.line),
                      "{} refers to ring #{} but the kernel has {} (STAGE_* "
                      "instructions work on rings)",
                      op_name(in.op), in.ref, k.rings.size());
  }
  if ((in.op == Op::kCompute || in.op == Op::kWgmma) && in.ref > k.labels.size()) {
    throw_input_error(at(k, in.line), "{} refers to label #{} but the kernel has {}",
                      op_name(in.op), in.ref, k.labels.size());
  }
  if (uses_barrier(in.op) && in.bar.array >= k.barriers.size()) {
    throw_input_error(at(k, in.line), "{} refers to mbarrier array #{} but the kernel has {}",
                      op_name(in.op), in.bar.array, k.barriers.size());
  }
}

// A TMA copy gives exactly one coordinate per dimension of its tensor map.
void check_coordinates(const Kernel& k, const Instr& in) {
  const TensorMap& m = k.maps[in.ref];
  int given = 0;
  while (given < kMaxArgs && in.args[given] != kNoExpr) {
    ++given;
  }
  if (given != m.rank) {
    throw_input_error(at(k, in.line), "{} on tensor map '{}' (rank {}) has {} coordinates",
                      op_name(in.op), m.name, m.rank, given);
  }
}

// Fails when `id` is a constant below `min`.
void check_at_least(const Kernel& k, const Instr& in, ExprId id, int64_t min, const char* what) {
  int64_t v = 0;
  if (k.exprs.is_constant(id, &v) && v < min) {
    throw_input_error(at(k, in.line), "{} {} must be >= {}, got {}", op_name(in.op), what, min, v);
  }
}

// A thread's global access is 1, 2, 4, 8 or 16 bytes (ld/st .u8 ... .v4.u32).
void check_access_width(const Kernel& k, const Instr& in) {
  int64_t w = 0;
  if (k.exprs.is_constant(in.args[4], &w) && w != 1 && w != 2 && w != 4 && w != 8 && w != 16) {
    throw_input_error(at(k, in.line), "{} width must be 1, 2, 4, 8 or 16 bytes, got {}",
                      op_name(in.op), w);
  }
}

void check_wgmma(const Kernel& k, const Instr& in) {
  int64_t n = 0;
  if (k.exprs.is_constant(in.args[0], &n) && (n < 8 || n > 256 || n % 8 != 0)) {
    throw_input_error(at(k, in.line), "wgmma N must be a multiple of 8 in [8, 256], got {}", n);
  }
  if (in.dtype == DType::kF32) {
    throw_input_error(at(k, in.line),
                      "wgmma does not take f32 inputs (expected f16, bf16, tf32, e4m3 or e5m2)");
  }
  check_at_least(k, in, in.args[1], 1, "repeat");
}

// cp.async.bulk copies a positive multiple of 16 bytes.
void check_bulk_size(const Kernel& k, const Instr& in) {
  int64_t bytes = 0;
  if (k.exprs.is_constant(in.args[1], &bytes) && (bytes <= 0 || bytes % 16 != 0)) {
    throw_input_error(at(k, in.line), "{} size must be a positive multiple of 16 bytes, got {}",
                      op_name(in.op), bytes);
  }
}

void check_constant_index(const Kernel& k, const Instr& in) {
  int64_t idx = 0;
  if (in.bar.array != kNoBarrier && k.exprs.is_constant(in.bar.index, &idx)) {
    const BarrierArray& b = k.barriers[in.bar.array];
    if (idx < 0 || idx >= b.size) {
      throw_input_error(at(k, in.line), "mbarrier index {} is outside '{}' (size {})", idx, b.name,
                        b.size);
    }
  }
}

void check_named_barrier(const Kernel& k, const Instr& in) {
  int64_t id = 0;
  int64_t threads = 0;
  if (k.exprs.is_constant(in.args[0], &id) && (id < 0 || id > 15)) {
    throw_input_error(at(k, in.line), "named barrier id must be in [0, 15], got {}", id);
  }
  if (k.exprs.is_constant(in.args[1], &threads)) {
    if (threads < 128 || threads % 128 != 0 || threads > k.threads_per_cta()) {
      throw_input_error(at(k, in.line),
                        "named barrier thread count must be a multiple of 128 in [128, {}] "
                        "(whole warpgroups of this CTA), got {}",
                        k.threads_per_cta(), threads);
    }
  }
}

// Within one loop body (IF/ELSE do not split it: compiled kernels predicate the expect_tx and
// each copy separately), the expect_tx bytes on a barrier array must equal the bytes the TMA
// loads of that body deliver to it (when both are known statically).
void check_tx_bytes(const Kernel& k, const Role& role) {
  std::map<int, int64_t> expected;
  std::map<int, int64_t> loaded;
  std::map<int, uint32_t> first_line;
  bool all_constant = true;
  auto flush = [&]() {
    for (const auto& [bar, bytes] : loaded) {
      const auto e = expected.find(bar);
      if (e == expected.end()) {
        throw_input_error(at(k, first_line[bar]),
                          "TMA loads complete transactions on mbarrier '{}' but no expect_tx "
                          "arms it in the same loop body",
                          k.barriers[bar].name);
      }
      if (all_constant && e->second != bytes) {
        throw_input_error(at(k, first_line[bar]),
                          "expect_tx on mbarrier '{}' is {} bytes but the TMA loads of the same "
                          "loop body deliver {} bytes",
                          k.barriers[bar].name, e->second, bytes);
      }
    }
    expected.clear();
    loaded.clear();
    first_line.clear();
    all_constant = true;
  };
  for (const Instr& in : role.code) {
    if (in.op == Op::kIf || in.op == Op::kElse || in.op == Op::kEndIf) {
      continue;
    }
    if (is_control(in.op)) {
      flush();
      continue;
    }
    int64_t v = 0;
    if (in.op == Op::kMbExpectTx || in.op == Op::kMbArriveExpectTx) {
      if (!k.exprs.is_constant(in.args[0], &v)) {
        all_constant = false;
      }
      expected[in.bar.array] += v;
    } else if (in.op == Op::kTmaLoad) {
      loaded[in.bar.array] += k.maps[in.ref].box_bytes();
      first_line.emplace(in.bar.array, in.line);
    } else if (in.op == Op::kBulkLoad) {
      if (!k.exprs.is_constant(in.args[1], &v)) {
        all_constant = false;
      }
      loaded[in.bar.array] += v;
      first_line.emplace(in.bar.array, in.line);
    }
  }
  flush();
}

// Operand checks of one instruction. Loops whose constant begin >= end run zero times and are
// accepted (a trip count below zero counts as zero).
void check_instruction(const Kernel& k, const Instr& in) {
  check_references(k, in);
  check_constant_index(k, in);
  switch (in.op) {
    case Op::kTmaLoad:
    case Op::kTmaStore:
      check_coordinates(k, in);
      break;
    case Op::kBulkLoad:
    case Op::kBulkStore:
      check_bulk_size(k, in);
      break;
    case Op::kWgmma:
      check_wgmma(k, in);
      break;
    case Op::kWgmmaWait:
      check_at_least(k, in, in.args[0], 0, "group count");
      break;
    case Op::kLdGlobal:
    case Op::kStGlobal:
      check_at_least(k, in, in.args[0], 0, "address");
      check_at_least(k, in, in.args[1], 1, "bytes");
      check_at_least(k, in, in.args[2], 1, "rows");
      check_at_least(k, in, in.args[3], 0, "stride");
      check_access_width(k, in);
      break;
    case Op::kLdWait:
      check_at_least(k, in, in.args[0], 0, "load count");
      break;
    case Op::kTmaStoreWait:
      check_at_least(k, in, in.args[0], 0, "store count");
      break;
    case Op::kMbArrive:
      check_at_least(k, in, in.args[0], 1, "count");
      break;
    case Op::kStageAcquire:
    case Op::kStageWait:
    case Op::kStageRelease:
      check_at_least(k, in, in.args[0], 0, "iteration");
      break;
    case Op::kBarSync:
    case Op::kBarArrive:
      check_named_barrier(k, in);
      break;
    default:
      break;
  }
}

}  // namespace

void verify(const Kernel& k) {
  if (k.threads_per_cta() > 1024 + 128 * 4) {
    throw_input_error(format_location(k.source, 0), "a CTA of {} threads is larger than 1536",
                      k.threads_per_cta());
  }
  std::set<int> waited;
  std::set<int> arrived;
  std::map<int, uint32_t> wait_line;
  for (const Role& role : k.roles) {
    for (const Instr& in : role.code) {
      check_instruction(k, in);
      if (const int w = waits_on(k, in); w >= 0) {
        waited.insert(w);
        wait_line.emplace(w, in.line);
      }
      if (const int a = arrives_on(k, in); a >= 0) {
        arrived.insert(a);
      }
    }
    check_tx_bytes(k, role);
  }
  for (const int w : waited) {
    if (!arrived.count(w)) {
      throw_input_error(at(k, wait_line[w]),
                        "a warpgroup waits on mbarrier '{}' but no instruction ever arrives on it "
                        "(MB_ARRIVE, MB_ARRIVE_EXPECT_TX or STAGE_RELEASE)",
                        k.barriers[w].name);
    }
  }
}

}  // namespace asyncsim::program
