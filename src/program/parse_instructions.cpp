#include "program/parse_instructions.h"

#include <cctype>

#include "util/error.h"

namespace asyncsim::program {
namespace {

constexpr const char* kBarrierWhat = "an mbarrier such as full[i] or kv.full[i]";

using Handler = void (*)(Operands&, KernelBuilder&, const std::string& where);

// An mbarrier operand: NAME[INDEX], or NAME alone for element 0.
Subscript barrier(const std::string& text, const std::string& where) {
  Subscript s = split_subscript(text, where, kBarrierWhat);
  return s.index.empty() ? Subscript{s.name, std::string(1, '0')} : s;
}

void tma_load(Operands& ops, KernelBuilder& b, const std::string& where) {
  const std::string map = ops.word("a tensor map name");
  const auto coords = split_list(ops.word("coordinates such as [x, y]"), where, "coordinates");
  const Subscript bar = barrier(ops.required_key("bar", kBarrierWhat), where);
  ops.done();
  b.tma_load(map, coords, bar.name, bar.index);
}

void tma_store(Operands& ops, KernelBuilder& b, const std::string& where) {
  const std::string map = ops.word("a tensor map name");
  const auto coords = split_list(ops.word("coordinates such as [x, y]"), where, "coordinates");
  ops.done();
  b.tma_store(map, coords);
}

void bulk_load(Operands& ops, KernelBuilder& b, const std::string& where) {
  const std::string addr = ops.required_key("addr", "global byte address");
  const std::string bytes = ops.required_key("bytes", "bytes to copy");
  const Subscript bar = barrier(ops.required_key("bar", kBarrierWhat), where);
  ops.done();
  b.bulk_load(addr, bytes, bar.name, bar.index);
}

void bulk_store(Operands& ops, KernelBuilder& b, const std::string&) {
  const std::string addr = ops.required_key("addr", "global byte address");
  const std::string bytes = ops.required_key("bytes", "bytes to copy");
  ops.done();
  b.bulk_store(addr, bytes);
}

// LD_GLOBAL / ST_GLOBAL addr=A bytes=N [rows=R stride=S]
void lsu_access(Operands& ops, KernelBuilder& b, bool store) {
  const std::string addr = ops.required_key("addr", "global byte address");
  const std::string bytes = ops.required_key("bytes", "bytes per row");
  const std::string rows = ops.key("rows").value_or("1");
  const std::string stride = ops.key("stride").value_or("0");
  const std::string width = ops.key("width").value_or("16");
  ops.done();
  if (store) {
    b.st_global(addr, bytes, rows, stride, width);
  } else {
    b.ld_global(addr, bytes, rows, stride, width);
  }
}

void ld_global(Operands& ops, KernelBuilder& b, const std::string&) {
  lsu_access(ops, b, false);
}

void st_global(Operands& ops, KernelBuilder& b, const std::string&) {
  lsu_access(ops, b, true);
}

void ld_wait(Operands& ops, KernelBuilder& b, const std::string&) {
  const std::string n = ops.rest("the number of LD_GLOBAL that may stay pending");
  ops.done();
  b.ld_wait(n);
}

void tma_store_wait(Operands& ops, KernelBuilder& b, const std::string&) {
  const std::string n = ops.rest("the number of stores that may stay in flight");
  ops.done();
  b.tma_store_wait(n);
}

void mb_arrive(Operands& ops, KernelBuilder& b, const std::string& where) {
  const Subscript bar = barrier(ops.word(kBarrierWhat), where);
  const std::string count = ops.key("count").value_or("1");
  ops.done();
  b.mb_arrive(bar.name, bar.index, count);
}

void mb_expect_tx(Operands& ops, KernelBuilder& b, const std::string& where) {
  const Subscript bar = barrier(ops.word(kBarrierWhat), where);
  const std::string bytes = ops.required_key("bytes", "transaction bytes");
  ops.done();
  b.mb_expect_tx(bar.name, bar.index, bytes);
}

void mb_arrive_expect_tx(Operands& ops, KernelBuilder& b, const std::string& where) {
  const Subscript bar = barrier(ops.word(kBarrierWhat), where);
  const std::string bytes = ops.required_key("bytes", "transaction bytes");
  ops.done();
  b.mb_arrive_expect_tx(bar.name, bar.index, bytes);
}

void mb_wait(Operands& ops, KernelBuilder& b, const std::string& where) {
  const bool suspend = ops.flag("suspend");
  const Subscript bar = barrier(ops.word(kBarrierWhat), where);
  const std::string parity = ops.required_key("parity", "the phase parity to wait for, 0 or 1");
  ops.done();
  b.mb_wait(bar.name, bar.index, parity, suspend);
}

bool all_digits(const std::string& s) {
  for (const char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) {
      return false;
    }
  }
  return !s.empty();
}

// "m64n128k16" -> N text "128" and K text "16"; N may be a name or a parenthesized expression.
void split_shape(const std::string& shape, const std::string& where, std::string& n,
                 std::string& k) {
  const size_t kpos = shape.rfind('k');
  if (shape.rfind("m64n", 0) != 0 || kpos == std::string::npos || kpos <= 4 ||
      !all_digits(shape.substr(kpos + 1))) {
    throw_input_error(where, "WGMMA: expected a shape m64nNkK such as m64n128k16, got '{}'", shape);
  }
  n = shape.substr(4, kpos - 4);
  k = shape.substr(kpos + 1);
}

void wgmma(Operands& ops, KernelBuilder& b, const std::string& where) {
  std::string n;
  std::string k;
  split_shape(ops.word("a shape such as m64n128k16"), where, n, k);
  const std::string dtype_text = ops.word("an input type (f16, bf16, tf32, e4m3 or e5m2)");
  const std::string mode = ops.word("ss or rs (where the A operand comes from)");
  const std::string repeat = ops.key("repeat").value_or("1");
  const std::string label = ops.key("label").value_or("");
  ops.done();
  DType dtype{};
  if (!parse_dtype(dtype_text, dtype)) {
    throw_input_error(where,
                      "WGMMA: unknown input type '{}' (expected f16, bf16, tf32, e4m3 or "
                      "e5m2)",
                      dtype_text);
  }
  if (mode != "ss" && mode != "rs") {
    throw_input_error(where, "WGMMA: expected ss or rs, got '{}'", mode);
  }
  if (k.size() > 3 || std::stoi(k) != wgmma_k(dtype)) {
    throw_input_error(where, "WGMMA: shape k{} does not match input type {} (expected k{})", k,
                      dtype_name(dtype), wgmma_k(dtype));
  }
  b.wgmma(n, repeat, dtype, mode == "rs", label);
}

void wgmma_commit(Operands& ops, KernelBuilder& b, const std::string&) {
  ops.done();
  b.wgmma_commit();
}

void wgmma_wait(Operands& ops, KernelBuilder& b, const std::string&) {
  const std::string n = ops.rest("the number of wgmma groups that may stay pending");
  ops.done();
  b.wgmma_wait(n);
}

void bar_sync(Operands& ops, KernelBuilder& b, const std::string&) {
  const std::string id = ops.rest("a named barrier id");
  const std::string threads = ops.required_key("threads", "participating threads");
  ops.done();
  b.bar_sync(id, threads);
}

void bar_arrive(Operands& ops, KernelBuilder& b, const std::string&) {
  const std::string id = ops.rest("a named barrier id");
  const std::string threads = ops.required_key("threads", "participating threads");
  ops.done();
  b.bar_arrive(id, threads);
}

void stage(Operands& ops, KernelBuilder& b,
           void (KernelBuilder::*fn)(const std::string&, const std::string&)) {
  const std::string ring = ops.word("a ring name");
  const std::string iteration = ops.rest("the ring iteration");
  ops.done();
  (b.*fn)(ring, iteration);
}

void stage_acquire(Operands& ops, KernelBuilder& b, const std::string&) {
  stage(ops, b, &KernelBuilder::stage_acquire);
}
void stage_wait(Operands& ops, KernelBuilder& b, const std::string&) {
  stage(ops, b, &KernelBuilder::stage_wait);
}
void stage_release(Operands& ops, KernelBuilder& b, const std::string&) {
  stage(ops, b, &KernelBuilder::stage_release);
}

void compute(Operands& ops, KernelBuilder& b, const std::string&) {
  const bool measured = ops.flag("measured");
  KernelBuilder::ComputeOps c;
  c.fp32 = ops.key("fp32").value_or("0");
  c.fp16 = ops.key("fp16").value_or("0");
  c.mufu = ops.key("mufu").value_or("0");
  c.cvt = ops.key("cvt").value_or("0");
  c.int_ops = ops.key("int").value_or("0");
  c.smem_bytes = ops.key("smem").value_or("0");
  c.cycles = ops.key("cycles").value_or("0");
  c.inst = ops.key("inst").value_or("0");
  const std::string label = ops.key("label").value_or("");
  ops.done();
  b.compute(c, measured, label);
}

void exit_(Operands& ops, KernelBuilder& b, const std::string&) {
  ops.done();
  b.exit();
}

struct Mnemonic {
  const char* name;
  Handler handler;
};
constexpr Mnemonic kMnemonics[] = {
    {"TMA_LOAD", tma_load},
    {"TMA_STORE", tma_store},
    {"BULK_LOAD", bulk_load},
    {"BULK_STORE", bulk_store},
    {"LD_GLOBAL", ld_global},
    {"ST_GLOBAL", st_global},
    {"LD_WAIT", ld_wait},
    {"TMA_STORE_WAIT", tma_store_wait},
    {"MB_ARRIVE", mb_arrive},
    {"MB_EXPECT_TX", mb_expect_tx},
    {"MB_ARRIVE_EXPECT_TX", mb_arrive_expect_tx},
    {"MB_WAIT", mb_wait},
    {"WGMMA", wgmma},
    {"WGMMA_COMMIT", wgmma_commit},
    {"WGMMA_WAIT", wgmma_wait},
    {"BAR_SYNC", bar_sync},
    {"BAR_WAIT", bar_sync},  // PTX bar.wait is bar.sync
    {"BAR_ARRIVE", bar_arrive},
    {"STAGE_ACQUIRE", stage_acquire},
    {"STAGE_WAIT", stage_wait},
    {"STAGE_RELEASE", stage_release},
    {"COMPUTE", compute},
    {"EXIT", exit_},
};

Handler find_handler(const std::string& head) {
  for (const Mnemonic& m : kMnemonics) {
    if (head == m.name) {
      return m.handler;
    }
  }
  return nullptr;
}

}  // namespace

bool is_instruction(const std::string& head) {
  return find_handler(head) != nullptr;
}

void parse_instruction(const SourceLine& line, KernelBuilder& b) {
  const Handler h = find_handler(line.head);
  if (h == nullptr) {
    throw_input_error(line.where, "unknown instruction '{}'", line.head);
  }
  Operands ops(line);
  b.set_line(line.number);
  h(ops, b, line.where);
}

}  // namespace asyncsim::program
