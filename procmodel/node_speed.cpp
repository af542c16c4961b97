// Per-node time factors (node_speed.hpp).
#include "xsim/procmodel/node_speed.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <numbers>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "xsim/procmodel/noise_model.hpp"

namespace xsim::proc {
namespace {

constexpr uint64_t kSpeedStream = 0x7370656564ull;  // "speed"
constexpr const char* kForms = "give none, normal:SIGMA (e.g. normal:0.02) or file:PATH (one factor per node and line)";

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool to_double(std::string_view t, double& v) {
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  return !t.empty() && ec == std::errc() && p == t.data() + t.size() && std::isfinite(v);
}

}  // namespace

std::vector<double> read_node_speed_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument("cannot read the node speed file \"" + path + "\" (no such file, or not readable)");
  std::vector<double> f;
  std::string line;
  for (int no = 1; std::getline(in, line); ++no) {
    std::string_view l = line;
    if (size_t h = l.find('#'); h != std::string_view::npos) l = l.substr(0, h);
    l = trim(l);
    if (l.empty()) continue;
    double v = 0;
    if (!to_double(l, v) || !(v > 0))
      throw std::invalid_argument(path + ":" + std::to_string(no) + ": \"" + std::string(l) +
                                  "\" is not a positive number; each line holds one node's time factor, e.g. 1.03");
    f.push_back(v);
  }
  if (f.empty()) throw std::invalid_argument(path + ": the file holds no factor; each line holds one node's time factor");
  return f;
}

NodeSpeedSpec parse_node_speed(std::string_view text) {
  NodeSpeedSpec s;
  s.text = std::string(text);
  if (text == "none") return s;
  if (text.starts_with("normal:")) {
    s.kind = NodeSpeedSpec::Kind::normal;
    if (!to_double(text.substr(7), s.sigma) || s.sigma < 0 || s.sigma > 0.3)
      throw std::invalid_argument("\"" + std::string(text.substr(7)) +
                                  "\" is not a standard deviation between 0 and 0.3; " + kForms);
    return s;
  }
  if (text.starts_with("file:") && text.size() > 5) {
    s.kind = NodeSpeedSpec::Kind::file;
    s.file = std::string(text.substr(5));
    s.factors = read_node_speed_file(s.file);
    return s;
  }
  throw std::invalid_argument("unknown node speed \"" + std::string(text) + "\"; " + kForms);
}

double node_speed_factor(const NodeSpeedSpec& s, uint64_t seed, uint64_t node) {
  switch (s.kind) {
    case NodeSpeedSpec::Kind::none: return 1.0;
    case NodeSpeedSpec::Kind::normal: {
      if (s.sigma == 0) return 1.0;
      const double u1 = counter_uniform(seed, kSpeedStream, node, 0), u2 = counter_uniform(seed, kSpeedStream, node, 1);
      const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);  // Box-Muller
      return 1.0 + s.sigma * std::clamp(z, -3.0, 3.0);
    }
    case NodeSpeedSpec::Kind::file:
      if (node >= s.factors.size())
        throw std::invalid_argument(s.file + " holds " + std::to_string(s.factors.size()) +
                                    " node factors, but the run has node " + std::to_string(node) +
                                    "; give one line per simulated node");
      return s.factors[node];
  }
  return 1.0;
}

}  // namespace xsim::proc
