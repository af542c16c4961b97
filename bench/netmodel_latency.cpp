// Cost of one network-model latency query (docs/architecture.md §4: "tens of nanoseconds"), per topology, including
// hierarchical networks, at the sizes of real machines and at about a million endpoints. Prints ns per
// message_latency() call over a fixed pseudo-random sequence of (src, dst, bytes) triples, measured in
// thread CPU time (so other jobs on a shared machine do not count), and the seconds the constructor took;
// the checksum keeps the compiler from dropping the work.
// Usage: netmodel_latency [queries] [filter]   (default 4,000,000 queries; only networks whose name
// contains `filter`, or only the one whose name is `filter`)
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <functional>
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

std::unique_ptr<Network> big_dragonfly(DragonflyRouting routing) {  // 1,049,088 endpoints
  DragonflyParams p = aries_dragonfly_params(241, routing);
  p.p = 8;
  p.a = 64;
  p.h = 32;
  p.g = 2049;
  p.local_columns = 0;
  return make_dragonfly(p);
}

std::unique_ptr<Network> three_level() {  // 8,192 nodes of 2 sockets of 16 cores: 262,144 endpoints
  std::vector<std::unique_ptr<Network>> v;
  v.push_back(make_fat_tree(32, 3, us(1), 100 * kGbps));
  v.push_back(make_star(2, us(0.1), 200 * kGbps));
  v.push_back(make_star(16, us(0.05), 400 * kGbps));
  return std::make_unique<Hierarchy>(std::move(v));
}

double cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
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
  const double t0 = cpu_seconds();
  for (long i = 0; i < queries; ++i) {
    uint64_t r = next();
    int src = static_cast<int>(r % n), dst = static_cast<int>((r >> 21) % n);
    checksum += net.message_latency(src, dst, (r >> 42) & 0xfff).ps();
  }
  return (cpu_seconds() - t0) * 1e9 / static_cast<double>(queries);
}
}  // namespace

int main(int argc, char** argv) {
  const long queries = argc > 1 ? std::atol(argv[1]) : 4'000'000;
  const std::string filter = argc > 2 ? argv[2] : "";
  using Factory = std::function<std::unique_ptr<Network>()>;
  const SimTime l7 = us(7);
  const uint64_t bw88 = 8'800'000'000;
  const std::vector<std::pair<std::string, Factory>> nets = {
      {"star 65536", [] { return make_star(65536, us(25), kGbps); }},
      {"star 1048576", [] { return make_star(1 << 20, us(25), kGbps); }},
      {"ring 65536 (bi)", [] { return make_ring(65536, true, us(1), kGbps); }},
      {"ring 1048576 (bi)", [] { return make_ring(1 << 20, true, us(1), kGbps); }},
      {"mesh 256x256", [&] { return make_mesh({256, 256}, l7, bw88); }},
      {"mesh 1024x1024", [&] { return make_mesh({1024, 1024}, l7, bw88); }},
      {"torus 16x16x16", [&] { return make_torus({16, 16, 16}, {1, 1, 1}, l7, bw88); }},
      {"torus 128x128x64", [&] { return make_torus({128, 128, 64}, {1, 1, 1}, l7, bw88); }},
      {"torus 8x8x8x8x4 (BG/Q-like)", [] { return make_torus({8, 8, 8, 8, 4}, {1, 1, 1, 1, 1}, us(1), 16 * kGbps); }},
      {"torus 16x16x16x16x4 (BG/Q-like)", [] { return make_torus({16, 16, 16, 16, 4}, {1, 1, 1, 1, 1}, us(1), 16 * kGbps); }},
      {"twisted torus 32x32", [&] { return make_twisted_torus({32, 32}, {1, 1}, 1, {1, 1}, l7, bw88); }},
      {"twisted torus 32x32 (hub method)", [&] { return make_twisted_torus({32, 32}, {1, 1}, 1, {1, 1}, l7, bw88, TwistedTorusRouting::hubs); }},
      {"twisted torus 64x64", [&] { return make_twisted_torus({64, 64}, {1, 1}, 1, {1, 1}, l7, bw88); }},
      {"twisted torus 64x64 (hub method)", [&] { return make_twisted_torus({64, 64}, {1, 1}, 1, {1, 1}, l7, bw88, TwistedTorusRouting::hubs); }},
      {"twisted torus 128x128", [&] { return make_twisted_torus({128, 128}, {1, 1}, 1, {1, 1}, l7, bw88); }},
      {"twisted torus 1024x1024", [&] { return make_twisted_torus({1024, 1024}, {1, 1}, 1, {1, 1}, l7, bw88); }},
      {"twisted torus 16x16x16", [&] { return make_twisted_torus({16, 16, 16}, {1, 1, 1}, 1, {1, 1, 1}, l7, bw88); }},
      {"twisted torus 16x16x16 (hub method)", [&] { return make_twisted_torus({16, 16, 16}, {1, 1, 1}, 1, {1, 1, 1}, l7, bw88, TwistedTorusRouting::hubs); }},
      {"twisted torus 32x32x32", [&] { return make_twisted_torus({32, 32, 32}, {1, 1, 1}, 1, {1, 1, 1}, l7, bw88); }},
      {"twisted torus 48x48x48", [&] { return make_twisted_torus({48, 48, 48}, {1, 1, 1}, 1, {1, 1, 1}, l7, bw88); }},
      {"twisted torus 48x48x48 (hub rows)", [&] { return make_twisted_torus({48, 48, 48}, {1, 1, 1}, 1, {1, 1, 1}, l7, bw88, TwistedTorusRouting::hub_rows); }},
      {"twisted torus 30x20x25 jumps 7,3,11", [&] { return make_twisted_torus({30, 20, 25}, {1, 1, 1}, 1, {7, 3, 11}, l7, bw88); }},
      {"twisted torus 64x64x64", [&] { return make_twisted_torus({64, 64, 64}, {1, 1, 1}, 1, {1, 1, 1}, l7, bw88); }},
      {"twisted torus 64x64x64 (path family)", [&] { return make_twisted_torus({64, 64, 64}, {1, 1, 1}, 1, {1, 1, 1}, l7, bw88, TwistedTorusRouting::family); }},
      {"twisted torus 100x100x100", [&] { return make_twisted_torus({100, 100, 100}, {1, 1, 1}, 1, {1, 1, 1}, l7, bw88); }},
      {"twisted torus 128x128x64", [&] { return make_twisted_torus({128, 128, 64}, {1, 1, 1}, 1, {1, 1, 1}, l7, bw88); }},
      {"twisted torus 8x8x8x8 degree 2", [&] { return make_twisted_torus({8, 8, 8, 8}, {1, 1, 1, 1}, 2, {1, 2, 3, 1}, l7, bw88); }},
      {"binary tree 65536", [] { return make_tree(2, 65536, us(1), kGbps); }},
      {"binary tree 1048576", [] { return make_tree(2, 1 << 20, us(1), kGbps); }},
      {"fat tree m=36 n=3", [] { return make_fat_tree(36, 3, us(1), 100 * kGbps); }},
      {"fat tree m=160 n=3", [] { return make_fat_tree(160, 3, us(1), 100 * kGbps); }},
      {"fat tree m=16 n=5", [] { return make_fat_tree(16, 5, us(1), 100 * kGbps); }},
      {"dragonfly Aries 241 groups, minimal", [] { return make_dragonfly(aries_dragonfly_params(241, DragonflyRouting::minimal)); }},
      {"dragonfly Aries 241 groups, Valiant", [] { return make_dragonfly(aries_dragonfly_params(241, DragonflyRouting::valiant)); }},
      {"dragonfly p=8 a=64 h=32 g=2049, minimal", [] { return big_dragonfly(DragonflyRouting::minimal); }},
      {"dragonfly p=8 a=64 h=32 g=2049, Valiant", [] { return big_dragonfly(DragonflyRouting::valiant); }},
      {"torus 8x8x8 / star 2 (dual-core)",
       [&] { return two_level(make_torus({8, 8, 8}, {1, 1, 1}, l7, bw88), make_star(2, us(0.32), 9'600'000'000)); }},
      {"torus 64x64x64 / star 4",
       [&] { return two_level(make_torus({64, 64, 64}, {1, 1, 1}, l7, bw88), make_star(4, us(0.32), 9'600'000'000)); }},
      {"star 4096 / star 16 (multi-core ethernet)",
       [] { return two_level(make_star(4096, us(25), kGbps), make_star(16, us(0.32), 12 * kGbps)); }},
      {"fat tree m=32 n=3 / star 2 / star 16", [] { return three_level(); }},
      {"twisted torus 512x512 / star 4",
       [&] { return two_level(make_twisted_torus({512, 512}, {1, 1}, 1, {1, 1}, l7, bw88), make_star(4, us(0.32), 9'600'000'000)); }},
      {"twisted torus 16x16x16 / star 2 (dual-core)",
       [&] { return two_level(make_twisted_torus({16, 16, 16}, {1, 1, 1}, 1, {1, 1, 1}, l7, bw88), make_star(2, us(0.32), 9'600'000'000)); }},
      {"twisted torus 64x64x64 / star 4",
       [&] { return two_level(make_twisted_torus({64, 64, 64}, {1, 1, 1}, 1, {1, 1, 1}, l7, bw88), make_star(4, us(0.32), 9'600'000'000)); }},
  };
  bool exact = false;  // a filter that is a whole name selects that network only
  for (const auto& entry : nets) exact = exact || entry.first == filter;
  int64_t checksum = 0;
  std::printf("%-45s %10s %10s %9s\n", "network", "endpoints", "ns/query", "build_s");
  for (const auto& [name, make] : nets) {
    if (exact ? name != filter : name.find(filter) == std::string::npos) continue;
    const double b0 = cpu_seconds();
    std::unique_ptr<Network> net = make();
    const double build = cpu_seconds() - b0;
    measure(*net, queries / 10, checksum);  // warm up
    std::printf("%-45s %10d %10.1f %9.2f\n", name.c_str(), net->endpoints(), measure(*net, queries, checksum), build);
    std::fflush(stdout);
  }
  std::printf("(checksum %lld)\n", static_cast<long long>(checksum));
  return 0;
}
