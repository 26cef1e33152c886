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
    case Op::kMbWait: return in.bar.array;
    case Op::kStageAcquire: return k.rings[in.ref].empty;
    case Op::kStageWait: return k.rings[in.ref].full;
    default: return -1;
  }
}

int arrives_on(const Kernel& k, const Instr& in) {
  switch (in.op) {
    case Op::kMbArrive:
    case Op::kMbArriveExpectTx: return in.bar.array;
    case Op::kStageRelease: return k.rings[in.ref].empty;
    default: return -1;
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

// Within one straight-line block, the expect_tx bytes on a barrier array must equal the bytes
// the TMA loads of that block deliver to it (when both are known statically).
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
                          "arms it in the same block",
                          k.barriers[bar].name);
      }
      if (all_constant && e->second != bytes) {
        throw_input_error(at(k, first_line[bar]),
                          "expect_tx on mbarrier '{}' is {} bytes but the TMA loads of the same "
                          "block deliver {} bytes",
                          k.barriers[bar].name, e->second, bytes);
      }
    }
    expected.clear();
    loaded.clear();
    first_line.clear();
    all_constant = true;
  };
  for (const Instr& in : role.code) {
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
      check_constant_index(k, in);
      if (in.op == Op::kBarSync || in.op == Op::kBarArrive) {
        check_named_barrier(k, in);
      }
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
