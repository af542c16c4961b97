// The [kernels] table of the kernel models (docs/real-programs.md "Kernel models"): its parameters peak,
// bandwidth and overhead, its [kernels.FAMILY] tables, and the sub-tables other parts of xsim read
// (kKernelSubtables). Its option rows, mode and preset, are kOptions rows in options.cpp.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "config_toml.hpp"
#include "xsim/units.hpp"

namespace xsim {

proc::KernelParams kernel_params(const KernelOptions& k) {
  const proc::KernelParams* preset = k.preset.empty() ? nullptr : proc::kernel_preset(k.preset);
  return proc::overlay(preset ? *preset : proc::KernelParams{}, k.params);
}

namespace cfg {
namespace {

using proc::Kernel;

// Sub-tables of [kernels] that are not kernel families, each with the reader of its part of xsim.
// nullptr: accepted here and read elsewhere. [kernels.symbols.NAME]: functions of the program modelled by name
// (kernel_symbols_toml.cpp).
struct KernelsSubtable {
  const char* name;
  void (*read)(const TomlReader& r, const toml::table& t, Options& o);
};
void read_symbols(const TomlReader& r, const toml::table& t, Options& o) { read_kernel_symbols(r, t, o.kernel_symbols); }
constexpr KernelsSubtable kKernelSubtables[] = {{"symbols", read_symbols}};

constexpr const char* kParamKeys[] = {"peak", "bandwidth", "overhead"};
constexpr const char* kFamilyKeys[] = {"efficiency", "half_dim", "overhead"};
constexpr double kMaxEfficiency = 2.0;

std::vector<std::string> table_keys(const std::vector<std::string>& row_keys) {
  std::vector<std::string> v = row_keys;
  v.insert(v.end(), std::begin(kParamKeys), std::end(kParamKeys));
  v.push_back("exec");
  for (const std::string& f : proc::kernel_names()) v.push_back(f + " (table)");
  for (const auto& s : kKernelSubtables) v.push_back(std::string(s.name) + " (table)");
  return v;
}

// A number as a double: a TOML float or integer.
bool number_of(const toml::node& n, double& v) {
  if (n.is_floating_point()) v = n.as_floating_point()->get();
  else if (n.is_integer()) v = static_cast<double>(n.as_integer()->get());
  else return false;
  return true;
}

double read_peak(const TomlReader& r, const toml::node& n) {
  const std::string w = TomlReader::where(r.at(n), "kernels", "peak");
  double v = 0;
  if (n.is_string()) {
    try {
      return proc::parse_flop_rate(n.as_string()->get());
    } catch (const std::invalid_argument& e) {
      fail(w, e.what());
    }
  }
  if (!number_of(n, v)) r.wrong_type(n, "kernels", "peak", "a flop rate string such as \"57.6GF\" or a number of flop/s");
  if (!(v > 0) || !std::isfinite(v)) fail(w, "the peak must be a positive flop rate per core, e.g. \"57.6GF\"");
  return v;
}

double read_bandwidth(const TomlReader& r, const toml::node& n) {
  const std::string w = TomlReader::where(r.at(n), "kernels", "bandwidth");
  if (n.is_string()) return static_cast<double>(to_bandwidth(n.as_string()->get(), w)) / 8.0;
  double v = 0;
  if (!number_of(n, v))
    r.wrong_type(n, "kernels", "bandwidth", "a bandwidth string such as \"3.3GB/s\" or a number of bytes/s");
  if (!(v > 0) || !std::isfinite(v)) fail(w, "the bandwidth must be positive, e.g. \"3.3GB/s\" per core");
  return v;
}

int64_t read_overhead(const TomlReader& r, const toml::node& n, std::string_view table) {
  return r.time(n, table, "overhead").ps();
}

// One [kernels.FAMILY] table.
void read_family(const TomlReader& r, const toml::table& t, Kernel k, proc::KernelFamilyParams& f) {
  const std::string table = std::string("kernels.") + proc::kernel_name(k);
  const std::vector<std::string> known(std::begin(kFamilyKeys), std::end(kFamilyKeys));
  for (auto&& [key, n] : t) {
    const std::string_view name = key.str();
    const std::string w = TomlReader::where(r.at(n), table, name);
    double v = 0;
    if (name == "efficiency") {
      if (!number_of(n, v)) r.wrong_type(n, table, name, "a number such as 0.9");
      if (!(v > 0 && v <= kMaxEfficiency))
        fail(w, "an efficiency must be above 0 and at most 2 (got " + shortest_double(v) +
                    "); it is the fraction of the peak (or bandwidth) the kernel reaches, e.g. 0.9");
      f.efficiency = v;
    } else if (name == "half_dim") {
      if (!proc::compute_bound(k))
        fail(w, "half_dim applies to the compute-bound families only (gemm, trsm, trmm, syrk, symm); " +
                    std::string(proc::kernel_name(k)) + " is memory-bound: give efficiency (and overhead)");
      if (!number_of(n, v)) r.wrong_type(n, table, name, "a number such as 24");
      if (!(v >= 0) || !std::isfinite(v))
        fail(w, "half_dim must be 0 or more (got " + shortest_double(v) +
                    "): the smallest dimension at which the kernel reaches half its efficiency");
      f.half_dim = v;
    } else if (name == "overhead") {
      f.overhead_ps = read_overhead(r, n, table);
    } else {
      r.unknown_key(key, table, known);
    }
  }
}

}  // namespace

namespace {
// [kernels] exec = ["iamax", "copy", ...]: family names.
void read_exec(const TomlReader& r, const toml::node& n, std::vector<Kernel>& out) {
  const toml::array* a = n.as_array();
  if (!a) r.wrong_type(n, "kernels", "exec", "an array of kernel family names (e.g. [\"iamax\", \"copy\"])");
  out.clear();
  for (const toml::node& e : *a) {
    const std::optional<std::string> name = e.value<std::string>();
    if (!name) r.wrong_type(e, "kernels", "exec", "kernel family names (strings)");
    const std::optional<Kernel> k = proc::kernel_from_name(*name);
    if (!k)
      fail(TomlReader::where(r.at(e), "kernels", "exec"), "unknown kernel family " + quoted(*name) +
                                                              "; the families are " + join(proc::kernel_names()) +
                                                              suggestion(*name, proc::kernel_names()));
    if (std::find(out.begin(), out.end(), *k) == out.end()) out.push_back(*k);
  }
}
}  // namespace

void read_kernels_entry(const TomlReader& r, const toml::key& key, const toml::node& n, Options& o,
                        const std::vector<std::string>& row_keys) {
  const std::string_view name = key.str();
  proc::KernelParams& p = o.kernels.params;
  if (name == "peak") return void(p.peak = read_peak(r, n));
  if (name == "bandwidth") return void(p.bandwidth = read_bandwidth(r, n));
  if (name == "overhead") return void(p.overhead_ps = read_overhead(r, n, "kernels"));
  if (name == "exec") return read_exec(r, n, o.kernels.exec);
  for (const auto& s : kKernelSubtables) {
    if (name != s.name) continue;
    if (!n.is_table()) r.wrong_type(n, "kernels", name, "a table ([kernels." + std::string(name) + "])");
    if (s.read) s.read(r, *n.as_table(), o);
    return;
  }
  if (std::optional<Kernel> k = proc::kernel_from_name(name)) {
    if (!n.is_table())
      r.wrong_type(n, "kernels", name, "a table ([kernels." + std::string(name) + "] with efficiency, half_dim, overhead)");
    return read_family(r, *n.as_table(), *k, p[*k]);
  }
  if (n.is_table()) {
    std::vector<std::string> tables = proc::kernel_names();
    for (const auto& s : kKernelSubtables) tables.emplace_back(s.name);
    fail(r.at(key.source().begin), "unknown kernel family [kernels." + std::string(name) + "]; the families are " +
                                       join(proc::kernel_names()) + " (and [kernels.symbols] for functions of the "
                                       "program)" + suggestion(name, tables));
  }
  r.unknown_key(key, "kernels", table_keys(row_keys));
}

bool is_kernels_home_key(std::string_view key) {
  return std::find(std::begin(kParamKeys), std::end(kParamKeys), key) != std::end(kParamKeys) ||
         key == "efficiency" || key == "half_dim" || key == "exec";
}

KernelMode to_kernel_mode(std::string_view v, const std::string& where) {
  if (v == "exec") return KernelMode::exec;
  if (v == "model") return KernelMode::model;
  if (v == "audit") return KernelMode::audit;
  fail(where, "unknown kernel mode " + quoted(v) + "; give exec (run the BLAS calls), model (charge their "
              "modelled time instead) or audit (run them and report their measured time beside the model's)" +
              suggestion(v, {"exec", "model", "audit"}));
}

std::string to_kernel_preset(std::string_view v, const std::string& where) {
  if (v == "none") return "";
  if (!proc::kernel_preset(v))
    fail(where, "unknown kernel preset " + quoted(v) + "; the presets are " + join(proc::kernel_preset_names()) +
                    " (or none); for this host run xsim-calibrate --kernels --out FILE and pass -xsim-config FILE" +
                    suggestion(v, proc::kernel_preset_names()));
  return std::string(v);
}

namespace {
std::string bandwidth_text(double bytes_per_s) {
  // In bytes per second, as the table is usually written ("3.3 GB/s"), where that reads back exactly.
  constexpr std::pair<double, const char*> kUnits[] = {{1e12, "TB/s"}, {1e9, "GB/s"}, {1e6, "MB/s"}, {1e3, "KB/s"}};
  for (auto [f, u] : kUnits) {
    if (bytes_per_s < f) continue;
    std::string t = shortest_double(bytes_per_s / f);
    if (t.size() > 2 && t.compare(t.size() - 2, 2, ".0") == 0) t.resize(t.size() - 2);
    t += " " + std::string(u);
    try {
      if (static_cast<double>(parse_bandwidth_bps(t)) / 8.0 == bytes_per_s) return toml_string(t);
    } catch (const std::invalid_argument&) {
    }
  }
  const double bps = bytes_per_s * 8;
  if (bps >= 1 && bps < 1.8e19 && bps == std::floor(bps)) return toml_string(format_bandwidth(static_cast<uint64_t>(bps)));
  return shortest_double(bytes_per_s);  // bytes/s
}
}  // namespace

std::string kernels_to_toml(const Options& o) {
  const proc::KernelParams& p = o.kernels.params;
  std::string s;
  if (p.peak >= 0) s += "peak = " + toml_string(proc::format_flop_rate(p.peak)) + "\n";
  else s += "# peak not set: the preset's\n";
  if (p.bandwidth >= 0) s += "bandwidth = " + bandwidth_text(p.bandwidth) + "\n";
  else s += "# bandwidth not set: the preset's\n";
  if (p.overhead_ps >= 0) s += "overhead = " + toml_string(format_time(SimTime::from_ps(p.overhead_ps))) + "\n";
  if (!o.kernels.exec.empty()) {
    s += "exec = [";
    for (size_t i = 0; i < o.kernels.exec.size(); ++i)
      s += (i ? ", " : "") + toml_string(proc::kernel_name(o.kernels.exec[i]));
    s += "]\n";
  }
  for (int i = 0; i < proc::kKernelCount; ++i) {
    const proc::KernelFamilyParams& f = p.family[static_cast<size_t>(i)];
    if (f == proc::KernelFamilyParams{}) continue;
    s += "\n[kernels." + std::string(proc::kernel_name(static_cast<Kernel>(i))) + "]\n";
    if (f.efficiency >= 0) s += "efficiency = " + shortest_double(f.efficiency) + "\n";
    if (f.half_dim >= 0) s += "half_dim = " + shortest_double(f.half_dim) + "\n";
    if (f.overhead_ps >= 0) s += "overhead = " + toml_string(format_time(SimTime::from_ps(f.overhead_ps))) + "\n";
  }
  return s;
}

void check_kernels(const Options& o, const std::string& mode_where) {
  if (o.kernels.mode == KernelMode::exec) return;
  const proc::KernelParams p = kernel_params(o.kernels);
  const std::string mode_name = o.kernels.mode == KernelMode::model ? "model" : "audit";
  const std::string how = "run xsim-calibrate --kernels --out FILE on the machine and pass -xsim-config FILE, or "
                          "give -xsim-kernel-preset NAME (" + join(proc::kernel_preset_names()) + ")";
  if (p.peak < 0 && p.bandwidth < 0)
    fail(mode_where, "-xsim-kernels " + mode_name + " needs the machine's kernel parameters ([kernels] peak and bandwidth) and "
                     "none are given: " + how);
  if (p.peak < 0) fail(mode_where, "-xsim-kernels " + mode_name + ": [kernels] peak is not given (" + how + ")");
  if (p.bandwidth < 0) fail(mode_where, "-xsim-kernels " + mode_name + ": [kernels] bandwidth is not given (" + how + ")");
}

}  // namespace cfg
}  // namespace xsim
