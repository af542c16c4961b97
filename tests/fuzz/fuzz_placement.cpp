// Fuzz target: the placement file parser (-xsim-placement file:PATH; network_config.hpp parse_placement).
// Input: byte 0 = ranks - 1, byte 1 = spare cores (cores = ranks + byte 1), then the file's text.
// Properties: ConfigError or a placement of exactly `ranks` distinct cores, each below `cores`.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <vector>

#include "fuzz_support.hpp"
#include "network_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const int64_t ranks = int64_t{data[0]} + 1;
  const int64_t cores = ranks + data[1];
  std::istringstream in(std::string(reinterpret_cast<const char*>(data + 2), size - 2));
  std::vector<int32_t> cores_of_rank;
  if (!xsim::fuzz::accepted([&] { cores_of_rank = xsim::parse_placement(in, "fuzz.placement", ranks, cores); }))
    return 0;
  if (static_cast<int64_t>(cores_of_rank.size()) != ranks) xsim::fuzz::finding("accepted a wrong number of cores");
  std::vector<bool> used(static_cast<size_t>(cores));
  for (int32_t c : cores_of_rank) {
    if (c < 0 || c >= cores) xsim::fuzz::finding("accepted core " + std::to_string(c) + " out of range");
    if (used[static_cast<size_t>(c)]) xsim::fuzz::finding("accepted core " + std::to_string(c) + " twice");
    used[static_cast<size_t>(c)] = true;
  }
  return 0;
}
