// Hub-line distance table of the 3-D twisted torus (internal to netmodel; included by twisted_torus.cpp
// only). In 3-D every hub of a twisted torus lies on a full line of hubs along one axis; this table keeps,
// per endpoint and per line, the hops to every hub of that line as a minimum of a few "cones" (hub z of
// the line is f(z) = min_k (v_k + |z - p_k|) hops away), and answers the hub term of a route with SIMD
// over the lines (see the header comment of xsim/netmodel/twisted_torus.hpp). Immutable after build():
// safe to query from any thread.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "huge_page_bytes.hpp"

namespace xsim::net::detail {

// One line of hubs: the endpoints first + z * stride for z in 0..length-1, along axis `axis` (0..2).
struct HubLine {
  int axis;
  int first;
  int stride;
  int length;
};

class HubLineTable {
 public:
  static constexpr int kMaxLines = 32;   // one SIMD lane (byte) per line
  static constexpr int kMaxCones = 16;   // per endpoint and line

  // Runs one breadth-first search per hub over `adj` (`fan` neighbours per endpoint, -1 for none) and
  // keeps the cones. `lines` must be sorted by axis; dims are the three sizes (dimension 0 fastest, as in
  // the mesh numbering). Returns false and keeps nothing when the table does
  // not apply: more than kMaxLines lines, a line longer than 256, a distance above 254 hops, more than
  // kMaxCones cones for some endpoint and line, more than max_bytes_per_endpoint bytes per endpoint, or
  // more than max_bytes in all.
  bool build(const std::vector<int>& adj, int fan, const int (&dims)[3], const std::vector<HubLine>& lines,
             size_t max_bytes_per_endpoint, size_t max_bytes);

  bool empty() const { return table_.empty(); }
  int lines() const { return nlines_; }
  int cones() const { return cones_; }
  size_t bytes_per_endpoint() const { return stride_; }

  // Starts loading the record of endpoint e (route() calls it before its ordered search).
  void prefetch(int e) const {  // the first 256 bytes and the last (most records are 206 bytes long)
    __builtin_prefetch(&near_[static_cast<size_t>(e)]);
    const uint8_t* r = record(e);
    __builtin_prefetch(r);
    __builtin_prefetch(r + 64);
    __builtin_prefetch(r + 128);
    __builtin_prefetch(r + 192);
    __builtin_prefetch(r + stride_ - 1);
  }
  // Hops from s to t through a hub, or `best` when that is not shorter. zs, zt: the coordinates of s and
  // t (three each). Only the hubs of each line at z = zs[axis] and z = zt[axis] are tried: a shortest
  // path through a hub of a line can use one of those two instead (checked against BFS, see the header).
  int via_lines(int s, int t, const int* zs, const int* zt, int best) const;

 private:
  const uint8_t* record(int e) const { return table_.data() + static_cast<size_t>(e) * stride_; }
  int exact(const uint8_t* rs, const uint8_t* rt, const int* zs, const int* zt) const;

  // Record of one endpoint, stride_ bytes: near (uint16, hops to the nearest hub), 6 unused bytes, then
  // planes of width_ bytes, one byte per line: own (hops to the line's hub at the endpoint's own
  // coordinate along the axis, minus near), then for each cone k: its position p_k and its value v_k minus
  // near. Unused cones repeat cone 0; every value is at most 254.
  static constexpr size_t kHeader = 8;
  HugePageBytes table_;  // endpoints * stride_ bytes and 32 bytes of padding (unaligned loads)
  // near of every endpoint again, one byte each (at most 254): a small array that stays in the cache, so
  // that the queries it answers (near(s) + near(t) not below the best path so far) wait for no record.
  HugePageBytes near_;
  size_t stride_ = 0;
  int width_ = 0;      // plane width: the number of lines
  int nlines_ = 0;
  int cones_ = 0;
  std::vector<int> axis_;                // per line
  alignas(32) uint8_t lane_axis_[3][32]{};  // 0xff in the lanes of the lines along axis a
  alignas(32) uint8_t pad_[32]{};           // 0xff in the lanes beyond the last line
  bool avx2_ = false;
};

}  // namespace xsim::net::detail
