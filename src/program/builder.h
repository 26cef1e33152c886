// Builds a Kernel instruction by instruction with lexical scoping of loop counters. Used by the
// workload generators, the text parser and the trace translator's output; every operand is an
// expression string compiled in the current scope. Errors name `where()` (source:line).
#pragma once

#include <string>
#include <vector>

#include "program/ir.h"

namespace asyncsim::program {

class KernelBuilder {
 public:
  explicit KernelBuilder(std::string name, std::string source = "<generated>");

  // Location used in error messages for what follows (the parser sets the source line).
  void set_line(int line) { m_line = line; }
  std::string where() const;

  void set_grid(int64_t x, int64_t y = 1, int64_t z = 1);
  void set_resources(int regs_per_thread, int64_t smem_bytes);
  void set_code_bytes(int64_t bytes);
  void set_constant(const std::string& name, int64_t value);

  int add_map(TensorMap map);
  int add_barrier(const std::string& name, int size, int arrivals);
  int add_ring(const std::string& name, int stages, int consumers);

  void begin_role(const std::string& name, int warpgroups);
  void end_role();

  ExprId expr(const std::string& text);
  ExprId expr(int64_t value);

  // Instructions. `bar` names a barrier array (or RING.full / RING.empty), `index` its element.
  void tma_load(const std::string& map, const std::vector<std::string>& coords,
                const std::string& bar, const std::string& index);
  void tma_store(const std::string& map, const std::vector<std::string>& coords);
  void bulk_load(const std::string& addr, const std::string& bytes, const std::string& bar,
                 const std::string& index);
  void bulk_store(const std::string& addr, const std::string& bytes);
  void tma_store_wait(const std::string& n);
  // LD_GLOBAL / ST_GLOBAL: `rows` rows of `bytes` contiguous bytes, `stride` bytes apart.
  // `width`: bytes each thread accesses per instruction (16 = a 128-bit ld/st).
  void ld_global(const std::string& addr, const std::string& bytes, const std::string& rows = "1",
                 const std::string& stride = "0", const std::string& width = "16");
  void st_global(const std::string& addr, const std::string& bytes, const std::string& rows = "1",
                 const std::string& stride = "0", const std::string& width = "16");
  void ld_wait(const std::string& n);
  void mb_arrive(const std::string& bar, const std::string& index, const std::string& count = "1");
  void mb_expect_tx(const std::string& bar, const std::string& index, const std::string& bytes);
  void mb_arrive_expect_tx(const std::string& bar, const std::string& index,
                           const std::string& bytes);
  void mb_wait(const std::string& bar, const std::string& index, const std::string& parity,
               bool suspend_hint = false);
  // `label` names the work in timelines (a word without spaces, '=', '#', quotes or brackets).
  void wgmma(const std::string& n, const std::string& repeat, DType dtype, bool a_in_registers,
             const std::string& label = "");
  void wgmma_commit();
  void wgmma_wait(const std::string& n);
  void bar_sync(const std::string& id, const std::string& threads);
  void bar_arrive(const std::string& id, const std::string& threads);
  void stage_acquire(const std::string& ring, const std::string& iteration);
  void stage_wait(const std::string& ring, const std::string& iteration);
  void stage_release(const std::string& ring, const std::string& iteration);
  struct ComputeOps {
    std::string fp32 = "0", fp16 = "0", mufu = "0", cvt = "0", int_ops = "0", smem_bytes = "0",
                cycles = "0", inst = "0";
  };
  void compute(const ComputeOps& ops, bool measured = false, const std::string& label = "");
  void loop(const std::string& var, const std::string& begin, const std::string& end);
  void end_loop();
  void if_(const std::string& cond);
  void else_();
  void end_if();
  void exit();

  // Closes the kernel and runs the verifier; throws InputError on the first problem.
  Kernel finish();

  const Kernel& kernel() const { return m_kernel; }

 private:
  struct Open {
    Op op;
    uint32_t pc;
  };
  Role& role();
  Instr& emit(Op op);
  BarrierRef barrier_ref(const std::string& bar, const std::string& index);
  void lsu_op(Op op, const std::string& addr, const std::string& bytes, const std::string& rows,
              const std::string& stride, const std::string& width);
  Instr& barrier_op(Op op, const std::string& bar, const std::string& index,
                    const std::string& arg);
  uint16_t ring_ref(const std::string& ring);
  void named_barrier_op(Op op, const std::string& id, const std::string& threads);
  void stage_op(Op op, const std::string& ring, const std::string& iteration);
  uint16_t label_ref(const std::string& label);

  Kernel m_kernel;
  ExprScope m_scope;
  std::vector<Open> m_open;
  bool m_in_role = false;
  int m_line = 0;
};

}  // namespace asyncsim::program
