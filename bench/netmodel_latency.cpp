// Cost of one network-model latency query (DESIGN.md §4: "tens of nanoseconds"), per topology, including
// hierarchical networks. Prints ns per message_latency() call over a fixed pseudo-random sequence of
// (src, dst, bytes) triples; the checksum keeps the compiler from dropping the work.
// Usage: netmodel_latency [queries]   (default 4,000,000)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "xsim/netmodel/dragonfly.hpp"
#include "xsim/netmodel/fat_tree.hpp"
#include "xsim/netmodel/hierarchy.hpp"
#include "xsim/netmodel/mesh_torus.hpp"
#include "xsim/netmodel/ring.hpp"
#include "xsim/netmodel/tree.hpp"
#include "xsim/netmodel/twisted_torus.hpp"

using namespace xsim;
using namespace xsim::net;

namespace {
SimTime us(double v) { return SimTime::from_seconds(v * 1e-6); }
constexpr uint64_t kGbps = 1'000'000'000;

std::unique_ptr<Network> two_level(std::unique_ptr<Network> outer, std::unique_ptr<Network> inner) {
  std::vector<std::unique_ptr<Network>> v;
  v.push_back(std::move(outer));
  v.push_back(std::move(inner));
  return std::make_unique<Hierarchy>(std::move(v));
}

double measure(const Network& net, long queries, int64_t& checksum) {
  const uint64_t n = static_cast<uint64_t>(net.endpoints());
  uint64_t x = 88172645463325252ull;
  auto next = [&] {  // xorshift64: cheap, so the loop measures the model
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  };
  auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < queries; ++i) {
    uint64_t r = next();
    int src = static_cast<int>(r % n), dst = static_cast<int>((r >> 21) % n);
    checksum += net.message_latency(src, dst, (r >> 42) & 0xfff).ps();
  }
  auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::nano>(t1 - t0).count() / static_cast<double>(queries);
}
}  // namespace

int main(int argc, char** argv) {
  long queries = argc > 1 ? std::atol(argv[1]) : 4'000'000;
  std::vector<std::pair<std::string, std::unique_ptr<Network>>> nets;
  nets.emplace_back("star 65536", make_star(65536, us(25), kGbps));
  nets.emplace_back("ring 65536 (bi)", make_ring(65536, true, us(1), kGbps));
  nets.emplace_back("mesh 256x256", make_mesh({256, 256}, us(7), 8'800'000'000));
  nets.emplace_back("torus 16x16x16", make_torus({16, 16, 16}, {1, 1, 1}, us(7), 8'800'000'000));
  nets.emplace_back("torus 8x8x8x8x4 (BG/Q-like)", make_torus({8, 8, 8, 8, 4}, {1, 1, 1, 1, 1}, us(1), 16 * kGbps));
  nets.emplace_back("twisted torus 32x32 (distance table)", make_twisted_torus({32, 32}, {1, 1}, 1, {1, 1}, us(7), 8'800'000'000));
  nets.emplace_back("twisted torus 64x64", make_twisted_torus({64, 64}, {1, 1}, 1, {1, 1}, us(7), 8'800'000'000));
  nets.emplace_back("twisted torus 16x16x16", make_twisted_torus({16, 16, 16}, {1, 1, 1}, 1, {1, 1, 1}, us(7), 8'800'000'000));
  nets.emplace_back("binary tree 65536", make_tree(2, 65536, us(1), kGbps));
  nets.emplace_back("fat tree m=36 n=3", make_fat_tree(36, 3, us(1), 100 * kGbps));
  nets.emplace_back("dragonfly Aries 241 groups, minimal", make_dragonfly(aries_dragonfly_params(241, DragonflyRouting::minimal)));
  nets.emplace_back("dragonfly Aries 241 groups, Valiant", make_dragonfly(aries_dragonfly_params(241, DragonflyRouting::valiant)));
  nets.emplace_back("torus 8x8x8 / star 2 (dual-core)",
                    two_level(make_torus({8, 8, 8}, {1, 1, 1}, us(7), 8'800'000'000), make_star(2, us(0.32), 9'600'000'000)));
  nets.emplace_back("star 4096 / star 16 (multi-core ethernet)",
                    two_level(make_star(4096, us(25), kGbps), make_star(16, us(0.32), 12 * kGbps)));
  int64_t checksum = 0;
  std::printf("%-45s %10s %10s\n", "network", "endpoints", "ns/query");
  for (auto& [name, net] : nets) {
    measure(*net, queries / 10, checksum);  // warm up
    std::printf("%-45s %10d %10.1f\n", name.c_str(), net->endpoints(), measure(*net, queries, checksum));
  }
  std::printf("(checksum %lld)\n", static_cast<long long>(checksum));
  return 0;
}
