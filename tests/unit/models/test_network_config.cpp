// Unit tests for the network configuration layer (libxsim/network_config): the issue's inline examples
// build the expected networks (endpoint counts and hand-computed latencies), presets sized from the rank
// count, TOML levels, rank placement (block, round-robin, file) and the "does not fit" errors.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "network_config.hpp"
#include "options.hpp"
#include "xsim/netmodel/hierarchy.hpp"

namespace xsim {
namespace {

#define EXPECT_HAS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << "in: " << (haystack)

class TempFile {
 public:
  explicit TempFile(const std::string& text, const char* ext = ".txt") {
    static int counter = 0;
    path_ = ::testing::TempDir() + "xsim_netcfg_" + std::to_string(getpid()) + "_" + std::to_string(counter++) + ext;
    std::ofstream(path_) << text;
  }
  ~TempFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

BuiltNetwork build(const std::string& spec, int64_t np = 0) { return build_network(parse_network_inline(spec), np); }

// Latency in picoseconds of a message of `bytes` from rank src to rank dst.
int64_t lat_ps(const BuiltNetwork& b, int64_t src, int64_t dst, uint64_t bytes = 0) {
  return b.network->message_latency(b.core(src), b.core(dst), bytes).ps();
}
int hops(const BuiltNetwork& b, int64_t src, int64_t dst) { return b.network->route(b.core(src), b.core(dst)).hops; }

std::string build_error(const std::string& spec, int64_t np) {
  try {
    build(spec, np);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

constexpr int64_t us = 1'000'000, ns = 1'000;

TEST(NetworkConfig, IssueExamplesBuild) {
  // star: 2 links; 4 bytes at 1 Gbps = 32 ns.
  BuiltNetwork b = build("star:64:lat=25us:bw=1Gbps");
  EXPECT_EQ(b.network->endpoints(), 64);
  EXPECT_EQ(lat_ps(b, 0, 63, 4), 50 * us + 32 * ns);
  EXPECT_EQ(b.nodes, 64);
  EXPECT_EQ(b.cores_per_node, 1);
  EXPECT_TRUE(b.core_of_rank.empty());
  // ring (defaults 1 us, 10 Gbps): bidirectional 0 -> 8 is 8 hops, 0 -> 15 one; unidirectional 0 -> 15 is 15.
  b = build("ring:16");
  EXPECT_EQ(b.network->endpoints(), 16);
  EXPECT_EQ(lat_ps(b, 0, 8), 8 * us);
  EXPECT_EQ(lat_ps(b, 0, 15), 1 * us);
  b = build("ring:16:uni");
  EXPECT_EQ(lat_ps(b, 0, 15), 15 * us);
  EXPECT_EQ(lat_ps(b, 15, 0), 1 * us);
  // mesh 8x16: rank 127 = (7, 15), 22 hops; 1000 bytes at 10 Gbps = 800 ns.
  b = build("mesh:8x16");
  EXPECT_EQ(b.network->endpoints(), 128);
  EXPECT_EQ(lat_ps(b, 0, 127, 1000), 22 * us + 800 * ns);
  // torus 4x4x4, no wrap in dimension 1: 0 -> (3,3,3) is 1 + 3 + 1 hops.
  b = build("torus:4x4x4:wrap=1,0,1");
  EXPECT_EQ(b.network->endpoints(), 64);
  EXPECT_EQ(hops(b, 0, 63), 5);
  EXPECT_EQ(lat_ps(b, 0, 63), 5 * us);
  b = build("twistedtorus:4x4:degree=1:jump=1,2");
  EXPECT_EQ(b.network->endpoints(), 16);
  EXPECT_EQ(lat_ps(b, 0, 1), 1 * us);
  EXPECT_LE(hops(b, 0, 3), 3);
  // binary tree of depth 6: 64 leaves, 0 -> 63 through the root (12 links).
  b = build("tree:2:depth=6");
  EXPECT_EQ(b.network->endpoints(), 64);
  EXPECT_EQ(lat_ps(b, 0, 63), 12 * us);
  EXPECT_EQ(lat_ps(b, 0, 1), 2 * us);
  // dragonfly: 4 x 8 x 9 = 288 endpoints. 0 -> 4: same group, routers 0 -> 1: 3 links. 0 -> 284 (group 8,
  // router 7): the link to group 8 is on router 7/4 = 1 of group 0 and arrives at router 0 of group 8:
  // terminal + local + global + local + terminal = 5 links.
  b = build("dragonfly:p=4:a=8:h=4:g=9:routing=min");
  EXPECT_EQ(b.network->endpoints(), 288);
  EXPECT_EQ(lat_ps(b, 0, 4), 3 * us);
  EXPECT_EQ(lat_ps(b, 0, 284), 5 * us);
  // 4-port 3-tree: 2 * 2^3 = 16 endpoints; across pods 2n = 6 links.
  b = build("fattree:m=4:n=3");
  EXPECT_EQ(b.network->endpoints(), 16);
  EXPECT_EQ(lat_ps(b, 0, 15), 6 * us);
  EXPECT_EQ(lat_ps(b, 0, 1), 2 * us);
  // 512 dual-core nodes: inside a node 2 x 0.32 us; core 1023 is core 1 of node (7,7,7): 3 torus links,
  // then the two star links; 1100 bytes at the slowest 8.8 Gbps = 1 us.
  b = build("torus:8x8x8:lat=7us:bw=8.8Gbps/star:2:lat=0.32us:bw=9.6Gbps");
  EXPECT_EQ(b.network->endpoints(), 1024);
  EXPECT_EQ(b.nodes, 512);
  EXPECT_EQ(b.cores_per_node, 2);
  EXPECT_EQ(lat_ps(b, 0, 1), 640 * ns);
  EXPECT_EQ(lat_ps(b, 0, 1023), 21 * us + 640 * ns);
  EXPECT_EQ(lat_ps(b, 0, 1023, 1100), 22 * us + 640 * ns);
  net::Route r = b.network->route(0, 1023);
  EXPECT_EQ(r.hops, 5);
  EXPECT_EQ(r.level_hops[0], 3);
  EXPECT_EQ(r.level_hops[1], 2);
  ASSERT_NE(dynamic_cast<const net::Hierarchy*>(b.network.get()), nullptr);
}

TEST(NetworkConfig, StarWithoutSizeHasOneEndpointPerRank) {
  BuiltNetwork b = build("star:lat=1us", 37);
  EXPECT_EQ(b.network->endpoints(), 37);
  EXPECT_EQ(b.resolved.levels[0].size, (std::vector<int64_t>{37}));
  // The derived level gets ceil(np / the other levels' cores).
  b = build("torus:2x2/star", 10);
  EXPECT_EQ(b.network->endpoints(), 12);
  EXPECT_EQ(b.cores_per_node, 3);
  b = build("mesh:dims=2/star:2", 24);
  EXPECT_EQ(b.resolved.levels[0].size, (std::vector<int64_t>{3, 4}));
  b = build("tree:4/star:2", 21);
  EXPECT_EQ(b.resolved.levels[0].endpoints, 11);
  b = build("dragonfly:p=2:a=2:h=2", 9);
  EXPECT_EQ(b.resolved.levels[0].g, 3);
  EXPECT_EQ(b.network->endpoints(), 12);
}

TEST(NetworkConfig, Presets) {
  BuiltNetwork b = build("ethernet", 10);
  EXPECT_EQ(b.network->endpoints(), 10);
  EXPECT_EQ(lat_ps(b, 0, 9, 4), 50 * us + 32 * ns);
  EXPECT_EQ(b.network->min_latency().ps(), 50 * us);
  b = build("none", 4);
  EXPECT_EQ(lat_ps(b, 0, 1), 2);
  EXPECT_EQ(lat_ps(b, 0, 1, 1'000'000), 2 + 8);  // 8e6 bits at 1e18 bit/s
  EXPECT_GT(b.network->min_latency().ps(), 0);
  // 20 ranks on 8-core nodes: 3 nodes; inside a node 2 x 0.32 us, across 2 x 25 us + 2 x 0.32 us.
  b = build("multicore-ethernet", 20);
  EXPECT_EQ(b.nodes, 3);
  EXPECT_EQ(b.cores_per_node, 8);
  EXPECT_EQ(lat_ps(b, 0, 7), 640 * ns);
  EXPECT_EQ(lat_ps(b, 0, 8), 50 * us + 640 * ns);
  b = build("multicore-ethernet:cores=4", 20);
  EXPECT_EQ(b.nodes, 5);
  EXPECT_EQ(b.cores_per_node, 4);
  // 12 ranks: 3 x 4 mesh; rank 11 = (2, 3): 5 links of 7 us.
  b = build("mesh2d", 12);
  EXPECT_EQ(b.resolved.levels[0].size, (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(lat_ps(b, 0, 11), 35 * us);
  // 128 ranks on dual-core nodes: 64 nodes, 4x4x4. Rank 127 = core 1 of node (3,3,3).
  b = build("mesh3d-dualcore", 128);
  EXPECT_EQ(b.resolved.levels[0].size, (std::vector<int64_t>{4, 4, 4}));
  EXPECT_EQ(lat_ps(b, 0, 127), 9 * 7 * us + 640 * ns);
  EXPECT_EQ(lat_ps(b, 0, 1), 640 * ns);
  b = build("torus3d-dualcore", 128);
  EXPECT_EQ(lat_ps(b, 0, 127), 3 * 7 * us + 640 * ns);
  b = build("twistedtorus3d-dualcore", 128);
  EXPECT_EQ(b.network->endpoints(), 128);
  EXPECT_EQ(lat_ps(b, 0, 1), 640 * ns);
  EXPECT_LE(lat_ps(b, 0, 127), 9 * 7 * us + 640 * ns);  // never longer than the mesh route
  // An odd rank count leaves one core free.
  b = build("torus3d-dualcore", 7);
  EXPECT_EQ(b.resolved.levels[0].size, (std::vector<int64_t>{1, 2, 2}));
  EXPECT_EQ(b.network->endpoints(), 8);
  // Aries: 384 endpoints per group; two endpoints of one router are two 100 ns terminal links apart.
  b = build("aries", 1000);
  EXPECT_EQ(b.resolved.levels[0].g, 3);
  EXPECT_EQ(b.network->endpoints(), 1152);
  EXPECT_EQ(lat_ps(b, 0, 1), 200 * ns);
  // Frontera (HPL case study): 56 cores per node, 0.15 us per on-node link; nodes under one leaf switch are 2
  // fat-tree hops (90 ns each) apart, nodes under two leaves 4; 448,448 ranks fit (8,192 nodes of 56).
  b = build("frontera", 448448);
  EXPECT_EQ(b.network->endpoints(), 8192 * 56);
  EXPECT_EQ(lat_ps(b, 0, 1), 300 * ns);                 // two cores of node 0
  EXPECT_EQ(lat_ps(b, 0, 56), 300 * ns + 180 * ns);     // node 0 to node 1, one leaf switch
  EXPECT_EQ(lat_ps(b, 0, 448447), 300 * ns + 360 * ns);  // node 0 to node 8,007, through a core switch
  b = build("pupmaya", 169920);
  EXPECT_EQ(b.network->endpoints(), 4608 * 40);
  EXPECT_EQ(lat_ps(b, 0, 40), 300 * ns + 180 * ns);
  for (const std::string& name : network_preset_names()) {
    b = build_network(network_preset(name), 64);
    EXPECT_GE(b.network->endpoints(), 64) << name;
    EXPECT_GT(b.network->min_latency().ps(), 0) << name;
  }
}

TEST(NetworkConfig, Overheads) {
  BuiltNetwork b = build("star:4:os=1us:or=2us");
  EXPECT_EQ(lat_ps(b, 0, 1), 2 * us + 3 * us);
  EXPECT_EQ(b.network->min_latency().ps(), 5 * us);
  b = build("torus:2x2/star:2:os=1us");
  EXPECT_EQ(lat_ps(b, 0, 1), 2 * us + 1 * us);
  EXPECT_EQ(b.network->min_latency().ps(), 2 * us);  // the torus link + the overhead
}

TEST(NetworkConfig, MostSquareFactors) {
  EXPECT_EQ(most_square_factors(128, 3), (std::vector<int64_t>{4, 4, 8}));
  EXPECT_EQ(most_square_factors(64, 3), (std::vector<int64_t>{4, 4, 4}));
  EXPECT_EQ(most_square_factors(12, 2), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(most_square_factors(100, 2), (std::vector<int64_t>{10, 10}));
  EXPECT_EQ(most_square_factors(7, 2), (std::vector<int64_t>{1, 7}));
  EXPECT_EQ(most_square_factors(1, 3), (std::vector<int64_t>{1, 1, 1}));
  EXPECT_EQ(most_square_factors(2147483647, 2), (std::vector<int64_t>{1, 2147483647}));
  EXPECT_EQ(most_square_factors(65536, 3), (std::vector<int64_t>{32, 32, 64}));
  EXPECT_EQ(most_square_factors(30, 1), (std::vector<int64_t>{30}));
}

TEST(NetworkConfig, PlacementBlockAndRoundRobin) {
  NetworkSpec s = parse_network_inline("torus:2x2/star:2");
  BuiltNetwork b = build_network(s, 8);
  EXPECT_TRUE(b.core_of_rank.empty());
  s.placement = "roundrobin";
  b = build_network(s, 8);
  EXPECT_EQ(b.core_of_rank, (std::vector<int32_t>{0, 2, 4, 6, 1, 3, 5, 7}));
  // Ranks 0 and 4 share node 0: the on-node latency.
  EXPECT_EQ(lat_ps(b, 0, 4), 2 * us);
  EXPECT_EQ(lat_ps(b, 0, 1), 1 * us + 2 * us);
  b = build_network(s, 5);
  EXPECT_EQ(b.core_of_rank, (std::vector<int32_t>{0, 2, 4, 6, 1}));
  b = build_network(s, 0);  // as many ranks as cores
  EXPECT_EQ(b.core_of_rank.size(), 8u);
}

TEST(NetworkConfig, PlacementFile) {
  TempFile f("3\n# rank 1:\n2   # a comment\n\n1\n0\n");
  NetworkSpec s = parse_network_inline("star:4");
  s.placement = "file";
  s.placement_file = f.path();
  BuiltNetwork b = build_network(s, 4);
  EXPECT_EQ(b.core_of_rank, (std::vector<int32_t>{3, 2, 1, 0}));
  EXPECT_EQ(b.core(0), 3);
  auto error = [&](const std::string& text, int64_t np) {
    TempFile g(text);
    NetworkSpec t = s;
    t.placement_file = g.path();
    try {
      build_network(t, np);
    } catch (const ConfigError& e) {
      std::string m = e.what();
      for (size_t p; (p = m.find(g.path())) != std::string::npos;) m.replace(p, g.path().size(), "F");
      return m;
    }
    return std::string();
  };
  EXPECT_EQ(error("0\n1\n", 2), "");  // fewer ranks than cores
  EXPECT_HAS(error("0\n1\n2\n", 4), "F: 3 core indices for 4 virtual ranks; the file needs exactly one line per rank 0..3");
  EXPECT_HAS(error("0\n1\n2\n3\n", 3), "F:4: more core indices than virtual ranks (3)");
  EXPECT_HAS(error("0\n2\n2\n3\n", 4), "F:3: core 2 is given twice (first on line 2)");
  EXPECT_HAS(error("0\n9\n", 2), "F:2: core 9 is out of range: the network has 4 cores (0..3)");
  EXPECT_HAS(error("x\n", 1), "F:1: \"x\" is not a core index");
  EXPECT_HAS(error("-1\n", 1), "F:1: \"-1\" is not a core index");
  s.placement_file = ::testing::TempDir() + "xsim_no_such_placement.txt";
  EXPECT_THROW(build_network(s, 4), ConfigError);
}

TEST(NetworkConfig, PlacementFromTomlAndCommandLine) {
  TempFile p("1\n0\n");
  TempFile f("[simulation]\nnp = 2\n[network]\nplacement_file = \"" + p.path() +
                 "\"\n[[network.level]]\ntopology = \"ring\"\nsize = 2\n",
             ".toml");
  std::vector<std::string> args = {"app", "-xsim-config", f.path()};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int argc = 3;
  Options o = parse_options(argc, argv.data(), nullptr);
  BuiltNetwork b = build_network(o.network, o.np);
  EXPECT_EQ(b.core_of_rank, (std::vector<int32_t>{1, 0}));
  // A bad placement file is reported while parsing the options when np is known.
  TempFile bad("1\n1\n");
  std::vector<std::string> args2 = {"app", "-xsim-np", "2", "-xsim-mn", "star:2", "-xsim-placement",
                                    "file:" + bad.path()};
  std::vector<char*> argv2;
  for (auto& a : args2) argv2.push_back(a.data());
  argv2.push_back(nullptr);
  argc = 7;
  try {
    parse_options(argc, argv2.data(), nullptr);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_HAS(e.what(), bad.path() + ":2: core 1 is given twice");
    EXPECT_HAS(e.what(), "network set by -xsim-mn star:2");
  }
}

TEST(NetworkConfig, SizesThatDoNotFit) {
  EXPECT_EQ(build_error("torus:4x4x4", 100),
            "torus:4x4x4 has 64 cores but -xsim-np is 100; use e.g. torus:4x4x7 or fewer ranks");
  EXPECT_HAS(build_error("star:8/star:4", 40), "star:8/star:4 has 32 cores but -xsim-np is 40; use e.g. star:10/star:4");
  EXPECT_HAS(build_error("tree:2:depth=3", 10), "use e.g. tree:2:depth=4");
  EXPECT_HAS(build_error("tree:3:n=5", 10), "use e.g. tree:3:n=10");
  EXPECT_HAS(build_error("fattree:m=4:n=2", 20), "fattree:m=4:n=2 has 8 cores but -xsim-np is 20; use e.g. fattree:m=4:n=4");
  EXPECT_HAS(build_error("fattree:m=2:n=2", 5), "use e.g. fattree:m=4:n=2");
  EXPECT_HAS(build_error("dragonfly:p=2:a=2:h=1:g=2", 10), "use e.g. dragonfly:p=2:a=2:h=1:g=3");
  EXPECT_HAS(build_error("ring:3/mesh:2x2", 20), "use e.g. ring:5/mesh:2x2");
  // A level sized from np that cannot grow enough.
  EXPECT_HAS(build_error("dragonfly:p=1:a=2:h=1", 10),
             "network dragonfly:p=1:a=2:h=1 has at most a*h+1 = 3 groups, 6 cores, but -xsim-np is 10 (it would "
             "need g=5); use e.g. dragonfly:p=1:a=2:h=2:g=5");
  EXPECT_HAS(build_error("star/star", 10), "both take their size from the number of virtual ranks");
  EXPECT_HAS(build_error("mesh2d", 0), "takes its size from the number of virtual ranks, which is not known here");
  EXPECT_HAS(build_error("star:65536/star:65536", 1), "at most 2^31-1 are possible");
  EXPECT_EQ(build_error("torus:4x4x4", 64), "");
  EXPECT_EQ(build_error("torus:4x4x4", 10), "");  // more cores than ranks is fine
  EXPECT_EQ(build("torus:4x4x4").network->endpoints(), 64);
}

TEST(NetworkConfig, LevelErrorsNameTheLevel) {
  NetworkSpec s;
  s.levels.clear();
  EXPECT_THROW(build_network(s, 1), ConfigError);
  // Built level by level: a netmodel error names the level.
  s = parse_network_inline("torus:2x2/star:2");
  s.levels[1].latency = SimTime::zero();  // bypasses the parser's checks
  try {
    build_network(s, 8);
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_HAS(e.what(), "network level 1 (star:2): star network: link latency must be positive");
  }
}

}  // namespace
}  // namespace xsim
