// Fat tree: m-port n-tree (Lin, Chung, Huang 2004; 000 §VI; DESIGN.md §4). Numbering, link pattern and
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
  FatTree(int m, int n, SimTime link_latency, uint64_t link_bandwidth_bps)
      : m_(m), n_(n), link_latency_(link_latency), bandwidth_bps_(link_bandwidth_bps) {
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

  SimTime min_latency() const override {
    // k >= 2 or n == 1: two endpoints under one leaf switch (2 links); k == 1 (m = 2) and n > 1: the two
    // endpoints meet only at the top (2n links).
    const int links = (m_ > 2 || n_ == 1) ? 2 : 2 * n_;
    return latency_[static_cast<size_t>(links)] + overheads().send + overheads().recv;
  }

  std::string describe() const override {
    std::string s = "fat tree, " + std::to_string(m_) + "-port " + std::to_string(n_) + "-tree, " +
                    std::to_string(endpoints_) + " endpoints, " + std::to_string(switches_) +
                    (switches_ == 1 ? " switch" : " switches") + ", up*/down* routing, link latency " +
                    format_time(link_latency_) + ", link bandwidth " + format_bandwidth(bandwidth_bps_);
    s += overheads_suffix();
    return s;
  }

 private:
  [[noreturn]] [[gnu::cold]] void out_of_range(int src, int dst) const {
    throw_out_of_range("fat tree network", src, dst, endpoints_);
  }

  int m_, n_;
  SimTime link_latency_;
  uint64_t bandwidth_bps_;
  int endpoints_ = 0;
  int switches_ = 0;
  std::vector<int> divisor_;      // k^1 .. k^(n-1)
  std::vector<SimTime> latency_;  // latency_[links] = links x link latency, links = 0..2n
};

}  // namespace

std::unique_ptr<Network> make_fat_tree(int m, int n, SimTime link_latency, uint64_t link_bandwidth_bps) {
  return std::make_unique<FatTree>(m, n, link_latency, link_bandwidth_bps);
}

}  // namespace xsim::net
