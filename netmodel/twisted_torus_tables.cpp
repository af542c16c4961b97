// The twisted torus's exact-route tables, built once at construction (twisted_torus_impl.hpp): the pair
// table of small networks, the hub-line table of 3-D ones, the hub rows otherwise, and the breadth-first
// searches they come from. Layer: netmodel (pure).
#include <algorithm>
#include <limits>
#include <vector>

#include "twisted_torus_impl.hpp"

namespace xsim::net::twisted_torus_detail {

std::vector<int> TwistedTorus::adjacency() const {
  std::vector<int> adj(static_cast<size_t>(endpoints_) * 2 * static_cast<size_t>(nd_));
  for (int node = 0; node < endpoints_; ++node)
    for (int d = 0; d < nd_; ++d)
      for (int dir = 0; dir < 2; ++dir)
        adj[(static_cast<size_t>(node) * static_cast<size_t>(nd_) + static_cast<size_t>(d)) * 2 + dir] =
            step(node, d, dir == 0 ? 1 : -1);
  return adj;
}

void TwistedTorus::bfs(const std::vector<int>& adj, int src, std::vector<int>& dist, std::vector<int>& queue) const {
  const size_t fan = 2 * static_cast<size_t>(nd_);
  std::fill(dist.begin(), dist.end(), -1);
  size_t head = 0, tail = 0;
  dist[static_cast<size_t>(src)] = 0;
  queue[tail++] = src;
  while (head < tail) {
    const int u = queue[head++];
    const int* nb = &adj[static_cast<size_t>(u) * fan];
    for (size_t i = 0; i < fan; ++i) {
      const int v = nb[i];
      if (v >= 0 && dist[static_cast<size_t>(v)] < 0) {
        dist[static_cast<size_t>(v)] = dist[static_cast<size_t>(u)] + 1;
        queue[tail++] = v;
      }
    }
  }
}

bool TwistedTorus::build_pair_table() {
  int64_t bound = 0;
  for (int d = 0; d < nd_; ++d) bound += m_[d] - 1;
  const int limit = written_out_search() ? kPairTableMaxEndpoints : kPairTableMaxEndpointsSlowSearch;
  if (endpoints_ > limit || bound > std::numeric_limits<uint8_t>::max()) return false;
  const size_t n = static_cast<size_t>(endpoints_);
  const std::vector<int> adj = adjacency();
  std::vector<int> dist(n), queue(n);
  pair_square_ = endpoints_ <= kPairTableMaxEndpoints;
  if (pair_square_) {
    pairs_.resize(n * n);
    for (size_t s = 0; s < n; ++s) {
      bfs(adj, static_cast<int>(s), dist, queue);
      for (size_t t = 0; t < n; ++t) pairs_[s * n + t] = static_cast<uint8_t>(dist[t]);
    }
    return true;
  }
  std::vector<uint8_t> bytes(n * (n - 1) / 2);
  int diameter = 0;
  for (size_t s = 1; s < n; ++s) {
    bfs(adj, static_cast<int>(s), dist, queue);
    for (size_t t = 0; t < s; ++t) {
      bytes[triangle_index(s, t)] = static_cast<uint8_t>(dist[t]);
      diameter = std::max(diameter, dist[t]);
    }
  }
  pair_nibbles_ = diameter <= 16;
  if (!pair_nibbles_) {
    pairs_ = std::move(bytes);
    return true;
  }
  pairs_.assign((bytes.size() + 1) / 2, 0);
  for (size_t i = 0; i < bytes.size(); ++i) pairs_[i >> 1] |= static_cast<uint8_t>((bytes[i] - 1) << ((i & 1) * 4));
  return true;
}

std::vector<int> TwistedTorus::find_hubs() const {
  std::vector<int> hubs;
  for (int node = 0; node < endpoints_; ++node) {
    bool edge = false;  // only endpoints on the edge of a twisting dimension can be hubs
    for (int d = 0; d < nd_ && !edge; ++d) {
      if (jmod_[d] == 0) continue;
      const int x = node / stride_[d] % m_[d];
      edge = x == 0 || x == m_[d] - 1;
    }
    if (edge && is_hub(node)) hubs.push_back(node);
  }
  return hubs;
}

bool TwistedTorus::build_line_table() {
  if (nd_ != 3) return false;
  const std::vector<int> hubs = find_hubs();
  if (hubs.empty()) return false;
  std::vector<uint8_t> is(static_cast<size_t>(endpoints_)), covered(static_cast<size_t>(endpoints_));
  for (int h : hubs) is[static_cast<size_t>(h)] = 1;
  std::vector<detail::HubLine> lines;
  for (int a = 0; a < nd_; ++a)
    for (int h : hubs) {
      if (h / stride_[a] % m_[a] != 0) continue;
      bool full = true;
      for (int z = 0; z < m_[a] && full; ++z) full = is[static_cast<size_t>(h + z * stride_[a])] != 0;
      if (!full) continue;
      if (lines.size() == detail::HubLineTable::kMaxLines) return false;
      lines.push_back({a, h, stride_[a], m_[a]});
      for (int z = 0; z < m_[a]; ++z) covered[static_cast<size_t>(h + z * stride_[a])] = 1;
    }
  for (int h : hubs)
    if (!covered[static_cast<size_t>(h)]) return false;
  // One breadth-first search of every endpoint per hub: keep the construction within about a minute.
  if (static_cast<int64_t>(hubs.size()) * endpoints_ > kLineTableMaxBfsVisits) return false;
  const int dims[3] = {m_[0], m_[1], m_[2]};
  return lines_.build(adjacency(), 2 * nd_, dims, lines, kLineTableMaxBytesPerEndpoint, kLineTableMaxBytes);
}

bool TwistedTorus::build_hub_tables() {
  const int64_t n = endpoints_;
  int64_t bound = 0;  // every distance is at most the mesh distance
  for (int d = 0; d < nd_; ++d) bound += m_[d] - 1;
  if (bound > std::numeric_limits<uint16_t>::max()) return false;
  if (n > kHubTableMaxBytes) return false;  // a twisted torus has hubs, each costing a byte per endpoint
  const std::vector<int> hubs = find_hubs();
  const int64_t h = static_cast<int64_t>(hubs.size());
  const int64_t row8 = h <= 8 ? 8 : (h + 15) / 16 * 16;
  if ((row8 + 1) * n > kHubTableMaxBytes) return false;
  nhubs_ = static_cast<int>(h);
  if (h == 0) return true;
  // Hops from every hub to every endpoint, hub by hub.
  std::vector<uint16_t> all(static_cast<size_t>(h * n));
  {
    const std::vector<int> adj = adjacency();
    std::vector<int> dist(static_cast<size_t>(n)), queue(static_cast<size_t>(n));
    for (int64_t k = 0; k < h; ++k) {
      bfs(adj, hubs[static_cast<size_t>(k)], dist, queue);
      for (int64_t node = 0; node < n; ++node)  // connected: every endpoint is reached
        all[static_cast<size_t>(k * n + node)] = static_cast<uint16_t>(dist[static_cast<size_t>(node)]);
    }
  }
  std::vector<uint16_t> near(static_cast<size_t>(n), std::numeric_limits<uint16_t>::max());
  for (int64_t k = 0; k < h; ++k)
    for (int64_t node = 0; node < n; ++node) {
      uint16_t& v = near[static_cast<size_t>(node)];
      v = std::min(v, all[static_cast<size_t>(k * n + node)]);
    }
  const int far = *std::max_element(near.begin(), near.end());
  near_shift_ = 0;
  while ((far >> near_shift_) > std::numeric_limits<uint8_t>::max()) ++near_shift_;
  near_low_.assign(static_cast<size_t>(n), 0);
  for (int64_t node = 0; node < n; ++node)
    near_low_[static_cast<size_t>(node)] = static_cast<uint8_t>(near[static_cast<size_t>(node)] >> near_shift_);
  auto base_of = [&](int64_t node) { return int{near_low_[static_cast<size_t>(node)]} << near_shift_; };
  int spread = 0;  // largest offset from the base
  for (int64_t k = 0; k < h; ++k)
    for (int64_t node = 0; node < n; ++node)
      spread = std::max(spread, int{all[static_cast<size_t>(k * n + node)]} - base_of(node));
  if (spread < std::numeric_limits<uint8_t>::max()) {
    row_ = static_cast<size_t>(row8);
    off8_.assign(static_cast<size_t>(row8 * n), std::numeric_limits<uint8_t>::max());
    for (int64_t k = 0; k < h; ++k)
      for (int64_t node = 0; node < n; ++node)
        off8_[static_cast<size_t>(node * row8 + k)] =
            static_cast<uint8_t>(int{all[static_cast<size_t>(k * n + node)]} - base_of(node));
  } else {
    if ((2 * h + 1) * n > kHubTableMaxBytes) {
      nhubs_ = 0;
      near_low_.clear();
      return false;
    }
    row_ = static_cast<size_t>(h);
    hub16_.resize(static_cast<size_t>(h * n));
    for (int64_t k = 0; k < h; ++k)
      for (int64_t node = 0; node < n; ++node)
        hub16_[static_cast<size_t>(node * h + k)] = all[static_cast<size_t>(k * n + node)];
  }
  return true;
}

}  // namespace xsim::net::twisted_torus_detail
