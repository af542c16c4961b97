// Formula: recursive-descent parser emitting a postfix program, with constant folding; and its evaluator.
#include "xsim/procmodel/formula.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace xsim::proc {

namespace {

bool is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_name_char(char c) { return is_name_start(c) || (c >= '0' && c <= '9'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

double apply(Formula::Op op, double a, double b) {
  switch (op) {
    case Formula::Op::add: return a + b;
    case Formula::Op::sub: return a - b;
    case Formula::Op::mul: return a * b;
    case Formula::Op::div: return a / b;
    case Formula::Op::mod: return std::fmod(a, b);
    case Formula::Op::min: return std::min(a, b);
    case Formula::Op::max: return std::max(a, b);
    default: return 0.0;
  }
}

}  // namespace

class FormulaParser {
 public:
  FormulaParser(std::string_view text, const std::vector<std::string>& vars) : s_(text), vars_(vars) {}

  std::vector<Formula::Insn> run() {
    skip();
    if (pos_ == s_.size()) fail(pos_, "the formula is empty; give an expression such as 16 * M * N");
    expr();
    if (pos_ != s_.size())
      fail(pos_, "expected an operator (+ - * / %) or the end of the formula, found " + found());
    return std::move(code_);
  }

 private:
  std::string_view s_;
  const std::vector<std::string>& vars_;
  size_t pos_ = 0;
  size_t depth_ = 0;  // evaluation stack depth after the code emitted so far
  std::vector<Formula::Insn> code_;

  [[noreturn]] void fail(size_t at, const std::string& msg) const { throw FormulaError(at + 1, msg); }

  std::string found() const {
    if (pos_ >= s_.size()) return "the end of the formula";
    if (is_name_start(s_[pos_])) {
      size_t e = pos_;
      while (e < s_.size() && is_name_char(s_[e])) ++e;
      return "the name '" + std::string(s_.substr(pos_, e - pos_)) + "'";
    }
    return "'" + std::string(1, s_[pos_]) + "'";
  }
  void skip() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t')) ++pos_;
  }
  bool eat(char c) {
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      skip();
      return true;
    }
    return false;
  }
  void expect(char c, const std::string& what) {
    if (!eat(c)) fail(pos_, "expected " + what + ", found " + found());
  }

  void push(Formula::Insn i, size_t at) {
    code_.push_back(i);
    if (++depth_ > Formula::kMaxStack)
      fail(at, "the formula nests too deeply (more than " + std::to_string(Formula::kMaxStack) + " pending values)");
  }
  // A binary operation: folded when both operands are constants.
  void binary(Formula::Op op) {
    const size_t n = code_.size();
    --depth_;
    if (n >= 2 && code_[n - 1].op == Formula::Op::constant && code_[n - 2].op == Formula::Op::constant) {
      code_[n - 2].value = apply(op, code_[n - 2].value, code_[n - 1].value);
      code_.pop_back();
      return;
    }
    code_.push_back({op, 0, 0.0});
  }

  void expr() {
    term();
    for (;;) {
      if (eat('+')) term(), binary(Formula::Op::add);
      else if (eat('-')) term(), binary(Formula::Op::sub);
      else return;
    }
  }
  void term() {
    unary();
    for (;;) {
      if (eat('*')) unary(), binary(Formula::Op::mul);
      else if (eat('/')) unary(), binary(Formula::Op::div);
      else if (eat('%')) unary(), binary(Formula::Op::mod);
      else return;
    }
  }
  void unary() {
    if (eat('+')) return unary();
    if (eat('-')) {
      unary();
      if (code_.back().op == Formula::Op::constant) code_.back().value = -code_.back().value;
      else code_.push_back({Formula::Op::neg, 0, 0.0});
      return;
    }
    primary();
  }
  void primary() {
    const size_t at = pos_;
    if (pos_ < s_.size() && (is_digit(s_[pos_]) || s_[pos_] == '.')) return number();
    if (pos_ < s_.size() && is_name_start(s_[pos_])) return name();
    if (eat('(')) {
      expr();
      expect(')', "')' to close the '(' at column " + std::to_string(at + 1));
      return;
    }
    fail(pos_, "expected a number, a name, '(' or '-', found " + found());
  }
  void number() {
    const size_t at = pos_;
    size_t e = pos_;
    if (s_[at] == '.') fail(at, "expected a digit before the decimal point (write 0.5, not .5)");
    while (e < s_.size() && is_digit(s_[e])) ++e;
    if (e < s_.size() && s_[e] == '.') {
      ++e;
      if (e >= s_.size() || !is_digit(s_[e])) fail(e, "expected a digit after the decimal point");
      while (e < s_.size() && is_digit(s_[e])) ++e;
    }
    if (e < s_.size() && (s_[e] == 'e' || s_[e] == 'E')) {
      ++e;
      if (e < s_.size() && (s_[e] == '+' || s_[e] == '-')) ++e;
      if (e >= s_.size() || !is_digit(s_[e])) fail(e, "expected the exponent's digits (e.g. 2e9)");
      while (e < s_.size() && is_digit(s_[e])) ++e;
    }
    if (e < s_.size() && is_name_char(s_[e]))
      fail(e, "expected an operator after the number, found '" + std::string(1, s_[e]) + "' (write 2 * N, not 2N)");
    double v = 0.0;
    auto [p, ec] = std::from_chars(s_.data() + at, s_.data() + e, v);
    if (ec != std::errc() || p != s_.data() + e || !std::isfinite(v))
      fail(at, "the number '" + std::string(s_.substr(at, e - at)) + "' is out of range");
    pos_ = e;
    skip();
    push({Formula::Op::constant, 0, v}, at);
  }
  void name() {
    const size_t at = pos_;
    size_t e = pos_;
    while (e < s_.size() && is_name_char(s_[e])) ++e;
    const std::string_view id = s_.substr(at, e - at);
    pos_ = e;
    skip();
    auto var = std::find(vars_.begin(), vars_.end(), id);
    if (pos_ < s_.size() && s_[pos_] == '(' && var == vars_.end()) return call(id, at);
    if (var == vars_.end()) {
      std::string known;
      for (const auto& v : vars_) known += (known.empty() ? "" : ", ") + v;
      fail(at, "unknown name '" + std::string(id) + "'; the names are the arguments (" +
                   (known.empty() ? std::string("none given") : known) + ") and the functions min(a, b), max(a, b)");
    }
    push({Formula::Op::variable, static_cast<uint32_t>(var - vars_.begin()), 0.0}, at);
  }
  void call(std::string_view fn, size_t at) {
    Formula::Op op;
    if (fn == "min") op = Formula::Op::min;
    else if (fn == "max") op = Formula::Op::max;
    else fail(at, "unknown function '" + std::string(fn) + "'; the functions are min(a, b) and max(a, b)");
    const size_t open = pos_;
    expect('(', "'('");
    expr();
    expect(',', "',' between the two arguments of " + std::string(fn) + "()");
    expr();
    expect(')', "')' to close the '(' at column " + std::to_string(open + 1));
    binary(op);
  }
};

Formula Formula::compile(std::string_view text, const std::vector<std::string>& vars) {
  Formula f;
  f.text_ = std::string(text);
  FormulaParser p(text, vars);
  f.code_ = p.run();
  return f;
}

bool Formula::uses(size_t i) const {
  return std::any_of(code_.begin(), code_.end(), [i](const Insn& c) { return c.op == Op::variable && c.var == i; });
}

double Formula::eval(const double* values) const {
  if (code_.empty()) return 0.0;
  double st[kMaxStack];
  size_t sp = 0;
  for (const Insn& c : code_) {
    switch (c.op) {
      case Op::constant: st[sp++] = c.value; break;
      case Op::variable: st[sp++] = values[c.var]; break;
      case Op::neg: st[sp - 1] = -st[sp - 1]; break;
      default:
        --sp;
        st[sp - 1] = apply(c.op, st[sp - 1], st[sp]);
        break;
    }
  }
  return st[0];
}

}  // namespace xsim::proc
