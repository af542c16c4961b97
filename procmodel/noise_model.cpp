// The noise models (noise_model.hpp): a repeating pattern (periodic, trace) in closed form, and Poisson
// arrivals generated lazily per node and time bucket from a counter-based random number generator.
#include "xsim/procmodel/noise_model.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "xsim/units.hpp"

namespace xsim::proc {
namespace {

constexpr uint64_t kPhaseStream = 0x6e6f697365ull;  // "noise": a node's phase or offset
constexpr uint64_t kPoissonStream = 0x706f6973ull;  // "pois": a bucket's arrivals

uint64_t mix(uint64_t z) {  // splitmix64's finalizer
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

std::string rate_text(double hz) {  // shortest form: "10 kHz", "2.5 Hz"
  const char* unit = hz >= 1e6 ? " MHz" : hz >= 1e3 ? " kHz" : " Hz";
  const double v = hz >= 1e6 ? hz / 1e6 : hz >= 1e3 ? hz / 1e3 : hz;
  char buf[64];
  std::to_chars_result r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr) + unit;
}

int64_t checked(__int128 v, const char* what) {
  if (v < 0 || v >= static_cast<__int128>(std::numeric_limits<int64_t>::max()))
    throw std::overflow_error(std::string("virtual time overflow: ") + what +
                              " under the noise model exceeds the virtual clock's range");
  return static_cast<int64_t>(v);
}

// A pattern of disjoint detours in [0, L), repeated every L; node n sees it shifted: its time x is the
// pattern's x + offset(n). free(y) = y - (detour time in [0, y)) is non-decreasing; a computation of c from t
// ends at the smallest y with free(y) = free(t + o) + c, found in closed form (binary search in one cycle).
class CyclicNoise final : public NoiseModel {
 public:
  CyclicNoise(NoiseTrace t, bool random, uint64_t seed, std::string description)
      : L_(t.cycle.ps()), random_(random), seed_(seed), description_(std::move(description)) {
    if (L_ <= 0) throw std::invalid_argument("noise: a cycle must be positive");
    cum_.push_back(0);
    for (const Detour& d : t.detours) {
      starts_.push_back(d.start.ps());
      lengths_.push_back(d.length.ps());
      free_before_.push_back(d.start.ps() - cum_.back());
      cum_.push_back(cum_.back() + d.length.ps());
    }
    S_ = cum_.back();
    if (S_ >= L_) throw std::invalid_argument("noise: the detours fill the whole cycle");
  }

  SimTime finish(uint64_t node, SimTime t, SimTime c) override {
    if (c <= SimTime::zero() || S_ == 0) return t + c;
    const int64_t o = offset(node);
    const int64_t y = checked(static_cast<__int128>(t.ps()) + o, "a computation's start");
    const int64_t g = checked(static_cast<__int128>(free_of(y)) + c.ps(), "a computation's end");
    return SimTime::from_ps(inverse(g) - o);
  }

  std::vector<Detour> detours(uint64_t node, SimTime a, SimTime b) override {
    std::vector<Detour> out;
    if (S_ == 0 || b <= a) return out;
    const int64_t o = offset(node), ya = a.ps() + o, yb = b.ps() + o;
    for (int64_t k = ya / L_; k * L_ < yb; ++k)
      for (size_t i = 0; i < starts_.size(); ++i) {
        const int64_t s = std::max(k * L_ + starts_[i], ya), e = std::min(k * L_ + starts_[i] + lengths_[i], yb);
        if (s < e) out.push_back({SimTime::from_ps(s - o), SimTime::from_ps(e - s)});
      }
    return out;
  }

  std::string describe() const override { return description_; }

 private:
  int64_t offset(uint64_t node) const {
    return random_ ? static_cast<int64_t>(counter_hash(seed_, kPhaseStream, node, 0) % static_cast<uint64_t>(L_)) : 0;
  }
  // Detour time in [0, u) of one cycle, u in [0, L).
  int64_t partial(int64_t u) const {
    const size_t j = static_cast<size_t>(std::upper_bound(starts_.begin(), starts_.end(), u) - starts_.begin());
    if (j == 0) return 0;
    return cum_[j - 1] + std::min(u - starts_[j - 1], lengths_[j - 1]);
  }
  int64_t free_of(int64_t y) const { return y - ((y / L_) * S_ + partial(y % L_)); }
  // The smallest y with free_of(y) == g.
  int64_t inverse(int64_t g) const {
    const int64_t per_cycle = L_ - S_, k = g / per_cycle, r = g % per_cycle;
    const size_t j =
        static_cast<size_t>(std::lower_bound(free_before_.begin(), free_before_.end(), r) - free_before_.begin());
    return checked(static_cast<__int128>(k) * L_ + r + cum_[j], "a computation's end");
  }

  std::vector<int64_t> starts_, lengths_, free_before_, cum_;  // cum_[i]: detour time before detour i
  int64_t L_ = 0, S_ = 0;
  bool random_;
  uint64_t seed_;
  std::string description_;
};

// Poisson arrivals of rate λ per node, each starting a detour of length D; the node is in a detour while any
// lasts (their union). Time is cut into buckets of width W > D; bucket b's arrivals are the partial sums of
// exponential gaps from bW drawn from (seed, node, b, i), so any bucket is generated on its own. Only the
// last arrival of bucket b - 1 can reach into bucket b (W > D). A computation walks forward over the
// detours it meets: its cost is the number of detours inside it, plus one bucket's generation per bucket.
class PoissonNoise final : public NoiseModel {
 public:
  PoissonNoise(double rate_hz, SimTime d, uint64_t seed, std::string description)
      : D_(d.ps()), seed_(seed), description_(std::move(description)) {
    if (!(rate_hz > 0) || !std::isfinite(rate_hz)) throw std::invalid_argument("noise: poisson rate must be > 0");
    mean_gap_ps_ = 1e12 / rate_hz;
    const double w = std::max(16.0 * mean_gap_ps_, 2.0 * static_cast<double>(D_) + 1.0);
    if (w > 1e17) throw std::invalid_argument("noise: the poisson rate is too low (below about 1e-4 Hz)");
    W_ = static_cast<int64_t>(std::ceil(w));
  }

  SimTime finish(uint64_t node, SimTime t, SimTime c) override {
    if (c <= SimTime::zero() || D_ == 0) return t + c;
    int64_t pos = t.ps(), left = c.ps();
    for (;;) {
      const int64_t b = pos / W_, bend = checked(static_cast<__int128>(b + 1) * W_, "a computation's end");
      const std::vector<std::pair<int64_t, int64_t>>& iv = bucket(node, b);
      auto it = std::upper_bound(iv.begin(), iv.end(), pos, [](int64_t p, const auto& x) { return p < x.second; });
      for (; it != iv.end(); ++it) {
        if (it->first > pos) {
          if (it->first - pos >= left) return SimTime::from_ps(pos + left);
          left -= it->first - pos;
        }
        pos = it->second;
      }
      if (pos < bend) {
        if (bend - pos >= left) return SimTime::from_ps(pos + left);
        left -= bend - pos;
        pos = bend;
      }
    }
  }

  std::vector<Detour> detours(uint64_t node, SimTime a, SimTime b) override {
    std::vector<Detour> out;
    if (D_ == 0) return out;
    for (int64_t k = a.ps() / W_; k * W_ < b.ps(); ++k)
      for (const auto& [s0, e0] : bucket(node, k)) {
        int64_t s = std::max(s0, a.ps()), e = std::min(e0, b.ps());
        if (!out.empty() && s < out.back().end().ps()) s = out.back().end().ps();  // the part that spilled over
        if (s < e) out.push_back({SimTime::from_ps(s), SimTime::from_ps(e - s)});
      }
    return out;
  }

  std::string describe() const override { return description_; }

 private:
  struct Bucket {
    int64_t index = -1;
    std::vector<std::pair<int64_t, int64_t>> iv;  // disjoint [start, end), sorted; the last may pass the bucket
  };

  void arrivals(uint64_t node, int64_t b, std::vector<int64_t>& out) const {
    out.clear();
    double a = static_cast<double>(b) * static_cast<double>(W_);
    const double end = a + static_cast<double>(W_);
    for (uint64_t i = 0;; ++i) {
      a += -std::log(counter_uniform(seed_, kPoissonStream, node, (static_cast<uint64_t>(b) << 20) ^ i)) * mean_gap_ps_;
      if (a >= end) return;
      out.push_back(static_cast<int64_t>(std::llround(std::floor(a))));
    }
  }

  const std::vector<std::pair<int64_t, int64_t>>& bucket(uint64_t node, int64_t b) {
    Bucket& k = cache_[node];
    if (k.index == b) return k.iv;
    k.index = b;
    k.iv.clear();
    if (b > 0) {
      arrivals(node, b - 1, scratch_);
      if (!scratch_.empty() && scratch_.back() + D_ > b * W_) k.iv.push_back({b * W_, scratch_.back() + D_});
    }
    arrivals(node, b, scratch_);
    for (int64_t a : scratch_) {
      if (!k.iv.empty() && a <= k.iv.back().second) k.iv.back().second = std::max(k.iv.back().second, a + D_);
      else k.iv.push_back({a, a + D_});
    }
    return k.iv;
  }

  double mean_gap_ps_ = 0;
  int64_t D_, W_ = 1;
  uint64_t seed_;
  std::string description_;
  std::unordered_map<uint64_t, Bucket> cache_;  // one bucket per node: charges move forward in time
  std::vector<int64_t> scratch_;
};

}  // namespace

uint64_t counter_hash(uint64_t seed, uint64_t stream, uint64_t a, uint64_t b) {
  return mix(mix(mix(mix(seed) ^ stream) ^ a) ^ b);
}

double counter_uniform(uint64_t seed, uint64_t stream, uint64_t a, uint64_t b) {
  return (static_cast<double>(counter_hash(seed, stream, a, b) >> 11) + 1.0) * 0x1.0p-53;  // (0, 1]
}

std::unique_ptr<NoiseModel> make_cyclic_noise(NoiseTrace t, bool random_offset, uint64_t seed,
                                              std::string description) {
  return std::make_unique<CyclicNoise>(std::move(t), random_offset, seed, std::move(description));
}

std::unique_ptr<NoiseModel> make_noise_model(const NoiseSpec& spec, uint64_t seed) {
  switch (spec.kind) {
    case NoiseSpec::Kind::none: return nullptr;
    case NoiseSpec::Kind::periodic: {
      NoiseTrace t;
      t.cycle = spec.period;
      if (spec.duration > SimTime::zero()) t.detours.push_back({SimTime::zero(), spec.duration});
      return make_cyclic_noise(std::move(t), spec.random_phase, seed,
                               "periodic: " + format_time(spec.duration) + " every " + format_time(spec.period) +
                                   (spec.random_phase ? ", a random phase per node" : ", from time 0"));
    }
    case NoiseSpec::Kind::poisson:
      if (spec.rate_hz == 0 || spec.duration == SimTime::zero())
        return make_cyclic_noise(NoiseTrace{{}, SimTime::from_ps(1)}, false, seed, "poisson: none (zero)");
      return std::make_unique<PoissonNoise>(spec.rate_hz, spec.duration, seed,
                                            "poisson: " + format_time(spec.duration) + " at " +
                                                rate_text(spec.rate_hz) + " per node");
    case NoiseSpec::Kind::trace: {
      NoiseTrace t = read_noise_trace(spec.file);
      const size_t n = t.detours.size();
      const SimTime cycle = t.cycle;
      return make_cyclic_noise(std::move(t), true, seed,
                               "trace " + spec.file + ": " + std::to_string(n) + " detours every " +
                                   format_time(cycle) + ", a random offset per node");
    }
  }
  return nullptr;
}

}  // namespace xsim::proc
