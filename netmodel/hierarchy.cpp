#include "xsim/netmodel/hierarchy.hpp"

#include <limits>
#include <stdexcept>
#include <string>

namespace xsim::net {

Hierarchy::Hierarchy(std::vector<std::unique_ptr<Network>> levels) : levels_(std::move(levels)) {
  if (levels_.empty()) throw std::invalid_argument("a network needs at least one level");
  if (levels_.size() > static_cast<size_t>(Route::kMaxLevels))
    throw std::invalid_argument("a network has at most " + std::to_string(Route::kMaxLevels) + " levels (got " +
                                std::to_string(levels_.size()) + ")");
  stride_.assign(levels_.size(), 1);
  for (const auto& level : levels_) size_.emplace_back(level->endpoints());
  int64_t total = 1;
  for (size_t i = levels_.size(); i-- > 0;) {
    stride_[i] = static_cast<int>(total);
    total *= levels_[i]->endpoints();
    if (total > std::numeric_limits<int32_t>::max())
      throw std::invalid_argument("the network has more than 2^31-1 cores; make a level smaller");
  }
  cores_ = static_cast<int>(total);
  // Level i has one copy per endpoint of the level above: cores / (cores per endpoint of level i-1).
  first_id_.assign(levels_.size() + 1, 0);
  for (size_t i = 0; i < levels_.size(); ++i) {
    const uint64_t copies = i == 0 ? 1 : static_cast<uint64_t>(cores_) / static_cast<uint64_t>(stride_[i - 1]);
    first_id_[i + 1] = first_id_[i] + copies * levels_[i]->link_id_bound();
  }
}

void Hierarchy::add_links(size_t i, int64_t copy, const std::vector<Link>& part, std::vector<Link>& out) const {
  const uint64_t base = first_id_[i] + static_cast<uint64_t>(copy) * levels_[i]->link_id_bound();
  for (Link l : part) {
    l.id += base;
    out.push_back(l);
  }
}

bool Hierarchy::route_links(int src, int dst, uint64_t key, std::vector<Link>& out) const {
  const size_t n = levels_.size();
  int a[Route::kMaxLevels], b[Route::kMaxLevels];
  const size_t d = parting_level(src, dst, a, b);
  if (d == n) return true;  // same core
  const size_t first = out.size();
  auto fail = [&] {
    out.resize(first);
    return false;
  };
  std::vector<Link> part;
  // The copy of level i holding a core: the core's endpoint of level i - 1 (cores / stride of level i-1).
  auto copy_of = [&](int core, size_t i) -> int64_t { return i == 0 ? 0 : core / stride_[i - 1]; };
  for (size_t i = n; i-- > d + 1;) {
    part.clear();
    if (!levels_[i]->gateway_links(a[i], true, part)) return fail();
    add_links(i, copy_of(src, i), part, out);
  }
  part.clear();
  if (!levels_[d]->route_links(a[d], b[d], key, part)) return fail();
  add_links(d, copy_of(src, d), part, out);
  for (size_t i = d + 1; i < n; ++i) {
    part.clear();
    if (!levels_[i]->gateway_links(b[i], false, part)) return fail();
    add_links(i, copy_of(dst, i), part, out);
  }
  return true;
}

namespace {
void add(Route& r, const Route& part, size_t level) {
  r.latency += part.latency;
  if (part.hops > 0 && part.min_bandwidth_bps < r.min_bandwidth_bps) r.min_bandwidth_bps = part.min_bandwidth_bps;
  r.hops += part.hops;
  r.level_hops[level] += part.hops;
}
}  // namespace

void Hierarchy::split(int core, int* index) const {
  for (size_t i = levels_.size(); i-- > 1;) {  // innermost first; level 0 takes the rest
    const int q = size_[i].div(core);
    index[i] = core - q * size_[i].divisor();
    core = q;
  }
  index[0] = core;
}

Route Hierarchy::route_keyed(int src, int dst, uint64_t key) const {
  Route r{SimTime::zero(), std::numeric_limits<uint64_t>::max(), 0};
  const size_t n = levels_.size();
  int a[Route::kMaxLevels], b[Route::kMaxLevels];
  const size_t d = parting_level(src, dst, a, b);
  if (d == n) {  // same core
    r.min_bandwidth_bps = levels_[n - 1]->route(0, 0).min_bandwidth_bps;
    return r;
  }
  add(r, levels_[d]->route_keyed(a[d], b[d], key), d);
  for (size_t i = d + 1; i < n; ++i) {
    add(r, levels_[i]->to_gateway(a[i]), i);
    add(r, levels_[i]->from_gateway(b[i]), i);
  }
  return r;
}

SimTime Hierarchy::min_latency() const {
  SimTime m = SimTime::infinity();
  for (size_t i = 0; i < levels_.size(); ++i)
    if (levels_[i]->endpoints() > 1) m = min(m, levels_[i]->min_latency());
  return m;
}

SimTime Hierarchy::min_latency_across(int i) const {
  // The level's own minimum; the gateway routes inside it only add.
  return levels_[static_cast<size_t>(i)]->endpoints() > 1 ? levels_[static_cast<size_t>(i)]->min_latency()
                                                           : SimTime::infinity();
}

std::string Hierarchy::describe() const {
  if (levels_.size() == 1) return levels_[0]->describe();
  std::string s = std::to_string(cores_) + " cores in " + std::to_string(levels_.size()) + " levels: ";
  for (size_t i = 0; i < levels_.size(); ++i) s += (i ? " / " : "") + levels_[i]->describe();
  return s;
}

}  // namespace xsim::net
