// Ring topology: n endpoints on a cycle, uni- or bidirectional (004 §III, docs/architecture.md §4).
// Entry/exit point: the endpoint itself. Hop formula in xsim/netmodel/ring.hpp.
#include "xsim/netmodel/ring.hpp"

#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>

#include "xsim/netmodel/network.hpp"
#include "xsim/units.hpp"

namespace xsim::net {
namespace {

class Ring final : public Network {
 public:
  Ring(int n, bool bidirectional, SimTime link_latency, uint64_t link_bandwidth_bps)
      : n_(n), bidirectional_(bidirectional), link_latency_(link_latency), bandwidth_bps_(link_bandwidth_bps) {
    const std::string what = bidirectional ? "bidirectional ring network" : "unidirectional ring network";
    if (n < 1)
      throw std::invalid_argument(what + ": endpoint count must be at least 1 (got " + std::to_string(n) +
                                  "); give the number of endpoints, e.g. one per virtual rank");
    if (link_latency <= SimTime::zero() || link_latency.is_infinite())
      throw std::invalid_argument(what + ": link latency must be positive and finite (got " +
                                  format_time(link_latency) + "); give e.g. 1us");
    if (link_bandwidth_bps == 0)
      throw std::invalid_argument(what + ": link bandwidth must be positive (got 0 bps); give e.g. 1Gbps");
    const int64_t max_hops = bidirectional ? n / 2 : n - 1;
    if (max_hops > 0 && link_latency.ps() > (std::numeric_limits<int64_t>::max() - 1) / max_hops)
      throw std::invalid_argument(what + ": link latency " + format_time(link_latency) + " times the longest route (" +
                                  std::to_string(max_hops) + " hops) overflows virtual time; give a smaller latency");
  }

  int endpoints() const override { return n_; }

  Route route(int src, int dst) const override {
    if (static_cast<unsigned>(src) >= static_cast<unsigned>(n_) ||
        static_cast<unsigned>(dst) >= static_cast<unsigned>(n_))
      out_of_range(src, dst);
    int h = dst - src;
    if (h < 0) h += n_;
    if (bidirectional_ && n_ - h < h) h = n_ - h;
    return Route{SimTime::from_ps(h * link_latency_.ps()), bandwidth_bps_, h};
  }

  // Links: 2i from endpoint i to i + 1 (mod n), 2i + 1 from i to i - 1. The route goes the way route()
  // counts: forward, or backward on a bidirectional ring when that is strictly shorter.
  bool route_links(int src, int dst, uint64_t, std::vector<Link>& out) const override {
    const int h = route(src, dst).hops;
    const bool backward = bidirectional_ && h != (dst - src + n_) % n_;
    for (int k = 0, at = src; k < h; ++k) {
      out.push_back({2 * static_cast<uint64_t>(at) + (backward ? 1 : 0), link_latency_, bandwidth_bps_});
      at = backward ? (at == 0 ? n_ - 1 : at - 1) : (at + 1 == n_ ? 0 : at + 1);
    }
    return true;
  }

  uint64_t link_id_bound() const override { return 2 * static_cast<uint64_t>(n_); }

  SimTime min_latency() const override { return link_latency_ + overheads().send + overheads().recv; }

  std::string describe() const override {
    std::string s = std::string(bidirectional_ ? "bidirectional" : "unidirectional") + " ring, " +
                    std::to_string(n_) + (n_ == 1 ? " endpoint" : " endpoints") + ", link latency " +
                    format_time(link_latency_) + ", link bandwidth " + format_bandwidth(bandwidth_bps_);
    s += overheads_suffix();
    return s;
  }

 private:
  [[noreturn]] [[gnu::cold]] void out_of_range(int src, int dst) const {
    throw_out_of_range("ring network", src, dst, n_);
  }

  int n_;
  bool bidirectional_;
  SimTime link_latency_;
  uint64_t bandwidth_bps_;
};

}  // namespace

std::unique_ptr<Network> make_ring(int n, bool bidirectional, SimTime link_latency, uint64_t link_bandwidth_bps) {
  return std::make_unique<Ring>(n, bidirectional, link_latency, link_bandwidth_bps);
}

}  // namespace xsim::net
