// Text helpers of the config layer (see config_util.hpp).
#include "config_util.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <stdexcept>
#include <system_error>

#include "xsim/units.hpp"

namespace xsim::cfg {

std::string quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

void fail(const std::string& where, const std::string& what) {
  throw ConfigError(where.empty() ? what : where + ": " + what);
}

bool valid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    uint32_t cp = n == 1 ? c : c & (0x7F >> n);
    for (size_t k = 1; k < n; ++k) {
      const auto d = static_cast<unsigned char>(s[i + k]);
      if ((d & 0xC0) != 0x80) return false;
      cp = cp << 6 | (d & 0x3F);
    }
    if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10FFFF ||
        (cp >= 0xD800 && cp <= 0xDFFF))
      return false;
    i += n;
  }
  return true;
}

std::string toml_string(std::string_view s) {
  std::string out = "\"";
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20 || c == 0x7F) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04X", c);
      out += buf;
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
  return s;
}

namespace {
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}
}  // namespace

std::string suggestion(std::string_view given, const std::vector<std::string>& candidates, std::string_view prefix) {
  const std::string* best = nullptr;
  size_t best_d = SIZE_MAX;
  for (const auto& c : candidates) {
    size_t d = edit_distance(given, c);
    if (d < best_d) best_d = d, best = &c;
  }
  if (best && best_d <= std::max<size_t>(2, given.size() / 3)) return "; did you mean " + std::string(prefix) + *best + "?";
  return "";
}

std::string shortest_double(double f) {
  char buf[64];
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, f);
  std::string s(buf, p);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";  // TOML needs a float, not an integer
  return s;
}

bool parse_bool(std::string_view v, bool& out) {
  std::string s(v);
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  if (s == "on" || s == "true" || s == "yes" || s == "1") return out = true, true;
  if (s == "off" || s == "false" || s == "no" || s == "0") return out = false, true;
  return false;
}

bool to_bool(std::string_view v, const std::string& where) {
  bool b = false;
  if (!parse_bool(v, b)) fail(where, quoted(v) + " is not on or off (also accepted: true/false, yes/no, 1/0)");
  return b;
}

int64_t parse_int(std::string_view v, const std::string& where, const std::string& what, int64_t lo, int64_t hi) {
  int64_t x = 0;
  std::string_view t = v;
  while (!t.empty() && t.front() == ' ') t.remove_prefix(1);
  while (!t.empty() && t.back() == ' ') t.remove_suffix(1);
  if (!t.empty() && t.front() == '+') t.remove_prefix(1);
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), x);
  if (t.empty() || ec != std::errc() || p != t.data() + t.size())
    fail(where, what + " " + quoted(v) + " is not an integer");
  if (x < lo || x > hi)
    fail(where, what + " must be between " + std::to_string(lo) + " and " + std::to_string(hi) + " (got " +
                    std::to_string(x) + ")");
  return x;
}

SimTime to_time(std::string_view v, const std::string& where) {
  try {
    return parse_time(v);
  } catch (const std::invalid_argument& e) {
    fail(where, e.what());
  }
}

uint64_t to_bandwidth(std::string_view v, const std::string& where) {
  try {
    return parse_bandwidth_bps(v);
  } catch (const std::invalid_argument& e) {
    fail(where, e.what());
  }
}

}  // namespace xsim::cfg
