// Cost of one route() query (route_keyed() for the networks whose route depends on the message) on the
// networks the unit tests check at these sizes (TopologyGridBenchSizes, FullSizeRoutes: the answers there,
// the time here; timing does not belong in the test suite). Prints ns per query over a fixed pseudo-random
// sequence of (src, dst) pairs, in thread CPU time (other jobs on a shared machine do not count), and the
// mean hops, which keeps the compiler from dropping the work.
// Usage: route_cost [queries]   (default 2,000,000)
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "xsim/netmodel/dragonfly.hpp"
#include "xsim/netmodel/fat_tree.hpp"
#include "xsim/netmodel/mesh_torus.hpp"
#include "xsim/netmodel/ring.hpp"
#include "xsim/netmodel/tree.hpp"
#include "xsim/netmodel/twisted_torus.hpp"

using namespace xsim;
using namespace xsim::net;

namespace {

double cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// ns per query; `hops` gets the sum of the hops answered.
double measure(const Network& net, bool keyed, long queries, int64_t& hops) {
  const uint64_t n = static_cast<uint64_t>(net.endpoints());
  uint64_t x = 88172645463325252ull;
  const double t0 = cpu_seconds();
  for (long i = 0; i < queries; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;  // xorshift64: cheap, so the loop measures the model
    const int s = static_cast<int>(x % n), d = static_cast<int>((x >> 32) % n);
    hops += keyed ? net.route_keyed(s, d, static_cast<uint64_t>(i)).hops : net.route(s, d).hops;
  }
  return (cpu_seconds() - t0) * 1e9 / static_cast<double>(queries);
}

}  // namespace

int main(int argc, char** argv) {
  const long queries = argc > 1 ? std::atol(argv[1]) : 2'000'000;
  if (queries < 1) {
    std::fprintf(stderr, "usage: route_cost [queries >= 1]\n");
    return 2;
  }
  const SimTime lat = SimTime::from_ns(1000);
  const uint64_t bw = 1'000'000'000;
  struct Entry {
    std::string name;
    bool keyed;
    std::function<std::unique_ptr<Network>()> make;
  };
  const std::vector<Entry> nets = {
      {"ring 4096", false, [&] { return make_ring(4096, true, lat, bw); }},
      {"torus 16x16x16", false, [&] { return make_torus({16, 16, 16}, {1, 1, 1}, lat, bw); }},
      {"twisted torus 16x16x16", false, [&] { return make_twisted_torus({16, 16, 16}, {1, 1, 1}, 1, {1, 1, 1}, lat, bw); }},
      {"twisted torus 64x64", false, [&] { return make_twisted_torus({64, 64}, {1, 1}, 1, {1, 1}, lat, bw); }},
      {"tree 2 x 4096", false, [&] { return make_tree(2, 4096, lat, bw); }},
      {"tree 3 x 4096", false, [&] { return make_tree(3, 4096, lat, bw); }},
      {"dragonfly Aries 241 groups, Valiant (keyed)", true,
       [] { return make_dragonfly(aries_dragonfly_params(241, DragonflyRouting::valiant)); }},
      {"fat tree m=36 n=3 (keyed)", true, [] { return make_fat_tree(36, 3, SimTime::from_ns(700), 56'000'000'000ull); }},
  };
  std::printf("%-45s %10s %10s %10s\n", "network", "endpoints", "ns/route", "mean hops");
  for (const Entry& e : nets) {
    std::unique_ptr<Network> net = e.make();
    int64_t hops = 0;
    measure(*net, e.keyed, queries / 10 + 1, hops);  // warm up
    hops = 0;
    const double ns = measure(*net, e.keyed, queries, hops);
    std::printf("%-45s %10d %10.1f %10.3f\n", e.name.c_str(), net->endpoints(), ns,
                static_cast<double>(hops) / static_cast<double>(queries));
    std::fflush(stdout);
  }
  return 0;
}
