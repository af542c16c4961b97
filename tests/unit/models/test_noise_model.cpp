// Unit tests for the noise models and node speed factors (procmodel/xsim/procmodel/noise_model.hpp,
// node_speed.hpp): exact stretches of periodic noise, the closed form against the detours it reports,
// Poisson noise reproducible from the seed and independent of the order of queries, the trace format and
// every bad spec refused with a message that says how to fix it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "xsim/procmodel/node_speed.hpp"
#include "xsim/procmodel/noise_model.hpp"
#include "xsim/units.hpp"

namespace xsim::proc {
namespace {

SimTime us(int64_t n) { return SimTime::from_ns(n * 1000); }
SimTime T(const char* s) { return parse_time(s); }

std::unique_ptr<NoiseModel> model(const char* spec, uint64_t seed = 1) {
  return make_noise_model(parse_noise_spec(spec), seed);
}

// Free (non-detour) time in [a, b) from the detours the model reports.
SimTime free_time(NoiseModel& m, uint64_t node, SimTime a, SimTime b) {
  SimTime busy;
  for (const Detour& d : m.detours(node, a, b)) busy += d.length;
  return (b - a) - busy;
}

TEST(NoiseModel, PeriodicStretchesExactly) {
  auto m = model("periodic:1ms:10us");
  // Detours at [k ms, k ms + 10 us): a 5 ms computation from 0 meets six of them (0, 1, ..., 5 ms).
  EXPECT_EQ(m->finish(0, SimTime::zero(), T("5ms")), T("5.06ms"));
  // From 10 us (after the first detour): five inside, 5.05 ms of elapsed time.
  EXPECT_EQ(m->finish(0, us(10), T("5ms")) - us(10), T("5.05ms"));
  EXPECT_EQ(m->finish(0, us(500), us(100)), us(600));    // between two detours: no stretch
  EXPECT_EQ(m->finish(0, us(500), us(600)), us(1110));   // across the detour at 1 ms
  EXPECT_EQ(m->finish(0, us(900), us(100)), us(1000));   // ends where a detour starts: not stretched
  EXPECT_EQ(m->finish(0, us(5), us(1)), us(11));         // starts inside a detour: waits for its end
  EXPECT_EQ(m->finish(0, us(5), SimTime::zero()), us(5));  // a zero charge does not move the clock
  EXPECT_EQ(m->finish(7, us(500), us(600)), us(1110));   // every node alike, from time 0
}

TEST(NoiseModel, PeriodicZeroDurationIsNoNoise) {
  auto m = model("periodic:1ms:0us");
  EXPECT_EQ(m->finish(3, us(5), T("5ms")), us(5) + T("5ms"));
}

TEST(NoiseModel, RandomPhaseIsPerNodeAndSeeded) {
  auto a = model("periodic:1ms:10us:random", 7), b = model("periodic:1ms:10us:random", 7);
  auto c = model("periodic:1ms:10us:random", 8);
  int differ = 0, seed_differs = 0;
  for (uint64_t n = 0; n < 64; ++n) {
    SimTime e = a->finish(n, us(123), us(2500));
    EXPECT_EQ(e, b->finish(n, us(123), us(2500)));
    // 2.5 ms of work meets two or three 10 us detours (the first perhaps in part: it started before).
    EXPECT_GE(e, us(2643));
    EXPECT_LE(e, us(2653));
    differ += e != a->finish(0, us(123), us(2500));
    seed_differs += e != c->finish(n, us(123), us(2500));
  }
  EXPECT_GT(differ, 0);
  EXPECT_GT(seed_differs, 0);
}

TEST(NoiseModel, ClosedFormAgreesWithTheDetours) {
  for (const char* spec : {"periodic:1ms:10us", "periodic:333us:17us:random", "poisson:10kHz:20us",
                           "poisson:1kHz:300us"}) {
    auto m = model(spec, 42);
    uint64_t x = 12345;
    for (int i = 0; i < 2000; ++i) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      const uint64_t node = (x >> 60) & 7;
      const SimTime t = SimTime::from_ps(static_cast<int64_t>((x >> 20) % 50'000'000'000ull));
      const SimTime c = SimTime::from_ps(static_cast<int64_t>((x >> 8) % 3'000'000'000ull));
      const SimTime e = m->finish(node, t, c);
      ASSERT_GE(e, t + c) << spec;
      ASSERT_EQ(free_time(*m, node, t, e), c) << spec << " t=" << t.ps() << " c=" << c.ps();
    }
  }
}

TEST(NoiseModel, PoissonIsReproducibleAndOrderFree) {
  auto a = model("poisson:10kHz:20us", 5), b = model("poisson:10kHz:20us", 5), c = model("poisson:10kHz:20us", 6);
  std::vector<SimTime> forward;
  for (uint64_t n = 0; n < 32; ++n) forward.push_back(a->finish(n, us(100 * static_cast<int64_t>(n)), T("3ms")));
  int seed_differs = 0;
  for (uint64_t n = 32; n-- > 0;) {  // the other order, after queries far ahead on every node
    b->finish(n, T("2s"), T("1ms"));
    EXPECT_EQ(b->finish(n, us(100 * static_cast<int64_t>(n)), T("3ms")), forward[n]);
    seed_differs += c->finish(n, us(100 * static_cast<int64_t>(n)), T("3ms")) != forward[n];
  }
  EXPECT_GT(seed_differs, 16);
}

TEST(NoiseModel, PoissonNoiseFraction) {
  // Detours of 20 us at 10 kHz, merged where they overlap: the node is taken 1 - exp(-0.2) of the time.
  auto m = model("poisson:10kHz:20us", 3);
  const double expect = 1.0 / std::exp(-0.2);
  double sum = 0;
  for (uint64_t n = 0; n < 16; ++n) sum += m->finish(n, SimTime::zero(), T("1s")).seconds();
  EXPECT_NEAR(sum / 16, expect, 0.01 * expect);
}

TEST(NoiseModel, TraceReplays) {
  std::istringstream in("# recorded\ncycle 1ms\n100us 10us\n500us 0.00002  # seconds\n");
  NoiseTrace t = parse_noise_trace(in, "t.txt");
  ASSERT_EQ(t.detours.size(), 2u);
  EXPECT_EQ(t.cycle, T("1ms"));
  EXPECT_EQ(t.detours[1].length, us(20));
  auto m = make_cyclic_noise(t, false, 1, "t");
  EXPECT_EQ(m->finish(0, SimTime::zero(), us(200)), us(210));
  EXPECT_EQ(m->finish(0, SimTime::zero(), T("2ms")), T("2.06ms"));  // two cycles of 30 us, then the 100 us one
  std::ostringstream out;
  write_noise_trace(out, t);
  std::istringstream back(out.str());
  NoiseTrace u = parse_noise_trace(back, "back");
  EXPECT_EQ(u.cycle, t.cycle);
  ASSERT_EQ(u.detours.size(), 2u);
  EXPECT_EQ(u.detours[1].start, t.detours[1].start);
}

std::string trace_error(const std::string& text) {
  std::istringstream in(text);
  try {
    parse_noise_trace(in, "f.txt");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(NoiseModel, BadTracesNameTheLine) {
  EXPECT_NE(trace_error("1us 1us\nbogus\n").find("f.txt:2:"), std::string::npos);
  EXPECT_NE(trace_error("1us x\n").find("f.txt:1:"), std::string::npos);
  EXPECT_NE(trace_error("5us 1us\n1us 1us\n").find("sorted and disjoint"), std::string::npos);
  EXPECT_NE(trace_error("1us 0us\n").find("positive"), std::string::npos);
  EXPECT_NE(trace_error("cycle 1us\n0 1us\n").find("whole cycle"), std::string::npos);
  EXPECT_NE(trace_error("# nothing\n").find("no detours"), std::string::npos);
  EXPECT_NE(trace_error("cycle 1us\n5us 1us\n").find("ends before"), std::string::npos);
  EXPECT_THROW(make_noise_model(parse_noise_spec("trace:/nonexistent/noise.txt"), 1), std::invalid_argument);
}

std::string spec_error(const char* s) {
  try {
    parse_noise_spec(s);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(NoiseModel, BadSpecsSayHowToFix) {
  EXPECT_NE(spec_error("periodic:1ms:-5us").find("negative"), std::string::npos);
  EXPECT_NE(spec_error("poisson:fast:1us").find("not a rate"), std::string::npos);
  EXPECT_NE(spec_error("poisson:-5Hz:1us").find("rate"), std::string::npos);
  EXPECT_NE(spec_error("periodic:1ms:1ms").find("shorter than the period"), std::string::npos);
  EXPECT_NE(spec_error("periodic:1ms").find("periodic:PERIOD:DURATION"), std::string::npos);
  EXPECT_NE(spec_error("periodic:1ms:1us:sometimes").find("random"), std::string::npos);
  EXPECT_NE(spec_error("poisson:1MHz:2us").find("below 1"), std::string::npos);
  EXPECT_NE(spec_error("jitter:1").find("unknown noise"), std::string::npos);
  EXPECT_NE(spec_error("trace:").find("file"), std::string::npos);
  EXPECT_EQ(parse_rate_hz("10kHz"), 1e4);
  EXPECT_EQ(parse_rate_hz("2.5e3"), 2.5e3);
  EXPECT_EQ(parse_noise_spec("none").kind, NoiseSpec::Kind::none);
  EXPECT_EQ(make_noise_model(parse_noise_spec("none"), 1), nullptr);
}

TEST(NodeSpeed, NormalIsSeededAndBounded) {
  NodeSpeedSpec s = parse_node_speed("normal:0.05");
  double sum = 0, sq = 0;
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    const double f = node_speed_factor(s, 9, static_cast<uint64_t>(i));
    EXPECT_EQ(f, node_speed_factor(s, 9, static_cast<uint64_t>(i)));
    ASSERT_GE(f, 1 - 0.15);
    ASSERT_LE(f, 1 + 0.15);
    sum += f;
    sq += (f - 1) * (f - 1);
  }
  EXPECT_NEAR(sum / n, 1.0, 0.002);
  EXPECT_NEAR(std::sqrt(sq / n), 0.05, 0.002);
  EXPECT_NE(node_speed_factor(s, 9, 0), node_speed_factor(s, 10, 0));
  EXPECT_EQ(node_speed_factor(parse_node_speed("none"), 9, 3), 1.0);
}

TEST(NodeSpeed, FileAndErrors) {
  const std::string path = ::testing::TempDir() + "node_speed_test.txt";
  { std::ofstream(path) << "# factors\n1.0\n1.25\n\n0.9\n"; }
  NodeSpeedSpec s = parse_node_speed("file:" + path);
  EXPECT_EQ(node_speed_factor(s, 1, 1), 1.25);
  EXPECT_EQ(node_speed_factor(s, 1, 2), 0.9);
  EXPECT_THROW(node_speed_factor(s, 1, 3), std::invalid_argument);
  { std::ofstream(path) << "1.0\n-2\n"; }
  try {
    parse_node_speed("file:" + path);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(path + ":2:"), std::string::npos) << e.what();
  }
  std::remove(path.c_str());
  EXPECT_THROW(parse_node_speed("file:/nonexistent/speeds"), std::invalid_argument);
  EXPECT_THROW(parse_node_speed("normal:0.5"), std::invalid_argument);
  EXPECT_THROW(parse_node_speed("normal:x"), std::invalid_argument);
  EXPECT_THROW(parse_node_speed("gauss:0.1"), std::invalid_argument);
}

}  // namespace
}  // namespace xsim::proc
