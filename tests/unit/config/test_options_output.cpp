// Unit tests for the observation options (-xsim-trace, -xsim-trace-format, -xsim-trace-buffer, -xsim-stats,
// -xsim-stats-matrix, -xsim-progress): command line, environment, TOML [output], checks, help, to_toml.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "options.hpp"

namespace xsim {
namespace {

Options parse(std::vector<std::string> args, std::vector<std::string> env = {}) {
  args.insert(args.begin(), "app");
  std::vector<char*> argv, envp;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  int argc = static_cast<int>(args.size());
  return parse_options(argc, argv.data(), envp.data());
}

std::string error_of(std::vector<std::string> args, std::vector<std::string> env = {}) {
  try {
    parse(std::move(args), std::move(env));
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

// A TOML file in the test's temporary directory, removed when the object goes (at the end of the full
// expression for a temporary: `parse({"-xsim-config", temp_toml(...)})`).
class TempToml {
 public:
  explicit TempToml(const std::string& text) {
    static int n = 0;
    path_ = ::testing::TempDir() + "xsim_output_" + std::to_string(getpid()) + "_" + std::to_string(n++) + ".toml";
    std::ofstream(path_) << text;
  }
  ~TempToml() { std::remove(path_.c_str()); }
  TempToml(const TempToml&) = delete;
  TempToml& operator=(const TempToml&) = delete;
  operator std::string() const { return path_; }

 private:
  std::string path_;
};
TempToml temp_toml(const std::string& text) { return TempToml(text); }

#define EXPECT_HAS(text, part) EXPECT_NE(std::string(text).find(part), std::string::npos) << (text)

TEST(OutputOptions, DefaultsAreOff) {
  Options o = parse({});
  EXPECT_TRUE(o.trace.empty());
  EXPECT_TRUE(o.stats.empty());
  EXPECT_TRUE(o.trace_otf2);
  EXPECT_TRUE(o.trace_json);
  EXPECT_EQ(o.trace_buffer, 64u << 20);
  EXPECT_EQ(o.stats_matrix, 256);
  EXPECT_EQ(o.progress, ProgressMode::automatic);
}

TEST(OutputOptions, CommandLineAndEnvironment) {
  const std::string dir = ::testing::TempDir();
  Options o = parse({"-xsim-trace", dir + "run", "-xsim-trace-format=json", "-xsim-trace-buffer", "1M", "-xsim-stats",
                     dir + "st", "-xsim-stats-matrix", "64", "-xsim-progress", "on"});
  EXPECT_EQ(o.trace, dir + "run");
  EXPECT_FALSE(o.trace_otf2);
  EXPECT_TRUE(o.trace_json);
  EXPECT_EQ(o.trace_buffer, 1u << 20);
  EXPECT_EQ(o.stats, dir + "st");
  EXPECT_EQ(o.stats_matrix, 64);
  EXPECT_EQ(o.progress, ProgressMode::on);
  Options e = parse({}, {"XSIM_TRACE=t1", "XSIM_TRACE_FORMAT=otf2", "XSIM_PROGRESS=off"});
  EXPECT_EQ(e.trace, "t1");
  EXPECT_TRUE(e.trace_otf2);
  EXPECT_FALSE(e.trace_json);
  EXPECT_EQ(e.progress, ProgressMode::off);
  // command line over environment
  EXPECT_EQ(parse({"-xsim-progress=auto"}, {"XSIM_PROGRESS=on"}).progress, ProgressMode::automatic);
}

TEST(OutputOptions, BadValuesNameTheOption) {
  EXPECT_HAS(error_of({"-xsim-trace-format", "xml"}), "-xsim-trace-format: unknown trace format \"xml\"");
  EXPECT_HAS(error_of({"-xsim-trace-buffer", "100"}), "-xsim-trace-buffer: trace buffer 100 B is too small");
  EXPECT_HAS(error_of({"-xsim-stats-matrix", "0"}), "-xsim-stats-matrix: the matrix size must be between 1 and 4096");
  EXPECT_HAS(error_of({"-xsim-progress", "sometimes"}), "-xsim-progress: \"sometimes\" is not auto, on or off");
  EXPECT_HAS(error_of({"-xsim-trace", "/nonexistent-xsim-dir/run"}),
             "-xsim-trace: directory \"/nonexistent-xsim-dir\" of \"/nonexistent-xsim-dir/run\" does not exist");
  EXPECT_HAS(error_of({"-xsim-stats", "out/"}), "-xsim-stats: \"out/\" names a directory");
  EXPECT_HAS(error_of({}, {"XSIM_STATS_MATRIX=lots"}), "XSIM_STATS_MATRIX: the matrix size \"lots\" is not an integer");
}

TEST(OutputOptions, TomlTable) {
  const TempToml f("[output]\ntrace = \"run\"\ntrace_format = \"otf2\"\ntrace_buffer = \"2M\"\n"
                   "stats = \"st\"\nstats_matrix = 32\nprogress = true\n");
  Options o = parse({"-xsim-config", f});
  EXPECT_EQ(o.trace, "run");
  EXPECT_TRUE(o.trace_otf2);
  EXPECT_FALSE(o.trace_json);
  EXPECT_EQ(o.trace_buffer, 2u << 20);
  EXPECT_EQ(o.stats, "st");
  EXPECT_EQ(o.stats_matrix, 32);
  EXPECT_EQ(o.progress, ProgressMode::on);
  EXPECT_HAS(error_of({"-xsim-config", temp_toml("[output]\ntrce = \"x\"\n")}), "unknown key \"trce\" in [output]");
  EXPECT_HAS(error_of({"-xsim-config", temp_toml("[simulation]\ntrace = \"x\"\n")}), "it belongs in [output]");
  EXPECT_HAS(error_of({"-xsim-config", temp_toml("[output]\nstats_matrix = \"9\"\n")}),
             "[output] stats_matrix: expected an integer");
}

TEST(OutputOptions, HelpListsThemWithDefaults) {
  std::string h = help_text();
  EXPECT_HAS(h, "-xsim-trace FILE");
  EXPECT_HAS(h, "[XSIM_TRACE]");
  EXPECT_HAS(h, "-xsim-trace-format otf2|json|both");
  EXPECT_HAS(h, "default: both");
  EXPECT_HAS(h, "-xsim-trace-buffer SIZE");
  EXPECT_HAS(h, "default: 64 MiB");
  EXPECT_HAS(h, "-xsim-stats PREFIX");
  EXPECT_HAS(h, "-xsim-stats-matrix N");
  EXPECT_HAS(h, "default: 256");
  EXPECT_HAS(h, "-xsim-progress auto|on|off");
  EXPECT_HAS(h, "[output] (trace, trace_format");
}

TEST(OutputOptions, PrintedConfigReadsBack) {
  Options o = parse({"-xsim-trace", "run", "-xsim-trace-format", "json", "-xsim-stats", "st", "-xsim-stats-matrix",
                     "100", "-xsim-progress", "off", "-xsim-trace-buffer", "3M"});
  Options back = parse({"-xsim-config", temp_toml(to_toml(o))});
  EXPECT_EQ(back.trace, "run");
  EXPECT_FALSE(back.trace_otf2);
  EXPECT_TRUE(back.trace_json);
  EXPECT_EQ(back.stats, "st");
  EXPECT_EQ(back.stats_matrix, 100);
  EXPECT_EQ(back.progress, ProgressMode::off);
  EXPECT_EQ(back.trace_buffer, 3u << 20);
}

}  // namespace
}  // namespace xsim
