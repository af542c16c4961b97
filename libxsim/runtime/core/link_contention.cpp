// LinkContention (link_contention.hpp): the flow order and the link table.
#include "link_contention.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "xsim/netmodel/hierarchy.hpp"

namespace xsim {

LinkContention::LinkContention(const net::Network& system, int64_t first_local, int64_t end_local)
    : system_(system), first_local_(first_local), end_local_(end_local) {}

const net::Network& LinkContention::system_network(const net::Network& net) {
  const auto* h = dynamic_cast<const net::Hierarchy*>(&net);
  return h ? h->level(0) : net;
}

std::string LinkContention::unsupported(const net::Network& system) {
  std::vector<net::Link> probe;
  if (system.route_links(0, system.endpoints() > 1 ? 1 : 0, 0, probe)) return "";
  return "-xsim-contention links: the system network (" + system.describe() +
         ") does not list the links of its routes, so messages cannot share them; links contention supports "
         "star, ring, mesh, torus, tree and dragonfly networks (as the system level of a hierarchy); give "
         "-xsim-contention endpoint (each node's injection and ejection link serializes its messages) or "
         "one of those networks";
}

void LinkContention::push(const Flow& f) {
  pending_.push_back(f);
  std::push_heap(pending_.begin(), pending_.end(), later);
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
    std::pop_heap(pending_.begin(), pending_.end(), later);
    const Flow f = pending_.back();
    pending_.pop_back();
    time_flow(f);
  }
}

void LinkContention::time_flow(const Flow& f) {
  ++flows_;
  path_.clear();
  system_.route_links(f.src_node, f.dst_node, 0, path_);
  uint64_t bw = UINT64_MAX;
  for (const net::Link& l : path_) bw = std::min(bw, l.bandwidth_bps);
  if (path_.empty()) return;
  // The flow streams at its bottleneck rate: each link is busy for the whole transfer from the moment
  // the flow's head enters it (cut-through, as the latency model: L = sum of latencies + size / b_min).
  const int64_t xfer = net::Network::transfer_time(f.bytes, bw).ps();
  int64_t head = f.leave_ps, wait = 0;
  for (const net::Link& l : path_) {
    auto [it, fresh] = free_.try_emplace(l.id, 0);
    if (it->second > head) {
      wait += it->second - head;
      head = it->second;
    }
    it->second = head + xfer;
    head += l.latency.ps();
  }
  if (wait > 0 && f.dst >= first_local_ && f.dst < end_local_) {
    delays_[Key{f.src, f.seq}] = wait;
    ++delayed_;
    total_delay_ps_ += wait;
  }
}

}  // namespace xsim
