// Text helpers of the config layer, shared by options.cpp, network_spec.cpp and network_toml.cpp: error
// messages (quoting, "did you mean"), the value conversions that several options and network keys share,
// and TOML value text. Internal to xsim_config (namespace xsim::cfg); no toml++ here (see config_toml.hpp).
#pragma once
#include <climits>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "config_error.hpp"
#include "xsim/simtime.hpp"

namespace xsim::cfg {

constexpr int64_t kMaxRanks = INT_MAX;  // ranks and endpoints are C ints in MPI

// "\"s\"".
std::string quoted(std::string_view s);
// Throws ConfigError("where: what"), or just `what` when `where` is empty.
[[noreturn]] void fail(const std::string& where, const std::string& what);
// Whether `s` is well-formed UTF-8 (no overlong forms, surrogates or code points above U+10FFFF).
bool valid_utf8(std::string_view s);
// A TOML basic string holding `s` (valid UTF-8): quotes, backslashes and control characters escaped.
std::string toml_string(std::string_view s);
std::string join(const std::vector<std::string>& v, const char* sep = ", ");
template <class T>
std::string join_ints(const std::vector<T>& v, const char* sep) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + std::to_string(v[i]);
  return s;
}
// "; did you mean PREFIX+X?" for the closest candidate, or "" when none is close.
std::string suggestion(std::string_view given, const std::vector<std::string>& candidates,
                       std::string_view prefix = "");
// Shortest text that reads back as the same double, always with a '.' or exponent (TOML needs a float).
std::string shortest_double(double f);

// on/true/yes/1 and off/false/no/0, in any case. False when `v` is neither.
bool parse_bool(std::string_view v, bool& out);
// As parse_bool; a ConfigError at `where` when `v` is neither.
bool to_bool(std::string_view v, const std::string& where);
// An integer in [lo, hi] (blanks and a '+' allowed); `what` names it in messages.
int64_t parse_int(std::string_view v, const std::string& where, const std::string& what, int64_t lo, int64_t hi);
// parse_time / parse_bandwidth_bps (xsim/units.hpp) with their messages prefixed by `where`.
SimTime to_time(std::string_view v, const std::string& where);
uint64_t to_bandwidth(std::string_view v, const std::string& where);

}  // namespace xsim::cfg
