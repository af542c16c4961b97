// Network configuration -> network model: turns a NetworkSpec (network_spec.hpp) into a netmodel Network for a
// given number of virtual ranks, and places the ranks on its cores (docs/architecture.md §4-5, docs/network-config.md).
// Layer: libxsim config. Pure C++: no MPI, no fibers, no TOML.
#pragma once
#include <cstdint>
#include <istream>
#include <memory>
#include <string>
#include <vector>

#include "config_error.hpp"
#include "network_spec.hpp"
#include "xsim/netmodel/network.hpp"

namespace xsim {

struct BuiltNetwork {
  // The model: the single level, or a net::Hierarchy of all levels (outermost first). Its endpoints are the
  // cores, numbered with the innermost level fastest. Overheads are set on it (and on every level, so that
  // min_latency() includes them).
  std::unique_ptr<net::Network> network;
  // core_of_rank[r] = the core of virtual rank r. Empty = identity (block placement).
  std::vector<int32_t> core_of_rank;
  // Cores inside one endpoint of level 0 (a simulated node): the product of the inner levels' sizes.
  int64_t cores_per_node = 1;
  // Endpoints of level 0 (simulated nodes).
  int64_t nodes = 0;
  // The smallest latency between two simulated nodes (a route across level 0) when there are several levels;
  // zero with one level (any two cores are then two nodes: the network's minimum latency).
  SimTime node_latency;
  // The spec with every size that was derived from the rank count filled in.
  NetworkSpec resolved;

  int32_t core(int64_t rank) const {
    return core_of_rank.empty() ? static_cast<int32_t>(rank) : core_of_rank[static_cast<size_t>(rank)];
  }
};

// Grid dimensions of a mesh/torus/twisted torus level: its size's, else dims, else wrap's or jump's, else 1.
size_t grid_dims(const NetworkLevel& lv);

// Builds the network for `np` virtual ranks (np <= 0: as many ranks as the network has cores; then no level
// may derive its size from the rank count). Throws ConfigError when a level is invalid, when the network
// has fewer cores than np (saying what would fit), or when the placement file is unreadable or wrong
// (file:line). `overheads_in_latency`: the spec's os and or are added to every message's latency (the
// analytic model, and xsim-net's one-way times); false: the network leaves them out (the loggp model
// charges them as CPU time of the ranks instead).
BuiltNetwork build_network(const NetworkSpec& spec, int64_t np, bool overheads_in_latency = true);

// Reads a placement file (one core index per line for ranks 0..ranks-1; '#' comments and blank lines are
// skipped) for a network of `cores` cores; `name` stands for the file in messages (name:line). Throws
// ConfigError when a line is not a core index, a core is out of range or given twice, or the count is not
// `ranks`. (The fuzz target tests/fuzz/fuzz_placement.cpp calls it.)
std::vector<int32_t> parse_placement(std::istream& in, const std::string& name, int64_t ranks, int64_t cores);

// The spec with derived sizes filled in, and its total core count; the same checks as build_network
// except the placement. Cheap (builds no network).
NetworkSpec resolve_network(const NetworkSpec& spec, int64_t np, int64_t* cores = nullptr);

// The endpoint count of a level whose sizes are all known (after resolve_network).
int64_t level_endpoints(const NetworkLevel& level);
// True when the level leaves its size to the rank count (see NetworkLevel).
bool level_size_derived(const NetworkLevel& level);
// Builds one level whose size is known, without overheads. Throws std::invalid_argument (the netmodel's
// checks) or ConfigError.
// `routing_tables` false: a twisted torus skips its routing tables (their construction takes about a second
// per 100,000 endpoints), for checking a level's parameters (the configuration's validation).
std::unique_ptr<net::Network> build_level(const NetworkLevel& level, bool routing_tables = true);

// The most square factorisation of n into `dims` factors, smallest first: among all factorisations the one
// with the smallest largest factor, then the smallest sum (e.g. 128, 3 -> 4x4x8; 12, 2 -> 3x4; 7, 2 -> 1x7).
std::vector<int64_t> most_square_factors(int64_t n, int dims);

}  // namespace xsim
