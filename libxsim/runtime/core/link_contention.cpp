// LinkContention (link_contention.hpp): the flow order and the link table.
#include "link_contention.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <stdexcept>

#include "xsim/netmodel/hierarchy.hpp"

namespace xsim {

LinkContention::LinkContention(const net::Network& system, int64_t first_local, int64_t end_local, bool ejection)
    : system_(system), first_local_(first_local), end_local_(end_local), ejection_(ejection) {
  eject_base_ = system.link_id_bound();
  chooses_ = system.route_rule() != net::RouteRule::fixed;
  state_.lc = this;
  const uint64_t bound = eject_base_ + static_cast<uint64_t>(system.endpoints());
  if (bound <= kDenseLinks) {
    dense_ = static_cast<Slot*>(std::calloc(bound, sizeof(Slot)));
    if (!dense_) throw std::runtime_error("link contention: out of memory for the table of " + std::to_string(bound) + " links");
  }
}

LinkContention::~LinkContention() { std::free(dense_); }

namespace {

// A link's intervals, inline in its slot or in a vector: the operations placement needs.
template <class Busy>
struct InlineList {
  Busy* in;
  uint32_t& n;
  size_t size() const { return n; }
  Busy& operator[](size_t i) { return in[i]; }
  void erase_front(size_t k) {
    for (size_t j = k; j < n; ++j) in[j - k] = in[j];
    n -= static_cast<uint32_t>(k);
  }
  void erase_at(size_t i) {
    for (size_t j = i; j + 1 < n; ++j) in[j] = in[j + 1];
    --n;
  }
  void insert_at(size_t i, Busy b) {  // room for one more is guaranteed by the caller
    for (size_t j = n; j > i; --j) in[j] = in[j - 1];
    in[i] = b;
    ++n;
  }
};
template <class Busy>
struct VectorList {
  std::vector<Busy>& v;
  size_t size() const { return v.size(); }
  Busy& operator[](size_t i) { return v[i]; }
  void erase_front(size_t k) { v.erase(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k)); }
  void erase_at(size_t i) { v.erase(v.begin() + static_cast<std::ptrdiff_t>(i)); }
  void insert_at(size_t i, Busy b) { v.insert(v.begin() + static_cast<std::ptrdiff_t>(i), b); }
};

// Drops the intervals that end by `leave`: flows are placed in leave order and reach a link no earlier
// than they left, so no flow still to come can use the time before it.
template <class List>
void prune(List& v, int64_t leave) {
  size_t gone = 0;
  while (gone < v.size() && v[gone].end <= leave) ++gone;
  if (gone) v.erase_front(gone);
}

// Places [start, start + xfer) in the first idle interval at or after `head`; returns start.
template <class List, class Busy>
int64_t place_in(List& v, int64_t head, int64_t xfer) {
  int64_t start = head;
  size_t at = 0;
  for (; at < v.size(); ++at) {
    if (start + xfer <= v[at].start) break;
    start = std::max(start, v[at].end);
  }
  const int64_t end = start + xfer;
  const bool joins_before = at > 0 && v[at - 1].end == start, joins_after = at < v.size() && v[at].start == end;
  if (joins_before && joins_after) {
    v[at - 1].end = v[at].end;
    v.erase_at(at);
  } else if (joins_before) {
    v[at - 1].end = end;
  } else if (joins_after) {
    v[at].start = start;
  } else {
    v.insert_at(at, Busy{start, end});
  }
  return start;
}

}  // namespace

int64_t LinkContention::place(Slot& s, int64_t leave, int64_t head, int64_t xfer) {
  if (s.spill == 0) {
    InlineList<Busy> in{s.in, s.n};
    prune(in, leave);
    if (s.n < kInline) return place_in<decltype(in), Busy>(in, head, xfer);
    // Full: the intervals move to a list of their own.
    if (lists_.empty()) lists_.emplace_back();
    if (spare_.empty()) {
      if (lists_.size() > UINT32_MAX) throw std::runtime_error("link contention: more than 2^32 busy links");
      spare_.push_back(static_cast<uint32_t>(lists_.size()));
      lists_.emplace_back();
    }
    s.spill = spare_.back();
    spare_.pop_back();
    lists_[s.spill].assign(s.in, s.in + s.n);
  }
  std::vector<Busy>& v = lists_[s.spill];
  VectorList<Busy> list{v};
  prune(list, leave);
  const int64_t start = place_in<decltype(list), Busy>(list, head, xfer);
  if (v.size() < kInline) {  // back inline: the common case stays one cache line
    s.n = static_cast<uint32_t>(v.size());
    std::copy(v.begin(), v.end(), s.in);
    v.clear();
    spare_.push_back(s.spill);
    s.spill = 0;
  }
  return start;
}

const net::Network& LinkContention::system_network(const net::Network& net) {
  const auto* h = dynamic_cast<const net::Hierarchy*>(&net);
  return h ? h->level(0) : net;
}

std::string LinkContention::unsupported(const net::Network& net) {
  const net::Network& system = system_network(net);
  std::vector<net::Link> probe;
  std::string which;
  if (!system.route_links(0, system.endpoints() > 1 ? 1 : 0, 0, probe))
    which = "the system network (" + system.describe() + ")";
  else if (&system != &net && !net.route_links(0, net.endpoints() > 1 ? 1 : 0, 0, probe))  // cores 0, 1: one node
    which = "a level inside the nodes of " + net.describe();
  if (which.empty()) return "";
  return "-xsim-contention links: " + which +
         " does not list the links of its routes, so messages cannot share them (a twisted torus too large "
         "for its exact route tables is routed by a path family that gives hop counts, not paths); give "
         "-xsim-contention endpoint (each node's injection and ejection link serializes its messages), or a "
         "star, ring, mesh, torus, tree, fat tree, dragonfly or smaller twisted torus";
}

void LinkContention::push(const Flow& f) {
  pending_.push_back(f);
  std::push_heap(pending_.begin(), pending_.end(), Later{});
}

void LinkContention::add_remote(const char* data, size_t n) {
  if (n % sizeof(Flow) != 0) throw std::runtime_error("link contention: a window's flows arrived truncated");
  for (size_t at = 0; at < n; at += sizeof(Flow)) {
    Flow f;
    std::memcpy(&f, data + at, sizeof f);
    push(f);
  }
}

void LinkContention::time_due(SimTime bound) {
  while (!pending_.empty() && pending_.front().leave_ps <= bound.ps()) {
    std::pop_heap(pending_.begin(), pending_.end(), Later{});
    const Flow f = pending_.back();
    pending_.pop_back();
    time_flow(f);
  }
}

int64_t LinkContention::probe(uint64_t id, int64_t head, int64_t xfer) const {
  const Slot* s = nullptr;
  if (dense_) {
    s = &dense_[id];
  } else {
    auto it = sparse_.find(id);
    if (it == sparse_.end()) return 0;
    s = &it->second;
  }
  const Busy* v = s->spill ? lists_[s->spill].data() : s->in;
  const size_t n = s->spill ? lists_[s->spill].size() : s->n;
  int64_t start = head;  // as place_in, without taking the interval
  for (size_t i = 0; i < n && start + xfer > v[i].start; ++i) start = std::max(start, v[i].end);
  return start - head;
}

// Routes by the network's rule (route_links_adaptive) and places the flow; its delay is its wait plus the
// time its route takes beyond the one it was timed by (f.arrive_ps: that route's uncontended arrival).
int64_t LinkContention::adaptive_wait(const Flow& f) {
  const uint64_t key = (f.seq * 0x9e3779b97f4a7c15ull) ^ static_cast<uint32_t>(f.src);  // unique per message
  system_.route_links_adaptive(f.src_node, f.dst_node, key, f.bytes, f.leave_ps, state_, path_);
  if (path_.empty()) return 0;
  uint64_t bw = UINT64_MAX;
  int64_t latency = 0;
  for (const net::Link& l : path_) bw = std::min(bw, l.bandwidth_bps), latency += l.latency.ps();
  if (ejection_) path_.push_back({eject_base_ + static_cast<uint64_t>(f.dst_node), SimTime::zero(), bw});
  const int64_t xfer = net::Network::transfer_time(f.bytes, bw).ps();
  int64_t head = f.leave_ps, wait = 0;
  for (const net::Link& l : path_) {
    const int64_t start = place(slot(l.id), f.leave_ps, head, xfer);
    wait = std::max(wait, start - head);
    head += l.latency.ps();
  }
  return std::max<int64_t>(0, f.leave_ps + latency + xfer + wait - f.arrive_ps);
}

void LinkContention::time_flow(const Flow& f) {
  ++flows_;
  path_.clear();
  if (chooses_) [[unlikely]] return keep_delay(f, adaptive_wait(f));
  system_.route_links(f.src_node, f.dst_node, 0, path_);
  uint64_t bw = UINT64_MAX;
  for (const net::Link& l : path_) bw = std::min(bw, l.bandwidth_bps);
  if (path_.empty()) return;
  // Last, the destination node's ejection link (its NIC, as in endpoint contention), placed with the
  // links in the same order: a separate ejection timed in arrival order would queue the flows again.
  if (ejection_) path_.push_back({eject_base_ + static_cast<uint64_t>(f.dst_node), SimTime::zero(), bw});
  // The flow streams at its bottleneck rate: each link is busy for the whole transfer from the moment
  // the flow's head enters it (cut-through, as the latency model: L = sum of latencies + size / b_min).
  // Each link is placed at the time the head reaches it on idle links, and the flow is late by its
  // longest wait, not by the sum of its waits: as in a flow model, whose rate is set by the bottleneck
  // link, two links each shared with another flow slow a flow down once, not twice.
  const int64_t xfer = net::Network::transfer_time(f.bytes, bw).ps();
  int64_t head = f.leave_ps, wait = 0;
  if (dense_)  // the route's slots, loaded together rather than one miss after another
    for (const net::Link& l : path_) __builtin_prefetch(&dense_[l.id], 1);
  for (const net::Link& l : path_) {
    const int64_t start = place(slot(l.id), f.leave_ps, head, xfer);
    wait = std::max(wait, start - head);
    head += l.latency.ps();
  }
  keep_delay(f, wait);
}

void LinkContention::keep_delay(const Flow& f, int64_t wait) {
  if (wait > 0 && f.dst >= first_local_ && f.dst < end_local_) {
    delays_[Key{f.src, f.seq}] = wait;
    ++delayed_;
    total_delay_ps_ += wait;
  }
}

void LinkContention::share_fairly(SimTime lag, bool rtt_weighted) {
  fair_ = std::make_unique<FairShare>();
  fair_lag_ = lag.ps();
  rtt_weighted_ = rtt_weighted;
}

void LinkContention::start_fair(const Flow& f) {
  ++flows_;
  path_.clear();
  system_.route_links(f.src_node, f.dst_node, 0, path_);
  if (path_.empty()) return;
  uint64_t bw = UINT64_MAX;
  int64_t latency = 0;
  for (const net::Link& l : path_) bw = std::min(bw, l.bandwidth_bps), latency += l.latency.ps();
  uses_.clear();
  for (const net::Link& l : path_) uses_.push_back({l.id, l.bandwidth_bps});
  if (ejection_) uses_.push_back({eject_base_ + static_cast<uint64_t>(f.dst_node), bw});
  const uint64_t id = next_fair_id_++;
  const int64_t xfer = net::Network::transfer_time(f.bytes, bw).ps();
  fair_flows_.emplace(id, FairFlow{f.src, f.dst, f.seq, f.leave_ps, xfer});
  // rtt: SimGrid's CM02 gives a flow a share inversely proportional to its route's latency.
  const double weight = rtt_weighted_ && latency > 0 ? 1e6 / static_cast<double>(latency) : 1.0;
  fair_->add(id, f.leave_ps, f.arrive_ps - fair_lag_, static_cast<double>(f.bytes) * 8.0, weight, uses_);
}

void LinkContention::time_fair(SimTime bound) {
  while (!pending_.empty() && pending_.front().leave_ps <= bound.ps()) {
    std::pop_heap(pending_.begin(), pending_.end(), Later{});
    const Flow f = pending_.back();
    pending_.pop_back();
    start_fair(f);
  }
  decided_.clear();
  fair_->advance(bound.ps(), decided_);
  for (const FairShare::Decided& d : decided_) {
    auto it = fair_flows_.find(d.id);
    const FairFlow ff = it->second;
    fair_flows_.erase(it);
    // Late by its fluid duration less its transfer time alone (a rounding picosecond is no wait).
    const int64_t wait = d.end_ps - ff.leave - ff.xfer;
    Flow f{};
    f.src = ff.src, f.dst = ff.dst, f.seq = ff.seq;
    keep_delay(f, wait > 1 ? wait : 0);
  }
}

}  // namespace xsim
