#include "program/expr.h"

#include <gtest/gtest.h>

#include "util/error.h"

namespace asyncsim::program {
namespace {

int64_t eval_text(const std::string& text, const ExprScope& scope = {},
                  const int64_t* vars = nullptr) {
  ExprPool pool;
  const int64_t zeros[kNumVars] = {};
  return pool.eval(pool.compile(text, scope, "e.asim:3"), vars ? vars : zeros);
}

std::string compile_error(const std::string& text, const ExprScope& scope = {}) {
  ExprPool pool;
  try {
    pool.compile(text, scope, "e.asim:3");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Expr, PrecedenceAndAssociativity) {
  EXPECT_EQ(eval_text("1 + 2 * 3"), 7);
  EXPECT_EQ(eval_text("(1 + 2) * 3"), 9);
  EXPECT_EQ(eval_text("10 - 4 - 3"), 3);
  EXPECT_EQ(eval_text("64 / 4 / 2"), 8);
  EXPECT_EQ(eval_text("2 * 3 % 4"), 2);
  EXPECT_EQ(eval_text("-2 * 3"), -6);
  EXPECT_EQ(eval_text("!0 + 1"), 2);
  EXPECT_EQ(eval_text("1 + 2 < 4 && 3 > 2"), 1);
  EXPECT_EQ(eval_text("1 || 0 && 0"), 1);
  EXPECT_EQ(eval_text("0x10 + 010"), 24);
}

TEST(Expr, FloorDivisionAndModuloOfNegatives) {
  EXPECT_EQ(eval_text("-7 / 2"), -4);
  EXPECT_EQ(eval_text("-7 % 2"), 1);
  EXPECT_EQ(eval_text("7 / -2"), -4);
  EXPECT_EQ(eval_text("7 % -2"), -1);
  EXPECT_EQ(eval_text("-8 / 2"), -4);
  EXPECT_EQ(floor_div(-1, 3), -1);
  EXPECT_EQ(floor_mod(-1, 3), 2);
}

TEST(Expr, FunctionsAndSelect) {
  EXPECT_EQ(eval_text("cdiv(7, 2)"), 4);
  EXPECT_EQ(eval_text("cdiv(8, 2)"), 4);
  EXPECT_EQ(eval_text("cdiv(-7, 2)"), -3);
  EXPECT_EQ(eval_text("min(3, -1) + max(3, -1)"), 2);
  EXPECT_EQ(eval_text("1 ? 2 : 3"), 2);
  EXPECT_EQ(eval_text("0 ? 2 : 0 ? 4 : 5"), 5);
  EXPECT_EQ(eval_text("2 > 1 ? 10 : 20"), 10);
}

TEST(Expr, VariablesLoopCountersAndConstants) {
  ExprScope scope;
  scope.loops = {"i", "k"};
  scope.constants["BK"] = 64;
  int64_t vars[kNumVars] = {};
  vars[kVarCtaX] = 3;
  vars[kVarLoop0] = 5;
  vars[kVarLoop0 + 1] = 7;
  vars[kVarWg] = 1;
  EXPECT_EQ(eval_text("cta.x * BK + i * 10 + k + wg", scope, vars), 3 * 64 + 50 + 7 + 1);
  ExprPool pool;
  int64_t v = 0;
  EXPECT_FALSE(pool.is_constant(pool.compile("k + 1", scope, "x")));
  EXPECT_TRUE(pool.is_constant(pool.compile("2 * BK", scope, "x"), &v));
  EXPECT_EQ(v, 128);
}

TEST(Expr, ToStringUsesLoopNamesAndReparsesToTheSameValue) {
  ExprScope scope;
  scope.loops = {"k"};
  ExprPool pool;
  const ExprId id = pool.compile("(k / 3) % 2 + -cta.y * min(k, 4)", scope, "x");
  const std::string text = pool.to_string(id, {"k"});
  EXPECT_EQ(text, "(((k / 3) % 2) + (-cta.y * min(k, 4)))");
  EXPECT_EQ(pool.to_string(id), "(((loop0 / 3) % 2) + (-cta.y * min(loop0, 4)))");
  const ExprId again = pool.compile(text, scope, "x");
  int64_t vars[kNumVars] = {};
  for (int64_t k = 0; k < 8; ++k) {
    vars[kVarLoop0] = k;
    vars[kVarCtaY] = k - 2;
    EXPECT_EQ(pool.eval(id, vars), pool.eval(again, vars));
  }
}

TEST(Expr, UnknownNamesAreErrorsNamingTheLocation) {
  const std::string e = compile_error("foo + 1");
  EXPECT_EQ(e.rfind("e.asim:3: ", 0), 0u) << e;
  EXPECT_NE(e.find("unknown name 'foo'"), std::string::npos) << e;
  EXPECT_NE(compile_error("bar(1, 2)").find("unknown function 'bar'"), std::string::npos);
}

TEST(Expr, SyntaxErrorsSayWhatWasExpected) {
  EXPECT_NE(compile_error("1 +").find("expected a number, a name or '('"), std::string::npos);
  EXPECT_NE(compile_error("(1 + 2").find("expected ')'"), std::string::npos);
  EXPECT_NE(compile_error("min(1)").find("min takes two arguments"), std::string::npos);
  EXPECT_NE(compile_error("1 ? 2").find("expected ':'"), std::string::npos);
  EXPECT_NE(compile_error("1 2").find("unexpected '2'"), std::string::npos);
  EXPECT_NE(compile_error("").find("expected a number"), std::string::npos);
  EXPECT_NE(compile_error("99999999999999999999").find("bad number"), std::string::npos);
}

TEST(Expr, DivisionByZeroIsAnErrorWhenFoldedAndWhenEvaluated) {
  EXPECT_NE(compile_error("1 / 0").find("division by zero in expression"), std::string::npos);
  EXPECT_NE(compile_error("1 % (2 - 2)").find("division by zero"), std::string::npos);
  ExprScope scope;
  scope.loops = {"i"};
  ExprPool pool;
  const ExprId id = pool.compile("10 / i", scope, "x");
  const int64_t vars[kNumVars] = {};
  try {
    pool.eval(id, vars);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "division by zero in expression '(10 / loop0)'");
  }
}

}  // namespace
}  // namespace asyncsim::program

namespace asyncsim::program {
namespace {

// Overflow is an input error, never a trap or undefined behaviour.
TEST(ExprOverflow, IsAnInputError) {
  ExprPool pool;
  ExprScope scope;
  EXPECT_THROW(pool.compile("(-9223372036854775807 - 1) / -1", scope, "t:1"), InputError);
  EXPECT_THROW(pool.compile("9223372036854775807 + 1", scope, "t:1"), InputError);
  EXPECT_THROW(pool.compile("4611686018427387904 * 4", scope, "t:1"), InputError);
  EXPECT_THROW(pool.compile("-(-9223372036854775807 - 1)", scope, "t:1"), InputError);
  EXPECT_EQ(pool.eval(pool.compile("-7 / -1", scope, "t:1"), nullptr), 7);
}

}  // namespace
}  // namespace asyncsim::program
