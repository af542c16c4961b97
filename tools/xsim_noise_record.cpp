// xsim-noise-record: records the operating-system noise of the core it runs on as a trace that
// -xsim-noise trace:FILE replays (docs/noise.md "Recording a trace"). A "selfish detour" loop, as
// Hoefler's netgauge: read the monotonic clock as fast as possible; a gap between two reads longer than the
// threshold is time the core spent elsewhere, a detour (start, length). No MPI; pin it with taskset to the
// core to measure.
#include <sched.h>
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "xsim/procmodel/noise_model.hpp"
#include "xsim/units.hpp"

namespace {

int64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

struct Args {
  xsim::SimTime duration = xsim::SimTime::from_ns(1'000'000'000);
  xsim::SimTime threshold;  // zero: automatic
  std::string out;          // "": stdout
  std::string check;        // --check FILE: read a trace and summarise it instead
};

const char* kUsage =
    "usage: xsim-noise-record [--duration TIME] [--threshold TIME|auto] [--out FILE]\n"
    "       xsim-noise-record --check FILE   (reads a trace as -xsim-noise does and summarises it)\n"
    "  Spins for TIME (default 1s) reading the monotonic clock; every gap between two reads longer than the\n"
    "  threshold (auto: 10 x the median gap of a 10 ms calibration, at least 1us) is a detour. Writes the\n"
    "  trace format of -xsim-noise trace:FILE (docs/noise.md) to FILE or stdout; a summary on stderr.\n";

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    if (k == "--help" || k == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    }
    if (i + 1 >= argc) throw std::invalid_argument(k + " needs a value");
    std::string v = argv[++i];
    try {
      if (k == "--duration") a.duration = xsim::parse_time(v);
      else if (k == "--threshold") a.threshold = v == "auto" ? xsim::SimTime::zero() : xsim::parse_time(v);
      else if (k == "--out") a.out = v;
      else if (k == "--check") a.check = v;
      else throw std::invalid_argument("unknown option " + k);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(k + ": " + e.what());
    }
  }
  if (a.duration < xsim::SimTime::from_ns(1'000'000)) throw std::invalid_argument("--duration: give at least 1ms");
  if (a.threshold != xsim::SimTime::zero() && a.threshold < xsim::SimTime::from_ns(10))
    throw std::invalid_argument("--threshold: give at least 10ns (or auto)");
  return a;
}

// The threshold: 10 x the median gap between two clock reads over 10 ms, at least 1 us.
int64_t auto_threshold_ns() {
  std::vector<int64_t> gaps;
  gaps.reserve(1 << 20);
  const int64_t end = now_ns() + 10'000'000;
  for (int64_t prev = now_ns(), t; (t = now_ns()) < end && gaps.size() < (1u << 20); prev = t) gaps.push_back(t - prev);
  std::nth_element(gaps.begin(), gaps.begin() + static_cast<long>(gaps.size() / 2), gaps.end());
  return std::max<int64_t>(1000, 10 * gaps[gaps.size() / 2]);
}

void summarise(const xsim::proc::NoiseTrace& t, const char* what) {
  xsim::SimTime sum, longest;
  for (const auto& d : t.detours) {
    sum += d.length;
    longest = std::max(longest, d.length);
  }
  std::fprintf(stderr, "xsim-noise-record: %s%zu detours in %s: %s in all (%.4f%%), longest %s\n", what,
               t.detours.size(), xsim::format_time(t.cycle).c_str(), xsim::format_time(sum).c_str(),
               100.0 * sum.seconds() / t.cycle.seconds(), xsim::format_time(longest).c_str());
}

xsim::proc::NoiseTrace record(int64_t duration_ns, int64_t threshold_ns) {
  xsim::proc::NoiseTrace t;
  t.cycle = xsim::SimTime::from_ns(duration_ns);
  std::vector<xsim::proc::Detour>& d = t.detours;
  d.reserve(1 << 16);
  const int64_t t0 = now_ns(), end = t0 + duration_ns;
  for (int64_t prev = t0, now; (now = now_ns()) < end; prev = now)
    if (now - prev > threshold_ns) d.push_back({xsim::SimTime::from_ns(prev - t0), xsim::SimTime::from_ns(now - prev)});
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  try {
    a = parse(argc, argv);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "xsim-noise-record: %s\n%s", e.what(), kUsage);
    return 2;
  }
  if (!a.check.empty()) {
    try {
      summarise(xsim::proc::read_noise_trace(a.check), "");
      return 0;
    } catch (const std::invalid_argument& e) {
      std::fprintf(stderr, "xsim-noise-record: %s\n", e.what());
      return 2;
    }
  }
  const int64_t threshold = a.threshold == xsim::SimTime::zero() ? auto_threshold_ns() : a.threshold.ps() / 1000;
  const xsim::proc::NoiseTrace t = record(a.duration.ps() / 1000, threshold);
  if (t.detours.empty())
    std::fprintf(stderr, "xsim-noise-record: no detour above %lld ns in %s: nothing to replay (lower --threshold?)\n",
                 static_cast<long long>(threshold), xsim::format_time(t.cycle).c_str());
  if (a.out.empty()) {
    xsim::proc::write_noise_trace(std::cout, t);
  } else {
    std::ofstream out(a.out);
    xsim::proc::write_noise_trace(out, t);
    if (!out.flush()) {
      std::fprintf(stderr, "xsim-noise-record: cannot write %s\n", a.out.c_str());
      return 1;
    }
  }
  const std::string what = "CPU " + std::to_string(sched_getcpu()) + ", threshold " + std::to_string(threshold) + " ns: ";
  summarise(t, what.c_str());
  return t.detours.empty() ? 3 : 0;
}
