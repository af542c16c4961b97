// Formula: an arithmetic expression over named variables, compiled once to a small stack program and
// evaluated on every call of a modelled function (docs/real-programs.md, "Functions of the program").
// Layer: procmodel (pure: no MPI, no fibers). Immutable after compile(); eval() is reentrant.
//
// Grammar (whitespace between tokens is ignored):
//   expr    := term (('+' | '-') term)*
//   term    := unary (('*' | '/' | '%') unary)*
//   unary   := ('-' | '+') unary | primary
//   primary := NUMBER | NAME | ('min' | 'max') '(' expr ',' expr ')' | '(' expr ')'
//   NUMBER  := digits ['.' digits] [('e' | 'E') ['+' | '-'] digits]     (e.g. 16, 0.5, 2e9)
//   NAME    := letter or '_', then letters, digits, '_'
// Arithmetic is IEEE double: '/' divides exactly (7 / 2 = 3.5), '%' is fmod. Sizes up to 2^53 are exact,
// so a flop count of 10^21 is rounded, never wrapped. Division by zero gives inf or NaN; the caller decides
// what such a value means.
#pragma once
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace xsim::proc {

// A malformed formula or an unknown name. what(): "column C: ..." (1-based column in the formula text),
// saying what was expected or which name is unknown and which names exist.
struct FormulaError : std::runtime_error {
  FormulaError(size_t col, const std::string& msg)
      : std::runtime_error("column " + std::to_string(col) + ": " + msg), column(col) {}
  size_t column;
};

class Formula {
 public:
  Formula() = default;  // the constant 0
  // Compiles `text` over `vars`: variable i of the formula reads values[i] in eval(). Throws FormulaError.
  static Formula compile(std::string_view text, const std::vector<std::string>& vars);

  // The value for `values` (one per variable of compile(); at least that many).
  double eval(const double* values) const;

  const std::string& text() const { return text_; }
  // Whether the formula reads variable i.
  bool uses(size_t i) const;
  // Number of instructions after constant folding (for tests).
  size_t size() const { return code_.size(); }

  enum class Op : uint8_t { constant, variable, add, sub, mul, div, mod, neg, min, max };
  struct Insn {
    Op op;
    uint32_t var;  // variable
    double value;  // constant
  };
  // The deepest evaluation stack a formula may need; deeper nesting is refused at compile time.
  static constexpr size_t kMaxStack = 64;

 private:
  friend class FormulaParser;
  std::string text_;
  std::vector<Insn> code_;
};

}  // namespace xsim::proc
