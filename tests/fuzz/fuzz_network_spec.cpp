// Fuzz target: the inline network spec parser (-xsim-mn SPEC, xsim-net --mn; options.hpp
// parse_network_inline), then the network it describes (network_config.hpp resolve_network/build_network).
// Input: the spec's text. Properties: ConfigError, or a spec whose printed form parses back to the same
// levels; a network that resolves for 64 ranks and, when small, builds and answers route queries.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_support.hpp"
#include "network_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  xsim::NetworkSpec spec;
  if (!xsim::fuzz::accepted([&] { spec = xsim::parse_network_inline(text); })) return 0;
  // The printed form reads back to the same network (xsim-net and -xsim-print-config rely on it).
  const std::string printed = xsim::format_network_inline(spec);
  xsim::NetworkSpec again;
  if (!xsim::fuzz::accepted([&] { again = xsim::parse_network_inline(printed); }))
    xsim::fuzz::finding("\"" + text + "\" prints as \"" + printed + "\", which does not parse");
  if (again.levels != spec.levels || again.send_overhead != spec.send_overhead ||
      again.recv_overhead != spec.recv_overhead)
    xsim::fuzz::finding("\"" + text + "\" prints as \"" + printed + "\", which parses to another network");
  // Resolve for 64 ranks; build only networks small enough for a quick run.
  constexpr int64_t kRanks = 64;
  int64_t cores = 0;
  if (!xsim::fuzz::accepted([&] { (void)xsim::resolve_network(spec, kRanks, &cores); })) return 0;
  if (cores < kRanks) xsim::fuzz::finding("resolved to " + std::to_string(cores) + " cores for 64 ranks");
  if (cores > 4096) return 0;
  xsim::BuiltNetwork b;
  if (!xsim::fuzz::accepted([&] { b = xsim::build_network(spec, kRanks); })) return 0;
  const int n = b.network->endpoints();
  if (n < kRanks) xsim::fuzz::finding("built " + std::to_string(n) + " endpoints for 64 ranks");
  if (b.network->min_latency() <= xsim::SimTime::zero()) xsim::fuzz::finding("minimum latency is not positive");
  for (int src : {0, n / 3, n - 1})
    for (int dst : {0, n / 2, n - 1}) (void)b.network->route(src, dst);
  return 0;
}
