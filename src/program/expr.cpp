#include "program/expr.h"

#include <cctype>

#include "util/error.h"

namespace asyncsim::program {
namespace {

constexpr int kMaxStack = 32;

struct BuiltinVar {
  const char* name;
  Var var;
};
constexpr BuiltinVar kBuiltins[] = {
    {"cta", kVarCta},       {"cta.x", kVarCtaX},   {"cta.y", kVarCtaY},   {"cta.z", kVarCtaZ},
    {"nctas", kVarNumCtas}, {"grid.x", kVarGridX}, {"grid.y", kVarGridY}, {"grid.z", kVarGridZ},
    {"wg", kVarWg},         {"sm", kVarSm},
};

class Compiler {
 public:
  Compiler(const std::string& text, const ExprScope& scope, const std::string& where)
      : m_text(text), m_scope(scope), m_where(where) {}

  std::vector<ExprTok> run() {
    parse_select();
    skip_space();
    if (m_pos != m_text.size()) {
      fail("unexpected '{}'", m_text.substr(m_pos));
    }
    if (m_code.empty()) {
      fail("empty expression");
    }
    return m_code;
  }

 private:
  template <typename... Args>
  [[noreturn]] void fail(fmt::format_string<Args...> f, Args&&... args) {
    throw InputError(m_where, fmt::format("in expression '{}': ", m_text) +
                                  fmt::format(f, std::forward<Args>(args)...));
  }
  void skip_space() {
    while (m_pos < m_text.size() && std::isspace(static_cast<unsigned char>(m_text[m_pos]))) {
      ++m_pos;
    }
  }
  bool accept(const char* tok) {
    skip_space();
    const size_t n = std::char_traits<char>::length(tok);
    if (m_text.compare(m_pos, n, tok) == 0) {
      m_pos += n;
      return true;
    }
    return false;
  }
  void emit(ExprOp op, int64_t v = 0) { m_code.push_back(ExprTok{op, v}); }

  void parse_select() {
    parse_or();
    if (accept("?")) {
      parse_select();
      if (!accept(":")) {
        fail("expected ':' in a ? b : c");
      }
      parse_select();
      emit(ExprOp::kSelect);
    }
  }
  void parse_or() {
    parse_and();
    while (accept("||")) {
      parse_and();
      emit(ExprOp::kOr);
    }
  }
  void parse_and() {
    parse_cmp();
    while (accept("&&")) {
      parse_cmp();
      emit(ExprOp::kAnd);
    }
  }
  void parse_cmp() {
    parse_add();
    static const std::pair<const char*, ExprOp> kOps[] = {{"<=", ExprOp::kLe}, {">=", ExprOp::kGe},
                                                          {"==", ExprOp::kEq}, {"!=", ExprOp::kNe},
                                                          {"<", ExprOp::kLt},  {">", ExprOp::kGt}};
    for (const auto& [tok, op] : kOps) {
      if (accept(tok)) {
        parse_add();
        emit(op);
        return;
      }
    }
  }
  void parse_add() {
    parse_mul();
    while (true) {
      if (accept("+")) {
        parse_mul();
        emit(ExprOp::kAdd);
      } else if (accept("-")) {
        parse_mul();
        emit(ExprOp::kSub);
      } else {
        return;
      }
    }
  }
  void parse_mul() {
    parse_unary();
    while (true) {
      if (accept("*")) {
        parse_unary();
        emit(ExprOp::kMul);
      } else if (accept("/")) {
        parse_unary();
        emit(ExprOp::kDiv);
      } else if (accept("%")) {
        parse_unary();
        emit(ExprOp::kMod);
      } else {
        return;
      }
    }
  }
  void parse_unary() {
    if (accept("-")) {
      parse_unary();
      emit(ExprOp::kNeg);
    } else if (accept("!")) {
      parse_unary();
      emit(ExprOp::kNot);
    } else {
      parse_primary();
    }
  }
  void parse_primary() {
    skip_space();
    if (accept("(")) {
      parse_select();
      if (!accept(")")) {
        fail("expected ')'");
      }
      return;
    }
    if (m_pos < m_text.size() && std::isdigit(static_cast<unsigned char>(m_text[m_pos]))) {
      size_t used = 0;
      int64_t v = 0;
      try {
        v = std::stoll(m_text.substr(m_pos), &used, 0);
      } catch (const std::exception&) {
        fail("bad number");
      }
      m_pos += used;
      emit(ExprOp::kConst, v);
      return;
    }
    const std::string name = read_name();
    if (name.empty()) {
      fail("expected a number, a name or '('");
    }
    if (accept("(")) {
      parse_call(name);
      return;
    }
    for (size_t d = m_scope.loops.size(); d-- > 0;) {
      if (m_scope.loops[d] == name) {
        emit(ExprOp::kVar, kVarLoop0 + static_cast<int64_t>(d));
        return;
      }
    }
    if (auto it = m_scope.constants.find(name); it != m_scope.constants.end()) {
      emit(ExprOp::kConst, it->second);
      return;
    }
    for (const auto& b : kBuiltins) {
      if (name == b.name) {
        emit(ExprOp::kVar, b.var);
        return;
      }
    }
    fail("unknown name '{}' (not a loop counter, parameter or builtin such as cta, wg, nctas)",
         name);
  }
  void parse_call(const std::string& name) {
    ExprOp op;
    if (name == "min") {
      op = ExprOp::kMin;
    } else if (name == "max") {
      op = ExprOp::kMax;
    } else if (name == "cdiv") {
      op = ExprOp::kCdiv;
    } else {
      fail("unknown function '{}' (expected min, max or cdiv)", name);
    }
    parse_select();
    if (!accept(",")) {
      fail("{} takes two arguments", name);
    }
    parse_select();
    if (!accept(")")) {
      fail("expected ')' after the arguments of {}", name);
    }
    emit(op);
  }
  std::string read_name() {
    skip_space();
    const size_t start = m_pos;
    while (m_pos < m_text.size()) {
      const char c = m_text[m_pos];
      if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || (c == '.' && m_pos > start)) {
        ++m_pos;
      } else {
        break;
      }
    }
    if (m_pos > start && std::isdigit(static_cast<unsigned char>(m_text[start]))) {
      m_pos = start;
      return {};
    }
    return m_text.substr(start, m_pos - start);
  }

  const std::string& m_text;
  const ExprScope& m_scope;
  const std::string& m_where;
  size_t m_pos = 0;
  std::vector<ExprTok> m_code;
};

int64_t negate(int64_t a) {
  if (a == INT64_MIN) {
    throw InputError("", "integer overflow in an expression (values must fit in 64 bits)");
  }
  return -a;
}

int64_t checked(bool overflow, int64_t v) {
  if (overflow) {
    throw InputError("", "integer overflow in an expression (values must fit in 64 bits)");
  }
  return v;
}

int64_t apply(ExprOp op, int64_t a, int64_t b) {
  int64_t r = 0;
  switch (op) {
    case ExprOp::kAdd: {
      const bool o = __builtin_add_overflow(a, b, &r);
      return checked(o, r);
    }
    case ExprOp::kSub: {
      const bool o = __builtin_sub_overflow(a, b, &r);
      return checked(o, r);
    }
    case ExprOp::kMul: {
      const bool o = __builtin_mul_overflow(a, b, &r);
      return checked(o, r);
    }
    case ExprOp::kDiv:
      return floor_div(a, b);
    case ExprOp::kMod:
      return floor_mod(a, b);
    case ExprOp::kMin:
      return std::min(a, b);
    case ExprOp::kMax:
      return std::max(a, b);
    case ExprOp::kCdiv:
      return negate(floor_div(negate(a), b));
    case ExprOp::kLt:
      return a < b;
    case ExprOp::kLe:
      return a <= b;
    case ExprOp::kEq:
      return a == b;
    case ExprOp::kNe:
      return a != b;
    case ExprOp::kGt:
      return a > b;
    case ExprOp::kGe:
      return a >= b;
    case ExprOp::kAnd:
      return (a != 0) && (b != 0);
    case ExprOp::kOr:
      return (a != 0) || (b != 0);
    default:
      return 0;
  }
}

int stack_depth(const std::vector<ExprTok>& code) {
  int depth = 0;
  int max_depth = 0;
  for (const auto& t : code) {
    switch (t.op) {
      case ExprOp::kConst:
      case ExprOp::kVar:
        ++depth;
        break;
      case ExprOp::kNeg:
      case ExprOp::kNot:
        break;
      case ExprOp::kSelect:
        depth -= 2;
        break;
      default:
        --depth;
        break;
    }
    max_depth = std::max(max_depth, depth);
  }
  return max_depth;
}

}  // namespace

int64_t floor_div(int64_t a, int64_t b) {
  if (b == -1) {
    return negate(a);  // INT64_MIN / -1 does not fit (and traps)
  }
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) {
    --q;
  }
  return q;
}

int64_t floor_mod(int64_t a, int64_t b) {
  return a - floor_div(a, b) * b;
}

ExprId ExprPool::add(const std::vector<ExprTok>& code) {
  const auto id = static_cast<ExprId>(m_ranges.size());
  m_ranges.push_back(
      Range{static_cast<uint32_t>(m_code.size()), static_cast<uint32_t>(code.size())});
  m_code.insert(m_code.end(), code.begin(), code.end());
  return id;
}

ExprId ExprPool::compile(const std::string& text, const ExprScope& scope,
                         const std::string& where) {
  std::vector<ExprTok> code = Compiler(text, scope, where).run();
  if (stack_depth(code) > kMaxStack) {
    throw InputError(where, fmt::format("expression '{}' is nested too deeply", text));
  }
  // Fold a variable-free expression to one constant.
  bool has_var = false;
  for (const auto& t : code) {
    has_var |= t.op == ExprOp::kVar;
  }
  ExprId id = add(code);
  if (!has_var) {
    int64_t vars[kNumVars] = {};
    const int64_t v = eval(id, vars);
    m_ranges.pop_back();
    m_code.resize(m_code.size() - code.size());
    return constant(v);
  }
  return id;
}

ExprId ExprPool::constant(int64_t v) {
  return add({ExprTok{ExprOp::kConst, v}});
}
ExprId ExprPool::variable(Var v) {
  return add({ExprTok{ExprOp::kVar, v}});
}

int64_t ExprPool::eval(ExprId id, const int64_t* vars) const {
  const Range r = m_ranges[id];
  const ExprTok* code = m_code.data() + r.begin;
  if (r.length == 1) {
    return code[0].op == ExprOp::kConst ? code[0].value : vars[code[0].value];
  }
  int64_t stack[kMaxStack];
  int sp = 0;
  for (uint32_t i = 0; i < r.length; ++i) {
    const ExprTok& t = code[i];
    switch (t.op) {
      case ExprOp::kConst:
        stack[sp++] = t.value;
        break;
      case ExprOp::kVar:
        stack[sp++] = vars[t.value];
        break;
      case ExprOp::kNeg:
        stack[sp - 1] = negate(stack[sp - 1]);
        break;
      case ExprOp::kNot:
        stack[sp - 1] = stack[sp - 1] == 0;
        break;
      case ExprOp::kSelect: {
        const int64_t c = stack[sp - 3];
        stack[sp - 3] = c != 0 ? stack[sp - 2] : stack[sp - 1];
        sp -= 2;
        break;
      }
      default: {
        const int64_t b = stack[--sp];
        if (b == 0 && (t.op == ExprOp::kDiv || t.op == ExprOp::kMod || t.op == ExprOp::kCdiv)) {
          throw InputError("", fmt::format("division by zero in expression '{}'", to_string(id)));
        }
        stack[sp - 1] = apply(t.op, stack[sp - 1], b);
      }
    }
  }
  return stack[0];
}

bool ExprPool::is_constant(ExprId id, int64_t* value) const {
  const Range r = m_ranges[id];
  if (r.length == 1 && m_code[r.begin].op == ExprOp::kConst) {
    if (value) {
      *value = m_code[r.begin].value;
    }
    return true;
  }
  return false;
}

std::string ExprPool::to_string(ExprId id, const std::vector<std::string>& loop_names) const {
  if (id == kNoExpr) {
    return "<none>";
  }
  const Range r = m_ranges[id];
  std::vector<std::string> st;
  auto bin = [&](const char* op) {
    std::string b = st.back();
    st.pop_back();
    st.back() = "(" + st.back() + " " + op + " " + b + ")";
  };
  auto call = [&](const char* fn) {
    std::string b = st.back();
    st.pop_back();
    st.back() = std::string(fn) + "(" + st.back() + ", " + b + ")";
  };
  for (uint32_t i = 0; i < r.length; ++i) {
    const ExprTok& t = m_code[r.begin + i];
    switch (t.op) {
      case ExprOp::kConst:
        st.push_back(std::to_string(t.value));
        break;
      case ExprOp::kVar: {
        if (t.value >= kVarLoop0) {
          const auto d = static_cast<size_t>(t.value - kVarLoop0);
          st.push_back(d < loop_names.size() ? loop_names[d] : "loop" + std::to_string(d));
        } else {
          st.push_back(kBuiltins[t.value].name);
        }
        break;
      }
      case ExprOp::kAdd:
        bin("+");
        break;
      case ExprOp::kSub:
        bin("-");
        break;
      case ExprOp::kMul:
        bin("*");
        break;
      case ExprOp::kDiv:
        bin("/");
        break;
      case ExprOp::kMod:
        bin("%");
        break;
      case ExprOp::kLt:
        bin("<");
        break;
      case ExprOp::kLe:
        bin("<=");
        break;
      case ExprOp::kEq:
        bin("==");
        break;
      case ExprOp::kNe:
        bin("!=");
        break;
      case ExprOp::kGt:
        bin(">");
        break;
      case ExprOp::kGe:
        bin(">=");
        break;
      case ExprOp::kAnd:
        bin("&&");
        break;
      case ExprOp::kOr:
        bin("||");
        break;
      case ExprOp::kMin:
        call("min");
        break;
      case ExprOp::kMax:
        call("max");
        break;
      case ExprOp::kCdiv:
        call("cdiv");
        break;
      case ExprOp::kNeg:
        st.back() = "-" + st.back();
        break;
      case ExprOp::kNot:
        st.back() = "!" + st.back();
        break;
      case ExprOp::kSelect: {
        std::string c = st.back();
        st.pop_back();
        std::string b = st.back();
        st.pop_back();
        st.back() = "(" + st.back() + " ? " + b + " : " + c + ")";
        break;
      }
    }
  }
  return st.empty() ? "" : st.back();
}

}  // namespace asyncsim::program
