// ProcessorModel: turns the host time a virtual rank really computed into virtual time (docs/architecture.md §2).
// Layer: procmodel (pure library: no MPI, no fibers). Immutable after construction.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "xsim/procmodel/node_model.hpp"
#include "xsim/simtime.hpp"

namespace xsim::proc {

class ProcessorModel {
 public:
  virtual ~ProcessorModel() = default;
  // Virtual time charged for `host_ns` nanoseconds of measured host computation.
  virtual SimTime compute_time(int64_t host_ns) const = 0;
  // Virtual time of an explicit charge of `t` (xsim_compute): t x the node factor (node_model.hpp).
  virtual SimTime explicit_time(SimTime t) const = 0;
  // False when the model ignores host time, so the runtime may skip reading the clock altogether.
  virtual bool uses_host_time() const = 0;
  virtual std::string describe() const = 0;
};

// "none": computation costs no virtual time. Deterministic. Explicit charges are scaled by `node`'s factor.
std::unique_ptr<ProcessorModel> make_none_model(const NodeModel& node = {});
// "scaled": virtual time = host time x factor x node.factor() (factor > 0, finite, and the node's factors
// valid; throws std::invalid_argument otherwise).
std::unique_ptr<ProcessorModel> make_scaled_model(double factor, const NodeModel& node = {});

}  // namespace xsim::proc
