// ProcessorModel: turns the host time a virtual rank really computed into virtual time (docs/architecture.md §2).
// Layer: procmodel (pure library: no MPI, no fibers). Immutable after construction.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "xsim/simtime.hpp"

namespace xsim::proc {

class ProcessorModel {
 public:
  virtual ~ProcessorModel() = default;
  // Virtual time charged for `host_ns` nanoseconds of measured host computation.
  virtual SimTime compute_time(int64_t host_ns) const = 0;
  // False when the model ignores host time, so the runtime may skip reading the clock altogether.
  virtual bool uses_host_time() const = 0;
  virtual std::string describe() const = 0;
};

// "none": computation costs no virtual time. Deterministic.
std::unique_ptr<ProcessorModel> make_none_model();
// "scaled": virtual time = host time x factor (factor > 0, finite; throws std::invalid_argument otherwise).
std::unique_ptr<ProcessorModel> make_scaled_model(double factor);

}  // namespace xsim::proc
