// Reading TOML configuration files: a reader whose messages name file:line:column, the table and the key,
// and what each file of the config layer contributes to the schema. Internal to xsim_config (namespace
// xsim::cfg); with toml++ (included by options.cpp and network_toml.cpp only).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include <toml++/toml.h>

#include "config_util.hpp"
#include "kernel_symbols.hpp"
#include "network_spec.hpp"
#include "options.hpp"  // the TOML form of Options: the readers and printers of its tables

namespace xsim::cfg {

// The table a key belongs in, or "" (options.cpp; for "it belongs in [...]" hints).
std::string toml_home_of(std::string_view key);

class TomlReader {
 public:
  // `path` stands for the file in messages.
  explicit TomlReader(std::string path) : path_(std::move(path)) {}
  const std::string& path() const { return path_; }

  std::string at(const toml::source_position& p) const {
    return path_ + ":" + std::to_string(p.line) + ":" + std::to_string(p.column);
  }
  std::string at(const toml::node& n) const { return at(n.source().begin); }
  // "file:line:col: [table] key".
  static std::string where(const std::string& pos, std::string_view table, std::string_view key) {
    return pos + ": [" + std::string(table) + "] " + std::string(key);
  }

  static const char* type_name(const toml::node& n) {
    switch (n.type()) {
      case toml::node_type::table: return "a table";
      case toml::node_type::array: return "an array";
      case toml::node_type::string: return "a string";
      case toml::node_type::integer: return "an integer";
      case toml::node_type::floating_point: return "a floating-point number";
      case toml::node_type::boolean: return "a boolean";
      case toml::node_type::date: return "a date";
      case toml::node_type::time: return "a time of day";
      case toml::node_type::date_time: return "a date-time";
      default: return "nothing";
    }
  }

  [[noreturn]] void wrong_type(const toml::node& n, std::string_view table, std::string_view key,
                               const std::string& expected) const {
    fail(where(at(n), table, key), "expected " + expected + ", got " + type_name(n));
  }

  // A key that `table` does not have: lists `known`, and says where the key belongs, else the closest.
  [[noreturn]] void unknown_key(const toml::key& key, std::string_view table, const std::vector<std::string>& known) const {
    std::string home = toml_home_of(key.str());
    std::string hint = !home.empty() && home != table ? "; it belongs in [" + home + "]" : suggestion(key.str(), known);
    fail(at(key.source().begin), "unknown key " + quoted(key.str()) + " in [" + std::string(table) +
                                     "]; known keys: " + join(known) + hint);
  }

  std::string_view str(const toml::node& n, std::string_view table, std::string_view key,
                       const std::string& expected) const {
    if (!n.is_string()) wrong_type(n, table, key, expected);
    return n.as_string()->get();
  }
  int64_t integer(const toml::node& n, std::string_view table, std::string_view key) const {
    if (!n.is_integer()) wrong_type(n, table, key, "an integer");
    return n.as_integer()->get();
  }
  SimTime time(const toml::node& n, std::string_view table, std::string_view key) const {
    return to_time(str(n, table, key, "a time string such as \"25us\""), where(at(n), table, key));
  }

  // A relative file name in the configuration is relative to the directory of the config file.
  std::string relative_to_config(const std::string& file) const {
    if (file.empty() || file.front() == '/') return file;
    size_t slash = path_.rfind('/');
    return slash == std::string::npos ? file : path_.substr(0, slash + 1) + file;
  }

 private:
  std::string path_;
};

// network_toml.cpp: the table [network] (its keys and [[network.level]] tables) read over `ns`.
void read_network_table(const TomlReader& r, const toml::table& t, NetworkSpec& ns);
// The keys that belong in [network] (for toml_home_of).
bool is_network_home_key(std::string_view key);
// The [network] section and its [[network.level]] tables, as -xsim-print-config shows them.
std::string network_to_toml(const NetworkSpec& ns);

// kernels_toml.cpp: an entry of [kernels] that is not an option row (mode, preset: options.cpp): peak,
// bandwidth, overhead, a [kernels.FAMILY] table, or a sub-table of kKernelSubtables ([kernels.symbols]).
// `row_keys` (mode, preset) are listed with the others when the key is unknown.
void read_kernels_entry(const TomlReader& r, const toml::key& key, const toml::node& n, Options& o,
                        const std::vector<std::string>& row_keys);
// The keys that belong in [kernels] other than its option rows (for toml_home_of).
bool is_kernels_home_key(std::string_view key);
// The given [kernels] parameters and [kernels.FAMILY] tables, as -xsim-print-config shows them (after the
// rows of [kernels]).
std::string kernels_to_toml(const Options& o);
// The -xsim-kernels and -xsim-kernel-preset values.
KernelMode to_kernel_mode(std::string_view v, const std::string& where);
std::string to_kernel_preset(std::string_view v, const std::string& where);
// With -xsim-kernels model: a ConfigError when the model has no parameters (`mode_where` names where the
// mode was set) or lacks peak or bandwidth.
void check_kernels(const Options& o, const std::string& mode_where);
// kernel_symbols_toml.cpp: the table [kernels.symbols] (`node`: its value), one [kernels.symbols.NAME] table
// per function of the program, appended to `out` (a name given again replaces the earlier model).
void read_kernel_symbols(const TomlReader& r, const toml::node& node, std::vector<SymbolModelSpec>& out);
// The [kernels.symbols.NAME] tables, as -xsim-print-config shows them.
std::string kernel_symbols_to_toml(const std::vector<SymbolModelSpec>& v);

}  // namespace xsim::cfg
