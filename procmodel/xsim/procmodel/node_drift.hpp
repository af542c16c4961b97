// NodeDrift: a node's speed varying over time (docs/noise.md, node drift), on top of its fixed factor
// (node_speed.hpp). Layer: procmodel (pure). Issue 36, item 2.
//
// Spec (parse_node_drift):
//   none                 no drift (the default)
//   SIGMA:INTERVAL       virtual time is cut into windows of INTERVAL ([k x INTERVAL, (k + 1) x INTERVAL));
//                        in window k, node n's computation takes d(n, k) = 1 + SIGMA x Z(n, k) times as long,
//                        Z(n, k) standard normal drawn from (seed, n, k) and clamped to [-3, 3];
//                        0 <= SIGMA <= 0.3 (every factor at least 0.1), INTERVAL > 0
// The factors depend only on the seed, the node and the window, never on the order of the queries, so the
// times are the same for any number of native processes. A computation runs through the windows it
// spans, each at its own factor (drift_finish).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "xsim/simtime.hpp"

namespace xsim::proc {

struct NodeDriftSpec {
  double sigma = 0;
  SimTime interval;
  std::string text = "none";
  bool on() const { return sigma > 0; }
};

// Parses a spec (forms above). Throws std::invalid_argument saying what is wrong and the accepted forms.
NodeDriftSpec parse_node_drift(std::string_view text);
// d(node, window): node `node`'s time factor in window `window` (1 without drift).
double node_drift_factor(const NodeDriftSpec& s, uint64_t seed, uint64_t node, uint64_t window);
// Where a computation of `c` (its time at factor 1) that starts at `t` ends, when window k of length
// `interval` runs at `factor(k)` (each window's share rounded to the picosecond where the computation
// ends). Throws std::overflow_error past the virtual clock's range.
SimTime drift_finish(SimTime t, SimTime c, SimTime interval, const std::function<double(uint64_t)>& factor);
// The same with the spec's factors for `node`.
SimTime drift_finish(const NodeDriftSpec& s, uint64_t seed, uint64_t node, SimTime t, SimTime c);

}  // namespace xsim::proc
