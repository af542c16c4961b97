// Dragonfly topology (Kim et al. 2008; 000 §V; docs/architecture.md §4). Numbering, link pattern and routing rules
// are documented in xsim/netmodel/dragonfly.hpp and docs/network-topologies.md.
// Entry/exit point (for a hierarchy of networks): router 0 of group 0.
// A route is classified by its number of local links nl (0..6) and global links ng (0..2); every route
// has exactly two terminal links. Latencies and bottleneck bandwidths for each class are precomputed, so
// route() is a handful of integer divisions and two table loads: no allocation, no shared mutable state.
#include "xsim/netmodel/dragonfly.hpp"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "xsim/units.hpp"

namespace xsim::net {
namespace {

constexpr int kMaxLocal = 6;   // Valiant on a 2-D group: up to 2 local links in each of 3 groups
constexpr int kMaxGlobal = 2;  // Valiant: source -> intermediate -> destination group

uint64_t mix64(uint64_t x) {  // SplitMix64 output function
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

const char* routing_name(DragonflyRouting r) {
  switch (r) {
    case DragonflyRouting::valiant: return "Valiant";
    case DragonflyRouting::ugal_local: return "UGAL-L";
    case DragonflyRouting::ugal_global: return "UGAL-G";
    default: return "minimal";
  }
}

[[noreturn]] void bad(const std::string& what) { throw std::invalid_argument("dragonfly network: " + what); }

// n * t, or infinity when it does not fit.
SimTime times(int n, SimTime t) {
  int64_t r;
  if (__builtin_mul_overflow(static_cast<int64_t>(n), t.ps(), &r) || r == INT64_MAX) return SimTime::infinity();
  return SimTime::from_ps(r);
}
SimTime plus(SimTime x, SimTime y) {
  if (x.is_infinite() || y.is_infinite()) return SimTime::infinity();
  int64_t r;
  if (__builtin_add_overflow(x.ps(), y.ps(), &r) || r == INT64_MAX) return SimTime::infinity();
  return SimTime::from_ps(r);
}

void check_link(const char* name, SimTime latency, uint64_t bandwidth) {
  if (latency <= SimTime::zero() || latency.is_infinite())
    bad(std::string(name) + " link latency must be positive and finite (got " + format_time(latency) +
        "); give e.g. 100ns");
  if (bandwidth == 0) bad(std::string(name) + " link bandwidth must be positive (got 0 bps); give e.g. 40Gbps");
}

class Dragonfly final : public Network {
 public:
  explicit Dragonfly(const DragonflyParams& q) : q_(q) {
    if (q.p < 1) bad("p (endpoints per router) must be at least 1 (got " + std::to_string(q.p) + ")");
    if (q.a < 1) bad("a (routers per group) must be at least 1 (got " + std::to_string(q.a) + ")");
    if (q.h < 1) bad("h (global links per router) must be at least 1 (got " + std::to_string(q.h) + ")");
    if (q.g < 1) bad("g (groups) must be at least 1 (got " + std::to_string(q.g) + ")");
    const int64_t ports = static_cast<int64_t>(q.a) * q.h;
    if (q.g - 1 > ports)
      bad("g = " + std::to_string(q.g) + " groups need " + std::to_string(q.g - 1) +
          " global ports per group (one to each other group), but a*h = " + std::to_string(q.a) + "*" +
          std::to_string(q.h) + " = " + std::to_string(ports) + "; use at most a*h + 1 = " +
          std::to_string(ports + 1) + " groups or raise h to " +
          std::to_string((q.g - 1 + q.a - 1) / q.a));
    const int64_t n = static_cast<int64_t>(q.p) * q.a * q.g;
    if (n > INT32_MAX)
      bad("p*a*g = " + std::to_string(n) + " endpoints is more than the " + std::to_string(INT32_MAX) +
          " supported; use fewer groups or routers");
    if (q.local_columns < 0 || q.local_columns > q.a || (q.local_columns > 0 && q.a % q.local_columns != 0))
      bad("local_columns = " + std::to_string(q.local_columns) + " does not divide a = " + std::to_string(q.a) +
          " routers into a grid; give 0 (all-to-all local links) or a divisor of a, e.g. " +
          std::to_string(q.a) + " (one row)");
    check_link("terminal", q.terminal_latency, q.terminal_bandwidth_bps);
    check_link("local", q.local_latency, q.local_bandwidth_bps);
    check_link("global", q.global_latency, q.global_bandwidth_bps);
    endpoints_ = static_cast<int>(n);
    cols_ = q.local_columns == q.a ? 0 : q.local_columns;  // a single row is the all-to-all group
    valiant_ = q.routing == DragonflyRouting::valiant && q.g >= 3;
    ugal_ = q.routing == DragonflyRouting::ugal_local || q.routing == DragonflyRouting::ugal_global;

    const SimTime terminal2 = times(2, q.terminal_latency);
    for (int nl = 0; nl <= kMaxLocal; ++nl)
      for (int ng = 0; ng <= kMaxGlobal; ++ng)
        latency_[nl][ng] = plus(terminal2, plus(times(nl, q.local_latency), times(ng, q.global_latency)));
    const int max_local = (cols_ > 0 ? 2 : 1) * (valiant_ || ugal_ ? 3 : 2);
    const int max_global = valiant_ || ugal_ ? 2 : 1;
    if (latency_[max_local][max_global].is_infinite())
      bad("link latencies are too large: the longest route (" + std::to_string(max_local) + " local, " +
          std::to_string(max_global) + " global, 2 terminal links) overflows virtual time; give smaller latencies");
    for (int l = 0; l < 2; ++l)
      for (int gl = 0; gl < 2; ++gl) {
        uint64_t b = q.terminal_bandwidth_bps;
        if (l) b = std::min(b, q.local_bandwidth_bps);
        if (gl) b = std::min(b, q.global_bandwidth_bps);
        bandwidth_[l][gl] = b;
      }
  }

  int endpoints() const override { return endpoints_; }

  Route route(int src, int dst) const override { return route_keyed(src, dst, 0); }

  Route route_keyed(int src, int dst, uint64_t key) const override {
    if (static_cast<unsigned>(src) >= static_cast<unsigned>(endpoints_) ||
        static_cast<unsigned>(dst) >= static_cast<unsigned>(endpoints_))
      out_of_range(src, dst);
    if (src == dst) return Route{SimTime::zero(), q_.terminal_bandwidth_bps, 0};
    const int rs = src / q_.p, rd = dst / q_.p;
    int nl = 0, ng = 0;
    if (rs != rd) {
      const int gs = rs / q_.a, ls = rs % q_.a, gd = rd / q_.a, ld = rd % q_.a;
      if (gs == gd) {
        nl = local_distance(ls, ld);
      } else if (!valiant_) {
        nl = local_distance(ls, port_router(gs, gd)) + local_distance(port_router(gd, gs), ld);
        ng = 1;
      } else {
        const int gi = dragonfly_valiant_group(src, dst, key, gs, gd, q_.g);
        nl = local_distance(ls, port_router(gs, gi)) +
             local_distance(port_router(gi, gs), port_router(gi, gd)) +
             local_distance(port_router(gd, gi), ld);
        ng = 2;
      }
    }
    return Route{latency_[nl][ng], bandwidth_[nl > 0][ng > 0], 2 + nl + ng};
  }

  // Links: endpoint e's terminal link up to its router 2e, down from it 2e + 1; then the local links, one
  // per ordered router pair of a group (G, x, y); then the global links, one per ordered group pair. A
  // two-hop local path in a grid goes along the row first, then along the column.
  bool route_links(int src, int dst, uint64_t key, std::vector<Link>& out) const override {
    if (route_keyed(src, dst, key).hops == 0) return true;
    int gi = -1;
    if (valiant_) [[unlikely]]
      gi = dragonfly_valiant_group(src, dst, key, src / q_.p / q_.a, dst / q_.p / q_.a, q_.g);
    append_links(src, dst, gi, out);
    return true;
  }

  RouteRule route_rule() const override {
    if (ugal_) return RouteRule::adaptive;
    return valiant_ ? RouteRule::per_message : RouteRule::fixed;
  }

  // Valiant: the message's own intermediate group. UGAL: the minimal route or one Valiant route, by their
  // queues in virtual time (dragonfly.hpp).
  bool route_links_adaptive(int src, int dst, uint64_t key, uint64_t bytes, int64_t leave_ps, const LinkState& state,
                            std::vector<Link>& out) const override {
    if (!ugal_) return route_links(src, dst, valiant_ ? key : 0, out);
    if (route(src, dst).hops == 0) return true;
    const int gs = src / q_.p / q_.a, gd = dst / q_.p / q_.a;
    const int gi = dragonfly_valiant_group(src, dst, key, gs, gd, q_.g);
    const size_t base = out.size();
    append_links(src, dst, -1, out);
    if (gi < 0) return true;  // inside a group, or no third group: minimal
    const size_t mid = out.size();
    append_links(src, dst, gi, out);
    const auto qmin = static_cast<__int128>(queue(out, base, mid, bytes, leave_ps, state)) * static_cast<__int128>(mid - base);
    const auto qval = static_cast<__int128>(queue(out, mid, out.size(), bytes, leave_ps, state)) * static_cast<__int128>(out.size() - mid);
    if (qmin <= qval) out.resize(mid);
    else out.erase(out.begin() + static_cast<std::ptrdiff_t>(base), out.begin() + static_cast<std::ptrdiff_t>(mid));
    return true;
  }

  uint64_t link_id_bound() const override {
    return global_base() + static_cast<uint64_t>(q_.g) * static_cast<uint64_t>(q_.g);
  }

  SimTime min_latency() const override {
    // p >= 2: two endpoints on one router (two terminal links). Otherwise the cheaper of one local link
    // (any a >= 2 group has a linked pair) and the global links of an inter-group route: one for minimal
    // routing (every pair of groups is linked), two for Valiant (a lower bound: whether some route uses
    // no local link depends on the hash).
    SimTime best = latency_[0][0];
    if (q_.p == 1 && endpoints_ > 1) {
      best = SimTime::infinity();
      if (q_.a >= 2) best = min(best, latency_[1][0]);
      if (q_.g >= 2) best = min(best, latency_[0][valiant_ ? 2 : 1]);
    }
    return best + overheads().send + overheads().recv;
  }

  std::string describe() const override {
    std::string s = "dragonfly, p=" + std::to_string(q_.p) + " a=" + std::to_string(q_.a);
    if (cols_ > 0) s += " (" + std::to_string(q_.a / cols_) + "x" + std::to_string(cols_) + " grid)";
    s += " h=" + std::to_string(q_.h) + " g=" + std::to_string(q_.g) + ", " + std::to_string(endpoints_) +
         (endpoints_ == 1 ? " endpoint" : " endpoints") + ", " +
         routing_name(q_.routing) + " routing, terminal links " +
         format_time(q_.terminal_latency) + " / " + format_bandwidth(q_.terminal_bandwidth_bps) +
         ", local links " + format_time(q_.local_latency) + " / " + format_bandwidth(q_.local_bandwidth_bps) +
         ", global links " + format_time(q_.global_latency) + " / " + format_bandwidth(q_.global_bandwidth_bps);
    s += overheads_suffix();
    return s;
  }

 private:
  // The links from src to dst (distinct endpoints) through intermediate group gi (-1: minimal).
  [[gnu::always_inline]] void append_links(int src, int dst, int gi, std::vector<Link>& out) const {
    const int rs = src / q_.p, rd = dst / q_.p;
    out.push_back({2 * static_cast<uint64_t>(src), q_.terminal_latency, q_.terminal_bandwidth_bps});
    if (rs != rd) {
      const int gs = rs / q_.a, ls = rs % q_.a, gd = rd / q_.a, ld = rd % q_.a;
      if (gs == gd) {
        local_links(gs, ls, ld, out);
      } else {
        int g = gs, at = ls;
        for (const int next : {gi, gd}) {
          if (next < 0) continue;
          local_links(g, at, port_router(g, next), out);
          out.push_back({global_base() + static_cast<uint64_t>(g) * static_cast<uint64_t>(q_.g) + static_cast<uint64_t>(next),
                         q_.global_latency, q_.global_bandwidth_bps});
          at = port_router(next, g);
          g = next;
        }
        local_links(gd, at, ld, out);
      }
    }
    out.push_back({2 * static_cast<uint64_t>(dst) + 1, q_.terminal_latency, q_.terminal_bandwidth_bps});
  }
  // UGAL's queue of the route out[from, to) for a message of `bytes` leaving at `leave`: the wait at the
  // first link out of the source router (UGAL-L), or the longest wait at any link, each taken when the
  // head would reach it on idle links (UGAL-G).
  int64_t queue(const std::vector<Link>& out, size_t from, size_t to, uint64_t bytes, int64_t leave,
                const LinkState& state) const {
    uint64_t bw = UINT64_MAX;
    for (size_t i = from; i < to; ++i) bw = std::min(bw, out[i].bandwidth_bps);
    const int64_t xfer = transfer_time(bytes, bw).ps();
    if (q_.routing == DragonflyRouting::ugal_local)
      return state.wait(out[from + 1].id, leave + out[from].latency.ps(), xfer);
    int64_t head = leave, worst = 0;
    for (size_t i = from; i < to; ++i) {
      worst = std::max(worst, state.wait(out[i].id, head, xfer));
      head += out[i].latency.ps();
    }
    return worst;
  }
  // Local links between routers x and y of one group.
  int local_distance(int x, int y) const {
    if (x == y) return 0;
    if (cols_ == 0) return 1;
    return (x / cols_ == y / cols_ || x % cols_ == y % cols_) ? 1 : 2;
  }
  uint64_t local_id(int group, int x, int y) const {
    return 2 * static_cast<uint64_t>(endpoints_) +
           (static_cast<uint64_t>(group) * static_cast<uint64_t>(q_.a) + static_cast<uint64_t>(x)) * static_cast<uint64_t>(q_.a) +
           static_cast<uint64_t>(y);
  }
  uint64_t global_base() const {
    return 2 * static_cast<uint64_t>(endpoints_) + static_cast<uint64_t>(q_.g) * static_cast<uint64_t>(q_.a) * static_cast<uint64_t>(q_.a);
  }
  // The local links from router x to router y of `group` (local_distance of them).
  void local_links(int group, int x, int y, std::vector<Link>& out) const {
    if (x == y) return;
    if (local_distance(x, y) == 2) {
      const int via = x / cols_ * cols_ + y % cols_;  // x's row, y's column
      out.push_back({local_id(group, x, via), q_.local_latency, q_.local_bandwidth_bps});
      x = via;
    }
    out.push_back({local_id(group, x, y), q_.local_latency, q_.local_bandwidth_bps});
  }
  // Local index of the router of group `from` that holds the global link to group `to` (from != to).
  int port_router(int from, int to) const { return (to < from ? to : to - 1) / q_.h; }

  [[noreturn]] [[gnu::cold]] void out_of_range(int src, int dst) const {
    throw_out_of_range("dragonfly network", src, dst, endpoints_);
  }

  DragonflyParams q_;
  int endpoints_ = 0;
  int cols_ = 0;          // 0: all-to-all group; else grid columns
  bool valiant_ = false;  // Valiant requested and g >= 3
  bool ugal_ = false;     // UGAL-L or UGAL-G requested
  SimTime latency_[kMaxLocal + 1][kMaxGlobal + 1];
  uint64_t bandwidth_[2][2];  // [any local link][any global link]
};

}  // namespace

int dragonfly_valiant_group(int src, int dst, uint64_t key, int src_group, int dst_group, int groups) {
  if (src_group == dst_group || groups <= 2) return -1;
  const uint64_t pair = (static_cast<uint64_t>(static_cast<uint32_t>(src)) << 32) | static_cast<uint32_t>(dst);
  const uint64_t x = mix64(mix64(key) ^ pair);
  int i = static_cast<int>(x % static_cast<uint64_t>(groups - 2));
  const int lo = std::min(src_group, dst_group), hi = std::max(src_group, dst_group);
  if (i >= lo) ++i;
  if (i >= hi) ++i;
  return i;
}

std::unique_ptr<Network> make_dragonfly(const DragonflyParams& params) {
  return std::make_unique<Dragonfly>(params);
}

DragonflyParams aries_dragonfly_params(int groups, DragonflyRouting routing) {
  if (groups < 1 || groups > 241)
    throw std::invalid_argument("Aries dragonfly preset: groups must be in 1..241 (got " + std::to_string(groups) +
                                "); 000 bundles the global links so that at most 241 groups fit");
  DragonflyParams q;
  q.p = 4;
  q.a = 96;
  q.h = 3;
  q.g = groups;
  q.local_columns = 16;
  q.routing = routing;
  q.terminal_latency = SimTime::from_ns(100);
  q.terminal_bandwidth_bps = 128'000'000'000ull;  // 16 GB/s
  q.local_latency = SimTime::from_ns(100);
  q.local_bandwidth_bps = 42'000'000'000ull;      // 5.25 GB/s
  q.global_latency = SimTime::from_ns(100);
  q.global_bandwidth_bps = 37'600'000'000ull;     // 4.7 GB/s
  return q;
}

}  // namespace xsim::net
