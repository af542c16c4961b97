// Unit tests for node speed drift (procmodel/xsim/procmodel/node_drift.hpp, docs/noise.md, node drift): exact
// finish times of a computation crossing windows of given factors, the drawn factors reproducible from
// (seed, node, window) and of the requested spread, and every bad spec refused with the accepted forms.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "xsim/procmodel/node_drift.hpp"
#include "xsim/units.hpp"

namespace xsim::proc {
namespace {

SimTime T(const char* s) { return parse_time(s); }

std::string error_of(const char* spec) {
  try {
    (void)parse_node_drift(spec);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

// Windows of 1 ms alternating factors 1 (even windows) and 2 (odd windows).
double alternating(uint64_t k) { return k % 2 ? 2.0 : 1.0; }

TEST(NodeDrift, WindowsExactly) {
  // Inside one window: 0.3 ms from 0.2 ms at factor 1 ends at 0.5 ms; in window 1 at factor 2, 0.2 ms of
  // computation from 1.1 ms takes 0.4 ms.
  EXPECT_EQ(drift_finish(T("0.2ms"), T("0.3ms"), T("1ms"), alternating), T("0.5ms"));
  EXPECT_EQ(drift_finish(T("1.1ms"), T("0.2ms"), T("1ms"), alternating), T("1.5ms"));
  // Across windows: 1.5 ms from 0.5 ms does 0.5 ms in window 0 (to 1 ms), 0.5 ms in window 1 at factor 2
  // (to 2 ms) and the last 0.5 ms in window 2 at factor 1: it ends at 2.5 ms.
  EXPECT_EQ(drift_finish(T("0.5ms"), T("1.5ms"), T("1ms"), alternating), T("2.5ms"));
  // Ending exactly at a window's end, and a zero charge.
  EXPECT_EQ(drift_finish(T("1.5ms"), T("0.25ms"), T("1ms"), alternating), T("2ms"));
  EXPECT_EQ(drift_finish(T("1.5ms"), SimTime::zero(), T("1ms"), alternating), T("1.5ms"));
  // Constant factor 1: the computation's own length.
  EXPECT_EQ(drift_finish(T("3us"), T("7.25ms"), T("10us"), [](uint64_t) { return 1.0; }), T("7.253ms"));
}

TEST(NodeDrift, DrawnFactorsAreReproducibleAndSpread) {
  const NodeDriftSpec s = parse_node_drift("0.05:10ms");
  EXPECT_EQ(s.sigma, 0.05);
  EXPECT_EQ(s.interval, T("10ms"));
  // The same (seed, node, window) always gives the same factor; nodes and windows differ.
  EXPECT_EQ(node_drift_factor(s, 7, 3, 11), node_drift_factor(s, 7, 3, 11));
  EXPECT_NE(node_drift_factor(s, 7, 3, 11), node_drift_factor(s, 7, 3, 12));
  EXPECT_NE(node_drift_factor(s, 7, 3, 11), node_drift_factor(s, 7, 4, 11));
  EXPECT_NE(node_drift_factor(s, 7, 3, 11), node_drift_factor(s, 8, 3, 11));
  double sum = 0, sq = 0, lo = 10, hi = 0;
  const int n = 20000;
  for (int k = 0; k < n; ++k) {
    const double f = node_drift_factor(s, 1, static_cast<uint64_t>(k % 50), static_cast<uint64_t>(k / 50));
    sum += f;
    sq += f * f;
    lo = std::min(lo, f);
    hi = std::max(hi, f);
  }
  const double mean = sum / n, sd = std::sqrt(sq / n - mean * mean);
  EXPECT_NEAR(mean, 1.0, 0.002);
  EXPECT_NEAR(sd, 0.05, 0.002);
  EXPECT_GE(lo, 1 - 3 * 0.05);
  EXPECT_LE(hi, 1 + 3 * 0.05);
  // The spec's finish is the walk over its own factors.
  const SimTime a = drift_finish(s, 1, 5, T("4ms"), T("25ms"));
  const SimTime b =
      drift_finish(T("4ms"), T("25ms"), s.interval, [&](uint64_t k) { return node_drift_factor(s, 1, 5, k); });
  EXPECT_EQ(a, b);
  // Zero spread is no drift.
  EXPECT_EQ(drift_finish(parse_node_drift("0:1ms"), 1, 5, T("4ms"), T("25ms")), T("29ms"));
  EXPECT_EQ(drift_finish(parse_node_drift("none"), 1, 5, T("4ms"), T("25ms")), T("29ms"));
}

TEST(NodeDrift, BadSpecsSayWhatToGive) {
  EXPECT_NE(error_of("0.5:1ms").find("\"0.5\" is not a standard deviation between 0 and 0.3"), std::string::npos);
  EXPECT_NE(error_of("-0.1:1ms").find("not a standard deviation"), std::string::npos);
  EXPECT_NE(error_of("0.02:0us").find("the interval must be positive"), std::string::npos);
  EXPECT_NE(error_of("0.02:fast").find("the interval: "), std::string::npos);
  EXPECT_NE(error_of("wobble").find("unknown node drift \"wobble\""), std::string::npos);
  EXPECT_NE(error_of("wobble").find("SIGMA:INTERVAL"), std::string::npos);
  EXPECT_EQ(error_of("0.02:10ms"), "");
}

}  // namespace
}  // namespace xsim::proc
