#include "program/writer.h"

#include <fmt/format.h>

#include "program/line_syntax.h"

namespace asyncsim::program {
namespace {

constexpr const char* kComputeKeys[] = {"fp32", "fp16", "mufu",   "cvt",
                                        "int",  "smem", "cycles", "inst"};

class Writer {
 public:
  explicit Writer(const Kernel& k) : m_k(k) {}

  std::string run() {
    m_out += fmt::format("kernel {}\n", m_k.name);
    m_out += fmt::format("grid {} {} {}\n", m_k.grid[0], m_k.grid[1], m_k.grid[2]);
    m_out += fmt::format("resources regs={} smem={}", m_k.regs_per_thread, m_k.smem_bytes);
    m_out += m_k.code_bytes > 0 ? fmt::format(" code={}\n", m_k.code_bytes) : "\n";
    for (const TensorMap& m : m_k.maps) {
      write_map(m);
    }
    write_barriers();
    for (const Role& r : m_k.roles) {
      write_role(r);
    }
    return m_out;
  }

 private:
  std::string expr(ExprId id) const { return strip_outer_parens(m_k.exprs.to_string(id, m_loops)); }
  bool is_value(ExprId id, int64_t v) const {
    int64_t c = 0;
    return m_k.exprs.is_constant(id, &c) && c == v;
  }
  std::string bar(const BarrierRef& b) const {
    return fmt::format("{}[{}]", m_k.barriers[b.array].name, expr(b.index));
  }

  void write_map(const TensorMap& m);
  void write_barriers();
  void write_role(const Role& r);
  void write_control(const Instr& in, const Role& r);
  std::string instruction_text(const Instr& in) const;
  std::string wgmma_text(const Instr& in) const;
  std::string compute_text(const Instr& in) const;
  std::string label_text(const Instr& in) const;

  const Kernel& m_k;
  std::string m_out;
  std::vector<std::string> m_loops;  // counter names by depth
  size_t m_next_loop = 0;
  int m_indent = 0;
};

template <typename T>
std::string join_list(const T& values, int n) {
  std::string s = "[";
  for (int d = 0; d < n; ++d) {
    s += fmt::format("{}{}", d == 0 ? "" : ", ", values[d]);
  }
  return s + "]";
}

void Writer::write_map(const TensorMap& m) {
  m_out += fmt::format("tensormap {} dtype={} dims={}", m.name, dtype_name(m.dtype),
                       join_list(m.dims, m.rank));
  if (m.rank > 1) {
    m_out += fmt::format(" strides={}", join_list(&m.strides[1], m.rank - 1));
  }
  m_out += fmt::format(" box={} base={:#x} swizzle={}\n", join_list(m.box, m.rank), m.base,
                       swizzle_name(m.swizzle));
}

// Barrier arrays in definition order; the two arrays of a ring are written as the ring.
void Writer::write_barriers() {
  for (size_t i = 0; i < m_k.barriers.size(); ++i) {
    const Ring* ring = nullptr;
    bool ring_array = false;
    for (const Ring& r : m_k.rings) {
      ring = r.full == i ? &r : ring;
      ring_array |= r.full == i || r.empty == i;
    }
    if (ring != nullptr) {
      m_out += fmt::format("ring {} stages={} consumers={}\n", ring->name, ring->stages,
                           ring->consumers);
    } else if (!ring_array) {
      const BarrierArray& b = m_k.barriers[i];
      m_out += fmt::format("mbarrier {}[{}] arrivals={}\n", b.name, b.size, b.arrivals);
    }
  }
}

void Writer::write_role(const Role& r) {
  m_out += fmt::format("\nrole {} warpgroups={}\n", r.name, r.warpgroups);
  m_loops.clear();
  m_next_loop = 0;
  m_indent = 1;
  for (const Instr& in : r.code) {
    write_control(in, r);
  }
  m_out += "end\n";
}

void Writer::write_control(const Instr& in, const Role& r) {
  const std::string pad(static_cast<size_t>(2 * m_indent), ' ');
  const std::string pad_out(static_cast<size_t>(2 * std::max(m_indent - 1, 0)), ' ');
  switch (in.op) {
    case Op::kLoop: {
      const size_t n = m_next_loop++;
      const std::string var =
          n < r.loop_names.size() ? r.loop_names[n] : fmt::format("i{}", m_loops.size());
      m_out += fmt::format("{}loop {} = {}, {}\n", pad, var, expr(in.args[0]), expr(in.args[1]));
      m_loops.push_back(var);
      ++m_indent;
      return;
    }
    case Op::kIf:
      m_out += fmt::format("{}if {}\n", pad, expr(in.args[0]));
      ++m_indent;
      return;
    case Op::kElse:
      m_out += pad_out + "else\n";
      return;
    case Op::kEndLoop:
      m_loops.pop_back();
      [[fallthrough]];
    case Op::kEndIf:
      m_out += pad_out + "end\n";
      --m_indent;
      return;
    default:
      m_out += pad + instruction_text(in) + "\n";
      return;
  }
}

std::string Writer::instruction_text(const Instr& in) const {
  const char* name = op_name(in.op);
  switch (in.op) {
    case Op::kTmaLoad:
    case Op::kTmaStore: {
      const TensorMap& m = m_k.maps[in.ref];
      std::vector<std::string> coords;
      for (int d = 0; d < m.rank; ++d) {
        coords.push_back(expr(in.args[d]));
      }
      std::string s = fmt::format("{} {} {}", name, m.name, join_list(coords, m.rank));
      return in.op == Op::kTmaLoad ? fmt::format("{} bar={}", s, bar(in.bar)) : s;
    }
    case Op::kBulkLoad:
      return fmt::format("{} addr={} bytes={} bar={}", name, expr(in.args[0]), expr(in.args[1]),
                         bar(in.bar));
    case Op::kBulkStore:
      return fmt::format("{} addr={} bytes={}", name, expr(in.args[0]), expr(in.args[1]));
    case Op::kLdGlobal:
    case Op::kStGlobal: {
      std::string s = fmt::format("{} addr={} bytes={}", name, expr(in.args[0]), expr(in.args[1]));
      if (!is_value(in.args[2], 1) || !is_value(in.args[3], 0)) {
        s += fmt::format(" rows={} stride={}", expr(in.args[2]), expr(in.args[3]));
      }
      if (!is_value(in.args[4], 16)) {
        s += fmt::format(" width={}", expr(in.args[4]));
      }
      return s;
    }
    case Op::kMbArrive:
      return fmt::format("{} {}{}", name, bar(in.bar),
                         is_value(in.args[0], 1) ? "" : fmt::format(" count={}", expr(in.args[0])));
    case Op::kMbExpectTx:
    case Op::kMbArriveExpectTx:
      return fmt::format("{} {} bytes={}", name, bar(in.bar), expr(in.args[0]));
    case Op::kMbWait:
      return fmt::format("{} {}{} parity={}", name, bar(in.bar),
                         (in.flags & kFlagSuspend) != 0 ? " suspend" : "", expr(in.args[0]));
    case Op::kWgmma:
      return wgmma_text(in);
    case Op::kBarSync:
    case Op::kBarArrive:
      return fmt::format("{} {} threads={}", name, expr(in.args[0]), expr(in.args[1]));
    case Op::kStageAcquire:
    case Op::kStageWait:
    case Op::kStageRelease:
      return fmt::format("{} {} {}", name, m_k.rings[in.ref].name, expr(in.args[0]));
    case Op::kCompute:
      return compute_text(in);
    case Op::kTmaStoreWait:
    case Op::kWgmmaWait:
    case Op::kLdWait:
      return fmt::format("{} {}", name, expr(in.args[0]));
    default:
      return name;
  }
}

std::string Writer::wgmma_text(const Instr& in) const {
  int64_t n = 0;
  const std::string n_text = m_k.exprs.is_constant(in.args[0], &n)
                                 ? std::to_string(n)
                                 : fmt::format("({})", expr(in.args[0]));
  std::string s = fmt::format("WGMMA m64n{}k{} {} {}", n_text, wgmma_k(in.dtype),
                              dtype_name(in.dtype), (in.flags & kFlagRs) != 0 ? "rs" : "ss");
  if (!is_value(in.args[1], 1)) {
    s += fmt::format(" repeat={}", expr(in.args[1]));
  }
  return s + label_text(in);
}

std::string Writer::label_text(const Instr& in) const {
  const std::string* label = m_k.label_of(in);
  return label ? " label=" + *label : "";
}

std::string Writer::compute_text(const Instr& in) const {
  std::string s = "COMPUTE";
  if ((in.flags & kFlagMeasured) != 0) {
    s += " measured";
  }
  for (size_t i = 0; i < std::size(kComputeKeys); ++i) {
    if (!is_value(in.args[i], 0)) {
      s += fmt::format(" {}={}", kComputeKeys[i], expr(in.args[i]));
    }
  }
  return s + label_text(in);
}

}  // namespace

std::string write_program(const Kernel& kernel) {
  return Writer(kernel).run();
}

const char* swizzle_name(Swizzle s) {
  switch (s) {
    case Swizzle::kNone:
      return "none";
    case Swizzle::k32B:
      return "32B";
    case Swizzle::k64B:
      return "64B";
    case Swizzle::k128B:
      return "128B";
  }
  return "?";
}

bool parse_swizzle(const std::string& text, Swizzle& out) {
  for (const Swizzle s : {Swizzle::kNone, Swizzle::k32B, Swizzle::k64B, Swizzle::k128B}) {
    if (text == swizzle_name(s)) {
      out = s;
      return true;
    }
  }
  return false;
}

}  // namespace asyncsim::program
