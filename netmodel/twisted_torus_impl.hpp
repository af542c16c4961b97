// The twisted torus network's implementation class (twisted_torus.cpp: the routes; twisted_torus_tables.cpp:
// building the exact-route tables at construction). Internal to netmodel/: include it from those files only.
// Layer: netmodel (pure).
#pragma once
#include <algorithm>
#include <array>
#include <limits>
#include <climits>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "twisted_torus_lines.hpp"
#include "xsim/netmodel/twisted_torus.hpp"
#include "xsim/netmodel/fast_divisor.hpp"
#include "xsim/netmodel/mesh_torus.hpp"
#include "xsim/netmodel/network.hpp"
#include "xsim/units.hpp"

namespace xsim::net {
namespace twisted_torus_detail {

constexpr int kMaxDims = 6;

// Hops to walk dimension of size m from coordinate p to q crossing its wrap link c times (c in -1..1).
inline int walk(int m, int p, int q, int c) {
  if (c == 0) return p < q ? q - p : p - q;
  return c > 0 ? m - p + q : m + p - q;
}

class TwistedTorus final : public Network {
 public:
  TwistedTorus(std::vector<int> dims, std::vector<int> wrap, int degree, std::vector<int> jump,
               SimTime link_latency, uint64_t link_bandwidth_bps, TwistedTorusRouting routing)
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
      divisor_[d] = FastDivisor(m_[d]);
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
    for (int d = 0, st = 1; d < nd_; ++d) {
      stride_[d] = st;
      st *= m_[d];
      target_[d] = (d + degree_) % nd_;
      if (jmod_[d] != 0 && target_[d] < d) back_[nback_++] = d;
      kind_[d] = !wrapped_[d] ? Kind::line
                 : jmod_[d] == 0 ? Kind::ring
                 : target_[d] < d ? Kind::back
                                  : Kind::forward;
    }
    if (nd_ == 3) init_near_3d();
    if (twisted_ && routing != TwistedTorusRouting::family)
      exact_ = (routing == TwistedTorusRouting::automatic && build_pair_table()) ||
               (routing != TwistedTorusRouting::hub_rows && build_line_table()) || build_hub_tables();
    lines3d_ = !lines_.empty() && written_out_search();
  }

  int endpoints() const override { return endpoints_; }

  Route route(int src, int dst) const override {
    if (static_cast<unsigned>(src) >= static_cast<unsigned>(endpoints_) ||
        static_cast<unsigned>(dst) >= static_cast<unsigned>(endpoints_))
      out_of_range(src, dst);
    if (src == dst) return Route{SimTime::zero(), bandwidth_bps_, 0};
    if (!pairs_.empty()) {  // small networks: one table entry, no coordinates needed
      const int h = pair_hops(src, dst);
      return Route{SimTime::from_ps(h * link_latency_.ps()), bandwidth_bps_, h};
    }
    if (lines3d_) {  // 3-D with the hub-line table (degree 1, every wrap twisted)
      lines_.prefetch(src);  // two records of a few cache lines, loaded while the paths are searched
      lines_.prefetch(dst);
      std::array<int, kMaxDims> a, b;
      const int qs = divisor_[0].div(src), qt = divisor_[0].div(dst);
      a[0] = src - qs * m_[0];
      b[0] = dst - qt * m_[0];
      a[2] = divisor_[1].div(qs);
      b[2] = divisor_[1].div(qt);
      a[1] = qs - a[2] * m_[1];
      b[1] = qt - b[2] * m_[1];
      // The near ordered candidates (the mesh path among them), then the hub lines, then the rest of the
      // ordered search, which the best of the first two usually rules out.
      int h = near16_ ? near_candidates_3d(a, b) : near_candidates_3d_scalar(a, b, INT_MAX);
      h = lines_.via_lines(src, dst, a.data(), b.data(), h);
      h = far_candidates_3d(a, b, h);
      return Route{SimTime::from_ps(h * link_latency_.ps()), bandwidth_bps_, h};
    }
    if (nhubs_ > 0) {  // large tables miss the cache: load while the paths are searched
      __builtin_prefetch(&near_low_[static_cast<size_t>(src)]);
      __builtin_prefetch(&near_low_[static_cast<size_t>(dst)]);
      if (row_ > 16 && !off8_.empty()) {  // long rows (3-D): most queries read them, start loading them now
        const uint8_t* ra = &off8_[static_cast<size_t>(src) * row_];
        const uint8_t* rb = &off8_[static_cast<size_t>(dst) * row_];
        for (size_t k = 0; k < row_; k += 64) {
          __builtin_prefetch(ra + k);
          __builtin_prefetch(rb + k);
        }
      }
    }
    std::array<int, kMaxDims> a, b;
    if (nd_ <= 3) {  // divisions by multiplication, none for the last coordinate
      int s = src, t = dst;
      for (int d = 0; d < nd_ - 1; ++d) {
        const int qs = divisor_[d].div(s), qt = divisor_[d].div(t);
        a[d] = s - qs * m_[d];
        b[d] = t - qt * m_[d];
        s = qs;
        t = qt;
      }
      a[nd_ - 1] = s;
      b[nd_ - 1] = t;
    } else {
      int s = src, t = dst;
      for (int d = 0; d < nd_; ++d) {
        a[d] = s % m_[d];
        b[d] = t % m_[d];
        s /= m_[d];
        t /= m_[d];
      }
    }
    int h = 0;
    if (!twisted_) {
      for (int d = 0; d < nd_; ++d) {
        int delta = a[d] < b[d] ? b[d] - a[d] : a[d] - b[d];
        if (wrapped_[d] && m_[d] - delta < delta) delta = m_[d] - delta;
        h += delta;
      }
    } else if (exact_) {
      h = 0;  // the mesh path: an ordered path and an upper bound
      for (int d = 0; d < nd_; ++d) h += a[d] < b[d] ? b[d] - a[d] : a[d] - b[d];
      h = ordered_hops(a, b, h);
      if (!lines_.empty())
        h = lines_.via_lines(src, dst, a.data(), b.data(), h);
      else if (nhubs_ > 0)
        h = via_hubs(src, dst, h);
    } else {
      h = family_hops(a, b);
    }
    return Route{SimTime::from_ps(h * link_latency_.ps()), bandwidth_bps_, h};
  }

  SimTime min_latency() const override { return link_latency_ + overheads().send + overheads().recv; }

  // Links: endpoint e's link in dimension d towards +1 (over the edge: its wrap link) is (e * D + d) * 2,
  // towards -1 that plus one. The path: from each endpoint on, the first move (dimension 0 first, +1
  // before -1) to a neighbour one hop nearer the destination by route(): a shortest path whenever route()
  // is exact (the torus, and every twisted torus whose pair or hub tables were built). Where route() is
  // the path family's bound (shapes too large for the tables) there is no such descent: returns false.
  bool route_links(int src, int dst, uint64_t, std::vector<Link>& out) const override {
    if (twisted_ && !exact_) return false;
    int h = route(src, dst).hops;
    for (int at = src; h > 0; --h) {
      int next = -1;
      for (int d = 0; d < nd_ && next < 0; ++d)
        for (int dir = 1; dir >= -1 && next < 0; dir -= 2) {
          const int n = step(at, d, dir);
          if (n >= 0 && (n == dst ? 0 : route(n, dst).hops) == h - 1) {
            next = n;
            out.push_back({(static_cast<uint64_t>(at) * static_cast<uint64_t>(nd_) + static_cast<uint64_t>(d)) * 2 +
                               (dir > 0 ? 0 : 1),
                           link_latency_, bandwidth_bps_});
          }
        }
      if (next < 0) throw std::logic_error("twisted torus: no neighbour of " + std::to_string(at) + " is nearer " +
                                           std::to_string(dst) + " (route() is not a shortest-path distance)");
      at = next;
    }
    return true;
  }
  uint64_t link_id_bound() const override {
    return 2 * static_cast<uint64_t>(endpoints_) * static_cast<uint64_t>(nd_);
  }

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
  // ---- Exact routing (see the header): min(ordered path, shortest path through a hub) ----------------

  // The neighbour of `node` one link away in dimension d, direction dir (+1/-1), or -1 where there is no
  // link (the end of an unwrapped line, or a wrap link that would lead back to `node`).
  int step(int node, int d, int dir) const {
    const int x = node / stride_[d] % m_[d];
    if (dir > 0 && x + 1 < m_[d]) return node + stride_[d];
    if (dir < 0 && x > 0) return node - stride_[d];
    if (!wrapped_[d]) return -1;
    int moved = node + (dir > 0 ? -x : m_[d] - 1 - x) * stride_[d];  // across the wrap link
    if (jmod_[d] != 0) {
      const int t = target_[d];
      const int xt = moved / stride_[t] % m_[t];
      int yt = xt + (dir > 0 ? jmod_[d] : m_[t] - jmod_[d]);
      if (yt >= m_[t]) yt -= m_[t];
      moved += (yt - xt) * stride_[t];
    }
    return moved == node ? -1 : moved;
  }

  // A hub is an endpoint at which two one-link moves of different dimensions do not commute: taking them
  // in one order is possible and taking them in the other order is impossible or ends elsewhere.
  bool is_hub(int node) const {
    for (int d = 0; d < nd_; ++d)
      for (int e = 0; e < nd_; ++e) {
        if (e == d) continue;
        for (int sd = -1; sd <= 1; sd += 2)
          for (int se = -1; se <= 1; se += 2) {
            const int x = step(node, d, sd), y = step(node, e, se);
            if (x < 0 && y < 0) continue;
            const int xy = x < 0 ? -1 : step(x, e, se), yx = y < 0 ? -1 : step(y, d, sd);
            if (xy < 0 || xy != yx) return true;
          }
      }
    return false;
  }

  // Neighbours of every endpoint, 2 * D per endpoint (-1: none), for the breadth-first searches.
  std::vector<int> adjacency() const;
  // Hops from `src` to every endpoint into dist (queue: scratch of endpoints_ entries).
  void bfs(const std::vector<int>& adj, int src, std::vector<int>& dist, std::vector<int>& queue) const;

  // Small networks (every distance below 256) keep the hops of every pair (see pair_hops) where that is
  // faster than the hub method: up to 1,024 endpoints (1 MiB), and up to 4,096 (4 MiB with distances up
  // to 16) for the shapes whose ordered search is not written out (ordered_hops_2d, _3d) and costs more
  // than a cache miss.
  static constexpr int kPairTableMaxEndpoints = 1024, kPairTableMaxEndpointsSlowSearch = 4096;
  bool written_out_search() const {
    return (nd_ == 2 && kind_[0] == Kind::forward && kind_[1] == Kind::back) ||
           (nd_ == 3 && kind_[0] == Kind::forward && kind_[1] == Kind::forward && kind_[2] == Kind::back);
  }
  bool build_pair_table();
  // Layouts of the pair table. Up to kPairTableMaxEndpoints (1 MiB, which stays in cache): a square of
  // bytes, hops[src * endpoints + dst]. Above: each unordered pair once (links are bidirectional, so hops
  // are symmetric), pair (hi, lo) with hi > lo at hi (hi - 1) / 2 + lo, as hops - 1 in 4 bits when no
  // distance exceeds 16, else a byte: 4,096 endpoints take 4 MiB instead of 16 (which missed the cache:
  // 8x8x8x8 went from 52-68 to 17 ns per query).
  static size_t triangle_index(size_t hi, size_t lo) { return hi * (hi - 1) / 2 + lo; }
  int pair_hops(int src, int dst) const {
    if (pair_square_) return pairs_[static_cast<size_t>(src) * static_cast<size_t>(endpoints_) + static_cast<size_t>(dst)];
    const size_t i = src > dst ? triangle_index(static_cast<size_t>(src), static_cast<size_t>(dst))
                               : triangle_index(static_cast<size_t>(dst), static_cast<size_t>(src));
    if (pair_nibbles_) return ((pairs_[i >> 1] >> ((i & 1) * 4)) & 15) + 1;
    return pairs_[i];
  }

  // Every hub, in increasing order.
  std::vector<int> find_hubs() const;

  // 3-D: the hub-line table (twisted_torus_lines.hpp) when every hub lies on a full line of hubs along
  // some axis (true of every 3-D shape tried) and the table applies (at most 32 lines, at most 1 KiB per
  // endpoint and 1 GiB in all, every distance below 255, at most 4e9 endpoint visits of the BFS).
  static constexpr size_t kLineTableMaxBytesPerEndpoint = 1024;
  static constexpr size_t kLineTableMaxBytes = size_t{1} << 30;          // 1 GiB
  static constexpr int64_t kLineTableMaxBfsVisits = int64_t{4'000'000'000};  // ~40 s on this machine
  bool build_line_table();

  // Finds the hubs and runs a breadth-first search from each. Keeps, per endpoint, a byte-wide lower
  // bound of the hops to its nearest hub (near_low_ << near_shift_) and a row with the hops to every hub:
  // as offsets from that bound in one byte each (off8_: rows of 8 bytes for up to 8 hubs, else of whole
  // 16-byte blocks, padded with 255) when every offset is below 255 (an offset is at most the largest
  // distance between two hubs plus 2^near_shift_ - 1), else as absolute hops in two bytes (hub16_).
  // Returns false (and keeps nothing) when that would exceed kHubTableMaxBytes; route() then falls back
  // to the path family.
  bool build_hub_tables();

  // min over hubs of hops(src, hub) + hops(hub, dst), or `best` if that is not smaller.
  int via_hubs(int src, int dst, int best) const {
    const int base = (int{near_low_[static_cast<size_t>(src)]} + int{near_low_[static_cast<size_t>(dst)]})
                     << near_shift_;
    if (base >= best) return best;  // most queries end here, having read one byte per endpoint
    if (!off8_.empty()) {
      const uint8_t* ra = &off8_[static_cast<size_t>(src) * row_];
      const uint8_t* rb = &off8_[static_cast<size_t>(dst) * row_];
      int m = 255;
#if defined(__SSE2__)
      __m128i low;  // 16 saturating sums at a time
      if (row_ == 8) {
        low = _mm_adds_epu8(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(ra)),
                            _mm_loadl_epi64(reinterpret_cast<const __m128i*>(rb)));
        low = _mm_or_si128(low, _mm_set_epi32(-1, -1, 0, 0));  // the upper 8 lanes were not loaded
      } else {
        low = _mm_set1_epi8(-1);
        for (size_t k = 0; k < row_; k += 16)
          low = _mm_min_epu8(low, _mm_adds_epu8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(ra + k)),
                                                _mm_loadu_si128(reinterpret_cast<const __m128i*>(rb + k))));
      }
      low = _mm_min_epu8(low, _mm_srli_si128(low, 8));
      low = _mm_min_epu8(low, _mm_srli_si128(low, 4));
      low = _mm_min_epu8(low, _mm_srli_si128(low, 2));
      low = _mm_min_epu8(low, _mm_srli_si128(low, 1));
      m = _mm_cvtsi128_si32(low) & 0xff;
      if (m < 255) return base + m < best ? base + m : best;  // 255 may be a saturated sum: redo it exactly
#endif
      for (size_t k = 0; k < static_cast<size_t>(nhubs_); ++k) {
        const int v = int{ra[k]} + int{rb[k]};
        m = v < m ? v : m;
      }
      return base + m < best ? base + m : best;
    }
    const uint16_t* ra = &hub16_[static_cast<size_t>(src) * row_];
    const uint16_t* rb = &hub16_[static_cast<size_t>(dst) * row_];
    int m = best;
    for (size_t k = 0; k < static_cast<size_t>(nhubs_); ++k) {
      const int v = int{ra[k]} + int{rb[k]};
      m = v < m ? v : m;
    }
    return m;
  }

  // Hops of the shortest ordered path from a to b, or `best` if none is shorter: dimension 0 walked first
  // in one direction (any number of links, crossing its wrap link as often as it likes), then dimension
  // 1, and so on. A crossing of d shifts its target dimension t; t walked later starts from the shifted
  // coordinate, t walked earlier aims at its destination minus the shift. Branch and bound over the
  // crossing counts: those of the wrapped dimensions whose target comes earlier ("back" dimensions) are
  // chosen first, the others dimension by dimension, nearest first, while they can still win.
  int ordered_hops(const std::array<int, kMaxDims>& a, const std::array<int, kMaxDims>& b, int best) const {
    if (nd_ == 2 && kind_[0] == Kind::forward && kind_[1] == Kind::back) return ordered_hops_2d(a, b, best);
    if (nd_ == 3 && kind_[0] == Kind::forward && kind_[1] == Kind::forward && kind_[2] == Kind::back)
      return ordered_hops_3d(a, b, best);  // (written_out_search() names these two cases)
    Search st{a, b, {}, {}, best};
    st.rest.fill(0);
    guess_back(st, nback_ - 1, 0);
    return st.best;
  }
  // The same search written out for the common 2-D case (both wraps twisted): dimension 1's crossing
  // count c1 first (it moves dimension 0's goal), then dimension 0's walks nearest first. First, without
  // branches, the six candidates that win on every torus that is not much longer in one dimension than in
  // the other: c1 in {-1, 0, 1}, each with the nearest walk of dimension 0 forwards and backwards. Every
  // other candidate is at least m0 long (a longer walk of dimension 0) or at least m1 + min(b1 + 1,
  // m1 - b1) (two or more crossings of dimension 1); if the best of the six is no longer, it is the
  // answer, else the search goes on from it.
  int ordered_hops_2d(const std::array<int, kMaxDims>& a, const std::array<int, kMaxDims>& b, int best) const {
    const int m0 = m_[0], m1 = m_[1], j0 = jmod_[0], j1 = jmod_[1];
    const int a0 = a[0], a1 = a[1], b0 = b[0], b1 = b[1];
    for (int c1 = -1; c1 <= 1; ++c1) {
      int q0 = b0 - (c1 == 0 ? 0 : c1 > 0 ? j1 : m0 - j1);  // the goal of dimension 0
      q0 += q0 < 0 ? m0 : 0;
      const int r = a0 <= q0 ? q0 - a0 : q0 - a0 + m0;
      const int carry = a0 + r >= m0 ? 1 : 0;
      // Forwards r links (crossing the wrap `carry` times) or backwards m0 - r (crossing it carry - 1 times).
      int yf = a1 + (carry ? j0 : 0), yb = a1 + (carry ? 0 : m1 - j0);
      yf -= yf >= m1 ? m1 : 0;
      yb -= yb >= m1 ? m1 : 0;
      const int sf = b1 - yf + c1 * m1, sb = b1 - yb + c1 * m1;
      const int tf = r + (sf < 0 ? -sf : sf), tb = m0 - r + (sb < 0 ? -sb : sb);
      best = tf < best ? tf : best;
      best = tb < best ? tb : best;
    }
    const int two_laps = m1 + (b1 + 1 < m1 - b1 ? b1 + 1 : m1 - b1);
    if (best <= m0 && best <= two_laps) return best;
    for (int k = 0;; ++k) {
      const int up = k == 0 ? 0 : (k - 1) * m1 + b1 + 1, down = k == 0 ? 0 : (k - 1) * m1 + m1 - b1;
      if ((up < down ? up : down) >= best) break;
      for (int sign = (k == 0 ? 1 : -1); sign <= 1; sign += 2) {
        const int least = sign > 0 ? up : down;
        if (least >= best) continue;
        const int c1 = sign * k;
        int q0 = b0 - shift_of(c1, j1, m0);
        if (q0 < 0) q0 += m0;
        const int r = a0 <= q0 ? q0 - a0 : q0 - a0 + m0, carry = a0 + r >= m0 ? 1 : 0;
        for (int kup = 0, kdown = -1;;) {  // s0 = r + k0*m0, nearest first
          const int s_up = r + kup * m0, s_down = r + kdown * m0;
          int k0, len;
          if (s_up <= -s_down) {
            k0 = kup++;
            len = s_up;
          } else {
            k0 = kdown--;
            len = -s_down;
          }
          if (len + least >= best) break;
          int y1 = a1 + shift_of(k0 + carry, j0, m1);
          if (y1 >= m1) y1 -= m1;
          const int s1 = b1 - y1 + c1 * m1;
          const int total = len + (s1 < 0 ? -s1 : s1);
          if (total < best) best = total;
        }
      }
    }
    return best;
  }

  // The twelve near candidates of ordered_hops_3d, one per 16-bit lane of two 8-lane vectors (lanes 12-15
  // repeat 0-3): lane i takes c2 = i / 4 % 3 - 1 crossings of dimension 2, walks dimension 0 forwards if
  // bit 1 of i is set (else backwards) and dimension 1 forwards if bit 0 is set, each to its goal the
  // nearest way. GCC vector extensions: SSE2 on every x86-64, other targets' vectors or scalars elsewhere.
  using V8 = int16_t __attribute__((vector_size(16)));
  struct Near3d {
    V8 shift2[2], c2m2[2], fwd0, fwd1;  // per lane: c2's shift of dimension 0's goal, c2 * m2, directions
    V8 m0, m1, m2, j0, j1, m1_j0, m2_j1;  // the sizes and jumps in every lane; m1 - j0, m2 - j1
  };
  Near3d near3d_{};
  bool near16_ = false;  // every candidate's sums fit in 16 bits
  void init_near_3d() {
    near16_ = m_[0] + m_[1] + 2 * m_[2] < 30000;
    for (int i = 0; i < 16; ++i) {
      const int c2 = i / 4 % 3 - 1;
      near3d_.shift2[i / 8][i % 8] = static_cast<int16_t>(c2 == 0 ? 0 : c2 > 0 ? jmod_[2] : m_[0] - jmod_[2]);
      near3d_.c2m2[i / 8][i % 8] = static_cast<int16_t>(c2 * m_[2]);
      near3d_.fwd0[i % 8] = static_cast<int16_t>((i & 2) ? -1 : 0);
      near3d_.fwd1[i % 8] = static_cast<int16_t>((i & 1) ? -1 : 0);
    }
    const V8 zero{};
    near3d_.m0 = zero + static_cast<int16_t>(m_[0]);
    near3d_.m1 = zero + static_cast<int16_t>(m_[1]);
    near3d_.m2 = zero + static_cast<int16_t>(m_[2]);
    near3d_.j0 = zero + static_cast<int16_t>(jmod_[0]);
    near3d_.j1 = zero + static_cast<int16_t>(jmod_[1]);
    near3d_.m1_j0 = near3d_.m1 - near3d_.j0;
    near3d_.m2_j1 = near3d_.m2 - near3d_.j1;
  }
  int near_candidates_3d(const std::array<int, kMaxDims>& a, const std::array<int, kMaxDims>& b) const {
    const V8 zero{}, m0 = near3d_.m0, m1 = near3d_.m1, m2 = near3d_.m2, j0 = near3d_.j0, j1 = near3d_.j1;
    const V8 a0 = zero + static_cast<int16_t>(a[0]), a1 = zero + static_cast<int16_t>(a[1]),
             a2 = zero + static_cast<int16_t>(a[2]);
    const V8 b0 = zero + static_cast<int16_t>(b[0]), b1 = zero + static_cast<int16_t>(b[1]),
             b2 = zero + static_cast<int16_t>(b[2]);
    const V8 fwd0 = near3d_.fwd0, fwd1 = near3d_.fwd1;
    V8 least = zero + static_cast<int16_t>(32767);
    for (int half = 0; half < 2; ++half) {
      V8 q0 = b0 - near3d_.shift2[half];  // dimension 0's goal
      q0 += (q0 < zero) & m0;
      V8 r0 = q0 - a0;  // forwards r0 links or backwards m0 - r0
      r0 += (r0 < zero) & m0;
      const V8 carry0 = a0 + r0 >= m0;  // forwards crosses the wrap once (else never), backwards never (else once)
      const V8 len0 = (fwd0 & r0) | (~fwd0 & (m0 - r0));
      V8 y1 = a1 + ((fwd0 & carry0 & j0) | (~fwd0 & ~carry0 & near3d_.m1_j0));
      y1 -= (y1 >= m1) & m1;
      V8 r1 = b1 - y1;
      r1 += (r1 < zero) & m1;
      const V8 carry1 = y1 + r1 >= m1;
      const V8 len1 = (fwd1 & r1) | (~fwd1 & (m1 - r1));
      V8 y2 = a2 + ((fwd1 & carry1 & j1) | (~fwd1 & ~carry1 & near3d_.m2_j1));
      y2 -= (y2 >= m2) & m2;
      const V8 s2 = b2 - y2 + near3d_.c2m2[half];
      const V8 sign = s2 >> 15;
      const V8 total = len0 + len1 + ((s2 ^ sign) - sign);
      least = total < least ? total : least;
    }
    V8 x = __builtin_shufflevector(least, least, 4, 5, 6, 7, 0, 1, 2, 3);
    least = x < least ? x : least;
    x = __builtin_shufflevector(least, least, 2, 3, 0, 1, 2, 3, 0, 1);
    least = x < least ? x : least;
    x = __builtin_shufflevector(least, least, 1, 0, 1, 0, 1, 0, 1, 0);
    least = x < least ? x : least;
    return least[0];
  }


  // The same twelve candidates one by one, for shapes too long for 16-bit lanes.
  int near_candidates_3d_scalar(const std::array<int, kMaxDims>& a, const std::array<int, kMaxDims>& b,
                                int best) const {
    const int m0 = m_[0], m1 = m_[1], m2 = m_[2], j0 = jmod_[0], j1 = jmod_[1], j2 = jmod_[2];
    const int a0 = a[0], a1 = a[1], a2 = a[2], b0 = b[0], b1 = b[1], b2 = b[2];
    // Hops of dimensions 1 and 2 once dimension 0 has crossed c0 times (c0 in -1..1) and dimension 2
    // crosses c2 times, over the two nearest walks of dimension 1.
    auto tail_near = [&](int c0, int c2) {
      int y1 = a1 + (c0 == 0 ? 0 : c0 > 0 ? j0 : m1 - j0);
      y1 -= y1 >= m1 ? m1 : 0;
      const int r1 = y1 <= b1 ? b1 - y1 : b1 - y1 + m1;
      const int carry1 = y1 + r1 >= m1 ? 1 : 0;
      int yf = a2 + (carry1 ? j1 : 0), yb = a2 + (carry1 ? 0 : m2 - j1);
      yf -= yf >= m2 ? m2 : 0;
      yb -= yb >= m2 ? m2 : 0;
      const int sf = b2 - yf + c2 * m2, sb = b2 - yb + c2 * m2;
      const int tf = r1 + (sf < 0 ? -sf : sf), tb = m1 - r1 + (sb < 0 ? -sb : sb);
      return tf < tb ? tf : tb;
    };
    for (int c2 = -1; c2 <= 1; ++c2) {
      int q0 = b0 - (c2 == 0 ? 0 : c2 > 0 ? j2 : m0 - j2);
      q0 += q0 < 0 ? m0 : 0;
      const int r0 = a0 <= q0 ? q0 - a0 : q0 - a0 + m0;
      const int carry0 = a0 + r0 >= m0 ? 1 : 0;
      const int tf = r0 + tail_near(carry0, c2), tb = m0 - r0 + tail_near(carry0 - 1, c2);
      best = tf < best ? tf : best;
      best = tb < best ? tb : best;
    }
    return best;
  }

  // The same search written out for the common 3-D case (degree 1, every wrap twisted: 0 shifts 1, 1
  // shifts 2, 2 shifts 0): dimension 2's crossing count c2 first (it moves dimension 0's goal), then the
  // walks of dimension 0 (whose crossings move dimension 1's start) and of dimension 1 (moving dimension
  // 2's start), nearest first. As in 2-D, the twelve near candidates (c2 in -1..1, the two nearest walks
  // of dimensions 0 and 1) come first; any other is at least min(m0, m1, m2 + min(b2 + 1, m2 - b2)) long.
  int ordered_hops_3d(const std::array<int, kMaxDims>& a, const std::array<int, kMaxDims>& b, int best) const {
    if (near16_) {
      const int h = near_candidates_3d(a, b);
      best = h < best ? h : best;
    } else {
      best = near_candidates_3d_scalar(a, b, best);
    }
    return far_candidates_3d(a, b, best);
  }
  // The other candidates of ordered_hops_3d, nearest first, while they can still beat `best` (the near
  // candidates' best, or a shorter path found otherwise).
  int far_candidates_3d(const std::array<int, kMaxDims>& a, const std::array<int, kMaxDims>& b, int best) const {
    const int m0 = m_[0], m1 = m_[1], m2 = m_[2], j0 = jmod_[0], j1 = jmod_[1], j2 = jmod_[2];
    const int a0 = a[0], a1 = a[1], a2 = a[2], b0 = b[0], b1 = b[1], b2 = b[2];
    const int two_laps = m2 + (b2 + 1 < m2 - b2 ? b2 + 1 : m2 - b2);
    if (best <= two_laps) {
      if (best <= m0 && best <= m1) return best;
      // Any other candidate with c2 in -1..1 walks dimension 0 at least its nearest way, min(r0, m0 - r0),
      // plus a whole lap of dimension 0 or of dimension 1.
      int near0 = m0;
      for (int c2 = -1; c2 <= 1; ++c2) {
        int q0 = b0 - (c2 == 0 ? 0 : c2 > 0 ? j2 : m0 - j2);
        q0 += q0 < 0 ? m0 : 0;
        const int r0 = a0 <= q0 ? q0 - a0 : q0 - a0 + m0;
        const int l0 = r0 < m0 - r0 ? r0 : m0 - r0;
        near0 = l0 < near0 ? l0 : near0;
      }
      if (best <= near0 + (m0 < m1 ? m0 : m1)) return best;
    }
    for (int k = 0;; ++k) {
      const int up = k == 0 ? 0 : (k - 1) * m2 + b2 + 1, down = k == 0 ? 0 : (k - 1) * m2 + m2 - b2;
      if ((up < down ? up : down) >= best) break;
      for (int sign = (k == 0 ? 1 : -1); sign <= 1; sign += 2) {
        const int least = sign > 0 ? up : down;
        if (least >= best) continue;
        const int c2 = sign * k;
        int q0 = b0 - shift_of(c2, j2, m0);
        if (q0 < 0) q0 += m0;
        const int r0 = a0 <= q0 ? q0 - a0 : q0 - a0 + m0, carry0 = a0 + r0 >= m0 ? 1 : 0;
        for (int up0 = 0, down0 = -1;;) {  // s0 = r0 + k0*m0, nearest first
          const int s_up = r0 + up0 * m0, s_down = r0 + down0 * m0;
          int k0, len0;
          if (s_up <= -s_down) {
            k0 = up0++;
            len0 = s_up;
          } else {
            k0 = down0--;
            len0 = -s_down;
          }
          if (len0 + least >= best) break;
          int y1 = a1 + shift_of(k0 + carry0, j0, m1);
          if (y1 >= m1) y1 -= m1;
          const int r1 = y1 <= b1 ? b1 - y1 : b1 - y1 + m1, carry1 = y1 + r1 >= m1 ? 1 : 0;
          for (int up1 = 0, down1 = -1;;) {  // s1 = r1 + k1*m1, nearest first
            const int t_up = r1 + up1 * m1, t_down = r1 + down1 * m1;
            int k1, len1;
            if (t_up <= -t_down) {
              k1 = up1++;
              len1 = t_up;
            } else {
              k1 = down1--;
              len1 = -t_down;
            }
            if (len0 + len1 + least >= best) break;
            int y2 = a2 + shift_of(k1 + carry1, j1, m2);
            if (y2 >= m2) y2 -= m2;
            const int s2 = b2 - y2 + c2 * m2;
            const int total = len0 + len1 + (s2 < 0 ? -s2 : s2);
            if (total < best) best = total;
          }
        }
      }
    }
    return best;
  }

  struct Search {
    std::array<int, kMaxDims> y, q;  // current coordinates; walk goals (destination minus later shifts)
    std::array<int, kMaxDims> c;     // chosen crossing counts of the back dimensions
    std::array<int, kMaxDims + 1> rest;  // rest[d]: least hops the back dimensions >= d still need
    int best;
  };
  static int shift_of(int crossings, int jump, int m) {  // crossings * jump mod m, jump in 0..m-1
    if (crossings == 0) return 0;
    if (crossings == 1) return jump;
    if (crossings == -1) return jump == 0 ? 0 : m - jump;
    const int64_t r = int64_t{crossings} * jump % m;
    return static_cast<int>(r < 0 ? r + m : r);
  }
  // Back dimensions are chosen from the last one down, so the goal q_e of each is final when its count
  // is chosen (only the back dimension twisting into e, which comes after e, changes it). Dimension e
  // then walks s = q_e - y_e + c*m with y_e in 0..m-1 not yet known: at least (c-1)*m + q_e + 1 hops for
  // c > 0 and (|c|-1)*m + m - q_e for c < 0.
  void guess_back(Search& st, int i, int lower) const {
    if (i < 0) {
      walk_from(st, 0, 0);
      return;
    }
    const int e = back_[i], m = m_[e], t = target_[e], qt = st.q[t], qe = st.q[e];
    for (int k = 0;; ++k) {
      const int up = k == 0 ? 0 : (k - 1) * m + qe + 1, down = k == 0 ? 0 : (k - 1) * m + m - qe;
      if (lower + (up < down ? up : down) >= st.best) break;
      for (int sign = (k == 0 ? 1 : -1); sign <= 1; sign += 2) {
        const int least = sign > 0 ? up : down;
        if (lower + least >= st.best) continue;
        st.c[e] = sign * k;
        const int qn = qt - shift_of(st.c[e], jmod_[e], m_[t]);
        st.q[t] = qn < 0 ? qn + m_[t] : qn;
        for (int d = e; d >= 0 && (d == e || kind_[d] != Kind::back); --d) st.rest[d] = lower + least;
        guess_back(st, i - 1, lower + least);
      }
    }
    st.q[t] = qt;
  }
  void walk_from(Search& st, int d, int cost) const {
    for (; d < nd_; ++d) {  // dimensions without a choice that matters to the others
      const int m = m_[d], y = st.y[d], q = st.q[d];
      switch (kind_[d]) {
        case Kind::line:
          cost += y < q ? q - y : y - q;
          break;
        case Kind::ring: {
          const int r = y <= q ? q - y : q - y + m;
          cost += r < m - r ? r : m - r;
          break;
        }
        case Kind::back: {
          const int s = q - y + st.c[d] * m;
          cost += s < 0 ? -s : s;
          break;
        }
        case Kind::forward:
          goto choose;
      }
      if (cost + st.rest[d + 1] >= st.best) return;
    }
    st.best = cost;
    return;
  choose:
    // A wrapped dimension twisting a later one: s = r + k*m for every k, nearest first, while it can still
    // win; it crosses its wrap link k + [y + r >= m] times.
    const int m = m_[d], t = target_[d], y = st.y[d], yt = st.y[t];
    const int r = y <= st.q[d] ? st.q[d] - y : st.q[d] - y + m;
    const int carry = y + r >= m ? 1 : 0;
    const int floor_cost = cost + st.rest[d + 1];
    int up = 0, down = -1;  // next k with s >= 0 and with s < 0
    for (;;) {
      const int s_up = r + up * m, s_down = r + down * m;
      int k, len;
      if (s_up <= -s_down) {
        k = up++;
        len = s_up;
      } else {
        k = down--;
        len = -s_down;
      }
      if (floor_cost + len >= st.best) break;  // candidates only get longer
      const int yn = yt + shift_of(k + carry, jmod_[d], m_[t]);
      st.y[t] = yn >= m_[t] ? yn - m_[t] : yn;
      walk_from(st, d + 1, cost + len);
    }
    st.y[t] = yt;
  }

  // ---- Fallback when the hub table would be too large: the path family of the header ----------------

  int family_hops(const std::array<int, kMaxDims>& a, const std::array<int, kMaxDims>& b) const {
    std::array<int, kMaxDims> c;
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
    int h = INT_MAX;
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
    return h;
  }

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

  // Largest hub table kept (hops from every endpoint to every hub). 2-D twisted tori have a handful of
  // hubs at any size; 3-D ones have lines of hubs (about 12 per unit of side length), so a 48x48x48 torus
  // needs about 64 MiB.
  static constexpr int64_t kHubTableMaxBytes = int64_t{128} << 20;
  bool exact_ = false;                   // pair or hub tables built: route() is the exact shortest path
  detail::HubLineTable lines_;           // 3-D hub lines (empty: the hub rows below, or none)
  bool lines3d_ = false;                 // lines_ built and the 3-D ordered search written out
  std::vector<uint8_t> pairs_;           // hops of every unordered pair (small networks; see pair_hops)
  bool pair_square_ = false;             // pairs_ is the square of bytes (else the triangle)
  bool pair_nibbles_ = false;            // the triangle holds hops - 1 in 4 bits per pair
  int nhubs_ = 0;
  size_t row_ = 0;                       // table entries per endpoint (nhubs_; 8 or a multiple of 16 in off8_)
  // Per endpoint: (hops to the nearest hub) >> near_shift_, so that it fits in a byte; near_low_ <<
  // near_shift_ is a lower bound of those hops and the base of the row's offsets.
  detail::HugePageBytes near_low_;
  int near_shift_ = 0;
  detail::HugePageBytes off8_;           // hops[endpoint * row_ + hub] - (near_low_[endpoint] << near_shift_)
  std::vector<uint16_t> hub16_;          // hops[endpoint * row_ + hub] when an offset would exceed 254
  std::array<int, kMaxDims> stride_{}, target_{}, back_{};
  // How the ordered search treats a dimension: unwrapped; wrapped without shifting another; shifting an
  // earlier one (its crossing count is chosen up front); shifting a later one (chosen when walked).
  enum class Kind : uint8_t { line, ring, back, forward };
  std::array<Kind, kMaxDims> kind_{};
  int nback_ = 0;

  std::vector<int> dims_, wrap_, jump_;
  int degree_;
  SimTime link_latency_;
  uint64_t bandwidth_bps_;
  int endpoints_ = 0;
  int nd_ = 0;
  bool twisted_ = false;                 // some wrap link shifts its target dimension
  std::array<int, kMaxDims> m_{};        // sizes
  std::array<FastDivisor, kMaxDims> divisor_{};  // by m_
  std::array<bool, kMaxDims> wrapped_{};
  std::array<int, kMaxDims> jmod_{};     // shift of d's wrap in its target dimension, in 0..m_t-1
  std::array<int, kMaxDims> from_{};     // the dimension whose wrap shifts d
  std::array<int, kMaxDims> order_{};    // dimensions grouped by cycle of d -> (d + degree) mod D
  std::array<int, kMaxDims + 1> cycle_start_{};
  int order_len_ = 0, ncycles_ = 0;
};

}  // namespace twisted_torus_detail
}  // namespace xsim::net
