// The keys of a network level: one table (network_spec.cpp) shared by the inline form (-xsim-mn) and the
// TOML form ([network], [[network.level]] in network_toml.cpp), with the checks on a whole level.
// Internal to xsim_config (namespace xsim::cfg).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "network_spec.hpp"

namespace xsim::cfg {

enum TopoBit : unsigned {
  kStar = 1, kRing = 2, kMesh = 4, kTorus = 8, kTwisted = 16, kTree = 32, kDragonfly = 64, kFatTree = 128
};
constexpr unsigned kGrid = kMesh | kTorus | kTwisted;
constexpr unsigned kAllTopologies = 255;

// star, ring, mesh, torus, twistedtorus, tree, dragonfly, fattree (the order of TopoBit).
std::vector<std::string> topology_names();
// The TopoBit of a topology name, or 0.
unsigned topo_bit(std::string_view topology);
// Accepted spellings: "twisted-torus", "twisted_torus" -> "twistedtorus"; "fat-tree", "fat_tree" -> "fattree".
std::string canonical_topology(std::string_view t);
// Whether `name` is a preset name (network_preset_names).
bool is_preset(std::string_view name);

enum class Kind { integer, int_list, time, bandwidth, boolean, text };

struct LevelKey {
  const char* name;   // TOML key; also accepted inline
  const char* alias;  // short inline spelling, or nullptr
  Kind kind;
  unsigned topologies;
};

// The key `name` of a `topology` level, or nullptr. `inline_form` also accepts the short aliases.
const LevelKey* find_level_key(std::string_view name, const std::string& topology, bool inline_form);
// Whether `name` is a level key of any topology.
bool is_level_key_anywhere(std::string_view name, bool inline_form);
// The keys of a `topology` level (inline_form: their short spellings where they have one).
std::vector<std::string> level_key_names(const std::string& topology, bool inline_form);
// Sets one key of a level from its text form. Returns what the key set (for "given twice" checks).
std::string set_level_key(NetworkLevel& lv, const LevelKey& key, std::string_view v, const std::string& where);
// Checks that need the whole level; then, when its size is fixed, builds it once so that the netmodel's
// own checks (g <= a*h + 1, columns dividing a, ...) report here, at `where`.
void validate_level(const NetworkLevel& lv, const std::string& where);

}  // namespace xsim::cfg
