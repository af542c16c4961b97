// FairShare (fair_share.hpp): max-min rates by progressive filling, and the event advance.
#include "fair_share.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>
#include <utility>
#include <stdexcept>

namespace xsim {

std::vector<double> FairShare::max_min(const std::vector<std::vector<uint32_t>>& routes,
                                       const std::vector<double>& weights, const std::vector<double>& capacity) {
  const size_t n = routes.size(), m = capacity.size();
  std::vector<double> rate(n, 0.0), left(capacity), wsum(m, 0.0);
  std::vector<uint32_t> unfixed(m, 0);
  std::vector<std::vector<uint32_t>> on(m);
  std::vector<char> fixed(n, 0);
  size_t todo = 0;
  for (size_t i = 0; i < n; ++i) {
    if (routes[i].empty()) {  // crosses no link: nothing limits it
      rate[i] = std::numeric_limits<double>::infinity();
      fixed[i] = 1;
      continue;
    }
    ++todo;
    for (uint32_t l : routes[i]) {
      wsum[l] += weights[i];
      ++unfixed[l];
      on[l].push_back(static_cast<uint32_t>(i));
    }
  }
  // The bottleneck first: the link with the least capacity left per unit of weight still to serve (on a
  // tie the lowest index, so the order of the fixes is the same everywhere). A lazy min-heap of (share,
  // link): a link's entry is stale once a fix changed its share, and is pushed again then.
  using Entry = std::pair<double, uint32_t>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap;
  std::vector<double> current(m);
  auto share_of = [&](size_t l) { return std::max(left[l], 0.0) / wsum[l]; };
  for (size_t l = 0; l < m; ++l)
    if (unfixed[l]) heap.push({current[l] = share_of(l), static_cast<uint32_t>(l)});
  while (todo && !heap.empty()) {
    const auto [share, best] = heap.top();
    heap.pop();
    if (!unfixed[best] || share != current[best]) continue;  // done, or stale
    for (uint32_t i : on[best]) {
      if (fixed[i]) continue;
      fixed[i] = 1;
      --todo;
      rate[i] = share * weights[i];
      for (uint32_t l : routes[i]) {
        left[l] -= rate[i];
        wsum[l] -= weights[i];
        --unfixed[l];
      }
    }
    for (uint32_t i : on[best])  // the links whose share the fixes changed
      for (uint32_t l : routes[i])
        if (unfixed[l] && l != best && share_of(l) != current[l]) heap.push({current[l] = share_of(l), l});
  }
  return rate;
}

void FairShare::add(uint64_t id, int64_t start_ps, int64_t horizon_ps, double bits, double weight,
                    const std::vector<Use>& links) {
  if (!(weight > 0)) throw std::invalid_argument("fair sharing: a flow's weight must be positive");
  Flow f{id, start_ps, std::max(horizon_ps, start_ps), bits, weight, 0.0, 0, false, {}};
  f.links.reserve(links.size());
  for (const Use& u : links) {
    auto [it, fresh] = link_index_.try_emplace(u.link, static_cast<uint32_t>(caps_.size()));
    if (fresh) caps_.push_back(static_cast<double>(u.bps) * 1e-12);
    if (std::find(f.links.begin(), f.links.end(), it->second) == f.links.end()) f.links.push_back(it->second);
  }
  queued_.push_back(std::move(f));
}

void FairShare::allocate(State& s) const {
  // Only the links the flows under way cross take part: a compact numbering of them, in first-use order.
  std::unordered_map<uint32_t, uint32_t> local;
  std::vector<double> cap;
  std::vector<std::vector<uint32_t>> routes(s.flows.size());
  std::vector<double> weights(s.flows.size());
  for (size_t i = 0; i < s.flows.size(); ++i) {
    weights[i] = s.flows[i].weight;
    for (uint32_t l : s.flows[i].links) {
      auto [it, fresh] = local.try_emplace(l, static_cast<uint32_t>(cap.size()));
      if (fresh) cap.push_back(caps_[l]);
      routes[i].push_back(it->second);
    }
  }
  const std::vector<double> rate = max_min(routes, weights, cap);
  for (size_t i = 0; i < s.flows.size(); ++i) {
    Flow& f = s.flows[i];
    f.rate = rate[i];
    const double t = f.rate > 0 ? std::round(f.left / f.rate) : 9e18;  // ps to go, to the nearest
    f.end = s.now + static_cast<int64_t>(std::clamp(t, 0.0, 9e18));
  }
}

int64_t FairShare::next_end(const State& s) {
  int64_t t = std::numeric_limits<int64_t>::max();
  for (const Flow& f : s.flows) t = std::min(t, f.end);
  return t;
}

void FairShare::drain(State& s, int64_t to) const {
  const double dt = static_cast<double>(to - s.now);
  for (Flow& f : s.flows) f.left = std::max(0.0, f.left - f.rate * dt);
  s.now = to;
}

void FairShare::finish(State& s, std::vector<Decided>* out) const {
  const int64_t t = next_end(s);
  drain(s, t);
  size_t keep = 0;
  for (size_t i = 0; i < s.flows.size(); ++i) {
    Flow& f = s.flows[i];
    if (f.end == t) {
      if (out && !f.decided) out->push_back({f.id, t});
      continue;
    }
    if (keep != i) s.flows[keep] = std::move(f);
    ++keep;
  }
  s.flows.resize(keep);
}

void FairShare::decide_upto(int64_t limit, std::vector<Decided>& out) {
  // Drops the heap's flows already decided (they ended in the state itself).
  while (!horizons_.empty() && !undecided_.count(horizons_.top().id)) horizons_.pop();
  if (horizons_.empty() || horizons_.top().at > limit) return;
  // The flows whose horizon is at or before `limit` end as the state would with no flow added: project a
  // copy until they have all ended.
  std::unordered_set<uint64_t> targets;
  while (!horizons_.empty() && horizons_.top().at <= limit) {
    if (undecided_.count(horizons_.top().id)) targets.insert(horizons_.top().id);
    horizons_.pop();
  }
  State s = state_;
  const size_t first = out.size();
  std::vector<Decided> ended;
  while (!targets.empty() && !s.flows.empty()) {
    ended.clear();
    finish(s, &ended);
    for (const Decided& d : ended)
      if (targets.erase(d.id)) out.push_back(d);
    allocate(s);
  }
  for (size_t i = first; i < out.size(); ++i) undecided_.erase(out[i].id);
  for (Flow& f : state_.flows)
    if (!undecided_.count(f.id)) f.decided = true;
}

void FairShare::advance(int64_t bound, std::vector<Decided>& out) {
  for (;;) {
    const bool arrival = queued_head_ < queued_.size() && queued_[queued_head_].start <= bound;
    const int64_t ta = arrival ? queued_[queued_head_].start : std::numeric_limits<int64_t>::max();
    // Every flow whose horizon comes before the next start (and by the bound) is decided first.
    decide_upto(std::min(ta - 1, bound), out);
    const int64_t te = next_end(state_);
    if (!state_.flows.empty() && te <= bound && te <= ta) {  // flows end (the ones starting at that time start after them)
      std::vector<Decided> ended;
      finish(state_, &ended);
      for (const Decided& d : ended) undecided_.erase(d.id);
      out.insert(out.end(), ended.begin(), ended.end());
      if (!arrival || ta != te) {
        allocate(state_);
        continue;
      }
    } else if (!arrival) {
      break;
    }
    drain(state_, ta);
    while (queued_head_ < queued_.size() && queued_[queued_head_].start == ta) {
      Flow& f = queued_[queued_head_++];
      horizons_.push({f.horizon, f.id});
      undecided_.insert(f.id);
      state_.flows.push_back(std::move(f));
    }
    if (queued_head_ == queued_.size()) queued_.clear(), queued_head_ = 0;
    allocate(state_);
  }
}

}  // namespace xsim
