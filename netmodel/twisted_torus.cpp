// Twisted torus topology (004 §III, DESIGN.md §4). The link set and the routing rule (a minimum over a
// documented family of paths, computed exactly for that family) are specified in
// xsim/netmodel/twisted_torus.hpp and docs/network-topologies.md. Entry/exit point: the endpoint itself.
#include "xsim/netmodel/twisted_torus.hpp"

#include <array>
#include <limits>
#include <climits>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "xsim/netmodel/mesh_torus.hpp"
#include "xsim/netmodel/network.hpp"
#include "xsim/units.hpp"

namespace xsim::net {
namespace {

constexpr int kMaxDims = 6;

// Hops to walk dimension of size m from coordinate p to q crossing its wrap link c times (c in -1..1).
inline int walk(int m, int p, int q, int c) {
  if (c == 0) return p < q ? q - p : p - q;
  return c > 0 ? m - p + q : m + p - q;
}

class TwistedTorus final : public Network {
 public:
  TwistedTorus(std::vector<int> dims, std::vector<int> wrap, int degree, std::vector<int> jump,
               SimTime link_latency, uint64_t link_bandwidth_bps)
      : dims_(std::move(dims)), wrap_(std::move(wrap)), jump_(std::move(jump)), degree_(degree),
        link_latency_(link_latency), bandwidth_bps_(link_bandwidth_bps) {
    const std::string what = "twisted torus network";
    endpoints_ = detail::checked_grid_size(what, dims_);
    detail::check_wrap(what, dims_, wrap_);
    nd_ = static_cast<int>(dims_.size());
    if (nd_ > kMaxDims)
      throw std::invalid_argument(what + ": " + std::to_string(nd_) + " dimensions given; at most " +
                                  std::to_string(kMaxDims) +
                                  " are supported (the route search grows as 3^D); use a torus for more");
    if (degree < 0 || degree >= nd_)
      throw std::invalid_argument(what + ": toroidal degree must be in 0.." + std::to_string(nd_ - 1) +
                                  " for a " + std::to_string(nd_) + "-dimensional network (got " +
                                  std::to_string(degree) + "); 0 means no twist (plain torus)");
    if (jump_.size() != dims_.size())
      throw std::invalid_argument(what + ": jump vector [" + detail::join(jump_, ", ") + "] has " +
                                  std::to_string(jump_.size()) + " entries but the network has " +
                                  std::to_string(nd_) + " dimensions; give one jump per dimension");
    int64_t max_hops = 0;  // the route is never longer than the mesh route
    for (int d = 0; d < nd_; ++d) max_hops += dims_[d] - 1;
    detail::check_links(what, link_latency_, bandwidth_bps_, max_hops);

    for (int d = 0; d < nd_; ++d) {
      m_[d] = dims_[d];
      wrapped_[d] = wrap_[d] != 0;
      const int t = (d + degree_) % nd_;
      from_[t] = d;
      int j = 0;
      if (wrapped_[d] && t != d) {
        j = jump_[d] % dims_[t];
        if (j < 0) j += dims_[t];
      }
      jmod_[d] = j;
      if (j != 0) twisted_ = true;
    }
    // Cycles of d -> (d + degree) mod D, each listed in order.
    std::array<bool, kMaxDims> seen{};
    for (int d = 0; d < nd_; ++d) {
      if (seen[d]) continue;
      cycle_start_[ncycles_++] = order_len_;
      for (int e = d; !seen[e]; e = (e + degree_) % nd_) {
        seen[e] = true;
        order_[order_len_++] = e;
      }
    }
    cycle_start_[ncycles_] = order_len_;
    if (twisted_ && endpoints_ <= kTableMaxEndpoints) build_distance_table();
  }

  int endpoints() const override { return endpoints_; }

  Route route(int src, int dst) const override {
    if (static_cast<unsigned>(src) >= static_cast<unsigned>(endpoints_) ||
        static_cast<unsigned>(dst) >= static_cast<unsigned>(endpoints_))
      out_of_range(src, dst);
    if (src == dst) return Route{SimTime::zero(), bandwidth_bps_, 0};
    std::array<int, kMaxDims> a, b, c;
    int s = src, t = dst;
    for (int d = 0; d < nd_; ++d) {
      a[d] = s % m_[d];
      b[d] = t % m_[d];
      s /= m_[d];
      t /= m_[d];
    }
    if (!table_.empty()) {
      int hops = table_[static_cast<size_t>(src) * static_cast<size_t>(endpoints_) + static_cast<size_t>(dst)];
      return Route{SimTime::from_ps(hops * link_latency_.ps()), bandwidth_bps_, hops};
    }
    int h = 0;
    if (!twisted_) {
      for (int d = 0; d < nd_; ++d) {
        int delta = a[d] < b[d] ? b[d] - a[d] : a[d] - b[d];
        if (wrapped_[d] && m_[d] - delta < delta) delta = m_[d] - delta;
        h += delta;
      }
    } else {
      // cost[d][c_from + 1][c_d + 1] = {before, after}: hops of dimension d for crossing count c_d when the
      // dimension twisting into d crosses c_from times and is traversed before / after d.
      Costs cost;
      for (int d = 0; d < nd_; ++d) {
        const int m = m_[d], f = from_[d];
        for (int cf = -1; cf <= 1; ++cf) {
          const int r = cf == 0 ? 0 : (cf > 0 ? jmod_[f] : (m - jmod_[f]) % m);  // shift into d
          int ad = a[d] + r;
          if (ad >= m) ad -= m;
          int bd = b[d] - r;
          if (bd < 0) bd += m;
          for (int cd = -1; cd <= 1; ++cd) {
            if (cd != 0 && !wrapped_[d]) continue;
            cost[d][cf + 1][cd + 1][0] = walk(m, ad, b[d], cd);
            cost[d][cf + 1][cd + 1][1] = r == 0 ? cost[d][cf + 1][cd + 1][0] : walk(m, a[d], bd, cd);
          }
        }
      }
      for (int d = 0; d < nd_; ++d) c[d] = wrapped_[d] ? -1 : 0;
      h = INT_MAX;
      for (;;) {
        const int total = family_cost(cost, c);
        if (total < h) h = total;
        int d = 0;  // next crossing vector (odometer over the wrapped dimensions)
        for (; d < nd_; ++d) {
          if (!wrapped_[d]) continue;
          if (c[d] < 1) {
            ++c[d];
            break;
          }
          c[d] = -1;
        }
        if (d == nd_) break;
      }
    }
    return Route{SimTime::from_ps(h * link_latency_.ps()), bandwidth_bps_, h};
  }

  SimTime min_latency() const override { return link_latency_ + overheads().send + overheads().recv; }

  std::string describe() const override {
    std::string s = "twisted torus " + detail::join(dims_, "x") + " (wrap " + detail::join(wrap_, ",") +
                    ", degree " + std::to_string(degree_) + ", jump " + detail::join(jump_, ",") + "), " +
                    std::to_string(endpoints_) + (endpoints_ == 1 ? " endpoint" : " endpoints") +
                    ", link latency " + format_time(link_latency_) + ", link bandwidth " +
                    format_bandwidth(bandwidth_bps_);
    s += overheads_suffix();
    return s;
  }

 private:
  using Costs = std::array<std::array<std::array<std::array<int, 2>, 3>, 3>, kMaxDims>;

  // Shortest path of the family for one crossing vector c: every dimension picks independently whether
  // the dimension twisting into it is traversed before it or after it; on a cycle of the degree
  // permutation where every member is twisted and all picks agree (a cyclic order), the cheapest pick flips.
  int family_cost(const Costs& cost, const std::array<int, kMaxDims>& c) const {
    int total = 0;
    for (int k = 0; k < ncycles_; ++k) {
      bool all_twisted = true, any_before = false, any_after = false;
      int penalty = INT_MAX;
      for (int i = cycle_start_[k]; i < cycle_start_[k + 1]; ++i) {
        const int d = order_[i], f = from_[d];
        const std::array<int, 2>& ba = cost[d][c[f] + 1][c[d] + 1];
        const int before = ba[0], after = ba[1];
        if (c[f] == 0 || jmod_[f] == 0) {  // no shift into d: the order does not matter
          all_twisted = false;
          total += before;
        } else if (before <= after) {
          total += before;
          any_before = true;
          if (after - before < penalty) penalty = after - before;
        } else {
          total += after;
          any_after = true;
          if (before - after < penalty) penalty = before - after;
        }
      }
      if (all_twisted && any_before != any_after) total += penalty;
    }
    return total;
  }

  [[noreturn]] [[gnu::cold]] void out_of_range(int src, int dst) const {
    throw_out_of_range("twisted torus network", src, dst, endpoints_);
  }

  // Up to kTableMaxEndpoints endpoints the exact hop count of every pair is precomputed by breadth-first
  // search over the link set (at most 8 MiB): route() is then exact and a single lookup. Larger networks
  // use the path-family search below.
  static constexpr int kTableMaxEndpoints = 2048;
  void build_distance_table() {
    const size_t n = static_cast<size_t>(endpoints_);
    std::array<int, kMaxDims> stride{};
    for (int d = 0, st = 1; d < nd_; ++d) {
      stride[d] = st;
      st *= m_[d];
    }
    auto coord = [&](int node, int d) { return node / stride[d] % m_[d]; };
    auto step = [&](int node, int d, int dir) {  // the neighbour one link away in dimension d, or -1
      int x = coord(node, d);
      int t = (d + degree_) % nd_;
      if (dir > 0 && x + 1 < m_[d]) return node + stride[d];
      if (dir < 0 && x > 0) return node - stride[d];
      if (!wrapped_[d]) return -1;
      int moved = node + (dir > 0 ? -x : m_[d] - 1 - x) * stride[d];  // across the wrap link
      if (t != d && jmod_[d] != 0) {
        int xt = coord(moved, t);
        int yt = ((xt + dir * jmod_[d]) % m_[t] + m_[t]) % m_[t];
        moved += (yt - xt) * stride[t];
      }
      return moved == node ? -1 : moved;
    };
    table_.assign(n * n, std::numeric_limits<uint16_t>::max());
    std::vector<int> queue(n);
    for (size_t s = 0; s < n; ++s) {
      uint16_t* dist = &table_[s * n];
      size_t head = 0, tail = 0;
      dist[s] = 0;
      queue[tail++] = static_cast<int>(s);
      while (head < tail) {
        int u = queue[head++];
        for (int d = 0; d < nd_; ++d)
          for (int dir : {1, -1}) {
            int v = step(u, d, dir);
            if (v >= 0 && dist[v] == std::numeric_limits<uint16_t>::max()) {
              dist[v] = static_cast<uint16_t>(dist[u] + 1);
              queue[tail++] = v;
            }
          }
      }
    }
  }
  std::vector<uint16_t> table_;

  std::vector<int> dims_, wrap_, jump_;
  int degree_;
  SimTime link_latency_;
  uint64_t bandwidth_bps_;
  int endpoints_ = 0;
  int nd_ = 0;
  bool twisted_ = false;                 // some wrap link shifts its target dimension
  std::array<int, kMaxDims> m_{};        // sizes
  std::array<bool, kMaxDims> wrapped_{};
  std::array<int, kMaxDims> jmod_{};     // shift of d's wrap in its target dimension, in 0..m_t-1
  std::array<int, kMaxDims> from_{};     // the dimension whose wrap shifts d
  std::array<int, kMaxDims> order_{};    // dimensions grouped by cycle of d -> (d + degree) mod D
  std::array<int, kMaxDims + 1> cycle_start_{};
  int order_len_ = 0, ncycles_ = 0;
};

}  // namespace

std::unique_ptr<Network> make_twisted_torus(std::vector<int> dims, std::vector<int> wrap, int degree,
                                            std::vector<int> jump, SimTime link_latency,
                                            uint64_t link_bandwidth_bps) {
  return std::make_unique<TwistedTorus>(std::move(dims), std::move(wrap), degree, std::move(jump), link_latency,
                                        link_bandwidth_bps);
}

}  // namespace xsim::net
