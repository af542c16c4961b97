// Unit tests for libxsim options: command line, environment, TOML file, precedence, presets, inline network
// specs, validation messages, help text and the to_toml round trip.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "options.hpp"

extern char** environ;

namespace xsim {
namespace {

// argv as the C runtime gives it: char* array with a null terminator; strings owned here.
class Argv {
 public:
  Argv(std::initializer_list<std::string> args) : store_(args) {
    for (auto& s : store_) ptrs_.push_back(s.data());
    ptrs_.push_back(nullptr);
    argc = static_cast<int>(store_.size());
  }
  char** argv() { return ptrs_.data(); }
  std::vector<std::string> rest() const {
    std::vector<std::string> v;
    for (int i = 0; i < argc; ++i) v.emplace_back(ptrs_[i]);
    return v;
  }
  char* original(size_t i) { return store_[i].data(); }
  char* at(size_t i) const { return ptrs_[i]; }
  int argc = 0;

 private:
  std::vector<std::string> store_;
  std::vector<char*> ptrs_;
};

class Env {
 public:
  Env(std::initializer_list<std::string> vars = {}) : store_(vars) {
    for (auto& s : store_) ptrs_.push_back(s.data());
    ptrs_.push_back(nullptr);
  }
  char** envp() { return ptrs_.data(); }

 private:
  std::vector<std::string> store_;
  std::vector<char*> ptrs_;
};

// A TOML file in the test's temporary directory, removed at the end.
class TempFile {
 public:
  explicit TempFile(const std::string& text) {
    static int counter = 0;
    path_ = ::testing::TempDir() + "xsim_options_" + std::to_string(getpid()) + "_" + std::to_string(counter++) +
            ".toml";
    std::ofstream(path_) << text;
  }
  ~TempFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

Options parse(std::initializer_list<std::string> args, std::initializer_list<std::string> env = {}) {
  Argv a(args);
  Env e(env);
  return parse_options(a.argc, a.argv(), e.envp());
}

// The ConfigError message of parsing these arguments, or "" when it succeeds.
std::string error_of(std::initializer_list<std::string> args, std::initializer_list<std::string> env = {}) {
  try {
    parse(args, env);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_HAS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << "in: " << (haystack)

TEST(Options, Defaults) {
  Options o = parse({"app"});
  EXPECT_EQ(o.np, 0);
  EXPECT_EQ(o.network.preset, "ethernet");
  ASSERT_EQ(o.network.levels.size(), 1u);
  EXPECT_EQ(o.network.levels[0].topology, "star");
  EXPECT_TRUE(o.network.levels[0].size.empty());
  EXPECT_EQ(o.network.levels[0].latency.ps(), 25'000'000);
  EXPECT_EQ(o.network.levels[0].bandwidth_bps, 1'000'000'000u);
  EXPECT_EQ(o.network.placement, "block");
  EXPECT_EQ(o.network, network_preset("ethernet"));
  EXPECT_EQ(o.cpu, CpuModel::scaled);
  EXPECT_EQ(o.cpu_scale, 1.0);
  EXPECT_EQ(o.stack_size, 0u);  // auto
  EXPECT_EQ(o.privatize_libs, std::vector<std::string>{"auto"});
  EXPECT_EQ(o.poll_cost.ps(), 100'000);
  EXPECT_TRUE(o.report);
  EXPECT_FALSE(o.print_config);
  EXPECT_FALSE(o.help);
  EXPECT_EQ(o.config_file, "");
}

TEST(Options, NullEnvironmentAndEmptyArgv) {
  Argv a({"app"});
  Options o = parse_options(a.argc, a.argv(), nullptr);
  EXPECT_EQ(o.np, 0);
  int argc = 0;
  char* none[] = {nullptr};
  EXPECT_NO_THROW(parse_options(argc, none, nullptr));
}

TEST(Options, StripsXsimArgumentsAndKeepsOrder) {
  Argv a({"app", "-xsim-np", "8", "a", "-xsim-mn=star:16", "--flag", "b", "-xsim-print-config", "c",
          "-xsim-report", "off"});
  char* kept_a = a.original(3);
  Env e;
  Options o = parse_options(a.argc, a.argv(), e.envp());
  EXPECT_EQ(a.argc, 5);
  EXPECT_EQ(a.rest(), (std::vector<std::string>{"app", "a", "--flag", "b", "c"}));
  EXPECT_EQ(a.at(5), nullptr);
  EXPECT_EQ(a.at(1), kept_a);  // the same string, not a copy
  EXPECT_EQ(o.np, 8);
  EXPECT_EQ(o.network.levels[0].size, (std::vector<int64_t>{16}));
  EXPECT_TRUE(o.print_config);
  EXPECT_FALSE(o.report);
}

TEST(Options, NoXsimArgumentsLeavesArgvAlone) {
  Argv a({"app", "x", "-y", "--z=1"});
  Env e;
  parse_options(a.argc, a.argv(), e.envp());
  EXPECT_EQ(a.argc, 4);
  EXPECT_EQ(a.rest(), (std::vector<std::string>{"app", "x", "-y", "--z=1"}));
  EXPECT_EQ(a.at(4), nullptr);
}

TEST(Options, EveryCommandLineOption) {
  Options o = parse({"app", "-xsim-np=12", "-xsim-mn", "star:32:lat=10us:bw=10Gbps:os=1us:or=2us", "-xsim-cpu",
                     "none", "-xsim-cpu-scale=0.5", "-xsim-stack", "1M", "-xsim-poll-cost", "0.32us",
                     "-xsim-report=off", "-xsim-print-config", "-xsim-help", "-xsim-placement=roundrobin"});
  EXPECT_EQ(o.network.placement, "roundrobin");
  EXPECT_EQ(o.np, 12);
  EXPECT_EQ(o.network.preset, "custom");
  EXPECT_EQ(o.network.levels[0].size, (std::vector<int64_t>{32}));
  EXPECT_EQ(o.network.levels[0].latency.ps(), 10'000'000);
  EXPECT_EQ(o.network.levels[0].bandwidth_bps, 10'000'000'000u);
  EXPECT_EQ(o.network.send_overhead.ps(), 1'000'000);
  EXPECT_EQ(o.network.recv_overhead.ps(), 2'000'000);
  EXPECT_EQ(o.cpu, CpuModel::none);
  EXPECT_EQ(o.cpu_scale, 0.5);
  EXPECT_EQ(o.stack_size, 1u << 20);
  EXPECT_EQ(o.poll_cost.ps(), 320'000);
  EXPECT_FALSE(o.report);
  EXPECT_TRUE(o.print_config);
  EXPECT_TRUE(o.help);
}

TEST(Options, FlagsTakeOptionalOnOff) {
  EXPECT_FALSE(parse({"app", "-xsim-help=off"}).help);
  EXPECT_TRUE(parse({"app", "-xsim-help=on"}).help);
  // A flag does not swallow the next argument.
  Argv a({"app", "-xsim-help", "on"});
  Env e;
  parse_options(a.argc, a.argv(), e.envp());
  EXPECT_EQ(a.rest(), (std::vector<std::string>{"app", "on"}));
}

TEST(Options, EveryEnvironmentTwin) {
  Options o = parse({"app"}, {"PATH=/bin", "XSIM_NP=6", "XSIM_MN=ethernet:lat=5us", "XSIM_CPU=none",
                              "XSIM_CPU_SCALE=2", "XSIM_STACK=64K", "XSIM_POLL_COST=1ns", "XSIM_REPORT=off",
                              "XSIM_PRINT_CONFIG=1", "XSIM_HELP=yes"});
  EXPECT_EQ(o.np, 6);
  EXPECT_EQ(o.network.preset, "ethernet");
  EXPECT_EQ(o.network.levels[0].latency.ps(), 5'000'000);
  EXPECT_EQ(o.network.levels[0].bandwidth_bps, 1'000'000'000u);
  EXPECT_EQ(o.cpu, CpuModel::none);
  EXPECT_EQ(o.cpu_scale, 2.0);
  EXPECT_EQ(o.stack_size, 64u * 1024);
  EXPECT_EQ(o.poll_cost.ps(), 1'000);
  EXPECT_FALSE(o.report);
  EXPECT_TRUE(o.print_config);
  EXPECT_TRUE(o.help);
}

TEST(Options, EmptyEnvironmentValueCountsAsUnset) {
  EXPECT_EQ(parse({"app"}, {"XSIM_NP="}).np, 0);
  EXPECT_EQ(parse({"app"}, {"XSIM_NPX=3"}).np, 0);  // another name that merely starts alike
}

TEST(Options, ProcessEnvironmentThroughEnviron) {
  ASSERT_EQ(setenv("XSIM_NP", "12", 1), 0);
  ASSERT_EQ(setenv("XSIM_POLL_COST", "7ns", 1), 0);
  Argv a({"app"});
  Options o = parse_options(a.argc, a.argv(), environ);
  unsetenv("XSIM_NP");
  unsetenv("XSIM_POLL_COST");
  EXPECT_EQ(o.np, 12);
  EXPECT_EQ(o.poll_cost.ps(), 7'000);
  Argv b({"app"});
  EXPECT_EQ(parse_options(b.argc, b.argv(), environ).np, 0);
}

TEST(Options, PrecedenceDefaultsFileEnvironmentCommandLine) {
  TempFile f(
      "[simulation]\nnp = 4\nstack = \"32K\"\npoll_cost = \"200ns\"\nreport = false\n"
      "[cpu]\nmodel = \"none\"\nscale = 3.0\n"
      "[network]\nlatency = \"1us\"\n");
  std::string cfg = "-xsim-config=" + f.path();
  // File over defaults.
  Options o = parse({"app", cfg});
  EXPECT_EQ(o.config_file, f.path());
  EXPECT_EQ(o.np, 4);
  EXPECT_EQ(o.stack_size, 32u * 1024);
  EXPECT_EQ(o.poll_cost.ps(), 200'000);
  EXPECT_FALSE(o.report);
  EXPECT_EQ(o.cpu, CpuModel::none);
  EXPECT_EQ(o.cpu_scale, 3.0);
  EXPECT_EQ(o.network.levels[0].latency.ps(), 1'000'000);
  EXPECT_EQ(o.network.levels[0].bandwidth_bps, 1'000'000'000u);  // untouched keys keep their defaults
  // Environment over file.
  o = parse({"app", cfg}, {"XSIM_NP=8", "XSIM_STACK=48K", "XSIM_CPU=scaled"});
  EXPECT_EQ(o.np, 8);
  EXPECT_EQ(o.stack_size, 48u * 1024);
  EXPECT_EQ(o.cpu, CpuModel::scaled);
  EXPECT_EQ(o.poll_cost.ps(), 200'000);  // still the file's
  // Command line over environment.
  o = parse({"app", cfg, "-xsim-np", "16", "-xsim-cpu=none"}, {"XSIM_NP=8", "XSIM_STACK=48K", "XSIM_CPU=scaled"});
  EXPECT_EQ(o.np, 16);
  EXPECT_EQ(o.stack_size, 48u * 1024);
  EXPECT_EQ(o.cpu, CpuModel::none);
  // -xsim-mn replaces the file's levels and overheads as a whole (not its placement).
  o = parse({"app", cfg, "-xsim-mn", "star:lat=3us"});
  EXPECT_EQ(o.network.levels[0].latency.ps(), 3'000'000);
  EXPECT_EQ(o.network.levels[0].bandwidth_bps, 10'000'000'000u);  // the star default, not the file's
}

TEST(Options, ConfigFileFromEnvironmentAndCommandLineWins) {
  TempFile a("[simulation]\nnp = 5\n");
  TempFile b("[simulation]\nnp = 7\n");
  EXPECT_EQ(parse({"app"}, {"XSIM_CONFIG=" + a.path()}).np, 5);
  Options o = parse({"app", "-xsim-config", b.path()}, {"XSIM_CONFIG=" + a.path()});
  EXPECT_EQ(o.np, 7);
  EXPECT_EQ(o.config_file, b.path());
}

TEST(Options, UnknownOptionSuggestsClosestAndHelp) {
  std::string m = error_of({"app", "-xsim-nq", "4"});
  EXPECT_HAS(m, "unknown option -xsim-nq");
  EXPECT_HAS(m, "did you mean -xsim-np?");
  EXPECT_HAS(m, "-xsim-help");
  m = error_of({"app", "-xsim-print-confg"});
  EXPECT_HAS(m, "did you mean -xsim-print-config?");
  m = error_of({"app", "-xsim-zzzzzzzzzzzz=1"});
  EXPECT_HAS(m, "unknown option -xsim-zzzzzzzzzzzz");
  EXPECT_EQ(m.find("did you mean"), std::string::npos) << m;
  m = error_of({"app", "--xsim-np=4"});
  EXPECT_HAS(m, "single dash");
  EXPECT_HAS(m, "-xsim-np");
}

TEST(Options, MissingValue) {
  EXPECT_HAS(error_of({"app", "-xsim-np"}), "-xsim-np needs a value");
  EXPECT_HAS(error_of({"app", "-xsim-np", "-xsim-help"}), "-xsim-np needs a value");
  EXPECT_HAS(error_of({"app", "-xsim-stack="}), "-xsim-stack needs a value");
}

TEST(Options, BadValuesNameTheirOrigin) {
  std::string m = error_of({"app", "-xsim-np", "0"});
  EXPECT_HAS(m, "-xsim-np: ");
  EXPECT_HAS(m, "between 1 and");
  EXPECT_HAS(error_of({"app", "-xsim-np=abc"}), "\"abc\" is not a positive integer");
  EXPECT_HAS(error_of({"app", "-xsim-np=-3"}), "-xsim-np");
  EXPECT_HAS(error_of({"app", "-xsim-np=4k"}), "not a positive integer");
  EXPECT_HAS(error_of({"app"}, {"XSIM_NP=x"}), "XSIM_NP: ");
  EXPECT_HAS(error_of({"app", "-xsim-cpu=fast"}), "give none or scaled");
  EXPECT_HAS(error_of({"app", "-xsim-cpu-scale=0"}), "positive finite");
  EXPECT_HAS(error_of({"app", "-xsim-cpu-scale=-1"}), "positive finite number (got -1.0)");
  EXPECT_HAS(error_of({"app", "-xsim-cpu-scale=nan"}), "positive finite");
  EXPECT_HAS(error_of({"app", "-xsim-cpu-scale=inf"}), "positive finite");
  EXPECT_HAS(error_of({"app", "-xsim-cpu-scale=1x"}), "is not a number");
  EXPECT_HAS(error_of({"app", "-xsim-poll-cost=5 parsecs"}), "-xsim-poll-cost: bad time \"5 parsecs\"");
  EXPECT_HAS(error_of({"app", "-xsim-report=maybe"}), "-xsim-report: \"maybe\" is not on or off");
}

TEST(Options, StackBounds) {
  std::string m = error_of({"app", "-xsim-stack", "8K"});
  EXPECT_HAS(m, "-xsim-stack: stack size 8 KiB is out of range");
  EXPECT_HAS(m, "between 16K and 1G");
  EXPECT_HAS(error_of({"app", "-xsim-stack", "2G"}), "out of range");
  EXPECT_EQ(parse({"app", "-xsim-stack", "16K"}).stack_size, 16u * 1024);
  EXPECT_EQ(parse({"app", "-xsim-stack", "1M", "-xsim-stack", "auto"}).stack_size, 0u);  // auto: StackPool::auto_size
  EXPECT_EQ(parse({"app", "-xsim-stack", "1G"}).stack_size, 1u << 30);
  EXPECT_HAS(error_of({"app", "-xsim-stack", "big"}), "bad size \"big\"");
}

TEST(Options, EndpointsMustCoverRanks) {
  std::string m = error_of({"app", "-xsim-np", "8", "-xsim-mn", "star:4"});
  EXPECT_HAS(m, "star:4 has 4 cores but -xsim-np is 8; use e.g. star:8 or fewer ranks");
  EXPECT_HAS(m, "(network set by -xsim-mn star:4, np by -xsim-np)");
  EXPECT_EQ(parse({"app", "-xsim-np", "8", "-xsim-mn", "star:8"}).network.levels[0].size[0], 8);
  EXPECT_TRUE(parse({"app", "-xsim-np", "8", "-xsim-mn", "star"}).network.levels[0].size.empty());
  EXPECT_EQ(parse({"app", "-xsim-mn", "star:4"}).np, 0);  // np not given: nothing to compare
  TempFile f("[network]\nendpoints = 2\n");
  m = error_of({"app", "-xsim-config", f.path(), "-xsim-np", "3"});
  EXPECT_HAS(m, "star:2 has 2 cores but -xsim-np is 3");
  EXPECT_HAS(m, "network set by " + f.path() + ":1:1");
  m = error_of({"app", "-xsim-np", "100", "-xsim-mn", "torus:4x4x4"});
  EXPECT_HAS(m, "torus:4x4x4 has 64 cores but -xsim-np is 100; use e.g. torus:4x4x7 or fewer ranks");
  m = error_of({"app", "-xsim-np", "2000", "-xsim-mn", "torus:8x8x8/star:2"});
  EXPECT_HAS(m, "torus:8x8x8/star:2 has 1024 cores but -xsim-np is 2000; use e.g. torus:8x8x16/star:2");
}

TEST(Options, NetworkPresets) {
  NetworkSpec e = network_preset("ethernet");
  EXPECT_EQ(e.preset, "ethernet");
  ASSERT_EQ(e.levels.size(), 1u);
  EXPECT_EQ(e.levels[0].topology, "star");
  EXPECT_EQ(e.levels[0].latency.ps(), 25'000'000);
  EXPECT_EQ(e.levels[0].bandwidth_bps, 1'000'000'000u);
  EXPECT_TRUE(e.levels[0].size.empty());
  NetworkSpec m = network_preset("multicore-ethernet");
  ASSERT_EQ(m.levels.size(), 2u);
  EXPECT_EQ(format_network_inline(m), "star:lat=25us:bw=1Gbps/star:8:lat=320ns:bw=12Gbps");
  EXPECT_EQ(format_network_inline(network_preset("none")), "star:lat=1ps:bw=1000000Tbps");
  EXPECT_EQ(format_network_inline(network_preset("mesh2d")), "mesh:dims=2:lat=7us:bw=8.8Gbps");
  EXPECT_EQ(format_network_inline(network_preset("mesh3d-dualcore")),
            "mesh:dims=3:lat=7us:bw=8.8Gbps/star:2:lat=320ns:bw=9.6Gbps");
  EXPECT_EQ(format_network_inline(network_preset("torus3d-dualcore")),
            "torus:dims=3:lat=7us:bw=8.8Gbps/star:2:lat=320ns:bw=9.6Gbps");
  EXPECT_EQ(format_network_inline(network_preset("twistedtorus3d-dualcore")),
            "twistedtorus:dims=3:lat=7us:bw=8.8Gbps/star:2:lat=320ns:bw=9.6Gbps");
  EXPECT_EQ(format_network_inline(network_preset("aries")),
            "dragonfly:p=4:a=96:h=3:cols=16:lat=100ns:bw=128Gbps:tlat=100ns:tbw=128Gbps:llat=100ns:lbw=42Gbps:"
            "glat=100ns:gbw=37.6Gbps");
  for (const std::string& name : network_preset_names()) {
    NetworkSpec p = network_preset(name);
    EXPECT_EQ(p.preset, name);
    EXPECT_EQ(parse_network_inline(name), p) << name;
    // The inline form reads back to the same levels.
    NetworkSpec back = parse_network_inline(format_network_inline(p));
    EXPECT_EQ(back.levels, p.levels) << name;
  }
  try {
    network_preset("multicore-ethernt");
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& err) {
    EXPECT_HAS(err.what(), "unknown network preset \"multicore-ethernt\"");
    EXPECT_HAS(err.what(), "known presets: none, ethernet, multicore-ethernet, mesh2d");
    EXPECT_HAS(err.what(), "did you mean multicore-ethernet?");
  }
  EXPECT_THROW(network_preset("mesh"), ConfigError);
}

TEST(Options, InlineNetworkSpecs) {
  NetworkSpec s = parse_network_inline("star");
  EXPECT_EQ(s.preset, "custom");
  ASSERT_EQ(s.levels.size(), 1u);
  EXPECT_EQ(s.levels[0].topology, "star");
  EXPECT_TRUE(s.levels[0].size.empty());
  EXPECT_EQ(s.levels[0].latency.ps(), 1'000'000);  // topology defaults: 1 us, 10 Gbps
  EXPECT_EQ(s.levels[0].bandwidth_bps, 10'000'000'000u);
  s = parse_network_inline("star:4096:lat=0.32us:bw=8.8Gbps");
  EXPECT_EQ(s.levels[0].size, (std::vector<int64_t>{4096}));
  EXPECT_EQ(s.levels[0].latency.ps(), 320'000);
  EXPECT_EQ(s.levels[0].bandwidth_bps, 8'800'000'000u);
  s = parse_network_inline("ethernet:lat=10us");
  EXPECT_EQ(s.preset, "ethernet");
  EXPECT_EQ(s.levels[0].latency.ps(), 10'000'000);
  EXPECT_EQ(s.levels[0].bandwidth_bps, 1'000'000'000u);
  s = parse_network_inline("ethernet:64:os=1us:or=500ns");
  EXPECT_EQ(s.levels[0].size, (std::vector<int64_t>{64}));
  EXPECT_EQ(s.send_overhead.ps(), 1'000'000);
  EXPECT_EQ(s.recv_overhead.ps(), 500'000);
  s = parse_network_inline("star:n=12:bw=2GB/s");  // "/s" of a unit is not a level separator
  EXPECT_EQ(s.levels[0].size, (std::vector<int64_t>{12}));
  EXPECT_EQ(s.levels[0].bandwidth_bps, 16'000'000'000u);
  s = parse_network_inline("torus:4x4:bw=8 Gbit/s/star:2:bw=1GB/s");
  ASSERT_EQ(s.levels.size(), 2u);
  EXPECT_EQ(s.levels[0].bandwidth_bps, 8'000'000'000u);
  EXPECT_EQ(s.levels[1].bandwidth_bps, 8'000'000'000u);
  s = parse_network_inline("multicore-ethernet:cores=4");
  EXPECT_EQ(s.preset, "multicore-ethernet");
  EXPECT_EQ(s.levels[1].size, (std::vector<int64_t>{4}));
  s = parse_network_inline("aries:g=3:routing=valiant");
  EXPECT_EQ(s.preset, "aries");
  EXPECT_EQ(s.levels[0].g, 3);
  EXPECT_EQ(s.levels[0].routing, "valiant");
  s = parse_network_inline("ethernet:16/star:4:lat=0.5us");  // a single-level preset as one level
  EXPECT_EQ(s.preset, "custom");
  EXPECT_EQ(s.levels[0].latency.ps(), 25'000'000);
  EXPECT_EQ(s.levels[1].size, (std::vector<int64_t>{4}));
}

// Every example of the issue parses into the levels it says.
TEST(Options, InlineIssueExamples) {
  NetworkSpec s = parse_network_inline("star:64:lat=25us:bw=1Gbps");
  EXPECT_EQ(format_network_inline(s), "star:64:lat=25us:bw=1Gbps");
  s = parse_network_inline("ring:16");
  EXPECT_FALSE(s.levels[0].uni);
  s = parse_network_inline("ring:16:uni");
  EXPECT_TRUE(s.levels[0].uni);
  EXPECT_EQ(parse_network_inline("mesh:8x16").levels[0].size, (std::vector<int64_t>{8, 16}));
  s = parse_network_inline("torus:4x4x4:wrap=1,0,1");
  EXPECT_EQ(s.levels[0].wrap, (std::vector<int>{1, 0, 1}));
  s = parse_network_inline("twistedtorus:4x4:degree=1:jump=1,2");
  EXPECT_EQ(s.levels[0].topology, "twistedtorus");
  EXPECT_EQ(s.levels[0].degree, 1);
  EXPECT_EQ(s.levels[0].jump, (std::vector<int>{1, 2}));
  s = parse_network_inline("tree:2:depth=6");
  EXPECT_EQ(s.levels[0].k, 2);
  EXPECT_EQ(s.levels[0].depth, 6);
  s = parse_network_inline("dragonfly:p=4:a=8:h=4:g=9:routing=min");
  EXPECT_EQ(s.levels[0].p, 4);
  EXPECT_EQ(s.levels[0].a, 8);
  EXPECT_EQ(s.levels[0].h, 4);
  EXPECT_EQ(s.levels[0].g, 9);
  EXPECT_EQ(s.levels[0].routing, "minimal");
  s = parse_network_inline("fattree:m=4:n=3");
  EXPECT_EQ(s.levels[0].m, 4);
  EXPECT_EQ(s.levels[0].n, 3);
  s = parse_network_inline("torus:8x8x8:lat=7us:bw=8.8Gbps/star:2:lat=320ns:bw=9.6Gbps");
  ASSERT_EQ(s.levels.size(), 2u);
  EXPECT_EQ(s.levels[0].latency.ps(), 7'000'000);
  EXPECT_EQ(s.levels[1].size, (std::vector<int64_t>{2}));
  EXPECT_EQ(s.levels[1].bandwidth_bps, 9'600'000'000u);
  EXPECT_EQ(format_network_inline(s), "torus:8x8x8:lat=7us:bw=8.8Gbps/star:2:lat=320ns:bw=9.6Gbps");
  // Spellings and round trips of every key.
  for (const char* spec :
       {"twisted-torus:3x3x3:wrap=1,1,0:degree=2:jump=1,-2,3:lat=2us:bw=5Gbps", "fat-tree:m=6:n=2",
        "dragonfly:p=2:a=4:h=2:g=5:cols=2:routing=valiant:tlat=10ns:tbw=1Gbps:llat=20ns:lbw=2Gbps:glat=30ns:gbw=3Gbps",
        "tree:3:n=20", "mesh:dims=3", "ring:9:uni:os=1us:or=2us", "torus:wrap=1,0"}) {
    NetworkSpec a = parse_network_inline(spec);
    NetworkSpec b = parse_network_inline(format_network_inline(a));
    EXPECT_EQ(a, b) << spec << " -> " << format_network_inline(a);
  }
}
std::string inline_error(const std::string& spec) {
  try {
    parse_network_inline(spec);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(Options, InlineNetworkErrors) {
  std::string m = inline_error("starr:4");
  EXPECT_HAS(m, "unknown network \"starr\"");
  EXPECT_HAS(m, "did you mean star?");
  EXPECT_HAS(inline_error("star:lat=0us"), "the simulator needs a positive link latency");
  EXPECT_HAS(inline_error("star:bw=0Gbps"), "bandwidth must be positive");
  EXPECT_HAS(inline_error("star:lat=5parsecs"), "bad time \"5parsecs\"");
  m = inline_error("star:latency_x=5us");
  EXPECT_HAS(m, "unknown key \"latency_x\" for a star level");
  EXPECT_HAS(m, "lat");
  // both spellings of a key are candidates for the suggestion (the long one is accepted inline too)
  EXPECT_HAS(inline_error("star:latnecy=5us"), "did you mean latency?");
  EXPECT_HAS(inline_error("star:bandwith=1Gbps"), "did you mean bandwidth?");
  EXPECT_HAS(inline_error("star:0"), "between 1 and");
  EXPECT_HAS(inline_error("star:4:8"), "the endpoint count is given twice");
  EXPECT_HAS(inline_error("star:4:n=8"), "the endpoint count is given twice");
  EXPECT_HAS(inline_error("star::4"), "empty field");
  EXPECT_HAS(inline_error(""), "must start with a preset or topology name");
  EXPECT_HAS(inline_error("star:abc"), "field \"abc\" is neither an endpoint count nor key=value");
  EXPECT_HAS(inline_error("star:4x4"), "the size of a star is one number");
  EXPECT_HAS(inline_error("mesh:4x4:wrap=1,1"), "key \"wrap\" does not apply to a mesh level");
  EXPECT_HAS(inline_error("torus:4x4:wrap=1,0,1"), "wrap has 3 entries but the torus has 2 dimensions");
  EXPECT_HAS(inline_error("torus:4x4:wrap=2,0"), "wrap entry must be between 0 and 1");
  EXPECT_HAS(inline_error("twistedtorus:4x4:degree=2"), "the toroidal degree must be below the number of dimensions");
  EXPECT_HAS(inline_error("tree:1"), "tree arity must be between 2");
  EXPECT_HAS(inline_error("tree:2:depth=3:n=5"), "give the tree's depth or its endpoint count, not both");
  EXPECT_HAS(inline_error("dragonfly:p=4:a=2:h=1:g=9"), "dragonfly network:");
  EXPECT_HAS(inline_error("dragonfly:p=4:routing=adaptive"), "unknown dragonfly routing \"adaptive\"");
  EXPECT_HAS(inline_error("dragonfly:4"), "field \"4\" is neither key=value");
  EXPECT_HAS(inline_error("fattree:m=5:n=2"), "must be even");
  EXPECT_HAS(inline_error("ring:8:uni:uni"), "given twice");
  EXPECT_HAS(inline_error("star:4/"), "empty level");
  EXPECT_HAS(inline_error("star:2/star:2/star:2/star:2/star:2/star:2/star:2"), "at most 6 levels");
  EXPECT_HAS(inline_error("star:4/multicore-ethernet"), "it cannot be one level of a larger network");
  m = inline_error("multicore-ethernet:lat=1us");
  EXPECT_HAS(m, "takes only cores=N");
  EXPECT_HAS(m, "star:lat=25us:bw=1Gbps/star:8:lat=320ns:bw=12Gbps");
  EXPECT_HAS(inline_error("star:4:os=1us:os=2us"), "the send overhead is given twice");
  EXPECT_HAS(inline_error("torus:4x4/star:2:lat=-1us"), "level 1 \"star:2:lat=-1us\"");
  // Through the command line the option is named.
  EXPECT_HAS(error_of({"app", "-xsim-mn", "mesh:0"}), "-xsim-mn: ");
  EXPECT_HAS(error_of({"app"}, {"XSIM_MN=ring:x"}), "XSIM_MN: ");
  EXPECT_HAS(error_of({"app", "-xsim-placement", "random"}), "-xsim-placement: unknown placement \"random\"");
}

TEST(Options, TomlFullSchema) {
  TempFile f(R"(# a comment
[simulation]
np = 64
stack = 65536
poll_cost = "50ns"
report = true

[cpu]
model = "scaled"
scale = 2

[network]
latency = "2us"          # before the preset: the preset is still the base
preset = "ethernet"
topology = "star"
endpoints = 128
bandwidth = "10Gbps"
send_overhead = "1us"
recv_overhead = "0.5us"
placement = "roundrobin"
)");
  Options o = parse({"app", "-xsim-config", f.path()});
  EXPECT_EQ(o.np, 64);
  EXPECT_EQ(o.stack_size, 65536u);
  EXPECT_EQ(o.poll_cost.ps(), 50'000);
  EXPECT_TRUE(o.report);
  EXPECT_EQ(o.cpu, CpuModel::scaled);
  EXPECT_EQ(o.cpu_scale, 2.0);
  EXPECT_EQ(o.network.preset, "ethernet");
  EXPECT_EQ(o.network.levels[0].topology, "star");
  EXPECT_EQ(o.network.levels[0].size, (std::vector<int64_t>{128}));
  EXPECT_EQ(o.network.levels[0].latency.ps(), 2'000'000);
  EXPECT_EQ(o.network.levels[0].bandwidth_bps, 10'000'000'000u);
  EXPECT_EQ(o.network.placement, "roundrobin");
  EXPECT_EQ(o.network.send_overhead.ps(), 1'000'000);
  EXPECT_EQ(o.network.recv_overhead.ps(), 500'000);
}

std::string file_error(const std::string& toml) {
  TempFile f(toml);
  std::string m = error_of({"app", "-xsim-config", f.path()});
  // Replace the temporary path with "F" so that tests can compare whole positions.
  for (size_t p; (p = m.find(f.path())) != std::string::npos;) m.replace(p, f.path().size(), "F");
  return m;
}

TEST(Options, TomlUnknownTablesAndKeys) {
  std::string m = file_error("[simulation]\nnp = 4\n\n[simulaton]\nx = 1\n");
  EXPECT_HAS(m, "F:4:2: unknown table [simulaton]");
  EXPECT_HAS(m, "known tables: [simulation], [cpu], [model], [network]");
  EXPECT_HAS(m, "did you mean simulation?");
  m = file_error("[simulation]\nnp = 4\nnq = 5\n");
  EXPECT_HAS(m, "F:3:1: unknown key \"nq\" in [simulation]");
  EXPECT_HAS(m, "known keys: np, stack, poll_cost, virtual_clocks, report, coll_replay, privatize, privatize_libs");
  m = file_error("[cpu]\nlatency = \"1us\"\n");
  EXPECT_HAS(m, "F:2:1: unknown key \"latency\" in [cpu]");
  EXPECT_HAS(m, "it belongs in [network]");
  m = file_error("np = 4\n");
  EXPECT_HAS(m, "F:1:1: key \"np\" must be inside a table: put it under [simulation]");
  m = file_error("[network]\nlatncy = \"1us\"\n");
  EXPECT_HAS(m, "F:2:1: unknown key \"latncy\" in [network]");
  EXPECT_HAS(m, "did you mean latency?");
}

TEST(Options, TomlWrongTypes) {
  std::string m = file_error("[simulation]\nnp = \"4\"\n");
  EXPECT_HAS(m, "F:2:6: [simulation] np: expected an integer, got a string");
  m = file_error("[simulation]\nreport = \"yes\"\n");
  EXPECT_HAS(m, "F:2:10: [simulation] report: expected a boolean");
  m = file_error("[network]\nlatency = 25\n");
  EXPECT_HAS(m, "F:2:11: [network] latency: expected a time string such as \"25us\", got an integer");
  m = file_error("[cpu]\nscale = \"fast\"\n");
  EXPECT_HAS(m, "F:2:9: [cpu] scale: expected a number, got a string");
  m = file_error("[simulation]\nstack = 1.5\n");
  EXPECT_HAS(m, "F:2:9: [simulation] stack: expected \"auto\", a size string");
  m = file_error("simulation = 3\n");
  EXPECT_HAS(m, "F:1:14: \"simulation\" must be a table");
}

TEST(Options, TomlBadValues) {
  EXPECT_HAS(file_error("[network]\nlatency = \"0us\"\n"),
             "F:2:11: [network] latency: link latency is 0 ps; the simulator needs a positive link latency");
  EXPECT_HAS(file_error("[network]\nbandwidth = \"1 Gfoo\"\n"), "F:2:13: [network] bandwidth: bad bandwidth");
  EXPECT_HAS(file_error("[network]\ntopology = \"torrus\"\n"), "F:2:12: [network] topology: unknown topology \"torrus\"");
  EXPECT_HAS(file_error("[network]\npreset = \"mesh\"\n"), "F:2:10: [network] preset: unknown network preset \"mesh\"");
  EXPECT_HAS(file_error("[network]\nendpoints = -1\n"), "F:2:13: [network] endpoints: endpoint count must be between 1 and");
  EXPECT_HAS(file_error("[simulation]\nnp = 0\n"), "F:2:6: [simulation] np: the number of virtual ranks");
  EXPECT_HAS(file_error("[simulation]\nstack = \"8K\"\n"), "F:2:9: [simulation] stack: stack size 8 KiB is out of range");
  EXPECT_HAS(file_error("[simulation]\npoll_cost = \"soon\"\n"), "F:2:13: [simulation] poll_cost: bad time \"soon\"");
  EXPECT_HAS(file_error("[cpu]\nmodel = \"fast\"\n"), "F:2:9: [cpu] model: unknown processor model \"fast\"");
  EXPECT_HAS(file_error("[cpu]\nscale = -1.0\n"), "F:2:9: [cpu] scale: the cpu scale factor must be a positive");
}

TEST(Options, TomlLevels) {
  TempFile f(R"([network]
preset = "torus3d-dualcore"
placement = "file"
placement_file = "/tmp/some_placement.txt"
send_overhead = "2ns"

[[network.level]]
topology = "torus"
size = "8x8x8"
wrap = [1, 0, 1]
latency = "7us"
bandwidth = "8.8Gbps"

[[network.level]]
topology = "star"
size = 2
latency = "0.32 us"
bandwidth = "9.6 Gbit/s"

[[network.level]]
topology = "mesh"
size = [2, 3]
)");
  Options o = parse({"app", "-xsim-config", f.path()});
  EXPECT_EQ(o.network.preset, "torus3d-dualcore");
  EXPECT_EQ(o.network.placement, "file");
  EXPECT_EQ(o.network.placement_file, "/tmp/some_placement.txt");
  EXPECT_EQ(o.network.send_overhead.ps(), 2'000);
  EXPECT_EQ(format_network_inline(o.network),
            "torus:8x8x8:wrap=1,0,1:lat=7us:bw=8.8Gbps/star:2:lat=320ns:bw=9.6Gbps/mesh:2x3:lat=1us:bw=10Gbps:os=2ns");
  // Every topology's keys.
  TempFile g(R"([network]
[[network.level]]
topology = "dragonfly"
p = 2
a = 4
h = 2
g = 3
columns = 2
routing = "valiant"
terminal_latency = "10ns"
local_bandwidth = "5GB/s"
[[network.level]]
topology = "twisted-torus"
size = [3, 3]
degree = 1
jump = "1,2"
[[network.level]]
topology = "tree"
k = 3
depth = 2
[[network.level]]
topology = "ring"
endpoints = 5
uni = true
[[network.level]]
topology = "fattree"
m = 4
n = 2
)");
  o = parse({"app", "-xsim-config", g.path()});
  EXPECT_EQ(o.network.preset, "custom");
  EXPECT_EQ(format_network_inline(o.network, false),
            "dragonfly:p=2:a=4:h=2:g=3:cols=2:routing=valiant/twistedtorus:3x3:jump=1,2/tree:3:depth=2/ring:5:uni/"
            "fattree:m=4:n=2");
  EXPECT_EQ(o.network.levels[0].terminal_latency.ps(), 10'000);
  EXPECT_EQ(o.network.levels[0].local_bandwidth_bps, 40'000'000'000u);
  // The shorthand: level keys directly in [network].
  TempFile h("[network]\ntopology = \"torus\"\nsize = \"4x4\"\nwrap = [1, 0]\n");
  o = parse({"app", "-xsim-config", h.path()});
  EXPECT_EQ(format_network_inline(o.network), "torus:4x4:wrap=1,0:lat=1us:bw=10Gbps");
  // A relative placement file is relative to the config file.
  TempFile r("[network]\nplacement_file = \"p.txt\"\n");
  o = parse({"app", "-xsim-config", r.path()});
  EXPECT_EQ(o.network.placement, "file");
  EXPECT_EQ(o.network.placement_file, r.path().substr(0, r.path().rfind('/') + 1) + "p.txt");
}

TEST(Options, TomlLevelErrors) {
  EXPECT_HAS(file_error("[network]\n[[network.level]]\ntopology = \"torus\"\nsize = \"4x4\"\nsizes = 3\n"),
             "F:5:1: unknown key \"sizes\" in [network.level]");
  EXPECT_HAS(file_error("[network]\n[[network.level]]\ntopology = \"mesh\"\nsize = \"4x4\"\nwrap = [1, 1]\n"),
             "F:5:1: key \"wrap\" does not apply to a mesh level in [network.level]");
  EXPECT_HAS(file_error("[network]\n[[network.level]]\ntopology = \"torus\"\nsize = 4.5\n"),
             "F:4:8: [network.level] size: expected a size: an integer, an array of integers or a string");
  EXPECT_HAS(file_error("[network]\n[[network.level]]\ntopology = \"torus\"\nsize = [4, \"4\"]\n"),
             "F:4:12: [network.level] size: expected integers in the array, got a string");
  EXPECT_HAS(file_error("[network]\n[[network.level]]\ntopology = \"star\"\nlatency = \"7 parsecs\"\n"),
             "F:4:11: [network.level] latency: bad time \"7 parsecs\"");
  EXPECT_HAS(file_error("[network]\n[[network.level]]\ntopology = \"star\"\nbandwidth = \"7 Gfoo\"\n"),
             "F:4:13: [network.level] bandwidth: bad bandwidth");
  EXPECT_HAS(file_error("[network]\n[[network.level]]\ntopology = 3\n"),
             "F:3:12: [network.level] topology: expected a topology name string");
  EXPECT_HAS(file_error("[network]\n[[network.level]]\ntopology = \"torus\"\nsize = \"4x4\"\nwrap = [1, 1, 1]\n"),
             "F:2:1: [[network.level]] 0 (torus:4x4:wrap=1,1,1): wrap has 3 entries but the torus has 2 dimensions");
  EXPECT_HAS(file_error("[network]\n[[network.level]]\ntopology = \"dragonfly\"\np = 1\na = 2\nh = 1\ng = 7\n"),
             "F:2:1: [[network.level]] 0 (dragonfly:p=1:a=2:h=1:g=7): dragonfly network:");
  EXPECT_HAS(file_error("[network]\nlatency = \"1us\"\n[[network.level]]\ntopology = \"star\"\n"),
             "F:2:1: key \"latency\" describes a level; with [[network.level]] tables put it in one of them");
  EXPECT_HAS(file_error("[network]\npreset = \"multicore-ethernet\"\nlatency = \"1us\"\n"),
             "preset \"multicore-ethernet\" has 2 levels; describe the levels with [[network.level]]");
  EXPECT_HAS(file_error("[network]\nplacement = \"random\"\n"), "F:2:13: [network] placement: unknown placement");
  EXPECT_HAS(file_error("[network]\nplacement = \"file\"\n"), "needs placement_file");
  EXPECT_HAS(file_error("[network]\nplacement = \"block\"\nplacement_file = \"x\"\n"),
             "F:3:18: [network] placement_file: placement is \"block\"");
  EXPECT_HAS(file_error("[network]\nlevel = 3\n"), "F:2:9: [network] level: expected an array of tables");
  EXPECT_HAS(file_error("[network]\npreset = \"multicore-ethernet:cores=x\"\n"), "F:2:10: [network] preset: ");
  EXPECT_EQ(file_error("[network]\npreset = \"multicore-ethernet:cores=4\"\n"), "");
}

TEST(Options, TomlSyntaxErrorHasPosition) {
  std::string m = file_error("[simulation]\nnp = = 4\n");
  EXPECT_EQ(m.rfind("F:2:", 0), 0u) << m;
  m = file_error("[simulation\n");
  EXPECT_EQ(m.rfind("F:1:", 0), 0u) << m;
}

TEST(Options, MissingConfigFile) {
  std::string path = ::testing::TempDir() + "xsim_no_such_file.toml";
  EXPECT_EQ(error_of({"app", "-xsim-config", path}),
            "cannot read config file \"" + path + "\": No such file or directory");
  EXPECT_EQ(error_of({"app"}, {"XSIM_CONFIG=" + path}),
            "cannot read config file \"" + path + "\": No such file or directory");
}

TEST(Options, Privatize) {
  EXPECT_EQ(parse({"app"}).privatize, PrivatizeMode::automatic);
  EXPECT_EQ(parse({"app"}).privatize_libs, std::vector<std::string>{"auto"});
  EXPECT_TRUE(parse({"app", "-xsim-privatize-libs", "none"}).privatize_libs.empty());
  EXPECT_EQ(parse({"app", "-xsim-privatize-libs", "auto,libfoo.so"}).privatize_libs,
            (std::vector<std::string>{"auto", "libfoo.so"}));
  EXPECT_HAS(error_of({"app", "-xsim-privatize-libs", "none,libfoo.so"}), "\"none\" in \"none,libfoo.so\" must stand alone");
  EXPECT_EQ(parse({"app", "-xsim-privatize=off"}).privatize, PrivatizeMode::off);
  EXPECT_EQ(parse({"app", "-xsim-privatize", "on"}).privatize, PrivatizeMode::on);
  EXPECT_EQ(parse({"app", "-xsim-privatize=yes"}).privatize, PrivatizeMode::on);
  EXPECT_EQ(parse({"app", "-xsim-privatize", "copy"}).privatize, PrivatizeMode::copy);
  EXPECT_EQ(parse({"app"}, {"XSIM_PRIVATIZE=map"}).privatize, PrivatizeMode::map);
  EXPECT_EQ(parse({"app", "-xsim-privatize=on"}, {"XSIM_PRIVATIZE=off"}).privatize, PrivatizeMode::on);
  EXPECT_EQ(parse({"app", "-xsim-privatize-libs=libfoo.so, libbar.so"}).privatize_libs,
            (std::vector<std::string>{"libfoo.so", "libbar.so"}));
  EXPECT_HAS(error_of({"app", "-xsim-privatize=maybe"}),
             "-xsim-privatize: unknown privatization mode \"maybe\"; give auto, on, off, copy or map");
  EXPECT_HAS(error_of({"app", "-xsim-privatize=cpy"}), "did you mean copy?");
  EXPECT_HAS(error_of({"app", "-xsim-cpu=scaledd"}), "did you mean scaled?");
  EXPECT_HAS(error_of({"app", "-xsim-privatize-libs=libfoo.so,,libbar.so"}), "empty library name");
  TempFile f("[simulation]\nprivatize = false\nprivatize_libs = [\"libfoo.so\"]\n");
  Options o = parse({"app", "-xsim-config", f.path()});
  EXPECT_EQ(o.privatize, PrivatizeMode::off);
  EXPECT_EQ(o.privatize_libs, std::vector<std::string>{"libfoo.so"});
  TempFile g("[simulation]\nprivatize = \"map\"\nprivatize_libs = \"liba.so,libb.so\"\n");
  o = parse({"app", "-xsim-config", g.path()});
  EXPECT_EQ(o.privatize, PrivatizeMode::map);
  EXPECT_EQ(o.privatize_libs, (std::vector<std::string>{"liba.so", "libb.so"}));
  EXPECT_HAS(file_error("[simulation]\nprivatize = 3\n"), "F:2:13: [simulation] privatize: expected");
  EXPECT_HAS(file_error("[simulation]\nprivatize_libs = [1]\n"), "[simulation] privatize_libs: expected an array");
  EXPECT_HAS(file_error("[cpu]\nprivatize = true\n"), "it belongs in [simulation]");
}

TEST(Options, HelpTextListsEverything) {
  std::string h = help_text();
  for (const char* s : {"-xsim-np", "XSIM_NP", "-xsim-mn", "XSIM_MN", "-xsim-config", "XSIM_CONFIG", "-xsim-cpu ",
                        "XSIM_CPU]", "-xsim-cpu-scale", "XSIM_CPU_SCALE", "-xsim-stack", "XSIM_STACK",
                        "-xsim-poll-cost", "XSIM_POLL_COST", "-xsim-report", "XSIM_REPORT", "-xsim-print-config",
                        "XSIM_PRINT_CONFIG", "-xsim-help", "XSIM_HELP", "auto|SIZE", "default: 100 ns",
                        "-xsim-privatize ", "XSIM_PRIVATIZE]", "-xsim-privatize-libs", "XSIM_PRIVATIZE_LIBS",
                        "default: auto", "docs/privatization.md",
                        "default: scaled", "default: ethernet", "star:N", "25 us", "1 Gbps", "-xsim-placement",
                        "XSIM_PLACEMENT", "multicore-ethernet", "torus:8x8x8:lat=7us:bw=8.8Gbps/star:2"})
    EXPECT_HAS(h, s);
}

void expect_same(const Options& a, const Options& b) {
  EXPECT_EQ(a.np, b.np);
  EXPECT_EQ(a.network, b.network) << format_network_inline(a.network) << " vs " << format_network_inline(b.network);
  EXPECT_EQ(a.cpu, b.cpu);
  EXPECT_EQ(a.cpu_scale, b.cpu_scale);
  EXPECT_EQ(a.stack_size, b.stack_size);
  EXPECT_EQ(a.poll_cost, b.poll_cost);
  EXPECT_EQ(a.virtual_clocks, b.virtual_clocks);
  EXPECT_EQ(a.report, b.report);
  EXPECT_EQ(a.coll_replay, b.coll_replay);
  EXPECT_EQ(a.privatize, b.privatize);
  EXPECT_EQ(a.privatize_libs, b.privatize_libs);
}

TEST(Options, ToTomlRoundTrips) {
  std::vector<Options> cases;
  cases.push_back(parse({"app"}));
  cases.push_back(parse({"app", "-xsim-np", "100", "-xsim-mn", "star:128:lat=0.32us:bw=8.8Gbps:os=1ps:or=3ns",
                         "-xsim-cpu", "none", "-xsim-cpu-scale", "0.1", "-xsim-stack", "1025K",
                         "-xsim-poll-cost", "1.234567us", "-xsim-report", "off", "-xsim-coll-replay=off",
                         "-xsim-privatize=map",
                         "-xsim-privatize-libs", "libfoo.so,libbar.so.2"}));
  cases.push_back(parse({"app", "-xsim-mn", "ethernet:lat=7us", "-xsim-stack", "16385", "-xsim-cpu-scale", "3"}));
  for (const char* mn : {"none", "multicore-ethernet:cores=4", "mesh2d", "mesh3d-dualcore", "torus3d-dualcore",
                         "twistedtorus3d-dualcore", "aries:routing=valiant", "ring:16:uni",
                         "torus:4x4x4:wrap=1,0,1/star:2:os=3ns", "twistedtorus:4x4:degree=1:jump=1,2",
                         "tree:2:depth=6", "tree:4:n=10/ring:3", "dragonfly:p=4:a=8:h=4:g=9:routing=min:glat=2us",
                         "fattree:m=4:n=3", "mesh:dims=3/star:2"})
    cases.push_back(parse({"app", "-xsim-mn", mn, "-xsim-placement", "roundrobin"}));
  for (const Options& o : cases) {
    std::string text = to_toml(o);
    TempFile f(text);
    Options back = parse({"app", "-xsim-config", f.path()});
    SCOPED_TRACE(text);
    expect_same(o, back);
    std::string again = to_toml(back);
    EXPECT_EQ(again.substr(again.find("\n[simulation]")), text.substr(text.find("\n[simulation]")));
  }
  std::string t = to_toml(cases[0]);
  EXPECT_HAS(t, "[simulation]\n");
  EXPECT_HAS(t, "stack = \"auto\"\n");
  EXPECT_HAS(t, "privatize_libs = [\"auto\"]\n");
  EXPECT_HAS(t, "[network]\n# inline form: star:lat=25us:bw=1Gbps\npreset = \"ethernet\"\nplacement = \"block\"\n");
  EXPECT_HAS(t, "[[network.level]]\ntopology = \"star\"\n# size not set");
  EXPECT_HAS(t, "latency = \"25 us\"\n");
  EXPECT_HAS(t, "bandwidth = \"1 Gbps\"\n");
  EXPECT_HAS(t, "scale = 1.0\n");
  EXPECT_EQ(to_toml(cases[1]).find("preset ="), std::string::npos);
}

// The MPI-IO storage model (docs/mpi-io.md): -xsim-io-lat, -xsim-io-bw, their twins and [io].
TEST(Options, IoStorageModel) {
  Options d = parse({"app"});
  EXPECT_EQ(d.io_latency.ps(), 100'000'000);
  EXPECT_EQ(d.io_bandwidth_bps, 8'000'000'000u);
  Options o = parse({"app", "-xsim-io-lat", "2ms", "-xsim-io-bw=500MB/s"});
  EXPECT_EQ(o.io_latency.ps(), 2'000'000'000);
  EXPECT_EQ(o.io_bandwidth_bps, 4'000'000'000u);
  o = parse({"app"}, {"XSIM_IO_LAT=1us", "XSIM_IO_BW=10Gbps"});
  EXPECT_EQ(o.io_latency.ps(), 1'000'000);
  EXPECT_EQ(o.io_bandwidth_bps, 10'000'000'000u);
  TempFile f("[io]\nlatency = \"5us\"\nbandwidth = \"2GB/s\"\n");
  o = parse({"app", "-xsim-config", f.path()});
  EXPECT_EQ(o.io_latency.ps(), 5'000'000);
  EXPECT_EQ(o.io_bandwidth_bps, 16'000'000'000u);
  TempFile back(to_toml(o));
  Options again = parse({"app", "-xsim-config", back.path()});
  EXPECT_EQ(again.io_latency, o.io_latency);
  EXPECT_EQ(again.io_bandwidth_bps, o.io_bandwidth_bps);
  EXPECT_HAS(to_toml(d), "[io]\nlatency = \"100 us\"\nbandwidth = \"8 Gbps\"\n");
  EXPECT_HAS(error_of({"app", "-xsim-io-bw", "fast"}), "-xsim-io-bw");
  EXPECT_HAS(file_error("[io]\nlatncy = \"1us\"\n"), "unknown key \"latncy\" in [io]");
  std::string h = help_text();
  for (const char* s : {"-xsim-io-lat", "XSIM_IO_LAT", "-xsim-io-bw", "XSIM_IO_BW", "default: 100 us", "[io]"})
    EXPECT_HAS(h, s);
}

// Found by fuzz_options: -xsim-print-config must read back whatever the paths hold, and option values that
// are not UTF-8 (TOML and JSON cannot hold them) are refused by name.
TEST(Options, PrintedStringsAreEscaped) {
  Options o = parse({"app", "-xsim-trace", "out\"quote\\back", "-xsim-stats", "tab\there"});
  std::string printed = to_toml(o);
  EXPECT_HAS(printed, "trace = \"out\\\"quote\\\\back\"");
  EXPECT_HAS(printed, "stats = \"tab\\u0009here\"");
  Options again;
  load_config_text(again, printed, "printed.toml");
  EXPECT_EQ(again.trace, o.trace);
  EXPECT_EQ(again.stats, o.stats);
  EXPECT_HAS(error_of({"app", "-xsim-stats", "st\xf0-x"}), "-xsim-stats: the value is not valid UTF-8");
  EXPECT_HAS(error_of({"app", "-xsim-trace", "\xc0\xafx"}), "not valid UTF-8");  // overlong '/'
  EXPECT_EQ(parse({"app", "-xsim-trace", "r\xc3\xa9sultat"}).trace, "r\xc3\xa9sultat");
}

// The fast path of blocking collectives (docs/collectives.md "Fast path"): on by default; off from the
// command line, the environment or the [simulation] table; precedence as for every option.
TEST(Options, CollReplay) {
  EXPECT_TRUE(parse({"app"}).coll_replay);
  EXPECT_FALSE(parse({"app", "-xsim-coll-replay", "off"}).coll_replay);
  EXPECT_FALSE(parse({"app", "-xsim-coll-replay=off"}).coll_replay);
  EXPECT_FALSE(parse({"app"}, {"XSIM_COLL_REPLAY=off"}).coll_replay);
  EXPECT_TRUE(parse({"app", "-xsim-coll-replay=on"}, {"XSIM_COLL_REPLAY=off"}).coll_replay);
  TempFile f("[simulation]\ncoll_replay = false\n");
  EXPECT_FALSE(parse({"app", "-xsim-config=" + f.path()}).coll_replay);
  EXPECT_TRUE(parse({"app", "-xsim-config=" + f.path()}, {"XSIM_COLL_REPLAY=on"}).coll_replay);
  EXPECT_HAS(error_of({"app", "-xsim-coll-replay=sometimes"}), "-xsim-coll-replay: \"sometimes\" is not on or off");
  TempFile bad("[simulation]\ncoll_replay = \"off\"\n");
  EXPECT_HAS(error_of({"app", "-xsim-config=" + bad.path()}), "expected a boolean (true or false)");
  // printed back by -xsim-print-config
  Options o = parse({"app", "-xsim-coll-replay=off"});
  EXPECT_HAS(to_toml(o), "coll_replay = false");
}

// The application's clocks (docs/virtual-clocks.md): virtual by default; host time when turned off from the
// command line, the environment or the [simulation] table; precedence as for every option.
TEST(Options, VirtualClocks) {
  EXPECT_TRUE(parse({"app"}).virtual_clocks);
  EXPECT_FALSE(parse({"app", "-xsim-virtual-clocks", "off"}).virtual_clocks);
  EXPECT_FALSE(parse({"app"}, {"XSIM_VIRTUAL_CLOCKS=off"}).virtual_clocks);
  EXPECT_TRUE(parse({"app", "-xsim-virtual-clocks=on"}, {"XSIM_VIRTUAL_CLOCKS=off"}).virtual_clocks);
  TempFile f("[simulation]\nvirtual_clocks = false\n");
  EXPECT_FALSE(parse({"app", "-xsim-config=" + f.path()}).virtual_clocks);
  EXPECT_TRUE(parse({"app", "-xsim-config=" + f.path()}, {"XSIM_VIRTUAL_CLOCKS=on"}).virtual_clocks);
  EXPECT_HAS(error_of({"app", "-xsim-virtual-clocks=host"}), "-xsim-virtual-clocks: \"host\" is not on or off");
  TempFile bad("[simulation]\nvirtual_clocks = \"off\"\n");
  EXPECT_HAS(error_of({"app", "-xsim-config=" + bad.path()}), "expected a boolean (true or false)");
  EXPECT_HAS(to_toml(parse({"app", "-xsim-virtual-clocks=off"})), "virtual_clocks = false");
  EXPECT_HAS(to_toml(parse({"app"})), "virtual_clocks = true");
}

// --- the message model (issue 21; docs/network-model.md) ------------------------------------------------

TEST(Options, MessageModelDefaultsAndValues) {
  Options d = parse({"app"});
  EXPECT_EQ(d.model, NetModel::loggp);
  EXPECT_EQ(d.contention, Contention::endpoint);
  EXPECT_EQ(d.eager, -1);
  EXPECT_EQ(eager_limit(d), kDefaultEager);
  Options o = parse({"app", "-xsim-model", "analytic", "-xsim-eager", "8K", "-xsim-contention=none"});
  EXPECT_EQ(o.model, NetModel::analytic);
  EXPECT_EQ(o.eager, 8192);
  EXPECT_EQ(o.contention, Contention::none);
  Options e = parse({"app"}, {"XSIM_MODEL=loggp", "XSIM_EAGER=0", "XSIM_CONTENTION=endpoint"});
  EXPECT_EQ(e.model, NetModel::loggp);
  EXPECT_EQ(eager_limit(e), 0u);  // every message with data by rendezvous
  TempFile f("[model]\nname = \"analytic\"\neager = \"1M\"\ncontention = \"none\"\n");
  Options t = parse({"app", "-xsim-config", f.path()});
  EXPECT_EQ(t.model, NetModel::analytic);
  EXPECT_EQ(t.eager, 1 << 20);
  EXPECT_EQ(t.contention, Contention::none);
  // printed back as TOML, read again: the same
  TempFile g(to_toml(o));
  Options back = parse({"app", "-xsim-config", g.path()});
  EXPECT_EQ(back.model, o.model);
  EXPECT_EQ(back.eager, o.eager);
  EXPECT_EQ(back.contention, o.contention);
}

TEST(Options, MessageModelBadValuesNameTheOption) {
  EXPECT_HAS(error_of({"app", "-xsim-model", "logp"}), "-xsim-model");
  EXPECT_HAS(error_of({"app", "-xsim-model", "logp"}), "did you mean loggp");
  EXPECT_HAS(error_of({"app", "-xsim-eager", "lots"}), "-xsim-eager");
  EXPECT_HAS(error_of({"app", "-xsim-eager", "-5"}), "-xsim-eager");
  EXPECT_HAS(error_of({"app", "-xsim-contention", "link"}), "did you mean links");
  EXPECT_HAS(error_of({"app", "-xsim-contention", "links"}), "-xsim-contention links: the links contention model");
  EXPECT_HAS(error_of({"app"}, {"XSIM_CONTENTION=links"}), "XSIM_CONTENTION links");
  EXPECT_HAS(error_of({"app", "-xsim-mn", "star:os=-1us"}), "-xsim-mn");
  EXPECT_HAS(error_of({"app", "-xsim-mn", "star:gap=1us:gap=2us"}), "the gap is given twice");
}

TEST(Options, SizeBandsInToml) {
  TempFile f("[network]\ntopology = \"star\"\nlatency = \"1us\"\n\n[[network.band]]\nfrom = \"64K\"\n"
             "latency_factor = 2\nbandwidth_factor = 0.75\n\n[[network.band]]\nfrom = 1048576\nbandwidth_factor = 0.5\n");
  Options o = parse({"app", "-xsim-config", f.path()});
  ASSERT_EQ(o.network.bands.size(), 2u);
  EXPECT_EQ(o.network.bands[0], (net::SizeBand{65536, 2.0, 0.75}));
  EXPECT_EQ(o.network.bands[1], (net::SizeBand{1048576, 1.0, 0.5}));
  TempFile g(to_toml(o));  // written back, read again: the same
  EXPECT_EQ(parse({"app", "-xsim-config", g.path()}).network.bands, o.network.bands);
  EXPECT_HAS(file_error("[[network.band]]\nfrom = 10\nlatency_factor = 0.5\n"), "latency_factor: must be between 1");
  EXPECT_HAS(file_error("[[network.band]]\nlatency_factor = 2\n"), "needs from = SIZE");
  EXPECT_HAS(file_error("[[network.band]]\nfrom = 100\n[[network.band]]\nfrom = 10\n"), "increasing sizes");
  EXPECT_HAS(file_error("[[network.band]]\nfrom = 100\nlatency = 2\n"), "unknown key \"latency\" in [network.band]");
}

TEST(Options, FaultsAndRandomFailures) {
  Options o = parse({"app", "-xsim-np", "8", "-xsim-fault", "3@2ms,1@1s", "-xsim-fault-detect", "500us"});
  ASSERT_EQ(o.faults.size(), 2u);
  EXPECT_EQ(o.faults[0], std::make_pair(int64_t{1}, SimTime::from_ns(1'000'000'000)));
  EXPECT_EQ(o.faults[1], std::make_pair(int64_t{3}, SimTime::from_ns(2'000'000)));
  EXPECT_EQ(o.fault_detect, SimTime::from_ns(500'000));
  TempFile g(to_toml(o));  // printed, read again: the same
  Options back = parse({"app", "-xsim-config", g.path()});
  EXPECT_EQ(back.faults, o.faults);
  EXPECT_EQ(back.fault_detect, o.fault_detect);
  EXPECT_HAS(error_of({"app", "-xsim-np", "4", "-xsim-fault", "4@1ms"}), "rank 4 does not exist: the ranks are 0..3");
  EXPECT_HAS(error_of({"app", "-xsim-fault", "1@1ms,1@2ms"}), "rank 1 is given twice");
  EXPECT_HAS(error_of({"app", "-xsim-fault", "1@-1ms"}), "-xsim-fault");
  EXPECT_HAS(error_of({"app", "-xsim-fault", "x@1ms"}), "-xsim-fault");
  EXPECT_HAS(error_of({"app", "-xsim-fault", "2ms"}), "is not RANK@TIME");
  Options m = parse({"app", "-xsim-mtbf", "3600s:0.7", "-xsim-seed", "42"});
  EXPECT_EQ(m.mtbf, SimTime::from_ns(3'600'000'000'000));
  EXPECT_DOUBLE_EQ(m.mtbf_shape, 0.7);
  EXPECT_EQ(m.seed, 42u);
  EXPECT_HAS(error_of({"app", "-xsim-mtbf", "3600s:zero"}), "is not a number between 0.05 and 20");
}

TEST(Options, EndpointTermsInline) {
  Options o = parse({"app", "-xsim-mn", "star:lat=1us:bw=1Gbps:os=5us:or=4us:gap=3us"});
  EXPECT_EQ(o.network.send_overhead, SimTime::from_ns(5000));
  EXPECT_EQ(o.network.recv_overhead, SimTime::from_ns(4000));
  EXPECT_EQ(o.network.gap, SimTime::from_ns(3000));
  EXPECT_EQ(parse_network_inline(format_network_inline(o.network)), o.network);
  // an inline level without them has none
  Options p = parse({"app", "-xsim-mn", "star:lat=1us"});
  EXPECT_EQ(p.network.send_overhead, SimTime::zero());
  EXPECT_EQ(p.network.gap, SimTime::zero());
}

}  // namespace
}  // namespace xsim
