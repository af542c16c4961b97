// SimTime: virtual time as an integer count of picoseconds (docs/architecture.md §2).
// Layer: common (header-only); every layer may include it. No MPI, no fibers.
// Arithmetic that would overflow throws std::overflow_error; it never wraps.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace xsim {

class SimTime {
 public:
  constexpr SimTime() = default;
  static constexpr SimTime from_ps(int64_t ps) { return SimTime(ps); }
  static constexpr SimTime from_ns(int64_t ns) { return SimTime(checked_mul(ns, 1000)); }
  // Rounds to the nearest picosecond; throws for NaN, negative or out-of-range values.
  static SimTime from_seconds(double s) {
    if (!(s >= 0.0) || s * 1e12 >= 9.2e18)
      throw std::overflow_error("virtual time out of range: " + std::to_string(s) +
                                " s (virtual times are 64-bit picoseconds: 0 to 9.2e6 s, about 106 days)");
    return SimTime(static_cast<int64_t>(std::llround(s * 1e12)));
  }
  static constexpr SimTime infinity() { return SimTime(std::numeric_limits<int64_t>::max()); }
  static constexpr SimTime zero() { return SimTime(0); }

  constexpr int64_t ps() const { return ps_; }
  constexpr double seconds() const { return static_cast<double>(ps_) * 1e-12; }
  constexpr bool is_infinite() const { return ps_ == std::numeric_limits<int64_t>::max(); }

  friend SimTime operator+(SimTime a, SimTime b) {
    int64_t r;
    if (__builtin_add_overflow(a.ps_, b.ps_, &r) || r == std::numeric_limits<int64_t>::max())
      throw std::overflow_error("virtual time overflow (more than 106 days of simulated time)");
    return SimTime(r);
  }
  SimTime& operator+=(SimTime b) { return *this = *this + b; }
  friend constexpr SimTime operator-(SimTime a, SimTime b) { return SimTime(a.ps_ - b.ps_); }
  friend constexpr auto operator<=>(SimTime a, SimTime b) = default;
  friend constexpr SimTime max(SimTime a, SimTime b) { return a < b ? b : a; }
  friend constexpr SimTime min(SimTime a, SimTime b) { return a < b ? a : b; }

 private:
  constexpr explicit SimTime(int64_t ps) : ps_(ps) {}
  static constexpr int64_t checked_mul(int64_t a, int64_t b) {
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r)) throw std::overflow_error("virtual time overflow");
    return r;
  }
  int64_t ps_ = 0;
};

}  // namespace xsim
