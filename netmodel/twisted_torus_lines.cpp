// Hub-line distance table of the 3-D twisted torus (see twisted_torus_lines.hpp and the header comment of
// xsim/netmodel/twisted_torus.hpp for why it gives the exact shortest path).
#include "twisted_torus_lines.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define XSIM_TT_LINES_X86 1
#endif

namespace xsim::net::detail {
namespace {

constexpr uint8_t kUnseen = 255;

// Breadth-first search on the 3-D grid: a link along d that stays inside the box is +-stride[d]; only
// the links leaving the box (wrap links, or none) are looked up in adj (6 entries per endpoint: d = 0..2,
// forwards then backwards; an endpoint's own number where there is no link). Queue entries carry the
// coordinates (8 bits each, sides up to 256) next to the endpoint number, so no division is needed.
class GridBfs {
 public:
  GridBfs(const std::vector<int>& adj, const int (&dims)[3]) : adj_(adj), queue_(adj.size() / 6) {
    for (int d = 0, st = 1; d < 3; ++d) {
      m_[d] = dims[d];
      stride_[d] = st;
      st *= dims[d];
    }
  }
  // Hops from src to every endpoint into dist (kUnseen: not reached). False when some endpoint is 255 or
  // more hops away or not reached.
  bool run(int src, std::vector<uint8_t>& dist) {
    std::fill(dist.begin(), dist.end(), kUnseen);
    size_t head = 0, tail = 0;
    dist[static_cast<size_t>(src)] = 0;
    queue_[tail++] = pack(src);
    while (head < tail) {
      const uint64_t q = queue_[head++];
      const int u = static_cast<int>(q >> 32);
      const int du = dist[static_cast<size_t>(u)] + 1;
      for (int d = 0; d < 3; ++d) {
        const int x = static_cast<int>(q >> (8 * d)) & 0xff;
        for (int dir = 0; dir < 2; ++dir) {
          int v;
          uint64_t qv;
          if (dir == 0 ? x + 1 < m_[d] : x > 0) {
            v = dir == 0 ? u + stride_[d] : u - stride_[d];
            qv = (static_cast<uint64_t>(static_cast<uint32_t>(v)) << 32) |
                 ((dir == 0 ? q + (uint64_t{1} << (8 * d)) : q - (uint64_t{1} << (8 * d))) & 0xffffff);
          } else {
            v = adj_[static_cast<size_t>(u) * 6 + static_cast<size_t>(2 * d + dir)];
            if (dist[static_cast<size_t>(v)] != kUnseen) continue;
            qv = pack(v);
          }
          if (dist[static_cast<size_t>(v)] != kUnseen) continue;
          if (du >= kUnseen) return false;
          dist[static_cast<size_t>(v)] = static_cast<uint8_t>(du);
          queue_[tail++] = qv;
        }
      }
    }
    return tail == dist.size();
  }

 private:
  uint64_t pack(int v) const {
    const int x0 = v % m_[0], x1 = v / m_[0] % m_[1], x2 = v / (m_[0] * m_[1]);
    return (static_cast<uint64_t>(static_cast<uint32_t>(v)) << 32) | static_cast<uint64_t>(x0) |
           (static_cast<uint64_t>(x1) << 8) | (static_cast<uint64_t>(x2) << 16);
  }
  const std::vector<int>& adj_;
  std::vector<uint64_t> queue_;
  int m_[3], stride_[3];
};

#if XSIM_TT_LINES_X86
#define XSIM_AVX2 __attribute__((target("avx2")))
XSIM_AVX2 inline __m256i load32(const uint8_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
// The coordinate along each lane's axis, in every lane.
XSIM_AVX2 inline __m256i lane_coords(const int* z, const uint8_t (*lane_axis)[32]) {
  __m256i v = _mm256_and_si256(_mm256_set1_epi8(static_cast<char>(z[0])), load32(lane_axis[0]));
  v = _mm256_or_si256(v, _mm256_and_si256(_mm256_set1_epi8(static_cast<char>(z[1])), load32(lane_axis[1])));
  return _mm256_or_si256(v, _mm256_and_si256(_mm256_set1_epi8(static_cast<char>(z[2])), load32(lane_axis[2])));
}

// min over the lanes of min(own_s + f_t(zs), own_t + f_s(zt)) with saturating byte arithmetic (255: 255 or
// more). f(z) = min_k (v_k + |z - p_k|) over the cones of the record. 32 lanes at a time.
XSIM_AVX2 int lanes_min_avx2(const uint8_t* ps, const uint8_t* pt, int cones, size_t width,
                             const uint8_t (*lane_axis)[32], const uint8_t* pad, const int* zs, const int* zt) {
  const __m256i zsv = lane_coords(zs, lane_axis), ztv = lane_coords(zt, lane_axis);
  __m256i ft = _mm256_set1_epi8(-1), fs = ft;  // f_t at zs, f_s at zt
  for (int k = 0; k < cones; ++k) {
    const size_t at = (1 + 2 * static_cast<size_t>(k)) * width;
    const __m256i pt_k = load32(pt + at), ps_k = load32(ps + at);
    const __m256i dt = _mm256_or_si256(_mm256_subs_epu8(zsv, pt_k), _mm256_subs_epu8(pt_k, zsv));
    const __m256i dsv = _mm256_or_si256(_mm256_subs_epu8(ztv, ps_k), _mm256_subs_epu8(ps_k, ztv));
    ft = _mm256_min_epu8(ft, _mm256_adds_epu8(load32(pt + at + width), dt));
    fs = _mm256_min_epu8(fs, _mm256_adds_epu8(load32(ps + at + width), dsv));
  }
  __m256i m = _mm256_min_epu8(_mm256_adds_epu8(load32(ps), ft), _mm256_adds_epu8(load32(pt), fs));
  m = _mm256_or_si256(m, load32(pad));
  __m128i x = _mm_min_epu8(_mm256_castsi256_si128(m), _mm256_extracti128_si256(m, 1));
  x = _mm_min_epu8(x, _mm_srli_si128(x, 8));
  x = _mm_minpos_epu16(_mm_cvtepu8_epi16(x));
  return _mm_cvtsi128_si32(x) & 0xffff;
}
#undef XSIM_AVX2

// The same with SSE2 (every x86-64), 16 lanes at a time.
int lanes_min_sse2(const uint8_t* ps, const uint8_t* pt, int cones, size_t width, const uint8_t (*lane_axis)[32],
                   const uint8_t* pad, const int* zs, const int* zt) {
  auto load = [](const uint8_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); };
  __m128i best = _mm_set1_epi8(-1);
  for (size_t c = 0; c < width; c += 16) {
    auto zvec = [&](const int* z) {
      __m128i v = _mm_and_si128(_mm_set1_epi8(static_cast<char>(z[0])), load(lane_axis[0] + c));
      v = _mm_or_si128(v, _mm_and_si128(_mm_set1_epi8(static_cast<char>(z[1])), load(lane_axis[1] + c)));
      return _mm_or_si128(v, _mm_and_si128(_mm_set1_epi8(static_cast<char>(z[2])), load(lane_axis[2] + c)));
    };
    const __m128i zsv = zvec(zs), ztv = zvec(zt);
    __m128i ft = _mm_set1_epi8(-1), fs = ft;
    for (int k = 0; k < cones; ++k) {
      const size_t at = (1 + 2 * static_cast<size_t>(k)) * width + c;
      const __m128i pt_k = load(pt + at), ps_k = load(ps + at);
      const __m128i dt = _mm_or_si128(_mm_subs_epu8(zsv, pt_k), _mm_subs_epu8(pt_k, zsv));
      const __m128i dsv = _mm_or_si128(_mm_subs_epu8(ztv, ps_k), _mm_subs_epu8(ps_k, ztv));
      ft = _mm_min_epu8(ft, _mm_adds_epu8(load(pt + at + width), dt));
      fs = _mm_min_epu8(fs, _mm_adds_epu8(load(ps + at + width), dsv));
    }
    __m128i m = _mm_min_epu8(_mm_adds_epu8(load(ps + c), ft), _mm_adds_epu8(load(pt + c), fs));
    best = _mm_min_epu8(best, _mm_or_si128(m, load(pad + c)));
  }
  best = _mm_min_epu8(best, _mm_srli_si128(best, 8));
  best = _mm_min_epu8(best, _mm_srli_si128(best, 4));
  best = _mm_min_epu8(best, _mm_srli_si128(best, 2));
  best = _mm_min_epu8(best, _mm_srli_si128(best, 1));
  return _mm_cvtsi128_si32(best) & 0xff;
}
#endif

}  // namespace

bool HubLineTable::build(const std::vector<int>& adj_in, int fan_in, const int (&dims)[3],
                         const std::vector<HubLine>& lines, size_t max_bytes_per_endpoint, size_t max_bytes) {
  const int nl = static_cast<int>(lines.size());
  if (nl == 0 || nl > kMaxLines) return false;
  for (const HubLine& l : lines)
    if (l.length < 1 || l.length > 256) return false;
  for (int m : dims)
    if (m < 1 || m > 256) return false;  // coordinates in a byte
  const size_t n = static_cast<size_t>(dims[0]) * static_cast<size_t>(dims[1]) * static_cast<size_t>(dims[2]);
  const size_t fan = static_cast<size_t>(fan_in), w = static_cast<size_t>(nl);
  if (fan != 6 || adj_in.size() != n * fan) return false;
  if (n * (kHeader + 3 * w) > max_bytes) return false;  // even one cone per line would not fit
  std::vector<int> adj(adj_in);  // "no link" becomes a link to the endpoint itself (already seen)
  for (size_t e = 0; e < n; ++e)
    for (size_t i = 0; i < fan; ++i)
      if (adj[e * fan + i] < 0) adj[e * fan + i] = static_cast<int>(e);
  GridBfs bfs(adj, dims);

  // Cones of every endpoint and line: the apexes z of f(z) = hops to hub z of the line, where f(z) is
  // below f(z - 1) + 1 and f(z + 1) + 1 (f changes by at most 1 from z to z + 1: the hubs are linked).
  // The first kInline per endpoint and line are kept in place, the rare others in `extra`.
  constexpr int kInline = 6;
  struct Extra {
    uint32_t e;
    uint8_t line, p, v;
  };
  std::vector<uint8_t> count(n * w), pos(n * w * kInline), val(n * w * kInline);
  std::vector<Extra> extra;
  std::vector<uint8_t> prev(n), cur(n), next(n);
  int cones = 1;
  for (int li = 0; li < nl; ++li) {
    const HubLine& l = lines[static_cast<size_t>(li)];
    if (!bfs.run(l.first, cur)) return false;
    for (int z = 0; z < l.length; ++z) {
      const bool last = z + 1 == l.length;
      if (!last && !bfs.run(l.first + (z + 1) * l.stride, next)) return false;
      for (size_t e = 0; e < n; ++e) {
        const int f = cur[e];
        if ((z > 0 && prev[e] + 1 <= f) || (!last && next[e] + 1 <= f)) continue;
        const size_t at = e * w + static_cast<size_t>(li);
        const int c = count[at]++;
        if (c < kInline) {
          pos[at * kInline + static_cast<size_t>(c)] = static_cast<uint8_t>(z);
          val[at * kInline + static_cast<size_t>(c)] = static_cast<uint8_t>(f);
        } else {
          if (c + 1 > kMaxCones) return false;
          extra.push_back({static_cast<uint32_t>(e), static_cast<uint8_t>(li), static_cast<uint8_t>(z),
                           static_cast<uint8_t>(f)});
        }
        cones = std::max(cones, c + 1);
      }
      prev.swap(cur);
      cur.swap(next);
    }
  }
  const size_t stride = kHeader + w * (1 + 2 * static_cast<size_t>(cones));
  if (stride > max_bytes_per_endpoint || stride * n > max_bytes) return false;
  std::stable_sort(extra.begin(), extra.end(), [](const Extra& x, const Extra& y) {
    return x.e != y.e ? x.e < y.e : x.line < y.line;
  });

  table_.assign(n * stride + 32, 0);
  near_.assign(n, 0);
  size_t xi = 0;  // next entry of `extra`
  std::vector<uint8_t> p(w * static_cast<size_t>(cones)), v(w * static_cast<size_t>(cones));
  for (size_t e = 0; e < n; ++e) {
    const int coord[3] = {static_cast<int>(e % static_cast<size_t>(dims[0])),
                          static_cast<int>(e / static_cast<size_t>(dims[0]) % static_cast<size_t>(dims[1])),
                          static_cast<int>(e / (static_cast<size_t>(dims[0]) * static_cast<size_t>(dims[1])))};
    int near = kUnseen;
    for (size_t li = 0; li < w; ++li) {
      const size_t at = e * w + li;
      const int c = count[at];
      size_t k = 0;
      for (; k < static_cast<size_t>(std::min(c, kInline)); ++k) {
        p[li * static_cast<size_t>(cones) + k] = pos[at * kInline + k];
        v[li * static_cast<size_t>(cones) + k] = val[at * kInline + k];
      }
      for (; xi < extra.size() && extra[xi].e == e && extra[xi].line == li; ++xi, ++k) {
        p[li * static_cast<size_t>(cones) + k] = extra[xi].p;
        v[li * static_cast<size_t>(cones) + k] = extra[xi].v;
      }
      for (; k < static_cast<size_t>(cones); ++k) {  // unused cones repeat the first
        p[li * static_cast<size_t>(cones) + k] = p[li * static_cast<size_t>(cones)];
        v[li * static_cast<size_t>(cones) + k] = v[li * static_cast<size_t>(cones)];
      }
      for (k = 0; k < static_cast<size_t>(cones); ++k) near = std::min(near, int{v[li * static_cast<size_t>(cones) + k]});
    }
    near_[e] = static_cast<uint8_t>(near);
    uint8_t* r = table_.data() + e * stride;
    r[0] = static_cast<uint8_t>(near & 0xff);
    r[1] = static_cast<uint8_t>(near >> 8);
    uint8_t* planes = r + kHeader;
    for (size_t li = 0; li < w; ++li) {
      const int z = coord[lines[li].axis];
      int own = std::numeric_limits<int>::max();
      for (size_t k = 0; k < static_cast<size_t>(cones); ++k) {
        const int pk = p[li * static_cast<size_t>(cones) + k], vk = v[li * static_cast<size_t>(cones) + k];
        planes[(1 + 2 * k) * w + li] = static_cast<uint8_t>(pk);
        planes[(2 + 2 * k) * w + li] = static_cast<uint8_t>(vk - near);
        own = std::min(own, vk + (z < pk ? pk - z : z - pk));
      }
      planes[li] = static_cast<uint8_t>(own - near);
    }
  }
  stride_ = stride;
  width_ = nl;
  nlines_ = nl;
  cones_ = cones;
  axis_.clear();
  for (const HubLine& l : lines) axis_.push_back(l.axis);
  std::memset(lane_axis_, 0, sizeof lane_axis_);
  std::memset(pad_, 0xff, sizeof pad_);
  for (int li = 0; li < nl; ++li) {
    lane_axis_[lines[static_cast<size_t>(li)].axis][li] = 0xff;
    pad_[li] = 0;
  }
#if XSIM_TT_LINES_X86
  avx2_ = __builtin_cpu_supports("avx2");
#endif
  return true;
}

int HubLineTable::exact(const uint8_t* rs, const uint8_t* rt, const int* zs, const int* zt) const {
  const size_t w = static_cast<size_t>(width_);
  const uint8_t* ps = rs + kHeader;
  const uint8_t* pt = rt + kHeader;
  int best = std::numeric_limits<int>::max();
  for (size_t li = 0; li < w; ++li) {
    const int a = axis_[li];
    int ft = std::numeric_limits<int>::max(), fs = ft;  // f_t at zs[a], f_s at zt[a]
    for (size_t k = 0; k < static_cast<size_t>(cones_); ++k) {
      const size_t at = (1 + 2 * k) * w + li;
      const int qt = pt[at], qs = ps[at];
      ft = std::min(ft, pt[at + w] + (zs[a] < qt ? qt - zs[a] : zs[a] - qt));
      fs = std::min(fs, ps[at + w] + (zt[a] < qs ? qs - zt[a] : zt[a] - qs));
    }
    best = std::min(best, std::min(ps[li] + ft, pt[li] + fs));
  }
  return best;
}

int HubLineTable::via_lines(int s, int t, const int* zs, const int* zt, int best) const {
  const int near = near_[static_cast<size_t>(s)] + near_[static_cast<size_t>(t)];  // the records' offsets start here
  if (near >= best) return best;
  const uint8_t* rs = record(s);
  const uint8_t* rt = record(t);
#if XSIM_TT_LINES_X86
  const int m = avx2_ ? lanes_min_avx2(rs + kHeader, rt + kHeader, cones_, static_cast<size_t>(width_), lane_axis_,
                                       pad_, zs, zt)
                      : lanes_min_sse2(rs + kHeader, rt + kHeader, cones_, static_cast<size_t>(width_), lane_axis_,
                                       pad_, zs, zt);
  if (m < 255) return near + m < best ? near + m : best;  // exact: no saturated sum is the minimum
  if (near + 255 >= best) return best;
#endif
  const int h = near + exact(rs, rt, zs, zt);
  return h < best ? h : best;
}

}  // namespace xsim::net::detail
