// Star topology: `endpoints` endpoints around one central switch (004 §III, docs/architecture.md §4).
// Entry/exit point: the switch. Every route between two distinct endpoints is endpoint -> switch ->
// endpoint, i.e. two links of the same latency and bandwidth; a route from an endpoint to itself is empty.
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "xsim/netmodel/network.hpp"
#include "xsim/units.hpp"

namespace xsim::net {
namespace {

class Star final : public Network {
 public:
  Star(int endpoints, SimTime link_latency, uint64_t link_bandwidth_bps)
      : endpoints_(endpoints), link_latency_(link_latency), bandwidth_bps_(link_bandwidth_bps) {
    if (endpoints < 1)
      throw std::invalid_argument("star network: endpoint count must be at least 1 (got " +
                                  std::to_string(endpoints) +
                                  "); give the number of endpoints, e.g. one per virtual rank");
    if (link_latency <= SimTime::zero() || link_latency.is_infinite())
      throw std::invalid_argument("star network: link latency must be positive and finite (got " +
                                  format_time(link_latency) +
                                  "); the simulator needs a positive link latency, e.g. 25us");
    if (link_bandwidth_bps == 0)
      throw std::invalid_argument(
          "star network: link bandwidth must be positive (got 0 bps); give e.g. 1Gbps");
    try {
      route_latency_ = link_latency + link_latency;
    } catch (const std::overflow_error&) {
      throw std::invalid_argument("star network: link latency " + format_time(link_latency) +
                                  " is too large (twice it overflows virtual time); give a smaller latency");
    }
  }

  // Entry/exit point: the switch, one link away from every endpoint.
  Route to_gateway(int) const override { return {link_latency_, bandwidth_bps_, 1}; }
  Route from_gateway(int) const override { return {link_latency_, bandwidth_bps_, 1}; }

  int endpoints() const override { return endpoints_; }

  Route route(int src, int dst) const override {
    if (static_cast<unsigned>(src) >= static_cast<unsigned>(endpoints_) ||
        static_cast<unsigned>(dst) >= static_cast<unsigned>(endpoints_))
      out_of_range(src, dst);
    if (src == dst) return Route{SimTime::zero(), bandwidth_bps_, 0};
    return Route{route_latency_, bandwidth_bps_, 2};
  }

  // Links: endpoint e's uplink to the switch is 2e, the switch's downlink to e is 2e + 1.
  bool route_links(int src, int dst, uint64_t, std::vector<Link>& out) const override {
    if (route(src, dst).hops == 0) return true;
    out.push_back({2 * static_cast<uint64_t>(src), link_latency_, bandwidth_bps_});
    out.push_back({2 * static_cast<uint64_t>(dst) + 1, link_latency_, bandwidth_bps_});
    return true;
  }

  uint64_t link_id_bound() const override { return 2 * static_cast<uint64_t>(endpoints_); }
  bool gateway_links(int e, bool up, std::vector<Link>& out) const override {
    out.push_back({2 * static_cast<uint64_t>(e) + (up ? 0 : 1), link_latency_, bandwidth_bps_});
    return true;
  }

  SimTime min_latency() const override {
    return route_latency_ + overheads().send + overheads().recv;
  }

  std::string describe() const override {
    std::string s = "star, " + std::to_string(endpoints_) + (endpoints_ == 1 ? " endpoint" : " endpoints") +
                    ", link latency " + format_time(link_latency_) + ", link bandwidth " +
                    format_bandwidth(bandwidth_bps_);
    s += overheads_suffix();
    return s;
  }

 private:
  [[noreturn]] [[gnu::cold]] void out_of_range(int src, int dst) const {
    throw_out_of_range("star network", src, dst, endpoints_);
  }

  int endpoints_;
  SimTime link_latency_;
  uint64_t bandwidth_bps_;
  SimTime route_latency_;  // 2 x link latency, precomputed so route() is two compares and a copy
};

}  // namespace

std::unique_ptr<Network> make_star(int endpoints, SimTime link_latency, uint64_t link_bandwidth_bps) {
  return std::make_unique<Star>(endpoints, link_latency, link_bandwidth_bps);
}

}  // namespace xsim::net
