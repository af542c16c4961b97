// Mesh and torus topologies with dimension-order routing (004 §III, docs/architecture.md §4). Link set, coordinates
// and hop formulas are documented in xsim/netmodel/mesh_torus.hpp. Entry/exit point: the endpoint itself.
#include "xsim/netmodel/mesh_torus.hpp"

#include <climits>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "xsim/netmodel/network.hpp"
#include "xsim/units.hpp"

namespace xsim::net {

namespace detail {

std::string join(const std::vector<int>& v, const char* sep) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + std::to_string(v[i]);
  return s;
}

int checked_grid_size(const std::string& what, const std::vector<int>& dims) {
  if (dims.empty())
    throw std::invalid_argument(what + ": no dimensions given; give at least one size, e.g. [8, 8]");
  int64_t n = 1;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] < 1)
      throw std::invalid_argument(what + ": size of dimension " + std::to_string(d) + " must be at least 1 (got " +
                                  std::to_string(dims[d]) + " in [" + join(dims, ", ") + "])");
    n *= dims[d];
    if (n > INT_MAX)
      throw std::invalid_argument(what + ": [" + join(dims, ", ") + "] has more than " + std::to_string(INT_MAX) +
                                  " endpoints; give smaller sizes (the product must fit in an int)");
  }
  return static_cast<int>(n);
}

void check_wrap(const std::string& what, const std::vector<int>& dims, const std::vector<int>& wrap) {
  if (wrap.size() != dims.size())
    throw std::invalid_argument(what + ": wrap vector [" + join(wrap, ", ") + "] has " + std::to_string(wrap.size()) +
                                " entries but the network has " + std::to_string(dims.size()) +
                                " dimensions; give one 0/1 entry per dimension");
  for (size_t d = 0; d < wrap.size(); ++d)
    if (wrap[d] != 0 && wrap[d] != 1)
      throw std::invalid_argument(what + ": wrap entry of dimension " + std::to_string(d) + " must be 0 or 1 (got " +
                                  std::to_string(wrap[d]) + ")");
}

void check_links(const std::string& what, SimTime link_latency, uint64_t link_bandwidth_bps, int64_t max_hops) {
  if (link_latency <= SimTime::zero() || link_latency.is_infinite())
    throw std::invalid_argument(what + ": link latency must be positive and finite (got " + format_time(link_latency) +
                                "); give e.g. 1us");
  if (link_bandwidth_bps == 0)
    throw std::invalid_argument(what + ": link bandwidth must be positive (got 0 bps); give e.g. 1Gbps");
  if (max_hops > 0 && link_latency.ps() > (std::numeric_limits<int64_t>::max() - 1) / max_hops)
    throw std::invalid_argument(what + ": link latency " + format_time(link_latency) + " times the longest route (" +
                                std::to_string(max_hops) + " hops) overflows virtual time; give a smaller latency");
}

}  // namespace detail

namespace {

class MeshTorus final : public Network {
 public:
  MeshTorus(std::string kind, std::vector<int> dims, std::vector<int> wrap, SimTime link_latency,
            uint64_t link_bandwidth_bps)
      : kind_(std::move(kind)), dims_(std::move(dims)), wrap_(std::move(wrap)), link_latency_(link_latency),
        bandwidth_bps_(link_bandwidth_bps) {
    const std::string what = kind_ + " network";
    endpoints_ = detail::checked_grid_size(what, dims_);
    detail::check_wrap(what, dims_, wrap_);
    int64_t max_hops = 0;
    for (size_t d = 0; d < dims_.size(); ++d) max_hops += wrap_[d] ? dims_[d] / 2 : dims_[d] - 1;
    detail::check_links(what, link_latency_, bandwidth_bps_, max_hops);
  }

  int endpoints() const override { return endpoints_; }

  Route route(int src, int dst) const override {
    if (static_cast<unsigned>(src) >= static_cast<unsigned>(endpoints_) ||
        static_cast<unsigned>(dst) >= static_cast<unsigned>(endpoints_))
      out_of_range(src, dst);
    int h = 0;
    const size_t nd = dims_.size();
    for (size_t d = 0; d < nd && src != dst; ++d) {
      const int m = dims_[d];
      int delta = src % m - dst % m;
      src /= m;
      dst /= m;
      if (delta < 0) delta = -delta;
      if (wrap_[d] && m - delta < delta) delta = m - delta;
      h += delta;
    }
    return Route{SimTime::from_ps(h * link_latency_.ps()), bandwidth_bps_, h};
  }

  // Links: endpoint e's link towards +1 in dimension d is (e * D + d) * 2, towards -1 that plus one
  // (D = dimensions). Dimension-order routing, dimension 0 first, each the way route() counts it (on a
  // wrapped dimension, through the wrap link when that is strictly shorter).
  bool route_links(int src, int dst, uint64_t, std::vector<Link>& out) const override {
    (void)route(src, dst);  // the range check
    const size_t nd = dims_.size();
    int64_t at = src, stride = 1;
    for (size_t d = 0; d < nd; ++d) {
      const int m = dims_[d];
      const int s = static_cast<int>(src / stride % m), t = static_cast<int>(dst / stride % m);
      if (s != t) {
        int delta = t > s ? t - s : s - t;
        bool up = t > s;
        if (wrap_[d] && m - delta < delta) {
          delta = m - delta;
          up = !up;
        }
        int c = s;
        for (int k = 0; k < delta; ++k) {
          out.push_back({(static_cast<uint64_t>(at) * nd + d) * 2 + (up ? 0 : 1), link_latency_, bandwidth_bps_});
          const int next = up ? (c + 1 == m ? 0 : c + 1) : (c == 0 ? m - 1 : c - 1);
          at += (next - c) * stride;
          c = next;
        }
      }
      stride *= m;
    }
    return true;
  }

  uint64_t link_id_bound() const override { return 2 * static_cast<uint64_t>(endpoints_) * dims_.size(); }

  SimTime min_latency() const override { return link_latency_ + overheads().send + overheads().recv; }

  std::string describe() const override {
    std::string s = kind_ + " " + detail::join(dims_, "x");
    if (kind_ == "torus") s += " (wrap " + detail::join(wrap_, ",") + ")";
    s += ", " + std::to_string(endpoints_) + (endpoints_ == 1 ? " endpoint" : " endpoints") + ", link latency " +
         format_time(link_latency_) + ", link bandwidth " + format_bandwidth(bandwidth_bps_);
    s += overheads_suffix();
    return s;
  }

 private:
  [[noreturn]] [[gnu::cold]] void out_of_range(int src, int dst) const {
    throw_out_of_range((kind_ + " network").c_str(), src, dst, endpoints_);
  }

  std::string kind_;  // "mesh" or "torus"
  std::vector<int> dims_;
  std::vector<int> wrap_;
  int endpoints_ = 0;
  SimTime link_latency_;
  uint64_t bandwidth_bps_;
};

}  // namespace

std::unique_ptr<Network> make_mesh(std::vector<int> dims, SimTime link_latency, uint64_t link_bandwidth_bps) {
  std::vector<int> wrap(dims.size(), 0);
  return std::make_unique<MeshTorus>("mesh", std::move(dims), std::move(wrap), link_latency, link_bandwidth_bps);
}

std::unique_ptr<Network> make_torus(std::vector<int> dims, std::vector<int> wrap, SimTime link_latency,
                                    uint64_t link_bandwidth_bps) {
  return std::make_unique<MeshTorus>("torus", std::move(dims), std::move(wrap), link_latency, link_bandwidth_bps);
}

}  // namespace xsim::net
