// A node's speed drifting over time (node_drift.hpp).
#include "xsim/procmodel/node_drift.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <string>
#include <string_view>

#include "xsim/procmodel/noise_model.hpp"
#include "xsim/units.hpp"

namespace xsim::proc {
namespace {

constexpr uint64_t kDriftStream = 0x6472696674ull;  // "drift"
constexpr const char* kForms = "give none or SIGMA:INTERVAL (e.g. 0.02:10ms: a new factor 1 + 0.02 x Z every 10 ms)";

[[noreturn]] void bad(const std::string& why) { throw std::invalid_argument(why + "; " + kForms); }

}  // namespace

NodeDriftSpec parse_node_drift(std::string_view text) {
  NodeDriftSpec s;
  s.text = std::string(text);
  if (text == "none") return s;
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos) bad("unknown node drift \"" + s.text + "\"");
  const std::string_view sig = text.substr(0, colon), iv = text.substr(colon + 1);
  auto [p, ec] = std::from_chars(sig.data(), sig.data() + sig.size(), s.sigma);
  if (sig.empty() || ec != std::errc() || p != sig.data() + sig.size() || !(s.sigma >= 0) || !(s.sigma <= 0.3))
    bad("\"" + std::string(sig) + "\" is not a standard deviation between 0 and 0.3");
  try {
    s.interval = parse_time(iv);
  } catch (const std::invalid_argument& e) {
    bad(std::string("the interval: ") + e.what());
  }
  if (s.interval <= SimTime::zero()) bad("the interval must be positive (got \"" + std::string(iv) + "\")");
  return s;
}

double node_drift_factor(const NodeDriftSpec& s, uint64_t seed, uint64_t node, uint64_t window) {
  if (!s.on()) return 1.0;
  const double u1 = counter_uniform(seed, kDriftStream, node, 2 * window);
  const double u2 = counter_uniform(seed, kDriftStream, node, 2 * window + 1);
  const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);  // Box-Muller
  return 1.0 + s.sigma * std::clamp(z, -3.0, 3.0);
}

SimTime drift_finish(SimTime t, SimTime c, SimTime interval, const std::function<double(uint64_t)>& factor) {
  if (c <= SimTime::zero()) return t;
  const int64_t len = interval.ps();
  int64_t now = t.ps();
  double left = static_cast<double>(c.ps());  // picoseconds of computation at factor 1
  for (;;) {
    if (now > std::numeric_limits<int64_t>::max() - len)
      throw std::overflow_error("virtual time overflow in a drifting node's computation");
    const auto k = static_cast<uint64_t>(now / len);
    const int64_t bound = (static_cast<int64_t>(k) + 1) * len;
    const double f = factor(k);
    const double need = left * f;  // picoseconds it takes at this window's factor
    if (static_cast<double>(now) + need <= static_cast<double>(bound)) {
      const double end = std::round(static_cast<double>(now) + need);
      if (end >= static_cast<double>(std::numeric_limits<int64_t>::max()))
        throw std::overflow_error("virtual time overflow in a drifting node's computation");
      return SimTime::from_ps(static_cast<int64_t>(end));
    }
    left -= static_cast<double>(bound - now) / f;
    now = bound;
  }
}

SimTime drift_finish(const NodeDriftSpec& s, uint64_t seed, uint64_t node, SimTime t, SimTime c) {
  if (!s.on()) return t + c;
  return drift_finish(t, c, s.interval, [&](uint64_t k) { return node_drift_factor(s, seed, node, k); });
}

}  // namespace xsim::proc
