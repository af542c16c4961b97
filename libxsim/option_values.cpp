// The options' value conversions and checks (option_values.hpp).
#include "option_values.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <tuple>
#include <type_traits>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

#include "config_toml.hpp"
#include "config_util.hpp"
#include "network_config.hpp"
#include "xsim/units.hpp"

namespace xsim::option_values {
using namespace cfg;

// ---------------------------------------------------------------------------------------------------
// Value conversions and checks shared by all three sources. `where` prefixes every error.

int64_t check_np(int64_t np, const std::string& where) {
  if (np < 1 || np > kMaxRanks)
    fail(where, "the number of virtual ranks must be between 1 and " + std::to_string(kMaxRanks) + " (got " +
                    std::to_string(np) + "), e.g. 4096");
  return np;
}

int64_t to_np(std::string_view v, const std::string& where) {
  int64_t np = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), np);
  if (v.empty() || ec != std::errc() || p != v.data() + v.size())
    fail(where, quoted(v) + " is not a positive integer; give the number of virtual ranks, e.g. 4096");
  return check_np(np, where);
}

uint64_t check_stack(uint64_t bytes, const std::string& where) {
  if (bytes < kMinStack || bytes > kMaxStack)
    fail(where, "stack size " + format_size(bytes) + " is out of range; give between 4K and 1G per virtual "
                "rank (e.g. 256K; more for deeply recursive applications)");
  return bytes;
}

uint64_t to_stack(std::string_view v, const std::string& where) {
  if (v == "auto") return 0;
  try {
    return check_stack(parse_size(v), where);
  } catch (const std::invalid_argument& e) {
    fail(where, e.what());
  }
}

double check_scale(double f, const std::string& where) {
  if (!std::isfinite(f) || !(f > 0.0))
    fail(where, "the cpu scale factor must be a positive finite number (got " + shortest_double(f) +
                    "); e.g. 1.0 charges host time as is, 0.5 simulates a processor twice as fast");
  return f;
}

double to_scale(std::string_view v, const std::string& where) {
  std::string s(v);
  char* end = nullptr;
  errno = 0;
  double f = s.empty() ? 0.0 : std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || errno == ERANGE)
    fail(where, quoted(v) + " is not a number; give a positive factor, e.g. 1.0");
  return check_scale(f, where);
}

// The node model's factors: positive finite numbers.
double check_node_factor(double f, const std::string& where) {
  if (!std::isfinite(f) || !(f > 0.0))
    fail(where, "a node factor must be a positive finite number (got " + shortest_double(f) +
                    "); e.g. 1.8: every core busy takes 1.8 times as long as one core alone (xsim-calibrate --node)");
  return f;
}
double to_node_factor(std::string_view v, const std::string& where) {
  std::string s(v);
  char* end = nullptr;
  errno = 0;
  double f = s.empty() ? 0.0 : std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || errno == ERANGE)
    fail(where, quoted(v) + " is not a number; give a positive factor, e.g. 1.8 (xsim-calibrate --node measures it)");
  return check_node_factor(f, where);
}
void to_node_host(Options& o, std::string_view v, const std::string& where) {
  if (v == "none") o.node_host = NodeHost::none;
  else if (v == "memory") o.node_host = NodeHost::memory;
  else if (v == "compute") o.node_host = NodeHost::compute;
  else if (!v.empty() && (std::isdigit(static_cast<unsigned char>(v[0])) || v[0] == '.' || v[0] == '-' || v[0] == '+')) {
    o.node_host_number = to_node_factor(v, where);
    o.node_host = NodeHost::number;
  } else {
    fail(where, "unknown node factor " + quoted(v) + "; give none, memory, compute or a number such as 1.5" +
                    suggestion(v, {"none", "memory", "compute"}));
  }
}
std::string node_host_text(const Options& o) {
  switch (o.node_host) {
    case NodeHost::none: return "none";
    case NodeHost::memory: return "memory";
    case NodeHost::compute: return "compute";
    case NodeHost::number: return shortest_double(o.node_host_number);
  }
  return "none";
}

PrivatizeMode to_privatize(std::string_view v, const std::string& where) {
  bool b = false;
  if (v == "auto") return PrivatizeMode::automatic;
  if (v == "copy") return PrivatizeMode::copy;
  if (v == "map") return PrivatizeMode::map;
  if (parse_bool(v, b)) return b ? PrivatizeMode::on : PrivatizeMode::off;
  fail(where, "unknown privatization mode " + quoted(v) + "; give auto, on, off, copy or map" +
                  suggestion(v, {"auto", "on", "off", "copy", "map"}));
}

const char* privatize_name(PrivatizeMode m) {
  switch (m) {
    case PrivatizeMode::automatic: return "auto";
    case PrivatizeMode::on: return "on";
    case PrivatizeMode::off: return "off";
    case PrivatizeMode::copy: return "copy";
    case PrivatizeMode::map: return "map";
  }
  return "auto";
}

std::vector<std::string> to_lib_list(std::string_view v, const std::string& where) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at <= v.size()) {
    size_t comma = v.find(',', at);
    std::string_view item = v.substr(at, comma == std::string_view::npos ? v.npos : comma - at);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (item.empty()) fail(where, "empty library name in " + quoted(v) + "; give file names separated by commas, e.g. libfoo.so,libbar.so");
    out.emplace_back(item);
    if (comma == std::string_view::npos) break;
    at = comma + 1;
  }
  if (out.size() > 1 && std::find(out.begin(), out.end(), "none") != out.end())
    fail(where, "\"none\" in " + quoted(v) + " must stand alone; give none, auto, or library file names "
                "(auto,libfoo.so privatizes libfoo.so and every library that calls MPI)");
  if (out.size() == 1 && out[0] == "none") out.clear();
  return out;
}

CpuModel to_cpu(std::string_view v, const std::string& where) {
  if (v == "scaled") return CpuModel::scaled;
  if (v == "none") return CpuModel::none;
  fail(where, "unknown processor model " + quoted(v) + "; give none or scaled" + suggestion(v, {"none", "scaled"}));
}

NetModel to_model(std::string_view v, const std::string& where) {
  if (v == "loggp") return NetModel::loggp;
  if (v == "analytic") return NetModel::analytic;
  fail(where, "unknown message model " + quoted(v) + "; give loggp or analytic" + suggestion(v, {"loggp", "analytic"}));
}
Contention to_contention(std::string_view v, const std::string& where) {
  if (v == "none") return Contention::none;
  if (v == "endpoint") return Contention::endpoint;
  if (v == "links") return Contention::links;
  fail(where, "unknown contention model " + quoted(v) + "; give none, endpoint or links" +
                  suggestion(v, {"none", "endpoint", "links"}));
}
const char* contention_name(Contention c) {
  return c == Contention::none ? "none" : c == Contention::endpoint ? "endpoint" : "links";
}
Sharing to_sharing(std::string_view v, const std::string& where) {
  if (v == "serial") return Sharing::serial;
  if (v == "fair") return Sharing::fair;
  if (v == "rtt") return Sharing::rtt;
  fail(where, "unknown link sharing " + quoted(v) + "; give serial, fair or rtt" +
                  suggestion(v, {"serial", "fair", "rtt"}));
}
const char* sharing_name(Sharing s) { return s == Sharing::serial ? "serial" : s == Sharing::fair ? "fair" : "rtt"; }
int64_t to_eager(std::string_view v, const std::string& where) {
  if (v == "auto") return -1;
  uint64_t b = 0;
  try {
    b = parse_size(v);
  } catch (const std::invalid_argument& e) {
    fail(where, std::string(e.what()) + "; give the largest eager message size, e.g. 64K (or auto: the preset's)");
  }
  if (b > (uint64_t{1} << 40)) fail(where, "eager limit " + format_size(b) + " is too large; give at most 1T");
  return static_cast<int64_t>(b);
}

uint64_t to_fold(std::string_view v, const std::string& where, bool* shared) {
  *shared = false;
  if (v == "off" || v == "0") return 0;
  if (const size_t c = v.rfind(':'); c != std::string_view::npos) {
    const std::string_view backing = v.substr(c + 1);
    if (backing != "shared" && backing != "private")
      fail(where, "unknown fold backing " + quoted(backing) + "; give SIZE, SIZE:private (the default: a rank's "
                  "writes are its own) or SIZE:shared (one shared block: bounded memory, writes alias)");
    *shared = backing == "shared";
    v = v.substr(0, c);
  }
  uint64_t b = 0;
  try {
    b = parse_size(v);
  } catch (const std::invalid_argument& e) {
    fail(where, std::string(e.what()) + "; give the smallest heap allocation to fold, e.g. 1M (or off)");
  }
  if (b < kMinFold)
    fail(where, "fold size " + format_size(b) + " is too small; give at least 64K (e.g. 1M), or off: a folded "
                "allocation keeps its first and last 4K, and smaller ones are libraries' buffers");
  return b;
}

// RANK@TIME[,RANK@TIME...]: ranks are checked against np once it is known (parse_options).
std::vector<std::pair<int64_t, SimTime>> to_faults(std::string_view v, const std::string& where) {
  std::vector<std::pair<int64_t, SimTime>> out;
  if (v == "none") return out;
  size_t at = 0;
  while (at <= v.size()) {
    size_t comma = v.find(',', at);
    std::string_view item = v.substr(at, comma == std::string_view::npos ? std::string_view::npos : comma - at);
    size_t sep = item.find('@');
    if (item.empty() || sep == std::string_view::npos || sep == 0 || sep + 1 == item.size())
      fail(where, quoted(item) + " is not RANK@TIME; give e.g. 3@2ms (rank 3 fails at 2 ms of virtual time), "
                  "several separated by commas, or none");
    const int64_t rank = parse_int(item.substr(0, sep), where, "the failing rank", 0, kMaxRanks - 1);
    const SimTime t = to_time(item.substr(sep + 1), where);
    for (const auto& f : out)
      if (f.first == rank) fail(where, "rank " + std::to_string(rank) + " is given twice; a rank fails once");
    out.emplace_back(rank, t);
    if (comma == std::string_view::npos) break;
    at = comma + 1;
  }
  std::sort(out.begin(), out.end());
  return out;
}
std::string faults_text(const Options& o) {
  if (o.faults.empty()) return "none";
  std::string s;
  for (const auto& fault : o.faults) {
    std::string t = format_time(fault.second);
    t.erase(std::remove(t.begin(), t.end(), ' '), t.end());
    s += (s.empty() ? "" : ",") + std::to_string(fault.first) + "@" + t;
  }
  return s;
}

// -xsim-noise: the spec, and a trace file read now, so that a bad one stops the run before it starts.
void to_noise(Options& o, std::string_view v, const std::string& where) {
  try {
    o.noise = proc::parse_noise_spec(v);
    if (o.noise.kind == proc::NoiseSpec::Kind::trace) (void)proc::read_noise_trace(o.noise.file);
  } catch (const std::invalid_argument& e) {
    fail(where, e.what());
  }
}
void to_node_speed(Options& o, std::string_view v, const std::string& where) {
  try {
    o.node_speed = proc::parse_node_speed(v);
  } catch (const std::invalid_argument& e) {
    fail(where, e.what());
  }
}
void to_node_drift(Options& o, std::string_view v, const std::string& where) {
  try {
    o.node_drift = proc::parse_node_drift(v);
  } catch (const std::invalid_argument& e) {
    fail(where, e.what());
  }
}

void to_mtbf(Options& o, std::string_view v, const std::string& where) {
  if (v == "none" || v == "0") {
    o.mtbf = SimTime::zero();
    return;
  }
  const size_t colon = v.find(':');
  o.mtbf = to_time(v.substr(0, colon), where);
  o.mtbf_shape = 1.0;
  if (colon != std::string_view::npos) {
    const std::string shape(v.substr(colon + 1));
    char* end = nullptr;
    const double k = std::strtod(shape.c_str(), &end);
    if (shape.empty() || *end != '\0' || !(k >= 0.05) || !(k <= 20))
      fail(where, "shape " + quoted(shape) + " is not a number between 0.05 and 20; give e.g. 3600s:0.7 (Weibull "
                  "shape 0.7) or 1h (exponential)");
    o.mtbf_shape = k;
  }
}
std::string mtbf_text(const Options& o) {
  if (o.mtbf == SimTime::zero()) return "none";
  std::string s = format_time(o.mtbf);
  s.erase(std::remove(s.begin(), s.end(), ' '), s.end());
  return o.mtbf_shape == 1.0 ? s : s + ":" + shortest_double(o.mtbf_shape);
}

std::string to_output_path(std::string_view v, const std::string& where, const char* what) {
  if (v.empty()) fail(where, std::string("give the ") + what + ", e.g. out/run1");
  if (v.back() == '/') fail(where, quoted(v) + " names a directory; give a file name prefix in it, e.g. " + std::string(v) + "run1");
  // The directory must be there before a long run, not found missing at its end.
  std::string path(v);
  size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  struct stat st;
  if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    fail(where, "directory " + quoted(dir) + " of " + quoted(v) + " does not exist; create it first (mkdir -p " + dir + ")");
  if (access(dir.c_str(), W_OK) != 0) fail(where, "directory " + quoted(dir) + " of " + quoted(v) + " is not writable");
  return path;
}

void to_trace_format(std::string_view v, const std::string& where, Options& o) {
  if (v == "both" || v == "otf2,json" || v == "json,otf2") o.trace_otf2 = o.trace_json = true;
  else if (v == "otf2") o.trace_otf2 = true, o.trace_json = false;
  else if (v == "json") o.trace_otf2 = false, o.trace_json = true;
  else fail(where, "unknown trace format " + quoted(v) + "; give otf2, json or both" + suggestion(v, {"otf2", "json", "both"}));
}

const char* trace_format_name(const Options& o) {
  return o.trace_otf2 && o.trace_json ? "both" : o.trace_otf2 ? "otf2" : "json";
}

uint64_t to_trace_buffer(std::string_view v, const std::string& where) {
  uint64_t b = 0;
  try {
    b = parse_size(v);
  } catch (const std::invalid_argument& e) {
    fail(where, e.what());
  }
  if (b < 4096) fail(where, "trace buffer " + format_size(b) + " is too small; give at least 4K (e.g. 64M)");
  return b;
}

void to_network(Options& o, std::string_view v, const std::string& w) {
  NetworkSpec n;
  try {
    n = parse_network_inline(std::string(v));
  } catch (const ConfigError& e) {
    fail(w, e.what());
  }
  n.placement = o.network.placement;  // -xsim-mn sets the levels and overheads, not the placement
  n.placement_file = o.network.placement_file;
  o.network = std::move(n);
}
void to_placement(Options& o, std::string_view v, const std::string& w) {
  if (v == "block" || v == "roundrobin") {
    o.network.placement = v;
    o.network.placement_file.clear();
  } else if (v.starts_with("file:") && v.size() > 5) {
    o.network.placement = "file";
    o.network.placement_file = v.substr(5);
  } else {
    fail(w, "unknown placement " + quoted(v) + "; give block, roundrobin or file:PATH" +
                suggestion(v, {"block", "roundrobin"}));
  }
}

}  // namespace xsim::option_values
