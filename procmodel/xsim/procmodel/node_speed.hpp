// NodeSpeed: how much longer (or shorter) each simulated node takes for the same computation: the spatial
// variability of a machine's nodes (frequency, thermal limits, memory; docs/noise.md). Layer: procmodel
// (pure). Issue 36.
//
// Specs (parse_node_speed):
//   none              every node takes 1 x (the default)
//   normal:SIGMA      node n's factor is 1 + SIGMA x Z_n, Z_n standard normal drawn from (seed, n) and
//                     clamped to [-3, 3]; 0 <= SIGMA <= 0.3, so every factor is at least 0.1
//   file:PATH         one factor per line for nodes 0, 1, ... ('#' comments and blank lines skipped); every
//                     node of the run needs its line
// A factor multiplies a node's charged computation (host time through the processor model, xsim_compute,
// the kernel models): 1.05 takes 5% longer. The same for any number of native processes.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace xsim::proc {

struct NodeSpeedSpec {
  enum class Kind { none, normal, file };
  Kind kind = Kind::none;
  double sigma = 0;             // normal
  std::string file;             // file
  std::vector<double> factors;  // file: read by read_node_speed_file
  std::string text = "none";    // the spec as given
};

// Parses a spec and, for file:, reads the file. Throws std::invalid_argument saying what is wrong (a file's
// messages name path:line).
NodeSpeedSpec parse_node_speed(std::string_view text);
std::vector<double> read_node_speed_file(const std::string& path);
// Node `node`'s time factor. Throws std::invalid_argument when a file has no line for it.
double node_speed_factor(const NodeSpeedSpec& s, uint64_t seed, uint64_t node);

}  // namespace xsim::proc
