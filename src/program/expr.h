// Integer expressions over a warpgroup's context (CTA id, warpgroup index, loop counters).
// Expressions are compiled once to a short postfix code in an ExprPool and evaluated on a fixed
// stack: no allocation at run time.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace asyncsim::program {

using ExprId = uint32_t;
inline constexpr ExprId kNoExpr = UINT32_MAX;

// Context variables an expression may read. Loop counters occupy kLoop0 + depth.
enum Var : uint8_t {
  kVarCta,  // linear CTA id (x fastest)
  kVarCtaX,
  kVarCtaY,
  kVarCtaZ,
  kVarNumCtas,
  kVarGridX,
  kVarGridY,
  kVarGridZ,
  kVarWg,     // warpgroup index within its role
  kVarSm,     // SM the CTA runs on
  kVarLoop0,  // ... kVarLoop0 + 7
  kNumVars = kVarLoop0 + 8,
};

enum class ExprOp : uint8_t {
  kConst,
  kVar,
  kAdd,
  kSub,
  kMul,
  kDiv,
  kMod,
  kMin,
  kMax,
  kCdiv,
  kNeg,
  kLt,
  kLe,
  kEq,
  kNe,
  kGt,
  kGe,
  kAnd,
  kOr,
  kNot,
  kSelect,
};

struct ExprTok {
  ExprOp op;
  int64_t value;  // constant, or variable index
};

// Names visible while compiling an expression: loop counters by depth and named constants.
struct ExprScope {
  std::vector<std::string> loops;            // loops[d] is the counter at depth d
  std::map<std::string, int64_t> constants;  // parameters folded at compile time
};

class ExprPool {
 public:
  // Compiles `text`; throws InputError naming `where` on a syntax error or unknown name.
  ExprId compile(const std::string& text, const ExprScope& scope, const std::string& where);
  ExprId constant(int64_t v);
  ExprId variable(Var v);

  // Evaluates with vars[kNumVars]. Division or modulo by zero throws InputError naming `where`.
  int64_t eval(ExprId id, const int64_t* vars) const;
  bool is_constant(ExprId id, int64_t* value = nullptr) const;
  // Human-readable form (for the program writer and error messages).
  std::string to_string(ExprId id, const std::vector<std::string>& loop_names = {}) const;
  size_t size() const { return m_ranges.size(); }

 private:
  struct Range {
    uint32_t begin;
    uint32_t length;
  };
  ExprId add(const std::vector<ExprTok>& code);
  std::vector<ExprTok> m_code;
  std::vector<Range> m_ranges;
};

// Floor division and modulo with the sign of the divisor (Python semantics).
int64_t floor_div(int64_t a, int64_t b);
int64_t floor_mod(int64_t a, int64_t b);

}  // namespace asyncsim::program
