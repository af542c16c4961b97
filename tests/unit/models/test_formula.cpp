// Formula (procmodel/xsim/procmodel/formula.hpp): values, precedence, folding, and every error with its column.
#include "xsim/procmodel/formula.hpp"

#include <gtest/gtest.h>

#include <cmath>

using xsim::proc::Formula;
using xsim::proc::FormulaError;

namespace {

double ev(const char* text, std::vector<double> values = {}, std::vector<std::string> vars = {}) {
  return Formula::compile(text, vars).eval(values.data());
}

// The message of the error compile() throws, "" when it does not throw.
std::string err(const char* text, std::vector<std::string> vars = {"M", "N"}) {
  try {
    Formula::compile(text, vars);
  } catch (const FormulaError& e) {
    return e.what();
  }
  return "";
}

TEST(Formula, Literals) {
  EXPECT_EQ(ev("16"), 16.0);
  EXPECT_EQ(ev("0.25"), 0.25);
  EXPECT_EQ(ev("2e9"), 2e9);
  EXPECT_EQ(ev("1.5E-3"), 1.5e-3);
  EXPECT_EQ(ev("  7\t"), 7.0);
}

TEST(Formula, PrecedenceAndAssociativity) {
  EXPECT_EQ(ev("2 + 3 * 4"), 14.0);
  EXPECT_EQ(ev("(2 + 3) * 4"), 20.0);
  EXPECT_EQ(ev("10 - 4 - 3"), 3.0);  // left to right
  EXPECT_EQ(ev("64 / 4 / 2"), 8.0);
  EXPECT_EQ(ev("7 / 2"), 3.5);       // exact division
  EXPECT_EQ(ev("17 % 5"), 2.0);
  EXPECT_EQ(ev("2 * 17 % 5"), 4.0);  // * and % bind alike: (2 * 17) % 5
  EXPECT_EQ(ev("-2 * 3"), -6.0);
  EXPECT_EQ(ev("- -4"), 4.0);
  EXPECT_EQ(ev("2 - -3"), 5.0);
  EXPECT_EQ(ev("+5"), 5.0);
  EXPECT_EQ(ev("-(2 + 3)"), -5.0);
}

TEST(Formula, Variables) {
  const std::vector<std::string> vars{"M", "N", "LDA"};
  Formula f = Formula::compile("16 * M * N + LDA", vars);
  const double v[] = {100, 200, 7};
  EXPECT_EQ(f.eval(v), 320007.0);
  const double w[] = {-1, 3, 0};
  EXPECT_EQ(f.eval(w), -48.0);
  EXPECT_TRUE(f.uses(0));
  EXPECT_TRUE(f.uses(2));
  EXPECT_EQ(ev("-M", {5}, {"M"}), -5.0);
  EXPECT_EQ(ev("_x1 * 2", {4}, {"_x1"}), 8.0);
}

TEST(Formula, MinMax) {
  EXPECT_EQ(ev("min(M, N)", {3, 9}, {"M", "N"}), 3.0);
  EXPECT_EQ(ev("max(M, N)", {3, 9}, {"M", "N"}), 9.0);
  EXPECT_EQ(ev("2 * max(min(M, 4), N - 8) + 1", {3, 9}, {"M", "N"}), 7.0);
  // an argument named like a function is the argument unless it is called
  EXPECT_EQ(ev("min + 1", {41}, {"min"}), 42.0);
  // 2/3 N^3 of an LU factorisation at Frontera's N stays finite and close
  EXPECT_NEAR(ev("2 * N * N * N / 3", {9282848}, {"N"}), 5.3326e20, 1e17);
}

TEST(Formula, ConstantsAreFolded) {
  EXPECT_EQ(Formula::compile("2 * 3 + 4", {}).size(), 1u);
  EXPECT_EQ(Formula::compile("-(8 / 2)", {}).size(), 1u);
  EXPECT_EQ(Formula::compile("max(2, 3) * M", {"M"}).size(), 3u);  // 3, M, *
}

TEST(Formula, DivisionByZeroIsNotAnError) {
  EXPECT_TRUE(std::isinf(ev("1 / M", {0}, {"M"})));
  EXPECT_TRUE(std::isnan(ev("M % 0", {3}, {"M"})));
}

TEST(Formula, Errors) {
  EXPECT_EQ(err(""), "column 1: the formula is empty; give an expression such as 16 * M * N");
  EXPECT_EQ(err("16 * "), "column 6: expected a number, a name, '(' or '-', found the end of the formula");
  EXPECT_EQ(err("16 ** M"), "column 5: expected a number, a name, '(' or '-', found '*'");
  EXPECT_EQ(err("(M + N"), "column 7: expected ')' to close the '(' at column 1, found the end of the formula");
  EXPECT_EQ(err("M N"), "column 3: expected an operator (+ - * / %) or the end of the formula, found the name 'N'");
  EXPECT_EQ(err("2N"), "column 2: expected an operator after the number, found 'N' (write 2 * N, not 2N)");
  EXPECT_EQ(err(".5 * M"), "column 1: expected a digit before the decimal point (write 0.5, not .5)");
  EXPECT_EQ(err("1. * M"), "column 3: expected a digit after the decimal point");
  EXPECT_EQ(err("2e"), "column 3: expected the exponent's digits (e.g. 2e9)");
  EXPECT_EQ(err("M * K"),
            "column 5: unknown name 'K'; the names are the arguments (M, N) and the functions min(a, b), max(a, b)");
  EXPECT_EQ(err("K", {}),
            "column 1: unknown name 'K'; the names are the arguments (none given) and the functions min(a, b), max(a, b)");
  EXPECT_EQ(err("pow(M, 2)"), "column 1: unknown function 'pow'; the functions are min(a, b) and max(a, b)");
  EXPECT_EQ(err("min(M)"), "column 6: expected ',' between the two arguments of min(), found ')'");
  EXPECT_EQ(err("max(M, N"), "column 9: expected ')' to close the '(' at column 4, found the end of the formula");
  EXPECT_EQ(err("M $ N"), "column 3: expected an operator (+ - * / %) or the end of the formula, found '$'");
  EXPECT_EQ(err("1e999"), "column 1: the number '1e999' is out of range");
}

TEST(Formula, ErrorColumnIsAField) {
  try {
    Formula::compile("M + + * N", {"M", "N"});
    FAIL() << "no error";
  } catch (const FormulaError& e) {
    EXPECT_EQ(e.column, 7u);
  }
}

TEST(Formula, DeepNestingIsRefused) {
  std::string deep;
  for (int i = 0; i < 70; ++i) deep += "M + (";
  deep += "M";
  for (int i = 0; i < 70; ++i) deep += ")";
  EXPECT_NE(err(deep.c_str()).find("nests too deeply"), std::string::npos);
  std::string ok;  // a long flat sum needs two stack slots, whatever its length
  for (int i = 0; i < 500; ++i) ok += "M + ";
  ok += "N";
  const double v[] = {1, 2};
  EXPECT_EQ(Formula::compile(ok, {"M", "N"}).eval(v), 502.0);
}

}  // namespace
