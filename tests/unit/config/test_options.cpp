// Unit tests for libxsim options: command line, environment, TOML file, precedence, validation messages,
// privatization, help text and the to_toml round trip. The network's options (presets, inline specs, TOML
// levels, message models) are in test_options_network.cpp.
#include "options_test_support.hpp"

namespace xsim {
namespace {

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
  std::string m = error_of({"app", "-xsim-stack", "2K"});
  EXPECT_HAS(m, "-xsim-stack: stack size 2 KiB is out of range");
  EXPECT_HAS(m, "between 4K and 1G");
  EXPECT_EQ(parse({"app", "-xsim-stack", "7K"}).stack_size, 7u * 1024);  // StackPool rounds up to pages
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


TEST(Options, TomlUnknownTablesAndKeys) {
  std::string m = file_error("[simulation]\nnp = 4\n\n[simulaton]\nx = 1\n");
  EXPECT_HAS(m, "F:4:2: unknown table [simulaton]");
  EXPECT_HAS(m, "known tables: [simulation], [cpu], [model], [network]");
  EXPECT_HAS(m, "did you mean simulation?");
  m = file_error("[simulation]\nnp = 4\nnq = 5\n");
  EXPECT_HAS(m, "F:3:1: unknown key \"nq\" in [simulation]");
  EXPECT_HAS(m, "known keys: np, stack, memory_check, poll_cost, virtual_clocks, report, coll_replay, poll_skip, privatize, privatize_libs");
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
  EXPECT_HAS(file_error("[simulation]\nstack = \"2K\"\n"), "F:2:9: [simulation] stack: stack size 2 KiB is out of range");
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

}  // namespace
}  // namespace xsim
