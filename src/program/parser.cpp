#include "program/parser.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <sstream>

#include "program/builder.h"
#include "program/line_syntax.h"
#include "program/parse_instructions.h"
#include "program/writer.h"
#include "util/error.h"

namespace asyncsim::program {
namespace {

// Names a parameter or loop counter may not take: builtins and functions of expressions.
constexpr const char* kReservedNames[] = {"cta", "nctas", "wg", "sm", "grid", "min", "max", "cdiv"};

class Parser {
 public:
  Parser(const std::string& text, const std::string& file) : m_text(text), m_file(file) {}
  Kernel run();

 private:
  enum class Block { kRole, kLoop, kIf, kElse };
  struct OpenBlock {
    Block kind;
    int line;
    std::string name;
  };
  using Directive = void (Parser::*)(const SourceLine&);
  struct DirectiveEntry {
    const char* name;
    Directive fn;
    bool in_role;  // true: only inside a role; false: only outside
  };
  static const DirectiveEntry kDirectives[];

  void parse_line(const SourceLine& l);
  void kernel(const SourceLine& l);
  void param(const SourceLine& l);
  void grid(const SourceLine& l);
  void resources(const SourceLine& l);
  void tensormap(const SourceLine& l);
  void mbarrier(const SourceLine& l);
  void ring(const SourceLine& l);
  void role(const SourceLine& l);
  void loop(const SourceLine& l);
  void if_(const SourceLine& l);
  void else_(const SourceLine& l);
  void end(const SourceLine& l);
  void finish_checks(int last_line);

  static std::string block_description(const OpenBlock& b);
  KernelBuilder& builder() { return *m_builder; }
  bool in_role() const { return !m_blocks.empty(); }
  int64_t constant(const std::string& text, const std::string& where, const char* what);
  int small_constant(const std::string& text, const std::string& where, const char* what);
  int64_t non_negative(const std::string& text, const std::string& where, const char* what);
  void set_strides(TensorMap& m, const std::optional<std::string>& text, const std::string& where);
  void check_name(const std::string& name, const std::string& where, const char* what,
                  bool reserved) const;
  void once(int& first_line, const SourceLine& l);

  const std::string& m_text;
  const std::string& m_file;
  std::optional<KernelBuilder> m_builder;
  ExprScope m_constants;
  ExprPool m_pool;  // scratch pool for declaration constants
  std::map<std::string, int> m_param_lines;
  std::vector<OpenBlock> m_blocks;
  int m_kernel_line = 0;
  int m_grid_line = 0;
  int m_resources_line = 0;
};

const Parser::DirectiveEntry Parser::kDirectives[] = {
    {"param", &Parser::param, false},
    {"grid", &Parser::grid, false},
    {"resources", &Parser::resources, false},
    {"tensormap", &Parser::tensormap, false},
    {"mbarrier", &Parser::mbarrier, false},
    {"ring", &Parser::ring, false},
    {"role", &Parser::role, false},
    {"loop", &Parser::loop, true},
    {"if", &Parser::if_, true},
    {"else", &Parser::else_, true},
    {"end", &Parser::end, true},
};

Kernel Parser::run() {
  std::istringstream in(m_text);
  std::string raw;
  int number = 0;
  while (std::getline(in, raw)) {
    ++number;
    const std::string where = format_location(m_file, number);
    try {
      SourceLine l;
      if (split_source_line(raw, where, number, l)) {
        parse_line(l);
      }
    } catch (const InputError& e) {
      if (e.where().empty()) {  // e.g. division by zero while folding a constant
        throw InputError(where, e.what());
      }
      throw;
    }
  }
  finish_checks(std::max(number, 1));
  builder().set_line(number);
  return builder().finish();
}

void Parser::finish_checks(int last_line) {
  const std::string where = format_location(m_file, last_line);
  if (!m_builder) {
    throw_input_error(where, "expected 'kernel NAME' (the program declares no kernel)");
  }
  if (!m_blocks.empty()) {
    throw_input_error(where, "{} is not closed (expected 'end')",
                      block_description(m_blocks.back()));
  }
}

void Parser::parse_line(const SourceLine& l) {
  if (l.head == "kernel") {
    kernel(l);
    return;
  }
  const bool instruction = is_instruction(l.head);
  const DirectiveEntry* entry = nullptr;
  for (const DirectiveEntry& d : kDirectives) {
    entry = l.head == d.name ? &d : entry;
  }
  if (!instruction && entry == nullptr) {
    throw_input_error(l.where,
                      "unknown directive or instruction '{}' (expected kernel, param, grid, "
                      "resources, tensormap, mbarrier, ring, role, loop, if, else, end or an "
                      "instruction such as TMA_LOAD, MB_WAIT, WGMMA)",
                      l.head);
  }
  if (!m_builder) {
    throw_input_error(l.where, "expected 'kernel NAME' before '{}'", l.head);
  }
  if (l.head == "end" && !in_role()) {
    throw_input_error(l.where, "'end' without an open role, loop or if");
  }
  const bool needs_role = instruction || entry->in_role;
  if (needs_role && !in_role()) {
    throw_input_error(l.where, "'{}' outside a role (expected 'role NAME' before it)", l.head);
  }
  if (!needs_role && in_role()) {
    throw_input_error(l.where,
                      "'{}' inside role '{}' (declarations and roles go at the top level; "
                      "expected 'end' to close the role first)",
                      l.head, m_blocks.front().name);
  }
  builder().set_line(l.number);
  if (instruction) {
    parse_instruction(l, builder());
  } else {
    (this->*entry->fn)(l);
  }
}

std::string Parser::block_description(const OpenBlock& b) {
  switch (b.kind) {
    case Block::kRole:
      return fmt::format("role '{}' opened at line {}", b.name, b.line);
    case Block::kLoop:
      return fmt::format("loop '{}' opened at line {}", b.name, b.line);
    case Block::kIf:
      return fmt::format("'if {}' opened at line {}", b.name, b.line);
    case Block::kElse:
      return fmt::format("'if {}' of line {}, already in its 'else'", b.name, b.line);
  }
  return "";
}

int64_t Parser::constant(const std::string& text, const std::string& where, const char* what) {
  int64_t v = 0;
  if (!m_pool.is_constant(m_pool.compile(text, m_constants, where), &v)) {
    throw_input_error(where, "{} must be a constant (numbers and parameters only), got '{}'", what,
                      text);
  }
  return v;
}

int Parser::small_constant(const std::string& text, const std::string& where, const char* what) {
  const int64_t v = constant(text, where, what);
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) {
    throw_input_error(where, "{} {} is out of range", what, v);
  }
  return static_cast<int>(v);
}

void Parser::check_name(const std::string& name, const std::string& where, const char* what,
                        bool reserved) const {
  if (!is_identifier(name)) {
    throw_input_error(where,
                      "{} name must start with a letter or _ and contain only letters, digits "
                      "and _, got '{}'",
                      what, name);
  }
  for (const char* r : kReservedNames) {
    if (reserved && name == r) {
      throw_input_error(where, "'{}' is a builtin name and cannot be used for a {}", name, what);
    }
  }
}

void Parser::once(int& first_line, const SourceLine& l) {
  if (first_line != 0) {
    throw_input_error(l.where, "'{}' is given twice (first at line {})", l.head, first_line);
  }
  first_line = l.number;
}

void Parser::kernel(const SourceLine& l) {
  if (m_builder) {
    throw_input_error(l.where, "'kernel' is given twice (first at line {})", m_kernel_line);
  }
  Operands ops(l);
  const std::string name = ops.word("a kernel name");
  ops.done();
  m_kernel_line = l.number;
  m_builder.emplace(name, m_file);
}

void Parser::param(const SourceLine& l) {
  const size_t eq = l.rest.find('=');
  if (eq == std::string::npos || trim(l.rest.substr(eq + 1)).empty()) {
    throw_input_error(l.where, "param: expected 'param NAME = VALUE', got 'param {}'", l.rest);
  }
  const std::string name = trim(l.rest.substr(0, eq));
  check_name(name, l.where, "parameter", true);
  if (auto it = m_param_lines.find(name); it != m_param_lines.end()) {
    throw_input_error(l.where, "parameter '{}' is defined twice (first at line {})", name,
                      it->second);
  }
  const int64_t v = constant(trim(l.rest.substr(eq + 1)), l.where, "a parameter value");
  m_param_lines[name] = l.number;
  m_constants.constants[name] = v;
  builder().set_constant(name, v);
}

void Parser::grid(const SourceLine& l) {
  once(m_grid_line, l);
  Operands ops(l);
  std::array<int64_t, 3> g{1, 1, 1};
  g[0] = constant(ops.word("the grid's x size"), l.where, "grid x");
  for (int d = 1; d < 3 && ops.has_word(); ++d) {
    g[d] = constant(ops.word("a grid size"), l.where, "a grid size");
  }
  ops.done();
  builder().set_grid(g[0], g[1], g[2]);
}

void Parser::resources(const SourceLine& l) {
  once(m_resources_line, l);
  Operands ops(l);
  const auto regs = ops.key("regs");
  const auto smem = ops.key("smem");
  const auto code = ops.key("code");
  ops.done();
  if (!regs && !smem && !code) {
    throw_input_error(l.where, "resources: expected regs=N, smem=BYTES and/or code=BYTES");
  }
  const Kernel& k = builder().kernel();
  builder().set_resources(regs ? small_constant(*regs, l.where, "regs") : k.regs_per_thread,
                          smem ? constant(*smem, l.where, "smem") : k.smem_bytes);
  if (code) {
    builder().set_code_bytes(constant(*code, l.where, "code"));
  }
}

void Parser::tensormap(const SourceLine& l) {
  Operands ops(l);
  TensorMap m;
  m.name = ops.word("a tensor map name");
  check_name(m.name, l.where, "tensor map", false);
  const std::string dtype = ops.required_key("dtype", "element type such as f16");
  const auto dims = split_list(ops.required_key("dims", "sizes such as [K, M]"), l.where, "dims");
  const auto strides = ops.key("strides");
  const auto box =
      split_list(ops.required_key("box", "box sizes such as [64, 128]"), l.where, "box");
  const auto base = ops.key("base");
  const auto swizzle = ops.key("swizzle");
  ops.done();
  if (!parse_dtype(dtype, m.dtype)) {
    throw_input_error(l.where,
                      "tensormap: unknown dtype '{}' (expected f16, bf16, tf32, f32, "
                      "e4m3 or e5m2)",
                      dtype);
  }
  if (dims.empty() || dims.size() > static_cast<size_t>(kMaxTensorRank)) {
    throw_input_error(l.where, "tensormap: dims needs 1 to {} sizes, got {}", kMaxTensorRank,
                      dims.size());
  }
  if (box.size() != dims.size()) {
    throw_input_error(l.where,
                      "tensormap: box has {} sizes but dims has {} (expected one per "
                      "dimension)",
                      box.size(), dims.size());
  }
  m.rank = static_cast<int>(dims.size());
  for (int d = 0; d < m.rank; ++d) {
    m.dims[d] = constant(dims[d], l.where, "a tensor dimension");
    m.box[d] = small_constant(box[d], l.where, "a box size");
  }
  set_strides(m, strides, l.where);
  m.base = base ? static_cast<uint64_t>(non_negative(*base, l.where, "base")) : 0;
  if (swizzle && !parse_swizzle(*swizzle, m.swizzle)) {
    throw_input_error(l.where, "tensormap: unknown swizzle '{}' (expected none, 32B, 64B or 128B)",
                      *swizzle);
  }
  builder().add_map(m);
}

// strides[0] is the element size; the text gives strides 1..rank-1 in bytes, packed by default.
void Parser::set_strides(TensorMap& m, const std::optional<std::string>& text,
                         const std::string& where) {
  m.strides[0] = dtype_bytes(m.dtype);
  if (!text) {
    for (int d = 1; d < m.rank; ++d) {
      if (__builtin_mul_overflow(m.strides[d - 1], m.dims[d - 1], &m.strides[d])) {
        throw_input_error(where, "tensormap: tensor '{}' is too large", m.name);
      }
    }
    return;
  }
  const auto list = split_list(*text, where, "strides");
  if (static_cast<int>(list.size()) != m.rank - 1) {
    throw_input_error(where,
                      "tensormap: strides has {} entries, expected {} (bytes between "
                      "elements of dimensions 1..{}; dimension 0 is contiguous)",
                      list.size(), m.rank - 1, m.rank - 1);
  }
  for (int d = 1; d < m.rank; ++d) {
    m.strides[d] = constant(list[d - 1], where, "a stride");
  }
}

int64_t Parser::non_negative(const std::string& text, const std::string& where, const char* what) {
  const int64_t v = constant(text, where, what);
  if (v < 0) {
    throw_input_error(where, "{} must not be negative, got {}", what, v);
  }
  return v;
}

void Parser::mbarrier(const SourceLine& l) {
  Operands ops(l);
  const Subscript s =
      split_subscript(ops.word("an mbarrier array such as full[3]"), l.where, "an mbarrier array");
  const auto arrivals = ops.key("arrivals");
  ops.done();
  check_name(s.name, l.where, "mbarrier", false);
  const int size = s.index.empty() ? 1 : small_constant(s.index, l.where, "mbarrier array size");
  builder().add_barrier(s.name, size,
                        arrivals ? small_constant(*arrivals, l.where, "arrivals") : 1);
}

void Parser::ring(const SourceLine& l) {
  Operands ops(l);
  const std::string name = ops.word("a ring name");
  const std::string stages = ops.required_key("stages", "number of buffers");
  const auto consumers = ops.key("consumers");
  ops.done();
  check_name(name, l.where, "ring", false);
  builder().add_ring(name, small_constant(stages, l.where, "stages"),
                     consumers ? small_constant(*consumers, l.where, "consumers") : 1);
}

void Parser::role(const SourceLine& l) {
  Operands ops(l);
  const std::string name = ops.word("a role name");
  const auto warpgroups = ops.key("warpgroups");
  ops.done();
  check_name(name, l.where, "role", false);
  builder().begin_role(name, warpgroups ? small_constant(*warpgroups, l.where, "warpgroups") : 1);
  m_blocks.push_back(OpenBlock{Block::kRole, l.number, name});
}

void Parser::loop(const SourceLine& l) {
  const size_t eq = l.rest.find('=');
  std::vector<std::string> bounds;
  if (eq != std::string::npos && l.rest.compare(eq, 2, "==") != 0) {
    bounds = split_commas(l.rest.substr(eq + 1));
  }
  if (bounds.size() != 2 || bounds[0].empty() || bounds[1].empty()) {
    throw_input_error(l.where, "loop: expected 'loop VAR = BEGIN, END', got 'loop {}'", l.rest);
  }
  const std::string var = trim(l.rest.substr(0, eq));
  check_name(var, l.where, "loop counter", true);
  if (m_constants.constants.count(var) != 0) {
    throw_input_error(l.where, "loop counter '{}' hides the parameter of the same name", var);
  }
  builder().loop(var, bounds[0], bounds[1]);
  m_blocks.push_back(OpenBlock{Block::kLoop, l.number, var});
}

void Parser::if_(const SourceLine& l) {
  if (l.rest.empty()) {
    throw_input_error(l.where, "if: missing condition (expected 'if EXPRESSION')");
  }
  builder().if_(l.rest);
  m_blocks.push_back(OpenBlock{Block::kIf, l.number, l.rest});
}

void Parser::else_(const SourceLine& l) {
  Operands(l).done();
  if (m_blocks.back().kind != Block::kIf) {
    throw_input_error(l.where, "'else' without an open 'if' (the innermost open block is {})",
                      block_description(m_blocks.back()));
  }
  builder().else_();
  m_blocks.back().kind = Block::kElse;
}

void Parser::end(const SourceLine& l) {
  Operands(l).done();
  const Block kind = m_blocks.back().kind;
  m_blocks.pop_back();
  if (kind == Block::kRole) {
    builder().end_role();
  } else if (kind == Block::kLoop) {
    builder().end_loop();
  } else {
    builder().end_if();
  }
}

}  // namespace

Kernel parse_program(const std::string& text, const std::string& file_name) {
  return Parser(text, file_name).run();
}

Kernel parse_program_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw_input_error(path, "cannot read the program file (expected an existing .asim file)");
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) {
    throw_input_error(path, "cannot read the program file");
  }
  return parse_program(text.str(), path);
}

}  // namespace asyncsim::program
