// Fat tree: m-port n-tree (Lin, Chung, Huang 2004; 000 §VI; docs/architecture.md §4). Numbering, link pattern and
// routing rule are documented in xsim/netmodel/fat_tree.hpp and docs/network-topologies.md.
// Entry/exit point (for a hierarchy of networks): top-level switch <0...0, 0>.
// route() finds the number of trailing base-k digits in which src and dst differ (at most n - 1
// divisions) and reads the precomputed latency of that many links: no allocation, no shared mutable state.
#include "xsim/netmodel/fat_tree.hpp"

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "xsim/units.hpp"

namespace xsim::net {
namespace {

[[noreturn]] void bad(const std::string& what) { throw std::invalid_argument("fat tree network: " + what); }

class FatTree final : public Network {
 public:
  FatTree(int m, int n, SimTime link_latency, uint64_t link_bandwidth_bps, bool adaptive)
      : m_(m), n_(n), adaptive_(adaptive), link_latency_(link_latency), bandwidth_bps_(link_bandwidth_bps) {
    if (m < 2 || m % 2 != 0)
      bad("m (ports per switch) must be even and at least 2 (got " + std::to_string(m) + "); give e.g. " +
          std::to_string(m < 2 ? 4 : m + 1));
    if (n < 1 || n > 32)
      bad("n (tree levels) must be in 1..32 (got " + std::to_string(n) + "); a fat tree of 2 to 4 levels is typical");
    const int64_t k = m / 2;
    int64_t kn1 = 1;  // k^(n-1)
    for (int i = 1; i < n; ++i) {
      kn1 *= k;
      if (2 * k * kn1 > INT32_MAX) break;
    }
    if (2 * k * kn1 > INT32_MAX || static_cast<int64_t>(2 * n - 1) * kn1 > INT32_MAX)
      bad(std::to_string(m) + "-port " + std::to_string(n) + "-tree has more than " + std::to_string(INT32_MAX) +
          " endpoints (2*(m/2)^n); use fewer ports or levels");
    if (link_latency <= SimTime::zero() || link_latency.is_infinite())
      bad("link latency must be positive and finite (got " + format_time(link_latency) + "); give e.g. 700ns");
    if (link_bandwidth_bps == 0) bad("link bandwidth must be positive (got 0 bps); give e.g. 56Gbps");
    if (link_latency.ps() > INT64_MAX / 2 / n - 1)
      bad("link latency " + format_time(link_latency) + " is too large (2n links overflow virtual time)");
    endpoints_ = static_cast<int>(2 * k * kn1);
    switches_ = static_cast<int>((2 * n - 1) * kn1);
    // divisor_[j] = k^(j+1) for j = 0..n-2 (see route()).
    int64_t d = 1;
    for (int j = 1; j < n; ++j) {
      d *= k;
      divisor_.push_back(static_cast<int>(d));
    }
    for (int links = 0; links <= 2 * n; ++links)
      latency_.push_back(SimTime::from_ps(link_latency.ps() * links));
  }

  int endpoints() const override { return endpoints_; }
  int switches() const { return switches_; }

  Route route(int src, int dst) const override {
    if (static_cast<unsigned>(src) >= static_cast<unsigned>(endpoints_) ||
        static_cast<unsigned>(dst) >= static_cast<unsigned>(endpoints_))
      out_of_range(src, dst);
    if (src == dst) return Route{SimTime::zero(), bandwidth_bps_, 0};
    // src and dst share all digits above the lowest j base-k digits iff src / k^j == dst / k^j; the
    // smallest such j (1..n-1) is the height of their lowest common switch level; none means n (the top).
    int height = n_;
    for (int j = 0; j + 1 < n_; ++j)
      if (src / divisor_[static_cast<size_t>(j)] == dst / divisor_[static_cast<size_t>(j)]) {
        height = j + 1;
        break;
      }
    const int links = 2 * height;
    return Route{latency_[static_cast<size_t>(links)], bandwidth_bps_, links};
  }

  // The static route: up*/down*, each up port chosen by the destination's digits (walk, below).
  bool route_links(int src, int dst, uint64_t, std::vector<Link>& out) const override {
    walk(src, dst, out, [](int, int d, int64_t, const int*) { return d; });
    return true;
  }

  RouteRule route_rule() const override { return adaptive_ ? RouteRule::adaptive : RouteRule::fixed; }

  // Adaptive up-port choice: each switch on the way up sends the message out of the up link on which it
  // would wait least, taken when its head gets there on idle links; ties go to the static (d-mod-k) port,
  // then to the next ports in increasing order, wrapping. The way down follows (one path from the switch
  // reached). On idle links this is the static route.
  bool route_links_adaptive(int src, int dst, uint64_t key, uint64_t bytes, int64_t leave_ps, const LinkState& state,
                            std::vector<Link>& out) const override {
    if (!adaptive_) return route_links(src, dst, key, out);
    const int64_t xfer = transfer_time(bytes, bandwidth_bps_).ps();
    const int k = m_ / 2;
    walk(src, dst, out, [&](int l, int d, int64_t head, const int* w) {
      int best = d;
      int64_t least = INT64_MAX;
      for (int i = 0; i < k && least > 0; ++i) {
        const int c = (d + i) % k;
        const int64_t q = state.wait(switch_link(l + 1, w, c, false), leave_ps + head, xfer);
        if (q < least) least = q, best = c;
      }
      return best;
    });
    return true;
  }

  uint64_t link_id_bound() const override {
    return 2 * static_cast<uint64_t>(endpoints_) + 2 * static_cast<uint64_t>(switches_) * static_cast<uint64_t>(m_ / 2);
  }

  SimTime min_latency() const override {
    // k >= 2 or n == 1: two endpoints under one leaf switch (2 links); k == 1 (m = 2) and n > 1: the two
    // endpoints meet only at the top (2n links).
    const int links = (m_ > 2 || n_ == 1) ? 2 : 2 * n_;
    return latency_[static_cast<size_t>(links)] + overheads().send + overheads().recv;
  }

  std::string describe() const override {
    std::string s = "fat tree, " + std::to_string(m_) + "-port " + std::to_string(n_) + "-tree, " +
                    std::to_string(endpoints_) + " endpoints, " + std::to_string(switches_) +
                    (switches_ == 1 ? " switch" : " switches") + (adaptive_ ? ", adaptive up*/down* routing" : ", up*/down* routing") + ", link latency " +
                    format_time(link_latency_) + ", link bandwidth " + format_bandwidth(bandwidth_bps_);
    s += overheads_suffix();
    return s;
  }

 private:
  [[noreturn]] [[gnu::cold]] void out_of_range(int src, int dst) const {
    throw_out_of_range("fat tree network", src, dst, endpoints_);
  }

  // The route's links (docs/network-topologies.md "Fat tree"): endpoint e's link up to its leaf switch is
  // 2e, down from it 2e + 1. A switch of level l >= 1 has k up links, one per value c of the digit w_(l-1)
  // its parent on level l - 1 has: up 2E + 2(s * k + c), down that plus one, where s numbers the switches
  // level by level (level 0 first; within a level by w read as a mixed-radix number, w0 most significant).
  // Up from the source's leaf switch to the lowest common level t, each step up from level l + 1 to l
  // setting w_l to choose(l, d, head, w): d is the destination's digit p_(l+1) (the static rule: routes to
  // one destination converge, as d-mod-k), head the time since the message left at which it reaches that up
  // link on idle links, w the digits of the switch it leaves. Then down, each step from l to l + 1 setting
  // w_l to the destination's p_l.
  template <class Choose>
  void walk(int src, int dst, std::vector<Link>& out, Choose&& choose) const {
    const int links = route(src, dst).hops;
    if (links == 0) return;
    const int t = n_ - links / 2;  // the turning level
    int ps[32], pd[32], w[32];
    digits(src, ps);
    digits(dst, pd);
    for (int i = 0; i + 1 < n_; ++i) w[i] = ps[i];  // the source's leaf switch <(p0..p(n-2)), n-1>
    out.push_back({2 * static_cast<uint64_t>(src), link_latency_, bandwidth_bps_});
    int64_t head = link_latency_.ps();
    for (int l = n_ - 2; l >= t; --l) {  // up from level l + 1 to l
      const int c = choose(l, pd[l + 1], head, static_cast<const int*>(w));
      out.push_back({switch_link(l + 1, w, c, false), link_latency_, bandwidth_bps_});
      w[l] = c;
      head += link_latency_.ps();
    }
    for (int l = t; l <= n_ - 2; ++l) {  // down from level l to l + 1: the child's w_l is the destination's
      const int c = w[l];                 // the parent's own digit: which of the child's up links this is
      w[l] = pd[l];
      out.push_back({switch_link(l + 1, w, c, true), link_latency_, bandwidth_bps_});
    }
    out.push_back({2 * static_cast<uint64_t>(dst) + 1, link_latency_, bandwidth_bps_});
  }
  // e's digits p0 (0..m-1), p1..p(n-1) (0..k-1), most significant first.
  void digits(int e, int* p) const {
    const int k = m_ / 2;
    for (int i = n_ - 1; i >= 1; --i) {
      p[i] = e % k;
      e /= k;
    }
    p[0] = e;
  }
  // The link between switch <w, l> (l >= 1) and its parent on level l - 1 whose digit w_(l-1) is c: the
  // up link, or the down link into <w, l>.
  uint64_t switch_link(int l, const int* w, int c, bool down) const {
    const int64_t k = m_ / 2;
    int64_t index = 0;  // w0 .. w(n-2) as a mixed-radix number (w0 in 0..m-1 below the top)
    for (int i = 0; i + 1 < n_; ++i) index = index * (i == 0 ? 2 * k : k) + w[i];
    int64_t kn1 = 1;
    for (int i = 1; i < n_; ++i) kn1 *= k;
    const int64_t s = kn1 + static_cast<int64_t>(l - 1) * 2 * kn1 + index;  // level 0 holds k^(n-1) switches
    return 2 * static_cast<uint64_t>(endpoints_) + 2 * static_cast<uint64_t>(s * k + c) + (down ? 1 : 0);
  }

  int m_, n_;
  bool adaptive_ = false;
  SimTime link_latency_;
  uint64_t bandwidth_bps_;
  int endpoints_ = 0;
  int switches_ = 0;
  std::vector<int> divisor_;      // k^1 .. k^(n-1)
  std::vector<SimTime> latency_;  // latency_[links] = links x link latency, links = 0..2n
};

}  // namespace

std::unique_ptr<Network> make_fat_tree(int m, int n, SimTime link_latency, uint64_t link_bandwidth_bps, bool adaptive) {
  return std::make_unique<FatTree>(m, n, link_latency, link_bandwidth_bps, adaptive);
}

}  // namespace xsim::net
