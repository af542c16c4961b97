// Unit tests for the node model's options (docs/real-programs.md "Node model"): -xsim-node-host and its
// environment twin, the [node] table (memory_factor, compute_factor, host as a word or a number), the
// checks (bad values, a chosen factor never measured), help and -xsim-print-config read back.
#include <gtest/gtest.h>

#include <string>

#include "options.hpp"
#include "options_test_support.hpp"

namespace xsim {
namespace {

TEST(OptionsNode, DefaultIsNone) {
  const Options o = parse({"app"});
  EXPECT_EQ(o.node_host, NodeHost::none);
  EXPECT_EQ(o.node_memory_factor, 1.0);
  EXPECT_EQ(o.node_compute_factor, 1.0);
}

TEST(OptionsNode, TableAndCommandLine) {
  TempFile f("[node]\nmemory_factor = 1.8\ncompute_factor = 1\nhost = \"memory\"\n");
  Options o = parse({"app", "-xsim-config", f.path()});
  EXPECT_EQ(o.node_host, NodeHost::memory);
  EXPECT_EQ(o.node_memory_factor, 1.8);
  EXPECT_EQ(o.node_compute_factor, 1.0);
  o = parse({"app", "-xsim-config", f.path(), "-xsim-node-host", "compute"});  // the command line wins
  EXPECT_EQ(o.node_host, NodeHost::compute);
  o = parse({"app", "-xsim-config", f.path()}, {"XSIM_NODE_HOST=2.25"});
  EXPECT_EQ(o.node_host, NodeHost::number);
  EXPECT_EQ(o.node_host_number, 2.25);
  TempFile g("[node]\nhost = 1.5\n");
  o = parse({"app", "-xsim-config", g.path()});
  EXPECT_EQ(o.node_host, NodeHost::number);
  EXPECT_EQ(o.node_host_number, 1.5);
  o = parse({"app", "-xsim-node-host=3", "-xsim-node-memory-factor", "2"});
  EXPECT_EQ(o.node_host_number, 3.0);
  EXPECT_EQ(o.node_memory_factor, 2.0);
}

TEST(OptionsNode, BadValues) {
  EXPECT_HAS(error_of({"app", "-xsim-node-host", "memroy"}),
             "-xsim-node-host: unknown node factor \"memroy\"; give none, memory, compute or a number such as 1.5");
  EXPECT_HAS(error_of({"app", "-xsim-node-host", "-1"}), "-xsim-node-host: a node factor must be a positive finite number (got -1.0)");
  EXPECT_HAS(error_of({"app", "-xsim-node-host", "0"}), "a node factor must be a positive finite number (got 0.0)");
  EXPECT_HAS(error_of({"app", "-xsim-node-host", "1.5x"}), "\"1.5x\" is not a number");
  EXPECT_HAS(error_of({"app"}, {"XSIM_NODE_HOST=fast"}), "XSIM_NODE_HOST");
  EXPECT_HAS(file_error("[node]\nmemory_factor = -2.0\n"), "F:2:17: [node] memory_factor: a node factor must be a positive");
  EXPECT_HAS(file_error("[node]\ncompute_factor = \"x\"\n"), "F:2:18: [node] compute_factor");
  EXPECT_HAS(file_error("[node]\nhost = true\n"), "F:2:8: [node] host");
  EXPECT_HAS(file_error("[node]\nfactor = 2.0\n"), "[node]");  // unknown key
}

TEST(OptionsNode, AChosenFactorMustBeMeasured) {
  EXPECT_HAS(error_of({"app", "-xsim-node-host", "memory"}),
             "-xsim-node-host memory: the node's memory_factor is not set; measure it with xsim-calibrate --node");
  EXPECT_HAS(file_error("[node]\nhost = \"compute\"\n"), "F:2:8: the node's compute_factor is not set");
  EXPECT_EQ(error_of({"app", "-xsim-node-host", "memory", "-xsim-node-memory-factor", "1.3"}), "");
}

TEST(OptionsNode, PrintConfigReadsBack) {
  TempFile f("[node]\nmemory_factor = 1.2345678901234567\ncompute_factor = 1.05\nhost = \"memory\"\n");
  const Options o = parse({"app", "-xsim-config", f.path()});
  const std::string text = to_toml(o);
  EXPECT_HAS(text, "[node]\nhost = \"memory\"\nmemory_factor = 1.2345678901234567\ncompute_factor = 1.05\n");
  TempFile back(text);
  const Options p = parse({"app", "-xsim-config", back.path()});
  EXPECT_EQ(p.node_host, NodeHost::memory);
  EXPECT_EQ(p.node_memory_factor, o.node_memory_factor);
  const Options n = parse({"app", "-xsim-node-host", "1.75"});
  EXPECT_HAS(to_toml(n), "host = 1.75\n");
  TempFile back2(to_toml(n));
  EXPECT_EQ(parse({"app", "-xsim-config", back2.path()}).node_host_number, 1.75);
  EXPECT_HAS(help_text(), "-xsim-node-host none|memory|compute|F");
  EXPECT_HAS(help_text(), "[node] (host, memory_factor, compute_factor)");
}

}  // namespace
}  // namespace xsim
