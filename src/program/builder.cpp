#include "program/builder.h"

#include "program/verifier.h"
#include "util/error.h"

namespace asyncsim::program {

KernelBuilder::KernelBuilder(std::string name, std::string source) {
  m_kernel.name = std::move(name);
  m_kernel.source = std::move(source);
}

std::string KernelBuilder::where() const {
  return format_location(m_kernel.source, m_line);
}

void KernelBuilder::set_grid(int64_t x, int64_t y, int64_t z) {
  if (x < 1 || y < 1 || z < 1) {
    throw_input_error(where(), "grid dimensions must be positive, got ({}, {}, {})", x, y, z);
  }
  m_kernel.grid = {x, y, z};
}

void KernelBuilder::set_code_bytes(int64_t bytes) {
  if (bytes < 0) {
    throw_input_error(where(), "code size must not be negative, got {}", bytes);
  }
  m_kernel.code_bytes = bytes;
}

void KernelBuilder::set_resources(int regs_per_thread, int64_t smem_bytes) {
  if (regs_per_thread < 1 || regs_per_thread > 255) {
    throw_input_error(where(), "registers per thread must be in [1, 255], got {}", regs_per_thread);
  }
  if (smem_bytes < 0) {
    throw_input_error(where(), "shared memory must not be negative, got {}", smem_bytes);
  }
  m_kernel.regs_per_thread = regs_per_thread;
  m_kernel.smem_bytes = smem_bytes;
}

void KernelBuilder::set_constant(const std::string& name, int64_t value) {
  m_scope.constants[name] = value;
}

int KernelBuilder::add_map(TensorMap map) {
  if (m_kernel.find_map(map.name) >= 0) {
    throw_input_error(where(), "tensor map '{}' is defined twice", map.name);
  }
  if (map.rank < 1 || map.rank > kMaxTensorRank) {
    throw_input_error(where(), "tensor map '{}': rank must be 1..5, got {}", map.name, map.rank);
  }
  map.strides[0] = dtype_bytes(map.dtype);
  for (int d = 0; d < map.rank; ++d) {
    if (map.dims[d] < 1 || map.box[d] < 1 || map.box[d] > 256) {
      throw_input_error(where(), "tensor map '{}': dim {} needs size >= 1 and box in [1, 256]",
                        map.name, d);
    }
    if (d > 0 && (map.strides[d] <= 0 || map.strides[d] % 16 != 0)) {
      throw_input_error(where(), "tensor map '{}': stride {} must be a positive multiple of 16 B",
                        map.name, d);
    }
  }
  if (map.box[0] * dtype_bytes(map.dtype) % 16 != 0) {
    throw_input_error(where(), "tensor map '{}': inner box must be a multiple of 16 bytes",
                      map.name);
  }
  map.line = m_line;
  m_kernel.maps.push_back(std::move(map));
  return static_cast<int>(m_kernel.maps.size() - 1);
}

int KernelBuilder::add_barrier(const std::string& name, int size, int arrivals) {
  if (m_kernel.find_barrier(name) >= 0) {
    throw_input_error(where(), "mbarrier '{}' is defined twice", name);
  }
  if (size < 1 || arrivals < 1) {
    throw_input_error(where(), "mbarrier '{}' needs size >= 1 and arrivals >= 1", name);
  }
  m_kernel.barriers.push_back(BarrierArray{name, size, arrivals, m_line});
  return static_cast<int>(m_kernel.barriers.size() - 1);
}

int KernelBuilder::add_ring(const std::string& name, int stages, int consumers) {
  if (m_kernel.find_ring(name) >= 0) {
    throw_input_error(where(), "ring '{}' is defined twice", name);
  }
  if (stages < 1 || consumers < 1) {
    throw_input_error(where(), "ring '{}' needs stages >= 1 and consumers >= 1", name);
  }
  Ring r{name, stages, consumers, 0, 0, m_line};
  r.full = static_cast<uint16_t>(add_barrier(name + ".full", stages, 1));
  r.empty = static_cast<uint16_t>(add_barrier(name + ".empty", stages, consumers));
  m_kernel.rings.push_back(r);
  return static_cast<int>(m_kernel.rings.size() - 1);
}

void KernelBuilder::begin_role(const std::string& name, int warpgroups) {
  if (m_in_role) {
    throw_input_error(where(), "role '{}' starts inside another role", name);
  }
  for (const auto& r : m_kernel.roles) {
    if (r.name == name) {
      throw_input_error(where(), "role '{}' is defined twice", name);
    }
  }
  if (warpgroups < 1 || warpgroups > 16) {
    throw_input_error(where(), "role '{}': warpgroups must be in [1, 16], got {}", name,
                      warpgroups);
  }
  m_kernel.roles.push_back(Role{name, warpgroups, {}, m_line});
  m_in_role = true;
}

void KernelBuilder::end_role() {
  if (!m_in_role) {
    throw_input_error(where(), "end of role without a role");
  }
  if (!m_open.empty()) {
    throw_input_error(where(), "role '{}' ends with an unclosed {}", role().name,
                      op_name(m_open.back().op));
  }
  if (role().code.empty() || role().code.back().op != Op::kExit) {
    exit();
  }
  m_in_role = false;
}

Role& KernelBuilder::role() {
  if (!m_in_role) {
    throw_input_error(where(), "instruction outside a role");
  }
  return m_kernel.roles.back();
}

Instr& KernelBuilder::emit(Op op) {
  Role& r = role();
  r.code.push_back(Instr{});
  Instr& in = r.code.back();
  in.op = op;
  in.line = static_cast<uint32_t>(m_line);
  return in;
}

ExprId KernelBuilder::expr(const std::string& text) {
  return m_kernel.exprs.compile(text, m_scope, where());
}

ExprId KernelBuilder::expr(int64_t value) {
  return m_kernel.exprs.constant(value);
}

BarrierRef KernelBuilder::barrier_ref(const std::string& bar, const std::string& index) {
  const int id = m_kernel.find_barrier(bar);
  if (id < 0) {
    throw_input_error(where(), "unknown mbarrier '{}'", bar);
  }
  return BarrierRef{static_cast<uint16_t>(id), expr(index)};
}

uint16_t KernelBuilder::ring_ref(const std::string& ring) {
  const int id = m_kernel.find_ring(ring);
  if (id < 0) {
    throw_input_error(where(), "unknown ring '{}'", ring);
  }
  return static_cast<uint16_t>(id);
}

void KernelBuilder::tma_load(const std::string& map, const std::vector<std::string>& coords,
                             const std::string& bar, const std::string& index) {
  const int m = m_kernel.find_map(map);
  if (m < 0) {
    throw_input_error(where(), "unknown tensor map '{}'", map);
  }
  if (static_cast<int>(coords.size()) != m_kernel.maps[m].rank) {
    throw_input_error(where(), "tensor map '{}' has rank {}, got {} coordinates", map,
                      m_kernel.maps[m].rank, coords.size());
  }
  const BarrierRef b = barrier_ref(bar, index);
  Instr& in = emit(Op::kTmaLoad);
  in.ref = static_cast<uint16_t>(m);
  in.bar = b;
  for (size_t i = 0; i < coords.size(); ++i) {
    in.args[i] = expr(coords[i]);
  }
}

void KernelBuilder::tma_store(const std::string& map, const std::vector<std::string>& coords) {
  const int m = m_kernel.find_map(map);
  if (m < 0) {
    throw_input_error(where(), "unknown tensor map '{}'", map);
  }
  if (static_cast<int>(coords.size()) != m_kernel.maps[m].rank) {
    throw_input_error(where(), "tensor map '{}' has rank {}, got {} coordinates", map,
                      m_kernel.maps[m].rank, coords.size());
  }
  std::array<ExprId, kMaxArgs> args = Instr{}.args;
  for (size_t i = 0; i < coords.size(); ++i) {
    args[i] = expr(coords[i]);
  }
  Instr& in = emit(Op::kTmaStore);
  in.ref = static_cast<uint16_t>(m);
  in.args = args;
}

void KernelBuilder::bulk_load(const std::string& addr, const std::string& bytes,
                              const std::string& bar, const std::string& index) {
  const BarrierRef b = barrier_ref(bar, index);
  const ExprId a = expr(addr);
  const ExprId n = expr(bytes);
  Instr& in = emit(Op::kBulkLoad);
  in.bar = b;
  in.args[0] = a;
  in.args[1] = n;
}

void KernelBuilder::bulk_store(const std::string& addr, const std::string& bytes) {
  const ExprId a = expr(addr);
  const ExprId n = expr(bytes);
  Instr& in = emit(Op::kBulkStore);
  in.args[0] = a;
  in.args[1] = n;
}

void KernelBuilder::ld_global(const std::string& addr, const std::string& bytes,
                              const std::string& rows, const std::string& stride,
                              const std::string& width) {
  lsu_op(Op::kLdGlobal, addr, bytes, rows, stride, width);
}

void KernelBuilder::st_global(const std::string& addr, const std::string& bytes,
                              const std::string& rows, const std::string& stride,
                              const std::string& width) {
  lsu_op(Op::kStGlobal, addr, bytes, rows, stride, width);
}

void KernelBuilder::lsu_op(Op op, const std::string& addr, const std::string& bytes,
                           const std::string& rows, const std::string& stride,
                           const std::string& width) {
  const ExprId a = expr(addr);
  const ExprId n = expr(bytes);
  const ExprId r = expr(rows);
  const ExprId s = expr(stride);
  const ExprId w = expr(width);
  Instr& in = emit(op);
  in.args[4] = w;
  in.args[0] = a;
  in.args[1] = n;
  in.args[2] = r;
  in.args[3] = s;
}

void KernelBuilder::ld_wait(const std::string& n) {
  const ExprId e = expr(n);
  emit(Op::kLdWait).args[0] = e;
}

void KernelBuilder::tma_store_wait(const std::string& n) {
  const ExprId e = expr(n);
  emit(Op::kTmaStoreWait).args[0] = e;
}

// One barrier operand and one expression argument: the shape of every MB_* instruction.
Instr& KernelBuilder::barrier_op(Op op, const std::string& bar, const std::string& index,
                                 const std::string& arg) {
  const BarrierRef b = barrier_ref(bar, index);
  const ExprId a = expr(arg);
  Instr& in = emit(op);
  in.bar = b;
  in.args[0] = a;
  return in;
}

void KernelBuilder::mb_arrive(const std::string& bar, const std::string& index,
                              const std::string& count) {
  barrier_op(Op::kMbArrive, bar, index, count);
}

void KernelBuilder::mb_expect_tx(const std::string& bar, const std::string& index,
                                 const std::string& bytes) {
  barrier_op(Op::kMbExpectTx, bar, index, bytes);
}

void KernelBuilder::mb_arrive_expect_tx(const std::string& bar, const std::string& index,
                                        const std::string& bytes) {
  barrier_op(Op::kMbArriveExpectTx, bar, index, bytes);
}

void KernelBuilder::mb_wait(const std::string& bar, const std::string& index,
                            const std::string& parity, bool suspend_hint) {
  barrier_op(Op::kMbWait, bar, index, parity).flags = suspend_hint ? kFlagSuspend : 0;
}

void KernelBuilder::wgmma(const std::string& n, const std::string& repeat, DType dtype,
                          bool a_in_registers, const std::string& label) {
  const ExprId ne = expr(n);
  const ExprId re = expr(repeat);
  int64_t nv = 0;
  if (m_kernel.exprs.is_constant(ne, &nv) && (nv < 8 || nv > 256 || nv % 8 != 0)) {
    throw_input_error(where(), "wgmma N must be a multiple of 8 in [8, 256], got {}", nv);
  }
  const uint16_t l = label_ref(label);
  Instr& in = emit(Op::kWgmma);
  in.args[0] = ne;
  in.args[1] = re;
  in.dtype = dtype;
  in.flags = a_in_registers ? kFlagRs : 0;
  in.ref = l;
}

void KernelBuilder::wgmma_commit() {
  emit(Op::kWgmmaCommit);
}

void KernelBuilder::wgmma_wait(const std::string& n) {
  const ExprId e = expr(n);
  emit(Op::kWgmmaWait).args[0] = e;
}

// Two expression operands (barrier id, thread count): BAR_SYNC and BAR_ARRIVE.
void KernelBuilder::named_barrier_op(Op op, const std::string& id, const std::string& threads) {
  const ExprId a = expr(id);
  const ExprId n = expr(threads);
  Instr& in = emit(op);
  in.args[0] = a;
  in.args[1] = n;
}

void KernelBuilder::bar_sync(const std::string& id, const std::string& threads) {
  named_barrier_op(Op::kBarSync, id, threads);
}

void KernelBuilder::bar_arrive(const std::string& id, const std::string& threads) {
  named_barrier_op(Op::kBarArrive, id, threads);
}

// A ring and an iteration expression: the STAGE_* instructions.
void KernelBuilder::stage_op(Op op, const std::string& ring, const std::string& iteration) {
  const uint16_t r = ring_ref(ring);
  const ExprId it = expr(iteration);
  Instr& in = emit(op);
  in.ref = r;
  in.args[0] = it;
}

void KernelBuilder::stage_acquire(const std::string& ring, const std::string& iteration) {
  stage_op(Op::kStageAcquire, ring, iteration);
}

void KernelBuilder::stage_wait(const std::string& ring, const std::string& iteration) {
  stage_op(Op::kStageWait, ring, iteration);
}

void KernelBuilder::stage_release(const std::string& ring, const std::string& iteration) {
  stage_op(Op::kStageRelease, ring, iteration);
}

void KernelBuilder::compute(const ComputeOps& ops, bool measured, const std::string& label) {
  const std::array<const std::string*, 8> fields = {&ops.fp32,   &ops.fp16,    &ops.mufu,
                                                    &ops.cvt,    &ops.int_ops, &ops.smem_bytes,
                                                    &ops.cycles, &ops.inst};
  std::array<ExprId, kMaxArgs> args{};
  for (size_t i = 0; i < fields.size(); ++i) {
    args[i] = expr(*fields[i]);
  }
  const uint16_t l = label_ref(label);
  Instr& in = emit(Op::kCompute);
  in.args = args;
  in.flags = measured ? kFlagMeasured : 0;
  in.ref = l;
}

// Labels are interned; the text format needs each to be one word that cannot start a key.
uint16_t KernelBuilder::label_ref(const std::string& label) {
  if (label.empty()) {
    return 0;
  }
  if (label.size() > 64 || label.find_first_of(" \t=#\"'\\[](),") != std::string::npos) {
    throw_input_error(where(),
                      "label '{}' must be one word of at most 64 characters without spaces, "
                      "'=', '#', quotes, brackets or commas",
                      label);
  }
  auto& labels = m_kernel.labels;
  for (size_t i = 0; i < labels.size(); ++i) {
    if (labels[i] == label) {
      return static_cast<uint16_t>(i + 1);
    }
  }
  if (labels.size() >= UINT16_MAX - 1) {
    throw_input_error(where(), "more than {} distinct labels", UINT16_MAX - 1);
  }
  labels.push_back(label);
  return static_cast<uint16_t>(labels.size());
}

void KernelBuilder::loop(const std::string& var, const std::string& begin, const std::string& end) {
  if (m_scope.loops.size() >= static_cast<size_t>(kMaxLoopDepth)) {
    throw_input_error(where(), "loops nest deeper than {}", kMaxLoopDepth);
  }
  for (const auto& l : m_scope.loops) {
    if (l == var) {
      throw_input_error(where(), "loop counter '{}' shadows an enclosing loop's", var);
    }
  }
  const ExprId b = expr(begin);
  const ExprId e = expr(end);
  Instr& in = emit(Op::kLoop);
  in.ref = static_cast<uint16_t>(m_scope.loops.size());
  in.args[0] = b;
  in.args[1] = e;
  m_open.push_back(Open{Op::kLoop, static_cast<uint32_t>(role().code.size() - 1)});
  m_scope.loops.push_back(var);
  role().loop_names.push_back(var);
}

void KernelBuilder::end_loop() {
  if (m_open.empty() || m_open.back().op != Op::kLoop) {
    throw_input_error(where(), "END of a loop without an open LOOP");
  }
  const uint32_t start = m_open.back().pc;
  m_open.pop_back();
  m_scope.loops.pop_back();
  Instr& in = emit(Op::kEndLoop);
  in.jump = start;
  role().code[start].jump = static_cast<uint32_t>(role().code.size() - 1);
}

void KernelBuilder::if_(const std::string& cond) {
  const ExprId c = expr(cond);
  Instr& in = emit(Op::kIf);
  in.args[0] = c;
  m_open.push_back(Open{Op::kIf, static_cast<uint32_t>(role().code.size() - 1)});
}

void KernelBuilder::else_() {
  if (m_open.empty() || m_open.back().op != Op::kIf) {
    throw_input_error(where(), "ELSE without an open IF");
  }
  const uint32_t if_pc = m_open.back().pc;
  emit(Op::kElse);
  const auto else_pc = static_cast<uint32_t>(role().code.size() - 1);
  role().code[if_pc].jump = else_pc;
  m_open.back() = Open{Op::kElse, else_pc};
}

void KernelBuilder::end_if() {
  if (m_open.empty() || (m_open.back().op != Op::kIf && m_open.back().op != Op::kElse)) {
    throw_input_error(where(), "END of an IF without an open IF");
  }
  const uint32_t pc = m_open.back().pc;
  m_open.pop_back();
  emit(Op::kEndIf);
  role().code[pc].jump = static_cast<uint32_t>(role().code.size() - 1);
}

void KernelBuilder::exit() {
  emit(Op::kExit);
}

Kernel KernelBuilder::finish() {
  if (m_in_role) {
    end_role();
  }
  if (m_kernel.roles.empty()) {
    throw_input_error(where(), "kernel '{}' has no roles", m_kernel.name);
  }
  verify(m_kernel);
  return std::move(m_kernel);
}

}  // namespace asyncsim::program
