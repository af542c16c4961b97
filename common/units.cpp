// Parsing and printing of times, bandwidths and sizes (see xsim/units.hpp).
// Numbers are parsed textually into an exact decimal (integer mantissa x 10^exponent) and scaled by an
// integer unit factor, so "0.32us" is exactly 320000 ps and "1Gbps" exactly 1e9 bit/s: no binary
// floating point is involved anywhere.
#include "xsim/units.hpp"

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>

namespace xsim {
namespace {

using u128 = unsigned __int128;

// A non-negative decimal number mantissa x 10^exp10, parsed from text.
struct Decimal {
  uint64_t mantissa = 0;
  int exp10 = 0;
};

constexpr uint64_t kMaxMantissa = 1'000'000'000'000'000'000ull;  // 1e18: keep 18 significant digits

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// Parses [+]digits[.digits][(e|E)[+|-]digits] at the start of `s`. Returns the number of characters used,
// 0 when there is no number. Sets `negative` when the text starts with '-' (callers reject it).
size_t parse_decimal(std::string_view s, Decimal& out, bool& negative) {
  size_t i = 0;
  negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
    negative = s[i] == '-';
    ++i;
  }
  uint64_t m = 0;
  int exp10 = 0;
  size_t digits = 0;
  auto take = [&](char c, bool fraction) {
    if (m < kMaxMantissa) {
      m = m * 10 + static_cast<uint64_t>(c - '0');
      if (fraction) --exp10;
    } else if (!fraction) {
      ++exp10;  // digit beyond the kept precision: only its magnitude counts
    }
    ++digits;
  };
  while (i < s.size() && is_digit(s[i])) take(s[i++], false);
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && is_digit(s[i])) take(s[i++], true);
  }
  if (digits == 0) return 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    size_t j = i + 1;
    bool eneg = false;
    if (j < s.size() && (s[j] == '+' || s[j] == '-')) {
      eneg = s[j] == '-';
      ++j;
    }
    if (j < s.size() && is_digit(s[j])) {
      int e = 0;
      while (j < s.size() && is_digit(s[j])) {
        if (e < 100000) e = e * 10 + (s[j] - '0');
        ++j;
      }
      exp10 += eneg ? -e : e;
      i = j;
    }
  }
  out.mantissa = m;
  out.exp10 = exp10;
  return i;
}

// Splits `text` into a number and a unit (whitespace allowed between them).
struct Quantity {
  Decimal number;
  std::string_view unit;
};

bool split_quantity(std::string_view text, Quantity& q, bool& negative) {
  std::string_view s = trim(text);
  size_t used = parse_decimal(s, q.number, negative);
  if (used == 0) return false;
  q.unit = trim(s.substr(used));
  return true;
}

enum class Scaled { ok, overflow, inexact };

// value = mantissa x 10^exp10 x factor, rounded to the nearest integer (halves away from zero).
// `exact` is cleared when rounding changed the value.
Scaled scale(const Decimal& d, uint64_t factor, uint64_t limit, uint64_t& result, bool& exact) {
  exact = true;
  if (d.mantissa == 0) {
    result = 0;
    return Scaled::ok;
  }
  u128 v = static_cast<u128>(d.mantissa) * factor;  // < 1e18 * 2^64: fits in 128 bits
  if (d.exp10 >= 0) {
    for (int e = 0; e < d.exp10; ++e) {
      if (v > limit) return Scaled::overflow;
      v *= 10;
    }
    if (v > limit) return Scaled::overflow;
    result = static_cast<uint64_t>(v);
    return Scaled::ok;
  }
  int down = -d.exp10;
  if (down > 38) {  // 10^39 exceeds every possible v: the value rounds to 0
    exact = false;
    result = 0;
    return Scaled::ok;
  }
  u128 div = 1;
  for (int e = 0; e < down; ++e) div *= 10;
  u128 q = v / div;
  u128 r = v % div;
  if (r != 0) exact = false;
  if (r * 2 >= div) ++q;
  if (q > limit) return Scaled::overflow;
  result = static_cast<uint64_t>(q);
  return Scaled::ok;
}


std::string quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

[[noreturn]] void bad_time(std::string_view text, const std::string& why = {}) {
  throw std::invalid_argument("bad time " + quoted(text) + ": " +
                              (why.empty() ? "expected a number with unit s, ms, us, ns or ps (e.g. 25us)" : why));
}

[[noreturn]] void bad_bandwidth(std::string_view text, const std::string& why = {}) {
  throw std::invalid_argument(
      "bad bandwidth " + quoted(text) + ": " +
      (why.empty() ? "expected a number with unit bps, Kbps, Mbps, Gbps, Tbps (bits per second) or B/s, KB/s, "
                     "MB/s, GB/s, TB/s (bytes per second) (e.g. 1Gbps)"
                   : why));
}

[[noreturn]] void bad_size(std::string_view text, const std::string& why = {}) {
  throw std::invalid_argument(
      "bad size " + quoted(text) + ": " +
      (why.empty() ? "expected a number of bytes, optionally with suffix K, M, G or T (powers of 1024; "
                     "KB, KiB, MB, MiB... also accepted) (e.g. 256K)"
                   : why));
}

// Picoseconds per time unit, 0 when unknown.
uint64_t time_unit_ps(std::string_view u) {
  if (u.empty() || iequals(u, "s") || iequals(u, "sec")) return 1'000'000'000'000ull;
  if (iequals(u, "ms")) return 1'000'000'000ull;
  if (iequals(u, "us") || u == "\xC2\xB5s" || u == "\xCE\xBCs") return 1'000'000ull;  // us, micro sign, mu
  if (iequals(u, "ns")) return 1'000ull;
  if (iequals(u, "ps")) return 1ull;
  return 0;
}

// Bits per second per bandwidth unit, 0 when unknown. The case of the b/B decides bits versus bytes;
// the prefix letter is case-insensitive (no one means millibits).
uint64_t bandwidth_unit_bps(std::string_view u) {
  if (u.empty()) return 1;
  uint64_t prefix = 1;
  switch (u.front()) {
    case 'k': case 'K': prefix = 1'000ull; break;
    case 'm': case 'M': prefix = 1'000'000ull; break;
    case 'g': case 'G': prefix = 1'000'000'000ull; break;
    case 't': case 'T': prefix = 1'000'000'000'000ull; break;
    default: break;
  }
  if (prefix != 1) u.remove_prefix(1);
  if (u == "bps" || u == "b/s" || u == "bit/s" || u == "bits/s" || u == "bit" || u == "bits" || u == "b")
    return prefix;
  if (u == "Bps" || u == "B/s" || u == "byte/s" || u == "bytes/s" || u == "B") return prefix * 8;
  return 0;
}

// Bytes per size unit, 0 when unknown.
uint64_t size_unit_bytes(std::string_view u) {
  if (u.empty() || iequals(u, "b") || iequals(u, "byte") || iequals(u, "bytes")) return 1;
  uint64_t prefix = 0;
  switch (u.front()) {
    case 'k': case 'K': prefix = 1ull << 10; break;
    case 'm': case 'M': prefix = 1ull << 20; break;
    case 'g': case 'G': prefix = 1ull << 30; break;
    case 't': case 'T': prefix = 1ull << 40; break;
    default: return 0;
  }
  u.remove_prefix(1);
  if (u.empty() || iequals(u, "b") || iequals(u, "ib")) return prefix;
  return 0;
}

// Exact decimal rendering of value / unit with at most `max_frac` fractional digits; false if more needed.
bool exact_ratio(uint64_t value, uint64_t unit, int max_frac, std::string& out) {
  uint64_t whole = value / unit;
  uint64_t rem = value % unit;
  std::string frac;
  while (rem != 0 && static_cast<int>(frac.size()) < max_frac) {
    u128 r10 = static_cast<u128>(rem) * 10;
    frac.push_back(static_cast<char>('0' + static_cast<int>(r10 / unit)));
    rem = static_cast<uint64_t>(r10 % unit);
  }
  if (rem != 0) return false;
  out = std::to_string(whole);
  if (!frac.empty()) out += "." + frac;
  return true;
}

}  // namespace

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

SimTime parse_time(std::string_view text) {
  Quantity q;
  bool negative = false;
  if (!split_quantity(text, q, negative)) bad_time(text);
  uint64_t unit = time_unit_ps(q.unit);
  if (unit == 0) bad_time(text);
  if (negative && q.number.mantissa != 0) bad_time(text, "a time must not be negative");
  uint64_t ps = 0;
  bool exact = true;
  // INT64_MAX itself is SimTime::infinity(), so the largest finite time is one below it.
  if (scale(q.number, unit, static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) - 1, ps, exact) !=
      Scaled::ok)
    bad_time(text, "too large (the simulator counts at most about 106 days in picoseconds)");
  return SimTime::from_ps(static_cast<int64_t>(ps));
}

uint64_t parse_bandwidth_bps(std::string_view text) {
  Quantity q;
  bool negative = false;
  if (!split_quantity(text, q, negative)) bad_bandwidth(text);
  uint64_t unit = bandwidth_unit_bps(q.unit);
  if (unit == 0) bad_bandwidth(text);
  if (negative && q.number.mantissa != 0) bad_bandwidth(text, "a bandwidth must be positive");
  uint64_t bps = 0;
  bool exact = true;
  if (scale(q.number, unit, std::numeric_limits<uint64_t>::max(), bps, exact) != Scaled::ok)
    bad_bandwidth(text, "too large (at most about 1.8e19 bit/s)");
  if (bps == 0) bad_bandwidth(text, "a bandwidth must be positive (at least 1 bps)");
  return bps;
}

uint64_t parse_size(std::string_view text) {
  Quantity q;
  bool negative = false;
  if (!split_quantity(text, q, negative)) bad_size(text);
  uint64_t unit = size_unit_bytes(q.unit);
  if (unit == 0) bad_size(text);
  if (negative && q.number.mantissa != 0) bad_size(text, "a size must not be negative");
  uint64_t bytes = 0;
  bool exact = true;
  if (scale(q.number, unit, std::numeric_limits<uint64_t>::max(), bytes, exact) != Scaled::ok)
    bad_size(text, "too large (at most about 16 EiB)");
  if (!exact) bad_size(text, "not a whole number of bytes");
  return bytes;
}

std::string format_time(SimTime t) {
  if (t.is_infinite()) return "inf";
  int64_t ps = t.ps();
  std::string sign = ps < 0 ? "-" : "";
  uint64_t v = ps < 0 ? 0 - static_cast<uint64_t>(ps) : static_cast<uint64_t>(ps);
  static constexpr struct {
    uint64_t ps;
    const char* name;
  } units[] = {{1'000'000'000'000ull, "s"}, {1'000'000'000ull, "ms"}, {1'000'000ull, "us"}, {1'000ull, "ns"}};
  for (const auto& u : units) {
    std::string s;
    if (v >= u.ps && exact_ratio(v, u.ps, 12, s)) return sign + s + " " + u.name;
  }
  return sign + std::to_string(v) + " ps";
}

std::string format_bandwidth(uint64_t bits_per_s) {
  static constexpr struct {
    uint64_t bps;
    const char* name;
  } units[] = {{1'000'000'000'000ull, "Tbps"}, {1'000'000'000ull, "Gbps"}, {1'000'000ull, "Mbps"}, {1'000ull, "Kbps"}};
  for (const auto& u : units) {
    std::string s;
    if (bits_per_s >= u.bps && exact_ratio(bits_per_s, u.bps, 12, s)) return s + " " + u.name;
  }
  return std::to_string(bits_per_s) + " bps";
}

std::string format_size(uint64_t bytes) {
  static constexpr struct {
    uint64_t bytes;
    const char* name;
  } units[] = {{1ull << 40, "TiB"}, {1ull << 30, "GiB"}, {1ull << 20, "MiB"}, {1ull << 10, "KiB"}};
  for (const auto& u : units) {
    std::string s;
    if (bytes >= u.bytes && exact_ratio(bytes, u.bytes, 3, s)) return s + " " + u.name;
  }
  return std::to_string(bytes) + " B";
}

}  // namespace xsim
