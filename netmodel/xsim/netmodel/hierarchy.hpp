// Hierarchical networks (004 §III "hierarchical combinations", docs/architecture.md §4): level 0 is the outermost
// (system) network; every endpoint of level i is a whole copy of level i+1 (a node holds sockets, a socket
// holds cores). Cores are numbered with the innermost level fastest: core = ((i0 * E1) + i1) * E2 + i2...
// A message between two cores uses only the innermost network that contains both; on every level inside
// that one it leaves the source's network through that network's gateway (Network::to_gateway) and enters
// the destination's through its gateway (Network::from_gateway). Latencies add up; the bandwidth is the
// smallest on the whole route. Layer: netmodel (pure). Immutable; route() allocates nothing.
#pragma once
#include <memory>
#include <vector>

#include "xsim/netmodel/fast_divisor.hpp"
#include "xsim/netmodel/network.hpp"

namespace xsim::net {

class Hierarchy final : public Network {
 public:
  // Throws std::invalid_argument when there are no levels, more than Route::kMaxLevels, or the total
  // number of cores exceeds 2^31 - 1.
  explicit Hierarchy(std::vector<std::unique_ptr<Network>> levels);
  int endpoints() const override { return cores_; }
  Route route(int src, int dst) const override { return route_keyed(src, dst, 0); }
  Route route_keyed(int src, int dst, uint64_t key) const override;
  SimTime min_latency() const override;
  std::string describe() const override;
  // The route's links on every level it crosses, in the order a message crosses them (the inner levels'
  // gateway links up, the level where the cores part, the inner levels' gateway links down). A link of
  // level i in the copy of that level inside endpoint c of the level above is numbered
  // first_id_[i] + c * level_i.link_id_bound() + its id in the level.
  bool route_links(int src, int dst, uint64_t key, std::vector<Link>& out) const override;
  uint64_t link_id_bound() const override { return first_id_.back(); }

  int levels() const { return static_cast<int>(levels_.size()); }
  const Network& level(int i) const { return *levels_[static_cast<size_t>(i)]; }
  // Cores per endpoint of level i (the product of the sizes of the levels inside it).
  int cores_per_endpoint(int i) const { return stride_[static_cast<size_t>(i)]; }
  // The smallest latency of a route that crosses level i (two cores in different endpoints of level i).
  SimTime min_latency_across(int i) const;

 private:
  // The endpoint of level i that holds `core`, for every level (levels_[i]->endpoints(), as a divisor).
  void split(int core, int* index) const;
  // Both cores split (a, b); returns the outermost level where they differ (levels() for one core).
  size_t parting_level(int src, int dst, int* a, int* b) const {
    split(src, a);
    split(dst, b);
    size_t d = 0;
    while (d < levels_.size() && a[d] == b[d]) ++d;
    return d;
  }
  std::vector<std::unique_ptr<Network>> levels_;
  std::vector<int> stride_;
  std::vector<uint64_t> first_id_;  // route_links: first link id of each level's copies (and the total)
  // Appends level i's links (from `part`, numbered within one copy of the level) for copy `copy`.
  void add_links(size_t i, int64_t copy, const std::vector<Link>& part, std::vector<Link>& out) const;
  std::vector<FastDivisor> size_;
  int cores_ = 1;
};

}  // namespace xsim::net
