// Processor models "none" and "scaled" (docs/architecture.md §2).
#include "xsim/procmodel/processor_model.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>

namespace xsim::proc {
namespace {

// Shortest decimal text that reads back as the same double.
std::string number(double f) {
  char buf[64];
  std::to_chars_result r = std::to_chars(buf, buf + sizeof buf, f);
  return std::string(buf, r.ptr);
}

class NoneModel final : public ProcessorModel {
 public:
  explicit NoneModel(const NodeModel& node) : node_(node) { validate(node_); }
  SimTime compute_time(int64_t) const override { return SimTime::zero(); }
  SimTime explicit_time(SimTime t) const override { return node_.scale(t); }
  bool uses_host_time() const override { return false; }
  std::string describe() const override {
    return "none (computation costs no virtual time" +
           (node_.factor() == 1.0 ? std::string(")") : "; xsim_compute x node " + node_.describe() + ")");
  }

 private:
  NodeModel node_;
};

class ScaledModel final : public ProcessorModel {
 public:
  ScaledModel(double factor, const NodeModel& node) : factor_(factor), node_(node) {
    validate(node_);
    if (!std::isfinite(factor) || !(factor > 0.0))
      throw std::invalid_argument("scaled processor model: scale factor must be positive and finite (got " +
                                  number(factor) + "); e.g. 1.0 charges host time as is, 0.5 "
                                  "simulates a processor twice as fast");
  }

  // llround(host_ns x 1000 x factor x node factor) picoseconds. long double keeps host_ns x 1000 exact (64-bit
  // mantissa), so factor 1 charges exactly the host time.
  SimTime compute_time(int64_t host_ns) const override {
    if (host_ns < 0)
      throw std::invalid_argument("scaled processor model: negative host time " + std::to_string(host_ns) +
                                  " ns (the host clock went backwards)");
    long double ps = static_cast<long double>(host_ns) * 1000.0L * static_cast<long double>(factor_);
    if (node_.factor() != 1.0) ps *= static_cast<long double>(node_.factor());  // the node model
    if (ps >= static_cast<long double>(std::numeric_limits<int64_t>::max()) - 1.0L)
      throw std::overflow_error("virtual time overflow: " + std::to_string(host_ns) + " ns of host time x " +
                                number(factor_ * node_.factor()) + " exceeds the virtual clock's range");
    return SimTime::from_ps(static_cast<int64_t>(std::llroundl(ps)));
  }
  SimTime explicit_time(SimTime t) const override { return node_.scale(t); }
  bool uses_host_time() const override { return true; }
  std::string describe() const override {
    std::string s = "scaled (virtual time = host time x " + number(factor_);
    if (node_.factor() != 1.0) s += " x node " + node_.describe();
    return s + ")";
  }

 private:
  double factor_;
  NodeModel node_;
};

}  // namespace

std::unique_ptr<ProcessorModel> make_none_model(const NodeModel& node) { return std::make_unique<NoneModel>(node); }

std::unique_ptr<ProcessorModel> make_scaled_model(double factor, const NodeModel& node) {
  return std::make_unique<ScaledModel>(factor, node);
}

}  // namespace xsim::proc
