// [kernels.symbols.NAME] tables (kernel_symbols.hpp): read, checked and printed back. Every error names
// file:line:column, the table and the key; a formula error also gives the column inside the formula.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "config_toml.hpp"
#include "kernel_symbols.hpp"
#include "xsim/units.hpp"

namespace xsim {

const char* symbol_arg_type_name(SymbolArgType t) {
  switch (t) {
    case SymbolArgType::i32: return "i32";
    case SymbolArgType::u32: return "u32";
    case SymbolArgType::i64: return "i64";
    case SymbolArgType::u64: return "u64";
    case SymbolArgType::ptr: return "ptr";
  }
  return "i32";
}

namespace cfg {
namespace {

const std::vector<std::string> kSymbolKeys{"args", "flops", "bytes", "efficiency", "overhead"};

bool is_identifier(std::string_view s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// "N" or "N:i64": the name and its type.
void read_arg(const TomlReader& r, const toml::node& n, const std::string& table, SymbolModelSpec& s) {
  const std::string_view text = r.str(n, table, "args", "an array of argument names such as [\"M\", \"N:i64\"]");
  const size_t colon = text.find(':');
  const std::string name(text.substr(0, colon));
  const std::string w = TomlReader::where(r.at(n), table, "args");
  if (!is_identifier(name) || name == "min" || name == "max")
    fail(w, quoted(text) + " is not an argument name; give a name of letters, digits and '_' that does not start "
                           "with a digit and is not min or max, with an optional type: \"N\" or \"N:i64\"");
  if (std::find(s.args.begin(), s.args.end(), name) != s.args.end())
    fail(w, "the argument name " + quoted(name) + " is given twice; each integer/pointer argument needs its own name");
  SymbolArgType type = SymbolArgType::i32;
  if (colon != std::string_view::npos) {
    const std::string_view t = text.substr(colon + 1);
    const std::vector<std::string> kinds{"i32", "u32", "i64", "u64", "ptr"};
    auto it = std::find(kinds.begin(), kinds.end(), t);
    if (it == kinds.end())
      fail(w, "unknown argument type " + quoted(t) + " in " + quoted(text) +
                  "; give i32 (a C int, the default), u32, i64 (long), u64 (size_t) or ptr" + suggestion(t, kinds));
    type = static_cast<SymbolArgType>(it - kinds.begin());
  }
  s.args.push_back(name);
  s.types.push_back(type);
}

void read_args(const TomlReader& r, const toml::node& n, const std::string& table, SymbolModelSpec& s) {
  const toml::array* a = n.as_array();
  if (!a) r.wrong_type(n, table, "args", "an array of argument names such as [\"M\", \"N\", \"A:ptr\"]");
  if (a->size() > kMaxSymbolArgs)
    fail(TomlReader::where(r.at(n), table, "args"),
         std::to_string(a->size()) + " argument names; a model reads at most " + std::to_string(kMaxSymbolArgs) +
             " integer/pointer arguments (name the first ones the formulas need)");
  for (const toml::node& e : *a) read_arg(r, e, table, s);
}

proc::Formula read_formula(const TomlReader& r, const toml::node& n, const std::string& table, const char* key,
                           const SymbolModelSpec& s) {
  const std::string_view text = r.str(n, table, key, "a formula string such as \"16 * M * N\"");
  try {
    return proc::Formula::compile(text, s.args);
  } catch (const proc::FormulaError& e) {
    fail(TomlReader::where(r.at(n), table, key), std::string("in the formula ") + quoted(text) + ", " + e.what());
  }
}

double read_efficiency(const TomlReader& r, const toml::node& n, const std::string& table) {
  double v = 0;
  if (n.is_floating_point()) v = n.as_floating_point()->get();
  else if (n.is_integer()) v = static_cast<double>(n.as_integer()->get());
  else r.wrong_type(n, table, "efficiency", "a number in (0, 1]");
  if (!(v > 0.0) || !(v <= 1.0))
    fail(TomlReader::where(r.at(n), table, "efficiency"),
         "efficiency " + shortest_double(v) + " is out of range; give the fraction of peak (or bandwidth) the "
                                             "function reaches, in (0, 1], e.g. 0.8");
  return v;
}

SymbolModelSpec read_symbol(const TomlReader& r, const toml::key& key, const toml::node& node) {
  SymbolModelSpec s;
  s.name = std::string(key.str());
  const std::string table = "kernels.symbols." + s.name;
  s.where = r.at(key.source().begin) + ": [" + table + "]";
  if (!node.is_table())
    fail(r.at(node), quoted(s.name) + " in [kernels.symbols] must be a table ([kernels.symbols." + s.name +
                         "] with args and flops or bytes), got " + TomlReader::type_name(node));
  if (s.name.empty() || s.name.find_first_of(" \t@") != std::string::npos)
    fail(s.where, quoted(s.name) + " is not a symbol name; give the function's name as its symbol table has it "
                                   "(nm PROGRAM | grep NAME), without a version (@...)");
  const toml::table& t = *node.as_table();
  for (auto&& [k, n] : t)
    if (std::find(kSymbolKeys.begin(), kSymbolKeys.end(), k.str()) == kSymbolKeys.end()) r.unknown_key(k, table, kSymbolKeys);
  if (const toml::node* a = t.get("args")) read_args(r, *a, table, s);
  if (const toml::node* f = t.get("flops")) s.flops = read_formula(r, *f, table, "flops", s), s.has_flops = true;
  if (const toml::node* b = t.get("bytes")) s.bytes = read_formula(r, *b, table, "bytes", s), s.has_bytes = true;
  if (const toml::node* e = t.get("efficiency")) s.efficiency = read_efficiency(r, *e, table);
  if (const toml::node* o = t.get("overhead")) s.overhead = r.time(*o, table, "overhead"), s.has_overhead = true;
  return s;
}

}  // namespace

void read_kernel_symbols(const TomlReader& r, const toml::node& node, std::vector<SymbolModelSpec>& out) {
  const toml::table* t = node.as_table();
  if (!t)
    fail(r.at(node), "symbols in [kernels] must be a table of tables, [kernels.symbols.NAME], got " +
                         std::string(TomlReader::type_name(node)));
  for (auto&& [key, n] : *t) {
    SymbolModelSpec s = read_symbol(r, key, n);
    std::erase_if(out, [&](const SymbolModelSpec& o) { return o.name == s.name; });
    out.push_back(std::move(s));
    if (out.size() > kMaxSymbolModels)
      fail(r.at(key.source().begin), "more than " + std::to_string(kMaxSymbolModels) +
                                         " [kernels.symbols] tables; xsim models at most that many functions of the program");
  }
}

std::string kernel_symbols_to_toml(const std::vector<SymbolModelSpec>& v) {
  std::string s;
  for (const SymbolModelSpec& m : v) {
    s += "\n[kernels.symbols." + toml_string(m.name) + "]\nargs = [";
    for (size_t i = 0; i < m.args.size(); ++i)
      s += (i ? ", " : "") + toml_string(m.types[i] == SymbolArgType::i32
                                             ? m.args[i]
                                             : m.args[i] + ":" + symbol_arg_type_name(m.types[i]));
    s += "]\n";
    if (m.has_flops) s += "flops = " + toml_string(m.flops.text()) + "\n";
    if (m.has_bytes) s += "bytes = " + toml_string(m.bytes.text()) + "\n";
    if (m.efficiency != 1.0) s += "efficiency = " + shortest_double(m.efficiency) + "\n";
    if (m.has_overhead) {
      std::string t = format_time(m.overhead);
      t.erase(std::remove(t.begin(), t.end(), ' '), t.end());
      s += "overhead = " + toml_string(t) + "\n";
    }
  }
  return s;
}

// "57.6GF", "57.6 GFLOP/s", "5.76e10": flop/s.

}  // namespace cfg
}  // namespace xsim
