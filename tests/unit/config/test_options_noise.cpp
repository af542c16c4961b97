// Unit tests for the noise options (docs/noise.md): -xsim-noise, -xsim-node-speed and -xsim-node-drift from
// the command line, the environment and TOML, printed back by -xsim-print-config, and bad specs refused
// naming the option.
#include "options_test_support.hpp"

namespace xsim {
namespace {

TEST(OptionsNoise, CommandLineEnvironmentAndToml) {
  Options o = parse({"app", "-xsim-noise", "periodic:1ms:10us:random", "-xsim-node-speed", "normal:0.02"});
  EXPECT_EQ(o.noise.kind, proc::NoiseSpec::Kind::periodic);
  EXPECT_EQ(o.noise.period, SimTime::from_ns(1'000'000));
  EXPECT_EQ(o.noise.duration, SimTime::from_ns(10'000));
  EXPECT_TRUE(o.noise.random_phase);
  EXPECT_EQ(o.node_speed.kind, proc::NodeSpeedSpec::Kind::normal);
  EXPECT_EQ(o.node_speed.sigma, 0.02);
  o = parse({"app"}, {"XSIM_NOISE=poisson:10kHz:20us"});
  EXPECT_EQ(o.noise.kind, proc::NoiseSpec::Kind::poisson);
  EXPECT_EQ(o.noise.rate_hz, 1e4);
  Options t;
  load_config_text(t, "[noise]\ndetours = \"poisson:2kHz:5us\"\nnode_speed = \"normal:0.1\"\n", "t.toml");
  EXPECT_EQ(t.noise.rate_hz, 2e3);
  EXPECT_EQ(t.node_speed.sigma, 0.1);
  EXPECT_EQ(parse({"app"}).noise.kind, proc::NoiseSpec::Kind::none);  // default: none
  EXPECT_FALSE(parse({"app"}).node_drift.on());
  o = parse({"app", "-xsim-node-drift", "0.02:10ms"});
  EXPECT_EQ(o.node_drift.sigma, 0.02);
  EXPECT_EQ(o.node_drift.interval, SimTime::from_ns(10'000'000));
  EXPECT_EQ(parse({"app"}, {"XSIM_NODE_DRIFT=0.1:1ms"}).node_drift.sigma, 0.1);
  load_config_text(t, "[noise]\nnode_drift = \"0.03:5ms\"\n", "t.toml");
  EXPECT_EQ(t.node_drift.sigma, 0.03);
}

TEST(OptionsNoise, PrintedConfigReadsBack) {
  Options o = parse(
      {"app", "-xsim-noise", "poisson:10kHz:20us", "-xsim-node-speed", "normal:0.05", "-xsim-node-drift", "0.01:2ms"});
  const std::string printed = to_toml(o);
  EXPECT_HAS(printed, "node_drift = \"0.01:2ms\"");
  EXPECT_HAS(printed, "[noise]");
  EXPECT_HAS(printed, "detours = \"poisson:10kHz:20us\"");
  Options again;
  load_config_text(again, printed, "printed.toml");
  EXPECT_EQ(again.noise.rate_hz, 1e4);
  EXPECT_EQ(again.node_speed.sigma, 0.05);
  EXPECT_EQ(again.node_drift.interval, SimTime::from_ns(2'000'000));
}

TEST(OptionsNoise, BadSpecsNameTheOption) {
  EXPECT_HAS(error_of({"app", "-xsim-noise", "periodic:1ms:-5us"}), "-xsim-noise: the duration");
  EXPECT_HAS(error_of({"app", "-xsim-noise", "poisson:fast:1us"}), "not a rate");
  EXPECT_HAS(error_of({"app", "-xsim-noise", "trace:/nonexistent/t.txt"}), "cannot read the noise trace");
  EXPECT_HAS(error_of({"app"}, {"XSIM_NOISE=wobble"}), "XSIM_NOISE");
  EXPECT_HAS(error_of({"app", "-xsim-node-speed", "normal:2"}), "-xsim-node-speed");
  EXPECT_HAS(error_of({"app", "-xsim-node-drift", "0.02:-1ms"}), "-xsim-node-drift: the interval");
  EXPECT_HAS(error_of({"app"}, {"XSIM_NODE_DRIFT=0.5:1ms"}), "XSIM_NODE_DRIFT");
  EXPECT_HAS(file_error("[noise]\ndetours = \"periodic:1ms\"\n"), "periodic takes a period and a duration");
}

}  // namespace
}  // namespace xsim
