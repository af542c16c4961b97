// Network: the analytic message-latency model L = sum of link latencies on the route + size / b_min
// (+ per-message overheads, default 0) of docs/architecture.md §4. Layer: netmodel (pure library: no MPI, no fibers,
// no TOML). Endpoints are numbered 0..endpoints()-1. Objects are immutable after construction and safe to
// query from any thread. A latency query must be cheap (it runs once per simulated message).
#pragma once
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "xsim/simtime.hpp"

namespace xsim::net {

// The route between two endpoints as the model sees it.
struct Route {
  SimTime latency;              // sum of the link latencies along the route
  uint64_t min_bandwidth_bps;   // smallest link bandwidth along the route (bits per second)
  int hops;                     // number of links traversed (0 for src == dst)
  // Links traversed on each level of a hierarchy, outermost first (single networks fill level 0).
  static constexpr int kMaxLevels = 6;
  int level_hops[kMaxLevels] = {0, 0, 0, 0, 0, 0};
};

// One directed link of a route, for link-level contention (libxsim's `-xsim-contention links`,
// docs/network-model.md "Link contention"). Ids are unique within one network object and the same for every
// query; two routes share a link exactly when they list the same id.
struct Link {
  uint64_t id;
  SimTime latency;
  uint64_t bandwidth_bps;
};

// What adaptive routing may ask about the links (docs/network-model.md "Adaptive routing"): their state in
// virtual time, as libxsim's link contention knows it when it places a flow (every flow that left before it
// placed, the same in every native process).
class LinkState {
 public:
  // How long a flow whose head reaches link `id` at `head_ps` and holds it for `xfer_ps` would wait there
  // for the flows placed before it (0: the link is free for it then).
  virtual int64_t wait(uint64_t id, int64_t head_ps, int64_t xfer_ps) const = 0;

 protected:
  ~LinkState() = default;
};

// How a topology's route_links_adaptive chooses: `fixed` (route_links(src, dst, 0), the default),
// `per_message` (a route per message key, e.g. dragonfly Valiant), `adaptive` (by the links' state: UGAL,
// a fat tree's up-port choice; needs link contention).
enum class RouteRule { fixed, per_message, adaptive };

// Per-message overheads added to every message between distinct endpoints (default 0).
struct Overheads {
  SimTime send;  // o_s: charged on the send side of every message
  SimTime recv;  // o_r: charged on the receive side of every message
};

// A size band (calibration's piecewise corrections, docs/network-model.md "Size bands"): messages of at
// least `from` bytes, up to the next band's `from`, have their route latency multiplied by `latency` and
// their route's bottleneck bandwidth by `bandwidth`. latency >= 1, so that the smallest latency of the
// network stays its min_latency() (the simulator's lookahead); bandwidth > 0.
struct SizeBand {
  uint64_t from = 0;
  double latency = 1.0;
  double bandwidth = 1.0;
  bool operator==(const SizeBand&) const = default;
};

class Network {
 public:
  virtual ~Network() = default;
  virtual int endpoints() const = 0;
  virtual Route route(int src, int dst) const = 0;
  // The route of one particular message, identified by `key` (any value that is the same for every query
  // about that message, e.g. a per-message sequence number). Topologies whose route depends on more than
  // the endpoints (dragonfly Valiant routing picks an intermediate group from a hash of src, dst and key)
  // override this; the default ignores the key. Same thread-safety and cost rules as route().
  virtual Route route_keyed(int src, int dst, uint64_t key) const {
    (void)key;
    return route(src, dst);
  }
  // The links of route_keyed(src, dst, key) in the order a message crosses them, appended to `out`; their
  // count is the route's hops, their latencies add up to its latency and the smallest bandwidth is its
  // min_bandwidth_bps. Returns false (appending nothing) when the topology does not list its links (the
  // default): link contention then refuses the network.
  virtual bool route_links(int src, int dst, uint64_t key, std::vector<Link>& out) const {
    (void)src, (void)dst, (void)key, (void)out;
    return false;
  }
  // The rule route_links_adaptive follows (default: fixed).
  virtual RouteRule route_rule() const { return RouteRule::fixed; }
  // The links of the route that a message of `bytes` leaving its source at `leave_ps` takes, chosen by the
  // topology's rule from `key` (any value unique to the message) and the links' `state`; appended to `out`.
  // route(src, dst) stays the uncontended route a message is timed by before its links are known (for
  // adaptive rules, the minimal one). Default: route_links(src, dst, 0, out).
  virtual bool route_links_adaptive(int src, int dst, uint64_t key, uint64_t bytes, int64_t leave_ps,
                                    const LinkState& state, std::vector<Link>& out) const {
    (void)key, (void)bytes, (void)leave_ps, (void)state;
    return route_links(src, dst, 0, out);
  }
  // Every link id route_links gives is below this bound (0 when it lists none).
  virtual uint64_t link_id_bound() const { return 0; }
  // The links of to_gateway(e) (up) or from_gateway(e) (down), as route_links lists them: by default those
  // of the route from or to endpoint 0.
  virtual bool gateway_links(int e, bool up, std::vector<Link>& out) const {
    return up ? route_links(e, 0, 0, out) : route_links(0, e, 0, out);
  }
  // Smallest latency between any two distinct endpoints (for a zero-byte message, overheads included).
  // The simulator's lookahead; always > 0 for a valid network.
  virtual SimTime min_latency() const = 0;
  // The routes between endpoint `e` and this network's entry/exit point: where the network attaches to
  // the enclosing level of a hierarchy. Default: endpoint 0 holds the uplink. Topologies with a natural
  // gateway router (the star's switch) override both.
  virtual Route to_gateway(int e) const { return route(e, 0); }
  virtual Route from_gateway(int e) const { return route(0, e); }
  // One line, e.g. "star, 4096 endpoints, link latency 25 us, link bandwidth 1 Gbps".
  virtual std::string describe() const = 0;

  void set_overheads(Overheads o) { overheads_ = o; }
  // Sorted by `from`, strictly increasing; throws std::invalid_argument otherwise or for a factor out of
  // range. Empty (the default): no correction.
  void set_size_bands(std::vector<SizeBand> bands);
  const std::vector<SizeBand>& size_bands() const { return bands_; }
  // The latency of `bytes` over route `r` without the overheads, size bands applied; `*transfer` gets its
  // transfer part (bytes over the bottleneck bandwidth).
  SimTime route_latency(const Route& r, uint64_t bytes, SimTime* transfer) const {
    if (bands_.empty()) [[likely]] {
      *transfer = transfer_time(bytes, r.min_bandwidth_bps);
      return r.latency + *transfer;
    }
    return banded_latency(r, bytes, transfer);
  }
  // ", send overhead X, receive overhead Y" when either is set, else "" (the tail of describe()).
  std::string overheads_suffix() const;
  // Throws std::out_of_range naming the network (e.g. "ring network") and the valid endpoint range.
  [[noreturn]] [[gnu::cold]] static void throw_out_of_range(const char* network, int src, int dst, int endpoints);
  const Overheads& overheads() const { return overheads_; }

  // L(src, dst, bytes) = route latency + ceil(8 * bytes / b_min) + overheads. src == dst costs 0.
  SimTime message_latency(int src, int dst, uint64_t bytes) const {
    if (src == dst) return SimTime::zero();
    Route r = route(src, dst);
    SimTime x;
    return route_latency(r, bytes, &x) + overheads_.send + overheads_.recv;
  }
  // The last transfer time a caller asked for: most messages of a run share their size and bandwidth, so
  // the overload below skips transfer_time's 128-bit division for them (same result). Owned by one caller.
  struct TransferMemo {
    uint64_t bytes = 0, bps = 0;  // bps == 0: empty (bandwidths are positive)
    SimTime time;
    SimTime get(uint64_t b, uint64_t bw) {
      if (b != bytes || bw != bps) [[unlikely]] {
        time = transfer_time(b, bw);
        bytes = b;
        bps = bw;
      }
      return time;
    }
  };
  // As above, with the transfer time taken from `memo` when it holds it.
  SimTime message_latency(int src, int dst, uint64_t bytes, TransferMemo& memo) const {
    if (src == dst) return SimTime::zero();
    Route r = route(src, dst);
    if (!bands_.empty()) [[unlikely]] {
      SimTime x;
      return banded_latency(r, bytes, &x) + overheads_.send + overheads_.recv;
    }
    return r.latency + memo.get(bytes, r.min_bandwidth_bps) + overheads_.send + overheads_.recv;
  }
  // As above, but over route_keyed(src, dst, key): the latency of one identified message.
  SimTime message_latency(int src, int dst, uint64_t bytes, uint64_t key) const {
    if (src == dst) return SimTime::zero();
    Route r = route_keyed(src, dst, key);
    SimTime x;
    return route_latency(r, bytes, &x) + overheads_.send + overheads_.recv;
  }
  // Time to push `bytes` through a link of `bps` bits per second, rounded up to a whole picosecond.
  static SimTime transfer_time(uint64_t bytes, uint64_t bps) {
    unsigned __int128 bits_ps = static_cast<unsigned __int128>(bytes) * 8u * 1'000'000'000'000ull;
    unsigned __int128 ps = (bits_ps + bps - 1) / bps;
    if (ps >= static_cast<unsigned __int128>(INT64_MAX)) [[unlikely]]
      transfer_overflow(bytes, bps);
    return SimTime::from_ps(static_cast<int64_t>(ps));
  }
  // Out of line, so that transfer_time stays small enough to be inlined into every message's cost.
  [[noreturn, gnu::cold, gnu::noinline]] static void transfer_overflow(uint64_t bytes, uint64_t bps) {
    throw std::overflow_error("virtual time overflow: a message of " + std::to_string(bytes) + " bytes over " +
                              std::to_string(bps) + " bit/s takes longer than the virtual clock's range (106 days)");
  }

 private:
  SimTime banded_latency(const Route& r, uint64_t bytes, SimTime* transfer) const;
  Overheads overheads_{};
  std::vector<SizeBand> bands_;
};

// Star of `endpoints` endpoints around one central switch: every route between distinct endpoints is
// two links (endpoint -> switch -> endpoint), so L = 2 * link_latency + 8s / bandwidth (004 §III).
// Throws std::invalid_argument for endpoints < 1, latency <= 0 or bandwidth == 0.
std::unique_ptr<Network> make_star(int endpoints, SimTime link_latency, uint64_t link_bandwidth_bps);

}  // namespace xsim::net
