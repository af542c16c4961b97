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
  EXPECT_EQ(o.network.topology, "star");
  EXPECT_EQ(o.network.endpoints, 0);
  EXPECT_EQ(o.network.link_latency.ps(), 25'000'000);
  EXPECT_EQ(o.network.link_bandwidth_bps, 1'000'000'000u);
  EXPECT_EQ(o.cpu, CpuModel::scaled);
  EXPECT_EQ(o.cpu_scale, 1.0);
  EXPECT_EQ(o.stack_size, 256u * 1024);
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
  EXPECT_EQ(o.network.endpoints, 16);
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
                     "-xsim-report=off", "-xsim-print-config", "-xsim-help"});
  EXPECT_EQ(o.np, 12);
  EXPECT_EQ(o.network.preset, "custom");
  EXPECT_EQ(o.network.endpoints, 32);
  EXPECT_EQ(o.network.link_latency.ps(), 10'000'000);
  EXPECT_EQ(o.network.link_bandwidth_bps, 10'000'000'000u);
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
  EXPECT_EQ(o.network.link_latency.ps(), 5'000'000);
  EXPECT_EQ(o.network.link_bandwidth_bps, 1'000'000'000u);
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
  EXPECT_EQ(o.network.link_latency.ps(), 1'000'000);
  EXPECT_EQ(o.network.link_bandwidth_bps, 1'000'000'000u);  // untouched keys keep their defaults
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
  // -xsim-mn replaces the file's [network] as a whole.
  o = parse({"app", cfg, "-xsim-mn", "star:lat=3us"});
  EXPECT_EQ(o.network.link_latency.ps(), 3'000'000);
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
  EXPECT_EQ(parse({"app", "-xsim-stack", "1G"}).stack_size, 1u << 30);
  EXPECT_HAS(error_of({"app", "-xsim-stack", "big"}), "bad size \"big\"");
}

TEST(Options, EndpointsMustCoverRanks) {
  std::string m = error_of({"app", "-xsim-np", "8", "-xsim-mn", "star:4"});
  EXPECT_HAS(m, "star network has 4 endpoints but -xsim-np is 8; give at least 8 endpoints or leave the count out");
  EXPECT_EQ(parse({"app", "-xsim-np", "8", "-xsim-mn", "star:8"}).network.endpoints, 8);
  EXPECT_EQ(parse({"app", "-xsim-np", "8", "-xsim-mn", "star"}).network.endpoints, 0);
  EXPECT_EQ(parse({"app", "-xsim-mn", "star:4"}).np, 0);  // np not given: nothing to compare
  TempFile f("[network]\nendpoints = 2\n");
  m = error_of({"app", "-xsim-config", f.path(), "-xsim-np", "3"});
  EXPECT_HAS(m, "star network has 2 endpoints but -xsim-np is 3");
  EXPECT_HAS(m, f.path() + ":2:13");
}

TEST(Options, NetworkPresets) {
  NetworkSpec e = network_preset("ethernet");
  EXPECT_EQ(e.preset, "ethernet");
  EXPECT_EQ(e.topology, "star");
  EXPECT_EQ(e.link_latency.ps(), 25'000'000);
  EXPECT_EQ(e.link_bandwidth_bps, 1'000'000'000u);
  EXPECT_EQ(e.endpoints, 0);
  try {
    network_preset("multicore-ethernet");
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& err) {
    EXPECT_HAS(err.what(), "unknown network preset \"multicore-ethernet\"");
    EXPECT_HAS(err.what(), "known presets: ethernet");
  }
  EXPECT_THROW(network_preset("mesh"), ConfigError);
}

TEST(Options, InlineNetworkSpecs) {
  NetworkSpec s = parse_network_inline("star");
  EXPECT_EQ(s.preset, "custom");
  EXPECT_EQ(s.topology, "star");
  EXPECT_EQ(s.endpoints, 0);
  EXPECT_EQ(s.link_latency.ps(), 25'000'000);
  s = parse_network_inline("star:4096:lat=0.32us:bw=8.8Gbps");
  EXPECT_EQ(s.endpoints, 4096);
  EXPECT_EQ(s.link_latency.ps(), 320'000);
  EXPECT_EQ(s.link_bandwidth_bps, 8'800'000'000u);
  s = parse_network_inline("ethernet:lat=10us");
  EXPECT_EQ(s.preset, "ethernet");
  EXPECT_EQ(s.link_latency.ps(), 10'000'000);
  EXPECT_EQ(s.link_bandwidth_bps, 1'000'000'000u);
  s = parse_network_inline("ethernet:64:os=1us:or=500ns");
  EXPECT_EQ(s.endpoints, 64);
  EXPECT_EQ(s.send_overhead.ps(), 1'000'000);
  EXPECT_EQ(s.recv_overhead.ps(), 500'000);
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
  std::string m = inline_error("mesh:4x4");
  EXPECT_HAS(m, "\"mesh\" is not supported yet");
  EXPECT_HAS(m, "supported topologies: star");
  EXPECT_HAS(inline_error("torus"), "not supported yet");
  m = inline_error("starr:4");
  EXPECT_HAS(m, "unknown network \"starr\"");
  EXPECT_HAS(m, "did you mean star?");
  EXPECT_HAS(inline_error("star:lat=0us"), "the simulator needs a positive link latency");
  EXPECT_HAS(inline_error("star:bw=0Gbps"), "bandwidth must be positive");
  EXPECT_HAS(inline_error("star:lat=5parsecs"), "bad time \"5parsecs\"");
  m = inline_error("star:latency_x=5us");
  EXPECT_HAS(m, "unknown key \"latency_x\"");
  EXPECT_HAS(m, "lat");
  EXPECT_HAS(inline_error("star:0"), "between 1 and");
  EXPECT_HAS(inline_error("star:4:8"), "given twice");
  EXPECT_HAS(inline_error("star::4"), "empty field");
  EXPECT_HAS(inline_error(""), "must start with a preset or topology name");
  EXPECT_HAS(inline_error("star:abc"), "neither an endpoint count nor key=value");
  // Through the command line the option is named.
  EXPECT_HAS(error_of({"app", "-xsim-mn", "mesh"}), "-xsim-mn: ");
  EXPECT_HAS(error_of({"app"}, {"XSIM_MN=ring"}), "XSIM_MN: ");
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
)");
  Options o = parse({"app", "-xsim-config", f.path()});
  EXPECT_EQ(o.np, 64);
  EXPECT_EQ(o.stack_size, 65536u);
  EXPECT_EQ(o.poll_cost.ps(), 50'000);
  EXPECT_TRUE(o.report);
  EXPECT_EQ(o.cpu, CpuModel::scaled);
  EXPECT_EQ(o.cpu_scale, 2.0);
  EXPECT_EQ(o.network.preset, "ethernet");
  EXPECT_EQ(o.network.topology, "star");
  EXPECT_EQ(o.network.endpoints, 128);
  EXPECT_EQ(o.network.link_latency.ps(), 2'000'000);
  EXPECT_EQ(o.network.link_bandwidth_bps, 10'000'000'000u);
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
  EXPECT_HAS(m, "known tables: [simulation], [cpu], [network]");
  EXPECT_HAS(m, "did you mean simulation?");
  m = file_error("[simulation]\nnp = 4\nnq = 5\n");
  EXPECT_HAS(m, "F:3:1: unknown key \"nq\" in [simulation]");
  EXPECT_HAS(m, "known keys: np, stack, poll_cost, report");
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
  EXPECT_HAS(m, "F:2:9: [simulation] stack: expected a size string");
  m = file_error("simulation = 3\n");
  EXPECT_HAS(m, "F:1:14: \"simulation\" must be a table");
}

TEST(Options, TomlBadValues) {
  EXPECT_HAS(file_error("[network]\nlatency = \"0us\"\n"),
             "F:2:11: [network] latency: link latency is 0 ps; the simulator needs a positive link latency");
  EXPECT_HAS(file_error("[network]\nbandwidth = \"1 Gfoo\"\n"), "F:2:13: [network] bandwidth: bad bandwidth");
  EXPECT_HAS(file_error("[network]\ntopology = \"torus\"\n"), "F:2:12: [network] topology: network topology \"torus\" is not supported yet");
  EXPECT_HAS(file_error("[network]\npreset = \"mesh\"\n"), "F:2:10: [network] preset: unknown network preset \"mesh\"");
  EXPECT_HAS(file_error("[network]\nendpoints = -1\n"), "F:2:13: [network] endpoints: the endpoint count");
  EXPECT_HAS(file_error("[simulation]\nnp = 0\n"), "F:2:6: [simulation] np: the number of virtual ranks");
  EXPECT_HAS(file_error("[simulation]\nstack = \"8K\"\n"), "F:2:9: [simulation] stack: stack size 8 KiB is out of range");
  EXPECT_HAS(file_error("[simulation]\npoll_cost = \"soon\"\n"), "F:2:13: [simulation] poll_cost: bad time \"soon\"");
  EXPECT_HAS(file_error("[cpu]\nmodel = \"fast\"\n"), "F:2:9: [cpu] model: unknown processor model \"fast\"");
  EXPECT_HAS(file_error("[cpu]\nscale = -1.0\n"), "F:2:9: [cpu] scale: the cpu scale factor must be a positive");
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

TEST(Options, HelpTextListsEverything) {
  std::string h = help_text();
  for (const char* s : {"-xsim-np", "XSIM_NP", "-xsim-mn", "XSIM_MN", "-xsim-config", "XSIM_CONFIG", "-xsim-cpu ",
                        "XSIM_CPU]", "-xsim-cpu-scale", "XSIM_CPU_SCALE", "-xsim-stack", "XSIM_STACK",
                        "-xsim-poll-cost", "XSIM_POLL_COST", "-xsim-report", "XSIM_REPORT", "-xsim-print-config",
                        "XSIM_PRINT_CONFIG", "-xsim-help", "XSIM_HELP", "default: 256 KiB", "default: 100 ns",
                        "default: scaled", "default: ethernet", "star[:N]", "25 us", "1 Gbps"})
    EXPECT_HAS(h, s);
}

void expect_same(const Options& a, const Options& b) {
  EXPECT_EQ(a.np, b.np);
  EXPECT_EQ(a.network.preset, b.network.preset);
  EXPECT_EQ(a.network.topology, b.network.topology);
  EXPECT_EQ(a.network.endpoints, b.network.endpoints);
  EXPECT_EQ(a.network.link_latency, b.network.link_latency);
  EXPECT_EQ(a.network.link_bandwidth_bps, b.network.link_bandwidth_bps);
  EXPECT_EQ(a.network.send_overhead, b.network.send_overhead);
  EXPECT_EQ(a.network.recv_overhead, b.network.recv_overhead);
  EXPECT_EQ(a.cpu, b.cpu);
  EXPECT_EQ(a.cpu_scale, b.cpu_scale);
  EXPECT_EQ(a.stack_size, b.stack_size);
  EXPECT_EQ(a.poll_cost, b.poll_cost);
  EXPECT_EQ(a.report, b.report);
}

TEST(Options, ToTomlRoundTrips) {
  std::vector<Options> cases;
  cases.push_back(parse({"app"}));
  cases.push_back(parse({"app", "-xsim-np", "100", "-xsim-mn", "star:128:lat=0.32us:bw=8.8Gbps:os=1ps:or=3ns",
                         "-xsim-cpu", "none", "-xsim-cpu-scale", "0.1", "-xsim-stack", "1025K",
                         "-xsim-poll-cost", "1.234567us", "-xsim-report", "off"}));
  cases.push_back(parse({"app", "-xsim-mn", "ethernet:lat=7us", "-xsim-stack", "16385", "-xsim-cpu-scale", "3"}));
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
  EXPECT_HAS(t, "stack = \"256 KiB\"\n");
  EXPECT_HAS(t, "[network]\npreset = \"ethernet\"\ntopology = \"star\"\n");
  EXPECT_HAS(t, "latency = \"25 us\"\n");
  EXPECT_HAS(t, "bandwidth = \"1 Gbps\"\n");
  EXPECT_HAS(t, "scale = 1.0\n");
  EXPECT_EQ(to_toml(cases[1]).find("preset ="), std::string::npos);
}

}  // namespace
}  // namespace xsim
