// The noise specs and the trace format (noise_model.hpp).
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <istream>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "xsim/procmodel/noise_model.hpp"
#include "xsim/units.hpp"

namespace xsim::proc {
namespace {

constexpr const char* kForms =
    "give none, periodic:PERIOD:DURATION[:random] (e.g. periodic:1ms:10us), poisson:RATE:DURATION "
    "(e.g. poisson:10kHz:20us) or trace:FILE";

[[noreturn]] void bad(const std::string& why) { throw std::invalid_argument(why + "; " + kForms); }

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t from = 0;
  for (size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == sep) {
      parts.push_back(s.substr(from, i - from));
      from = i + 1;
    }
  return parts;
}

SimTime time_field(std::string_view text, const char* what) {
  try {
    return parse_time(text);
  } catch (const std::invalid_argument& e) {
    bad(std::string(what) + ": " + e.what());
  }
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

NoiseSpec parse_periodic(const std::vector<std::string_view>& f, NoiseSpec s) {
  if (f.size() != 3 && f.size() != 4) bad("periodic takes a period and a duration, and optionally \"random\"");
  s.kind = NoiseSpec::Kind::periodic;
  s.period = time_field(f[1], "the period");
  s.duration = time_field(f[2], "the duration");
  if (f.size() == 4) {
    if (f[3] != "random") bad("the fourth field of periodic must be \"random\" (got \"" + std::string(f[3]) + "\")");
    s.random_phase = true;
  }
  if (s.period <= SimTime::zero()) bad("the period must be positive");
  if (s.duration >= s.period)
    bad("the duration (" + format_time(s.duration) + ") must be shorter than the period (" + format_time(s.period) +
        "), or the node would never compute");
  return s;
}

NoiseSpec parse_poisson(const std::vector<std::string_view>& f, NoiseSpec s) {
  if (f.size() != 3) bad("poisson takes a rate and a duration");
  s.kind = NoiseSpec::Kind::poisson;
  try {
    s.rate_hz = parse_rate_hz(f[1]);
  } catch (const std::invalid_argument& e) {
    bad(std::string("the rate: ") + e.what());
  }
  s.duration = time_field(f[2], "the duration");
  if (s.rate_hz * s.duration.seconds() >= 1.0)
    bad("rate x duration must be below 1 (got " + std::to_string(s.rate_hz * s.duration.seconds()) +
        "): the detours would take the node nearly all the time");
  return s;
}

}  // namespace

double parse_rate_hz(std::string_view text) {
  std::string_view t = trim(text);
  size_t n = 0;
  while (n < t.size() && (std::isdigit(static_cast<unsigned char>(t[n])) || t[n] == '.' || t[n] == 'e' ||
                          t[n] == 'E' || t[n] == '+' || t[n] == '-'))
    ++n;
  // "e" may begin no exponent: back off a trailing 'e'/'E' not followed by a digit
  while (n > 0 && (t[n - 1] == 'e' || t[n - 1] == 'E' || t[n - 1] == '+' || t[n - 1] == '-')) --n;
  double v = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + n, v);
  std::string_view unit = trim(t.substr(n));
  double mult = 0;
  if (unit.empty() || unit == "Hz" || unit == "hz") mult = 1;
  else if (unit == "kHz" || unit == "khz" || unit == "KHz") mult = 1e3;
  else if (unit == "MHz" || unit == "mhz") mult = 1e6;
  else if (unit == "GHz" || unit == "ghz") mult = 1e9;
  if (n == 0 || ec != std::errc() || p != t.data() + n || mult == 0)
    throw std::invalid_argument("\"" + std::string(text) + "\" is not a rate; give a number with unit Hz, kHz, "
                                "MHz or GHz, e.g. 10kHz");
  if (!std::isfinite(v) || v < 0) throw std::invalid_argument("a rate must be a finite number >= 0");
  return v * mult;
}

NoiseSpec parse_noise_spec(std::string_view text) {
  NoiseSpec s;
  s.text = std::string(text);
  if (text == "none" || text == "off") return s;
  std::vector<std::string_view> f = split(text, ':');
  if (f[0] == "periodic") return parse_periodic(f, s);
  if (f[0] == "poisson") return parse_poisson(f, s);
  if (f[0] == "trace") {
    if (text.size() <= 6) bad("trace needs a file name");
    s.kind = NoiseSpec::Kind::trace;
    s.file = std::string(text.substr(6));
    return s;
  }
  bad("unknown noise \"" + std::string(text) + "\"");
}

NoiseTrace parse_noise_trace(std::istream& in, const std::string& name) {
  NoiseTrace t;
  bool cycle_given = false;
  std::string line;
  int no = 0;
  auto fail = [&](const std::string& why) {
    throw std::invalid_argument(name + ":" + std::to_string(no) + ": " + why +
                                " (each line: START LENGTH, times such as 1.5ms or seconds; or: cycle TIME)");
  };
  while (std::getline(in, line)) {
    ++no;
    std::string_view l = line;
    if (size_t h = l.find('#'); h != std::string_view::npos) l = l.substr(0, h);
    l = trim(l);
    if (l.empty()) continue;
    size_t sp = l.find_first_of(" \t");
    if (sp == std::string_view::npos) fail("expected two fields, got \"" + std::string(l) + "\"");
    std::string_view a = l.substr(0, sp), b = trim(l.substr(sp));
    try {
      if (a == "cycle") {
        if (cycle_given) fail("a second cycle line");
        t.cycle = parse_time(b);
        cycle_given = true;
        continue;
      }
      Detour d{parse_time(a), parse_time(b)};
      if (d.length <= SimTime::zero()) fail("a detour's length must be positive");
      if (!t.detours.empty() && d.start < t.detours.back().end())
        fail("this detour starts before the previous one ends (detours must be sorted and disjoint)");
      t.detours.push_back(d);
    } catch (const std::invalid_argument& e) {
      if (std::string_view(e.what()).starts_with(name + ":")) throw;
      fail(e.what());
    }
  }
  no = 0;
  if (t.detours.empty()) fail("the trace has no detours");
  const SimTime last = t.detours.back().end();
  if (!cycle_given) t.cycle = last;
  if (t.cycle < last) fail("the cycle (" + format_time(t.cycle) + ") ends before the last detour (" + format_time(last) + ")");
  SimTime sum;
  for (const Detour& d : t.detours) sum += d.length;
  if (sum >= t.cycle) fail("the detours fill the whole cycle: the node would never compute");
  return t;
}

NoiseTrace read_noise_trace(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument("cannot read the noise trace \"" + path + "\" (no such file, or not readable)");
  return parse_noise_trace(in, path);
}

void write_noise_trace(std::ostream& out, const NoiseTrace& t) {
  out << "# xsim noise trace: START LENGTH per detour (ns); cycle: the length of one repetition\n";
  auto time = [](SimTime x) {
    return x.ps() % 1000 == 0 ? std::to_string(x.ps() / 1000) + "ns" : std::to_string(x.ps()) + "ps";
  };
  out << "cycle " << time(t.cycle) << "\n";
  for (const Detour& d : t.detours) out << time(d.start) << " " << time(d.length) << "\n";
}

}  // namespace xsim::proc
