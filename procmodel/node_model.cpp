// The node model (node_model.hpp).
#include "xsim/procmodel/node_model.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace xsim::proc {
namespace {

std::string number_text(double f) {
  char buf[64];
  std::to_chars_result r = std::to_chars(buf, buf + sizeof buf, f);
  return std::string(buf, r.ptr);
}

void check(double f, const char* what) {
  if (!std::isfinite(f) || !(f > 0.0))
    throw std::invalid_argument(std::string("node model: ") + what + " must be a positive finite number (got " +
                                number_text(f) + "), e.g. 1.8 (all cores take 1.8 times as long as one alone)");
}

}  // namespace

double NodeModel::factor() const {
  switch (host) {
    case NodeHost::none: return 1.0;
    case NodeHost::memory: return memory_factor;
    case NodeHost::compute: return compute_factor;
    case NodeHost::number: return number;
  }
  return 1.0;
}

SimTime NodeModel::scale(SimTime t) const {
  const double f = factor();
  if (f == 1.0) return t;
  const long double ps = static_cast<long double>(t.ps()) * static_cast<long double>(f);
  if (ps >= static_cast<long double>(std::numeric_limits<int64_t>::max()) - 1.0L)
    throw std::overflow_error("virtual time overflow: a charge of " + std::to_string(t.ps()) + " ps x the node factor " +
                              number_text(f) + " exceeds the virtual clock's range");
  return SimTime::from_ps(static_cast<int64_t>(std::llroundl(ps)));
}

std::string NodeModel::describe() const {
  switch (host) {
    case NodeHost::none: return "none";
    case NodeHost::memory: return "memory (x " + number_text(memory_factor) + ")";
    case NodeHost::compute: return "compute (x " + number_text(compute_factor) + ")";
    case NodeHost::number: return "x " + number_text(number);
  }
  return "none";
}

void validate(const NodeModel& n) {
  check(n.memory_factor, "memory_factor");
  check(n.compute_factor, "compute_factor");
  check(n.number, "host");
}

}  // namespace xsim::proc
