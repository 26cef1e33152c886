// One test per parse error: the message starts with file:line and says what was expected.
#include <gtest/gtest.h>

#include "test_support.h"

namespace asyncsim::program {
namespace {

struct ErrorCase {
  const char* name;
  std::string text;
  int line;
  const char* expected;
};

constexpr const char* kDecls =
    "tensormap A dtype=f16 dims=[64, 64] box=[64, 64]\n"
    "mbarrier full[2]\n";

// `bad` as line 5, inside a role.
std::string in_role(const std::string& bad) {
  return std::string("kernel k\n") + kDecls + "role main\n" + bad + "\n  MB_ARRIVE full[0]\nend\n";
}

// `bad` as line 2, at the top level.
std::string top(const std::string& bad) {
  return "kernel k\n" + bad + "\n" + kDecls + "role main\n  MB_ARRIVE full[0]\nend\n";
}

void PrintTo(const ErrorCase& c, std::ostream* os) {
  *os << c.name;
}

class ParseError : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(ParseError, NamesFileLineAndWhatWasExpected) {
  const ErrorCase& c = GetParam();
  const std::string e = test::parse_error(c.text);
  const std::string prefix = "t.asim:" + std::to_string(c.line) + ": ";
  EXPECT_EQ(e.rfind(prefix, 0), 0u) << "message: " << e << "\nexpected prefix: " << prefix;
  EXPECT_NE(e.find(c.expected), std::string::npos) << "message: " << e;
}

const ErrorCase kCases[] = {
    // Lines and operands.
    {"UnknownInstruction", in_role("  FOO 1"), 5, "unknown directive or instruction 'FOO'"},
    {"LdGlobalWithoutAddress", in_role("  LD_GLOBAL bytes=16"), 5,
     "LD_GLOBAL: missing operand addr="},
    {"LdGlobalZeroBytes", in_role("  LD_GLOBAL addr=0 bytes=0"), 5,
     "LD_GLOBAL bytes must be >= 1, got 0"},
    {"StGlobalZeroRows", in_role("  ST_GLOBAL addr=0 bytes=16 rows=0 stride=64"), 5,
     "ST_GLOBAL rows must be >= 1, got 0"},
    {"LdGlobalOddWidth", in_role("  LD_GLOBAL addr=0 bytes=96 width=12"), 5,
     "LD_GLOBAL width must be 1, 2, 4, 8 or 16 bytes, got 12"},
    {"LdWaitNegative", in_role("  LD_WAIT -1"), 5, "LD_WAIT load count must be >= 0, got -1"},
    {"LdGlobalUnknownKey", in_role("  LD_GLOBAL addr=0 bytes=16 cache=cg"), 5,
     "unknown operand 'cache='"},
    {"LowerCaseInstruction", in_role("  wgmma_commit"), 5, "unknown directive or instruction"},
    {"MissingOperand", in_role("  MB_WAIT"), 5, "MB_WAIT: missing operand: expected an mbarrier"},
    {"MissingKey", in_role("  MB_WAIT full[0]"), 5, "MB_WAIT: missing operand parity="},
    {"MissingValue", in_role("  MB_WAIT full[0] parity="), 5, "missing value after 'parity='"},
    {"KeyTwice", in_role("  MB_WAIT full[0] parity=0 parity=1"), 5, "'parity=' is given twice"},
    {"UnknownKey", in_role("  MB_ARRIVE full[0] cnt=2"), 5,
     "unknown operand 'cnt=' (expected count=)"},
    {"KeyOnKeylessInstruction", in_role("  EXIT now=1"), 5, "EXIT takes no key=value operands"},
    {"TrailingGarbage", in_role("  WGMMA_COMMIT now"), 5, "WGMMA_COMMIT: unexpected operand 'now'"},
    {"TrailingGarbageAfterEnd", in_role("  loop i = 0, 2\n  end loop"), 6,
     "end: unexpected operand 'loop'"},
    {"UnclosedBracket", in_role("  TMA_STORE A [0, 0"), 5, "'[' is not closed"},
    {"UnbalancedParen", in_role("  WGMMA_WAIT 1)"), 5, "unbalanced ')'"},
    {"MismatchedBrackets", in_role("  TMA_STORE A [0, 0)"), 5, "unbalanced ')'"},
    {"NotAList", in_role("  TMA_STORE A 0"), 5, "expected a bracketed list such as [a, b]"},
    {"EmptyListElement", in_role("  TMA_STORE A [0, , 1]"), 5, "empty element in the list"},
    {"BadBarrierOperand", in_role("  MB_ARRIVE full[0]x"), 5, "written NAME[INDEX]"},
    {"EmptyBarrierIndex", in_role("  MB_ARRIVE full[]"), 5, "empty index in 'full[]'"},
    {"LineTooLong", in_role("  WGMMA_WAIT " + std::string(5000, '1')), 5,
     "line is longer than 4096 characters"},
    {"NestedTooDeeply",
     in_role("  WGMMA_WAIT " + std::string(70, '(') + "0" + std::string(70, ')')), 5,
     "brackets nest deeper than 64"},
    // Expressions.
    {"BadExpression", in_role("  WGMMA_WAIT 1 +"), 5, "in expression '1 +'"},
    {"UnknownName", in_role("  WGMMA_WAIT foo"), 5, "unknown name 'foo'"},
    {"LoopCounterOutOfScope", in_role("  loop i = 0, 2\n  end\n  WGMMA_WAIT i"), 7,
     "unknown name 'i'"},
    {"DivisionByZero", in_role("  WGMMA_WAIT 4 / (2 - 2)"), 5, "division by zero"},
    {"DivisionByZeroInParam", top("param P = 1 % 0"), 2, "division by zero"},
    {"ParamNotConstant", top("param P = cta.x"), 2,
     "a parameter value must be a constant (numbers and parameters only), got 'cta.x'"},
    {"ParamSyntax", top("param P 4"), 2, "expected 'param NAME = VALUE'"},
    {"ParamReservedName", top("param cta = 4"), 2,
     "'cta' is a builtin name and cannot be used for a parameter"},
    {"ParamBadName", top("param 4x = 4"), 2, "parameter name must start with a letter or _"},
    // Undefined names.
    {"UndefinedTensorMap", in_role("  TMA_STORE Z [0, 0]"), 5, "unknown tensor map 'Z'"},
    {"UndefinedBarrier", in_role("  MB_ARRIVE nope[0]"), 5, "unknown mbarrier 'nope'"},
    {"UndefinedRing", in_role("  STAGE_WAIT kv 0"), 5, "unknown ring 'kv'"},
    {"UndefinedRingBarrier", in_role("  MB_ARRIVE kv.full[0]"), 5, "unknown mbarrier 'kv.full'"},
    // Blocks.
    {"EndWithoutBlock", top("end"), 2, "'end' without an open role, loop or if"},
    {"UnclosedRole", "kernel k\nmbarrier b\nrole r\n  MB_ARRIVE b\n", 4,
     "role 'r' opened at line 3 is not closed (expected 'end')"},
    {"UnclosedLoop", "kernel k\nmbarrier b\nrole r\n  loop i = 0, 2\n  MB_ARRIVE b\nend\n", 6,
     "role 'r' opened at line 3 is not closed"},
    {"UnclosedInnerLoop", "kernel k\nmbarrier b\nrole r\n  loop i = 0, 2\n  MB_ARRIVE b\n", 5,
     "loop 'i' opened at line 4 is not closed (expected 'end')"},
    {"UnclosedIf", "kernel k\nmbarrier b\nrole r\n  if wg == 0\n  MB_ARRIVE b\n", 5,
     "'if wg == 0' opened at line 4 is not closed"},
    {"ElseWithoutIf", in_role("  loop i = 0, 2\n  else"), 6,
     "'else' without an open 'if' (the innermost open block is loop 'i' opened at line 5)"},
    {"SecondElse", in_role("  if 1\n  else\n  else\n  end"), 7,
     "'else' without an open 'if' (the innermost open block is 'if 1' of line 5, already in its "
     "'else')"},
    {"RoleInsideRole", in_role("  role other"), 5, "'role' inside role 'main'"},
    {"DeclarationInsideRole", in_role("  mbarrier x[1]"), 5, "'mbarrier' inside role 'main'"},
    {"InstructionOutsideRole", top("WGMMA_COMMIT"), 2, "'WGMMA_COMMIT' outside a role"},
    {"LoopOutsideRole", top("loop i = 0, 2"), 2, "'loop' outside a role"},
    {"BeforeKernel", "grid 1\nkernel k\n", 1, "expected 'kernel NAME' before 'grid'"},
    {"NoKernel", "# nothing\n", 1, "expected 'kernel NAME'"},
    {"NoRoles", "kernel k\ngrid 2\n", 2, "kernel 'k' has no roles"},
    {"LoopSyntax", in_role("  loop i 0 4"), 5, "expected 'loop VAR = BEGIN, END'"},
    {"LoopThreeBounds", in_role("  loop i = 0, 4, 1"), 5, "expected 'loop VAR = BEGIN, END'"},
    {"LoopEquality", in_role("  loop i == 0, 4"), 5, "expected 'loop VAR = BEGIN, END'"},
    {"LoopBuiltinName", in_role("  loop wg = 0, 4"), 5, "'wg' is a builtin name"},
    {"LoopHidesParam", "kernel k\nparam N = 2\nmbarrier b\nrole r\n  loop N = 0, 4\n", 5,
     "loop counter 'N' hides the parameter"},
    {"LoopShadowsLoop", in_role("  loop i = 0, 2\n    loop i = 0, 2"), 6,
     "loop counter 'i' shadows an enclosing loop's"},
    {"IfWithoutCondition", in_role("  if"), 5, "if: missing condition"},
    // Duplicate definitions.
    {"KernelTwice", top("kernel again"), 2, "'kernel' is given twice (first at line 1)"},
    {"GridTwice", top("grid 1\ngrid 2"), 3, "'grid' is given twice (first at line 2)"},
    {"ResourcesTwice", top("resources regs=1\nresources smem=0"), 3, "'resources' is given twice"},
    {"ParamTwice", top("param P = 1\nparam P = 2"), 3,
     "parameter 'P' is defined twice (first at line 2)"},
    {"TensorMapTwice", top("tensormap A dtype=f16 dims=[8] box=[8]"), 3,
     "tensor map 'A' is defined twice"},
    {"BarrierTwice", top("mbarrier full[4]"), 4, "mbarrier 'full' is defined twice"},
    {"RingTwice", top("ring kv stages=2\nring kv stages=2"), 3, "ring 'kv' is defined twice"},
    {"RoleTwice", in_role("end\nrole main"), 6, "role 'main' is defined twice"},
    // Declarations.
    {"GridNotConstant", top("grid cta 1"), 2, "grid x must be a constant"},
    {"GridTooManySizes", top("grid 1 2 3 4"), 2, "grid: unexpected operand '4'"},
    {"GridNotPositive", top("grid 0"), 2, "grid dimensions must be positive"},
    {"ResourcesEmpty", top("resources"), 2, "expected regs=N, smem=BYTES and/or code=BYTES"},
    {"RegsOutOfRange", top("resources regs=300"), 2, "registers per thread must be in [1, 255]"},
    {"CodeNegative", top("resources code=-16"), 2, "code size must not be negative"},
    {"RegsHuge", top("resources regs=99999999999"), 2, "regs 99999999999 is out of range"},
    {"TensorMapDtype", top("tensormap X dtype=f64 dims=[8] box=[8]"), 2, "unknown dtype 'f64'"},
    {"TensorMapMissingDims", top("tensormap X dtype=f16 box=[8]"), 2,
     "tensormap: missing operand dims="},
    {"TensorMapRank", top("tensormap X dtype=f16 dims=[1, 1, 1, 1, 1, 1] box=[1]"), 2,
     "dims needs 1 to 5 sizes, got 6"},
    {"TensorMapBoxCount", top("tensormap X dtype=f16 dims=[64, 64] box=[64]"), 2,
     "box has 1 sizes but dims has 2"},
    {"TensorMapStrideCount", top("tensormap X dtype=f16 dims=[64, 64] strides=[] box=[64, 8]"), 2,
     "strides has 0 entries, expected 1"},
    {"TensorMapStrideAlignment",
     top("tensormap X dtype=f16 dims=[64, 64] strides=[100] box=[64, 8]"), 2,
     "stride 1 must be a positive multiple of 16 B"},
    {"TensorMapBox", top("tensormap X dtype=f16 dims=[512] box=[512]"), 2,
     "needs size >= 1 and box in [1, 256]"},
    {"TensorMapSwizzle", top("tensormap X dtype=f16 dims=[64] box=[64] swizzle=16B"), 2,
     "unknown swizzle '16B' (expected none, 32B, 64B or 128B)"},
    {"TensorMapNegativeBase", top("tensormap X dtype=f16 dims=[64] box=[64] base=-1"), 2,
     "base must not be negative"},
    {"BarrierSize", top("mbarrier x[0]"), 2, "mbarrier 'x' needs size >= 1"},
    {"BarrierBadName", top("mbarrier x.y[2]"), 2, "mbarrier name must start with a letter or _"},
    {"RingNoStages", top("ring kv consumers=2"), 2, "ring: missing operand stages="},
    {"RoleWarpgroups", in_role("end\nrole other warpgroups=0"), 6,
     "warpgroups must be in [1, 16], got 0"},
    // Instructions.
    {"CoordinateCount", in_role("  TMA_STORE A [0]"), 5, "tensor map 'A' has rank 2, got 1"},
    {"WgmmaShape", in_role("  WGMMA m64k16 f16 ss"), 5, "expected a shape m64nNkK"},
    {"WgmmaShapeK", in_role("  WGMMA m64n128k32 f16 ss"), 5,
     "shape k32 does not match input type f16 (expected k16)"},
    {"WgmmaDtype", in_role("  WGMMA m64n128k16 f64 ss"), 5, "unknown input type 'f64'"},
    {"WgmmaMode", in_role("  WGMMA m64n128k16 f16 sr"), 5, "expected ss or rs, got 'sr'"},
    {"WgmmaMissingMode", in_role("  WGMMA m64n128k16 f16"), 5, "expected ss or rs"},
    {"WgmmaN", in_role("  WGMMA m64n100k16 f16 ss"), 5, "wgmma N must be a multiple of 8"},
    {"BarSyncThreads", in_role("  BAR_SYNC 1"), 5, "BAR_SYNC: missing operand threads="},
    {"StageIteration", "kernel k\nring kv stages=2\nrole r\n  STAGE_RELEASE kv\n", 4,
     "STAGE_RELEASE: missing operand: expected the ring iteration"},
    {"BulkMissingBar", in_role("  BULK_LOAD addr=0 bytes=16"), 5,
     "BULK_LOAD: missing operand bar="},
    // The verifier's findings name the instruction's line too.
    {"VerifierIndex", in_role("  MB_ARRIVE full[2]"), 5, "mbarrier index 2 is outside 'full'"},
    {"VerifierExpectTx",
     in_role("  MB_ARRIVE_EXPECT_TX full[0] bytes=100\n  TMA_LOAD A [0, 0] bar=full[0]"), 6,
     "expect_tx on mbarrier 'full' is 100 bytes but the TMA loads of the same loop body deliver "
     "8192 bytes"},
    {"VerifierNoArrival", "kernel k\nmbarrier b\nrole r\n  MB_WAIT b parity=0\nend\n", 4,
     "waits on mbarrier 'b' but no instruction ever arrives on it"},
    {"VerifierWgmmaWait", in_role("  WGMMA_WAIT -1"), 5, "WGMMA_WAIT group count must be >= 0"},
};

INSTANTIATE_TEST_SUITE_P(Program, ParseError, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<ErrorCase>& p) {
                           return std::string(p.param.name);
                         });

}  // namespace
}  // namespace asyncsim::program
