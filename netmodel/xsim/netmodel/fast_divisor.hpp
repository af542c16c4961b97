// Division of a non-negative int by a divisor fixed in advance, with one multiplication instead of a
// division instruction (Lemire, Kaser and Kurz, "Faster remainder by direct computation", 2019: exact for
// every 32-bit dividend). Used where a route splits an endpoint number into coordinates (twisted torus,
// hierarchy levels): the division instructions' latency was a large part of such a query. Layer: netmodel.
#pragma once
#include <cstdint>

namespace xsim::net {

class FastDivisor {
 public:
  FastDivisor() = default;
  // d >= 1.
  explicit FastDivisor(int d)
      : d_(static_cast<uint32_t>(d)), m_(d > 1 ? ~uint64_t{0} / static_cast<uint64_t>(d) + 1 : 0) {}
  int divisor() const { return static_cast<int>(d_); }
  // x / d for 0 <= x.
  int div(int x) const {
    if (d_ == 1) return x;
    return static_cast<int>((static_cast<unsigned __int128>(m_) * static_cast<uint32_t>(x)) >> 64);
  }

 private:
  uint32_t d_ = 1;
  uint64_t m_ = 0;
};

}  // namespace xsim::net
