// Tree topology: k-ary tree of routers, endpoints at the leaves (004 §III, docs/architecture.md §4). Structure, hop
// formula and entry/exit point are documented in xsim/netmodel/tree.hpp.
#include "xsim/netmodel/tree.hpp"

#include <bit>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>

#include "xsim/netmodel/network.hpp"
#include "xsim/units.hpp"

namespace xsim::net {
namespace {

class Tree final : public Network {
 public:
  Tree(int k, int endpoints, SimTime link_latency, uint64_t link_bandwidth_bps)
      : k_(k), endpoints_(endpoints), link_latency_(link_latency), bandwidth_bps_(link_bandwidth_bps) {
    const std::string what = "tree network";
    if (k < 2)
      throw std::invalid_argument(what + ": arity k must be at least 2 (got " + std::to_string(k) +
                                  "); give e.g. 2 for a binary tree");
    if (endpoints < 1)
      throw std::invalid_argument(what + ": endpoint count must be at least 1 (got " + std::to_string(endpoints) +
                                  "); give the number of endpoints, e.g. one per virtual rank");
    if (link_latency <= SimTime::zero() || link_latency.is_infinite())
      throw std::invalid_argument(what + ": link latency must be positive and finite (got " +
                                  format_time(link_latency) + "); give e.g. 1us");
    if (link_bandwidth_bps == 0)
      throw std::invalid_argument(what + ": link bandwidth must be positive (got 0 bps); give e.g. 1Gbps");
    depth_ = 1;
    for (int64_t leaves = k; leaves < endpoints; leaves *= k) ++depth_;
    const int64_t max_hops = 2 * static_cast<int64_t>(depth_);
    if (link_latency.ps() > (std::numeric_limits<int64_t>::max() - 1) / max_hops)
      throw std::invalid_argument(what + ": link latency " + format_time(link_latency) + " times the longest route (" +
                                  std::to_string(max_hops) + " hops) overflows virtual time; give a smaller latency");
    if (std::has_single_bit(static_cast<unsigned>(k))) log2k_ = std::countr_zero(static_cast<unsigned>(k));
    // First vertex number of each level below the root (route_links): the endpoints' level D has n
    // vertices, level l < D has ceil(n / k^(D - l)) routers.
    level_first_.assign(static_cast<size_t>(depth_) + 1, 0);
    int64_t below = endpoints, first = 0;
    for (int l = depth_; l >= 1; --l) {
      level_first_[static_cast<size_t>(l)] = first;
      first += below;
      below = (below + k - 1) / k;
    }
    vertices_ = first;
  }

  // Links: every vertex v below the root (an endpoint or a router; numbered level by level from the
  // endpoints up) has its uplink to its parent, 2v, and its parent's downlink to it, 2v + 1. The route
  // climbs from src to the lowest common ancestor and descends to dst.
  bool route_links(int src, int dst, uint64_t, std::vector<Link>& out) const override {
    const int up = route(src, dst).hops / 2;
    int64_t s = src, d = dst, down[32];  // depth <= 31: k >= 2 and fewer than 2^31 endpoints
    for (int i = 0, l = depth_; i < up; ++i, --l) {
      out.push_back({2 * static_cast<uint64_t>(level_first_[static_cast<size_t>(l)] + s), link_latency_, bandwidth_bps_});
      down[i] = level_first_[static_cast<size_t>(l)] + d;
      s /= k_;
      d /= k_;
    }
    for (int i = up; i-- > 0;) out.push_back({2 * static_cast<uint64_t>(down[i]) + 1, link_latency_, bandwidth_bps_});
    return true;
  }

  uint64_t link_id_bound() const override {
    return 2 * static_cast<uint64_t>(vertices_);
  }

  int endpoints() const override { return endpoints_; }

  Route route(int src, int dst) const override {
    if (static_cast<unsigned>(src) >= static_cast<unsigned>(endpoints_) ||
        static_cast<unsigned>(dst) >= static_cast<unsigned>(endpoints_))
      out_of_range(src, dst);
    int up = 0;  // levels from the endpoints up to the lowest common ancestor
    if (log2k_ > 0) {
      const int bits = std::bit_width(static_cast<unsigned>(src ^ dst));  // highest differing leaf bit + 1
      up = (bits + log2k_ - 1) / log2k_;
    } else {
      for (unsigned s = static_cast<unsigned>(src), d = static_cast<unsigned>(dst); s != d; ++up) {
        s /= static_cast<unsigned>(k_);
        d /= static_cast<unsigned>(k_);
      }
    }
    const int h = 2 * up;
    return Route{SimTime::from_ps(h * link_latency_.ps()), bandwidth_bps_, h};
  }

  SimTime min_latency() const override {
    return link_latency_ + link_latency_ + overheads().send + overheads().recv;
  }

  std::string describe() const override {
    std::string s = std::to_string(k_) + "-ary tree of depth " + std::to_string(depth_) + ", " +
                    std::to_string(endpoints_) + (endpoints_ == 1 ? " endpoint" : " endpoints") +
                    " at the leaves, link latency " + format_time(link_latency_) + ", link bandwidth " +
                    format_bandwidth(bandwidth_bps_);
    s += overheads_suffix();
    return s;
  }

 private:
  [[noreturn]] [[gnu::cold]] void out_of_range(int src, int dst) const {
    throw_out_of_range("tree network", src, dst, endpoints_);
  }

  int k_;
  int endpoints_;
  SimTime link_latency_;
  uint64_t bandwidth_bps_;
  int depth_ = 1;   // router levels; endpoints are level depth_
  int log2k_ = 0;   // log2(k) when k is a power of two (fast path), else 0
  std::vector<int64_t> level_first_;  // route_links: first vertex number of each level 1..depth_
  int64_t vertices_ = 0;              // vertices below the root
};

}  // namespace

std::unique_ptr<Network> make_tree(int k, int endpoints, SimTime link_latency, uint64_t link_bandwidth_bps) {
  return std::make_unique<Tree>(k, endpoints, link_latency, link_bandwidth_bps);
}

}  // namespace xsim::net
