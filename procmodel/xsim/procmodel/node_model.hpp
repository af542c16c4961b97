// NodeModel: how the shared resources of a simulated node slow the computation of its ranks
// (docs/real-programs.md "Node model"). Layer: procmodel (pure). Immutable value.
// A rank's computation is timed on the host alone on an otherwise idle core; on the real node every core
// computes at once, sharing the memory bandwidth and running at the all-core clock. xsim-calibrate --node
// measures both slow-downs as factors (all-core time / one-core time of a memory-bound and of a
// compute-bound loop); `host` says which one scales host-timed computation and xsim_compute charges. xsim
// cannot tell from host time whether a program is memory-bound, so the user chooses.
#pragma once
#include <string>

#include "xsim/simtime.hpp"

namespace xsim::proc {

enum class NodeHost { none, memory, compute, number };

struct NodeModel {
  double memory_factor = 1.0;   // all-core / one-core time of a memory-bound loop
  double compute_factor = 1.0;  // the same for a compute-bound loop (the all-core clock)
  NodeHost host = NodeHost::none;
  double number = 1.0;          // the factor itself when host == number

  // The factor host-timed computation is multiplied by: 1 (none), memory_factor, compute_factor or number.
  double factor() const;
  // An explicit charge (xsim_compute) under the factor: t x factor() to the nearest picosecond; t itself
  // when the factor is 1. Throws std::overflow_error past the virtual clock's range.
  SimTime scale(SimTime t) const;
  // e.g. "memory (x 1.8)"; "none" when the factor is 1 by choice.
  std::string describe() const;
};

// Throws std::invalid_argument unless every factor is positive and finite (the message names the factor).
void validate(const NodeModel& n);

}  // namespace xsim::proc
