// Unit tests for the network's options: presets, inline network specs and their errors, TOML levels, the
// message models (loggp, eager limit, contention), size bands and endpoint terms.
#include "options_test_support.hpp"

namespace xsim {
namespace {

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
        "tree:3:n=20", "mesh:dims=3", "ring:9:uni:os=1us:or=2us", "torus:wrap=1,0",
        "dragonfly:p=2:a=4:h=2:g=5:routing=ugal-l", "dragonfly:p=2:a=4:h=2:g=5:routing=ugal-g",
        "fattree:m=4:n=3:routing=adaptive"}) {
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
  // Routing (docs/network-model.md "Adaptive routing"): the names each topology knows, and none elsewhere.
  EXPECT_EQ(parse_network_inline("fattree:m=4:n=2:routing=dmodk").levels[0].routing, "minimal");
  EXPECT_EQ(parse_network_inline("fattree:m=4:n=2:routing=adaptive").levels[0].routing, "adaptive");
  EXPECT_EQ(parse_network_inline("dragonfly:p=1:a=2:h=1:g=3:routing=ugal-g").levels[0].routing, "ugal-g");
  EXPECT_HAS(inline_error("dragonfly:p=1:a=2:h=1:routing=ugal"),
             "unknown dragonfly routing \"ugal\"; give minimal (min), valiant (val), ugal-l or ugal-g");
  EXPECT_HAS(inline_error("dragonfly:p=1:a=2:h=1:routing=adaptive"), "unknown dragonfly routing \"adaptive\"");
  EXPECT_HAS(inline_error("fattree:m=4:n=2:routing=ugal-g"), "unknown fat tree routing \"ugal-g\"");
  EXPECT_HAS(inline_error("torus:4x4:routing=adaptive"), "key \"routing\" does not apply to a torus level");
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
routing = "adaptive"
)");
  o = parse({"app", "-xsim-config", g.path()});
  EXPECT_EQ(o.network.preset, "custom");
  EXPECT_EQ(format_network_inline(o.network, false),
            "dragonfly:p=2:a=4:h=2:g=3:cols=2:routing=valiant/twistedtorus:3x3:jump=1,2/tree:3:depth=2/ring:5:uni/"
            "fattree:m=4:n=2:routing=adaptive");
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
  EXPECT_EQ(parse({"app", "-xsim-contention", "links"}).contention, Contention::links);
  // Presets bring their eager limit (Cray MPICH's 8 KiB on Aries); -xsim-eager overrides it.
  EXPECT_EQ(eager_limit(parse({"app", "-xsim-mn", "aries"})), 8192u);
  EXPECT_EQ(eager_limit(parse({"app", "-xsim-mn", "aries:g=3"})), 8192u);
  EXPECT_EQ(eager_limit(parse({"app", "-xsim-mn", "aries", "-xsim-eager", "64K"})), 65536u);
  EXPECT_EQ(eager_limit(parse({"app", "-xsim-mn", "ethernet"})), kDefaultEager);
  EXPECT_EQ(parse({"app"}, {"XSIM_CONTENTION=links"}).contention, Contention::links);
  // printed back as TOML, read again: the same
  TempFile g(to_toml(o));
  Options back = parse({"app", "-xsim-config", g.path()});
  EXPECT_EQ(back.model, o.model);
  EXPECT_EQ(back.eager, o.eager);
  EXPECT_EQ(back.contention, o.contention);
}

TEST(Options, SharingDefaultsAndValues) {
  EXPECT_EQ(parse({"app"}).sharing, Sharing::serial);
  EXPECT_EQ(parse({"app", "-xsim-sharing", "fair"}).sharing, Sharing::fair);
  EXPECT_EQ(parse({"app"}, {"XSIM_SHARING=rtt"}).sharing, Sharing::rtt);
  TempFile f("[model]\ncontention = \"links\"\nsharing = \"fair\"\n");
  Options t = parse({"app", "-xsim-config", f.path()});
  EXPECT_EQ(t.sharing, Sharing::fair);
  TempFile g(to_toml(t));  // printed back as TOML, read again: the same
  EXPECT_EQ(parse({"app", "-xsim-config", g.path()}).sharing, Sharing::fair);
  EXPECT_HAS(error_of({"app", "-xsim-sharing", "fiar"}), "-xsim-sharing");
  EXPECT_HAS(error_of({"app", "-xsim-sharing", "fiar"}), "did you mean fair");
}

TEST(Options, MessageModelBadValuesNameTheOption) {
  EXPECT_HAS(error_of({"app", "-xsim-model", "logp"}), "-xsim-model");
  EXPECT_HAS(error_of({"app", "-xsim-model", "logp"}), "did you mean loggp");
  EXPECT_HAS(error_of({"app", "-xsim-eager", "lots"}), "-xsim-eager");
  EXPECT_HAS(error_of({"app", "-xsim-eager", "-5"}), "-xsim-eager");
  EXPECT_HAS(error_of({"app", "-xsim-contention", "link"}), "did you mean links");
  EXPECT_HAS(error_of({"app", "-xsim-contention", "lnks"}), "-xsim-contention");
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
