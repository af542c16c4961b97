// Engine (engine.hpp), the message path (the allocator is message_alloc.cpp): sends (eager, synchronous, applied), delivery
// to local ranks (deferred in the large-scale mode) and to other native processes, matching in virtual
// arrival order (the request table's waits, tests and probes: requests.cpp).
#include "engine.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include "copy_bytes.hpp"
#include "fold_range.hpp"
#include "engine_internal.hpp"
#include "message_alloc.hpp"
#include "message_wire.hpp"
#include "native/datatype.hpp"
#include "native/exchange.hpp"
#include "native/flatten.hpp"
#include "observer.hpp"
#include "privatize.hpp"

namespace xsim {

namespace {

int64_t ack_token(int id, uint32_t gen) { return (static_cast<int64_t>(id) << 32) | gen; }

// Observation hooks (observer.hpp, progress.hpp), out of line and cold: without an observer the hot paths
// keep only a test of a null pointer, and their own code stays as compact as before.
[[gnu::noinline, gnu::cold]] void notify_sent(Observer* o, Rank& r, const Message& m) { o->sent(r, m); }
[[gnu::noinline, gnu::cold]] void notify_received(Observer* o, Rank& r, const Message& m) { o->received(r, m); }

}  // namespace

// ----------------------------------------------------------------------------------------------------
// Messages


int Engine::send(const void* buf, int count, MPI_Datatype type, int64_t dst, int tag, uint64_t ctx,
                 int src_in_comm, int sync_req, bool eager_only) {
  // The destination's first record line is what the delivery below touches; with many ranks it is often
  // not cached (random destinations): start loading it now, so the miss overlaps the payload copy and the
  // latency computation.
  if (const Rank* d = local_rank(dst)) __builtin_prefetch(d, 1);
  // loggp: a send that uses its node's NIC waits until it is the earliest rank of its process, so that the
  // NIC serves the node's sends in virtual-time order (the same for any number of native processes).
  if (nic_ && inter_node(current_->world, dst) && nic_order_needed()) ensure_earliest();
  Rank& r = *current_;
  if (os_ > SimTime::zero()) {  // loggp's send overhead: CPU time of the sender before the message leaves
    r.clock += os_;
    clock_moved();
  }
  const native::TypeFacts type_facts = native::type_facts(type);  // one look-up per message
  uint64_t bytes = count > 0 ? type_facts.size * static_cast<uint64_t>(count) : 0;
  Message* m = nullptr;
  if (bytes > Message::kFoldedPayload && fold::g_state.len &&
      (type_facts.contiguous ? fold::folded_range(buf, bytes) && (m = make_folded_message(buf, bytes))
                             : !native::type_is_named(type) &&
                                   (m = make_folded_typed_message(buf, count, type, bytes)))) [[unlikely]] {
    // memory folding: only the head and tail of the data travel
  } else {
    m = message_alloc::make(bytes);
    if (bytes) {
      if (type_facts.contiguous)
        copy_bytes(m->payload(), buf, bytes);
      else
        native::pack(buf, count, type, m->payload());
    }
  }
  m->ctx = ctx;
  m->src = r.world;
  m->dst = static_cast<int32_t>(dst);
  m->src_in_comm = src_in_comm;
  m->tag = tag;
  ++r.stats.messages;
  r.stats.bytes += bytes;
  ++messages_sent_;
  if (bytes > eager_ && !eager_only) [[unlikely]]
    return send_rendezvous(r, m, sync_req);
  SimTime leave = r.clock, latency;
  if (!nic_ || bytes == 0) [[likely]] {
    latency = message_latency(r.world, dst, bytes);
  } else if (!inter_node(r.world, dst)) {
    latency = message_latency(r.world, dst, bytes);
    // Link contention inside the node (the flow takes the sequence number the message gets below).
    if (onnode_ && onnode_flow(r.world, dst)) [[unlikely]]
      add_onnode_flow(r.world, dst, r.send_seq, bytes, leave, leave + latency);
  } else {  // the node's NIC injects one message at a time: size / bandwidth each, at least the gap apart
    const net::Route path = net_->route(core_of(r.world), core_of(dst));
    SimTime xfer;
    const SimTime wire_latency = route_latency(path, bytes, &xfer);
    NodeNic& nic = nics_[static_cast<size_t>(nic_of_local_[static_cast<size_t>(r.index)])];
    leave = max(leave, nic.inject_free);
    nic.inject_free = leave + max(gap_, contention_ ? xfer : SimTime::zero());
    latency = wire_latency;
    if (links_) [[unlikely]] add_flow(r.world, dst, r.send_seq, bytes, leave, leave + latency);  // seq: as the message's
  }
  m->t_arrive = fifo_arrival(r, static_cast<int32_t>(dst), leave + latency);
  m->seq = r.send_seq++;
  if (sync_req >= 0) {
    m->ack_token = ack_token(sync_req, requests_[static_cast<size_t>(sync_req)].gen);
    requests_[static_cast<size_t>(sync_req)].peer_world = static_cast<int32_t>(dst);
  } else {
    m->ack_token = -1;
  }
  if (observer_) [[unlikely]] notify_sent(observer_, r, *m);
  if (large_scale_ && static_cast<uint64_t>(m->dst - first_local_) < ranks_.size() && m->t_arrive > r.clock) [[likely]]
    defer_delivery(m);
  else
    route(m);
  return sync_req;
}

int Engine::send_rendezvous(Rank& r, Message* m, int req) {
  // The request to send: a zero-byte message that carries the payload along (the data is copied now; its
  // transfer is timed when the receiver's clear-to-send reaches the sender, handle_cts).
  if (req < 0) req = new_send_request(false);
  if (nic_) ++nics_[static_cast<size_t>(nic_of_local_[static_cast<size_t>(r.index)])].awaiting_cts;
  Request& q = requests_[static_cast<size_t>(req)];
  q.st_bytes = m->bytes();
  q.peer_world = m->dst;
  m->set_kind(Message::kRts);
  m->t_arrive = fifo_arrival(r, m->dst, r.clock + message_latency(r.world, m->dst, 0));
  m->seq = r.send_seq++;
  q.rts_seq = m->seq;
  m->ack_token = ack_token(req, q.gen);
  if (observer_) [[unlikely]] notify_sent(observer_, r, *m);
  route(m);
  return req;
}

void Engine::handle_cts(Message* c) {
  // The sender's NIC starts the data when the clear-to-send arrives (or when it is next free); the send
  // completes when the data has left, and the data arrives a network latency after it started.
  const int64_t sender = c->dst, receiver = c->src;
  const SimTime t = c->t_arrive;
  const int id = static_cast<int>(c->ack_token >> 32);
  const uint32_t gen = static_cast<uint32_t>(c->ack_token & 0xffffffff);
  const uint64_t recv_token = c->ctx;
  Message::destroy(c);
  if (nic_) --nics_[static_cast<size_t>(nic_of_local_[static_cast<size_t>(sender - first_local_)])].awaiting_cts;
  if (!valid_request(id) || requests_[static_cast<size_t>(id)].gen != gen) return;  // cannot happen: sends are not cancelled
  if (faulty_ && local_rank(sender)->state == RankState::Done) return;  // the sender failed: no data comes
  Request& q = requests_[static_cast<size_t>(id)];
  const uint64_t bytes = q.st_bytes;
  const net::Route path = net_->route(core_of(sender), core_of(receiver));
  SimTime xfer;
  const SimTime data_latency = route_latency(path, bytes, &xfer);
  SimTime start = t;
  // The data's sequence number follows its sender's request to send: the same for any number of processes.
  const uint64_t data_seq = (1ull << 63) | q.rts_seq;
  if (nic_ && inter_node(sender, receiver)) {
    NodeNic& nic = nics_[static_cast<size_t>(nic_of_local_[static_cast<size_t>(sender - first_local_)])];
    start = max(start, nic.inject_free);
    nic.inject_free = start + max(gap_, contention_ ? xfer : SimTime::zero());
    if (links_ && bytes) add_flow(sender, receiver, data_seq, bytes, start, start + data_latency);
  } else if (onnode_ && bytes && onnode_flow(sender, receiver)) {
    add_onnode_flow(sender, receiver, data_seq, bytes, start, start + data_latency);
  }
  q.complete = true;
  q.completion = start + xfer;
  if (q.user_freed) release_request(id);
  wake(sender, t);
  Message* d = message_alloc::make(0);
  d->t_arrive = start + (core_of(sender) == core_of(receiver) ? SimTime::zero() : data_latency);
  d->seq = data_seq;
  d->ctx = bytes;
  d->ack_token = static_cast<int64_t>(recv_token);
  d->src = static_cast<int32_t>(sender);
  d->dst = static_cast<int32_t>(receiver);
  d->src_in_comm = -1;
  d->tag = 0;
  d->set_kind(Message::kRdata);
  route(d);
}

void Engine::add_flow(int64_t src, int64_t dst, uint64_t seq, uint64_t bytes, SimTime leave, SimTime arrive) {
  links_->add_local({leave.ps(), seq, bytes, static_cast<int32_t>(src), static_cast<int32_t>(dst),
                     static_cast<int32_t>(node_of(src)), static_cast<int32_t>(node_of(dst)), arrive.ps()},
                    nprocs_ > 1);
}

void Engine::add_onnode_flow(int64_t src, int64_t dst, uint64_t seq, uint64_t bytes, SimTime leave, SimTime arrive) {
  onnode_->add_local({leave.ps(), seq, bytes, static_cast<int32_t>(src), static_cast<int32_t>(dst), core_of(src),
                      core_of(dst), arrive.ps()},
                     false);
}

void Engine::exchange_flows() {
  std::vector<LinkContention::Flow>& mine = links_->outgoing();
  std::vector<char> all;
  std::vector<size_t> from;
  exchange_->allgather(reinterpret_cast<const char*>(mine.data()), mine.size() * sizeof(LinkContention::Flow), all,
                       from);
  mine.clear();
  for (int p = 0; p < nprocs_; ++p)
    if (p != proc_)
      links_->add_remote(all.data() + from[static_cast<size_t>(p)], from[static_cast<size_t>(p) + 1] - from[static_cast<size_t>(p)]);
}

void Engine::finalize_incoming(NodeNic& n, SimTime upto) {
  const auto later = Incoming::later;
  while (!n.incoming.empty() && n.incoming.front().t_arrive <= upto) {
    std::pop_heap(n.incoming.begin(), n.incoming.end(), later);
    const Incoming in = n.incoming.back();
    n.incoming.pop_back();
    if (ranks_[static_cast<size_t>(in.dst_index)].state == RankState::Done) continue;  // its messages are gone
    time_ejection(n, in.m);
  }
}

void Engine::time_ejection(NodeNic& n, Message* m) {
  const net::Route path = net_->route(core_of(m->src), core_of(m->dst));
  SimTime xfer;
  (void)route_latency(path, m->model_bytes(), &xfer);
  // The last byte arrives at t_arrive if the link is free, else one transfer after the link frees. With
  // link contention the ejection link is the last of the flow's links: the delay its flow had on the way
  // and there (timed by process_due_arrivals' time_upto) is all of it.
  SimTime done;
  if (links_) {
    done = m->t_arrive + links_->take_delay(m->src, m->seq);
  } else {
    done = max(m->t_arrive, n.eject_free + xfer);
    n.eject_free = done;
  }
  if (done > m->t_arrive) mark_done(m, done);
}

void Engine::onnode_delay(Message* m) {
  const SimTime delay = onnode_->take_delay(m->src, m->seq);
  if (delay > SimTime::zero()) mark_done(m, m->t_arrive + delay);
}

void Engine::mark_done(Message* m, SimTime done) {
  if (m->kind() == Message::kData && m->ack_token < 0) {  // the usual case: kept in the message
    m->size_kind |= Message::kDelayedBit | Message::kDelayInAckBit;
    m->ack_token = done.ps();
  } else {
    m->size_kind |= Message::kDelayedBit;
    delayed_[m] = done;
  }
}

SimTime Engine::receive_done(const Message* m, SimTime when) {
  if (m->delayed()) [[unlikely]] {
    if (m->size_kind & Message::kDelayInAckBit) {
      when = max(when, SimTime::from_ps(m->ack_token));
    } else {
      auto it = delayed_.find(m);
      when = max(when, it->second);
      delayed_.erase(it);
    }
  }
  return when + or_;  // the receive overhead, from the match (or the data's arrival) on
}

void Engine::complete_rendezvous_recv(Message* m) {
  const int id = static_cast<int>(m->ack_token >> 32);
  const uint32_t gen = static_cast<uint32_t>(m->ack_token & 0xffffffff);
  if (valid_request(id) && requests_[static_cast<size_t>(id)].gen == gen) {
    Request& q = requests_[static_cast<size_t>(id)];
    q.awaiting_data = false;
    q.complete = true;
    q.completion = receive_done(m, m->t_arrive);
    if (q.user_freed) release_request(id);
  } else if (m->delayed() && !(m->size_kind & Message::kDelayInAckBit)) {
    delayed_.erase(m);
  }
  Message::destroy(m);
}

void Engine::defer_delivery(Message* m) {
  // Nothing else runnable: the destination, woken by this message, is likely the next rank to run (a token
  // passed around, a pipeline). Its stack starts loading now, not at the switch to it (bench/README.md,
  // "The token ring").
  if (queue_.empty())
    if (const Rank& d = ranks_[static_cast<size_t>(m->dst - first_local_)]; d.state == RankState::Blocked)
      prefetch_resume(d);
  if (m->t_arrive < pending_min_) pending_min_ = m->t_arrive;
  constexpr unsigned mask = kPending - 1;
  if (pending_count_ == kPending) {
    Message* oldest = pending_[pending_head_];
    pending_[pending_head_] = m;
    pending_head_ = (pending_head_ + 1) & mask;
    deliver_local(oldest);
  } else {
    pending_[(pending_head_ + pending_count_++) & mask] = m;
  }
  // Half-way through the ring: the destination's record, prefetched by that send, is cached; its first
  // arrival (which push_heap compares with) is not yet.
  if (pending_count_ > kPending / 2) {
    const Message* mid = pending_[(pending_head_ + pending_count_ - 1 - kPending / 2) & mask];
    const Rank& d = ranks_[static_cast<size_t>(mid->dst - first_local_)];
    if (!d.arrivals.empty()) __builtin_prefetch(d.arrivals.front());
  }
}

void Engine::drain_pending() {
  // The first-arrival prefetch here, in defer_delivery and in prefetch_next stays written out: a shared
  // static helper made GCC 12 drop it from the first two (check the disassembly when changing them).
  constexpr unsigned mask = kPending - 1;
  for (unsigned k = 0; k < pending_count_; ++k) {
    const Rank& d = ranks_[static_cast<size_t>(pending_[(pending_head_ + k) & mask]->dst - first_local_)];
    if (!d.arrivals.empty()) __builtin_prefetch(d.arrivals.front());
  }
  // pending_ is emptied first: a delivery never defers again, but keep the ring consistent throughout.
  const unsigned n = pending_count_, head = pending_head_;
  pending_count_ = 0;
  pending_head_ = 0;
  pending_min_ = SimTime::infinity();
  for (unsigned k = 0; k < n; ++k) deliver_local(pending_[(head + k) & mask]);
}

void Engine::send_ack(Rank& r, Message* m, SimTime when) {
  Message* a = message_alloc::make(0);
  a->t_arrive = when + message_latency(r.world, m->src, 0);
  a->seq = r.send_seq++;
  a->ctx = m->ctx;
  a->ack_token = m->ack_token;
  a->src = r.world;
  a->dst = m->src;
  a->src_in_comm = -1;
  a->tag = 0;
  a->set_kind(Message::kAck);
  route(a);
}

void Engine::route_remote(Message* m) {
  wire::pack(*exchange_, owner_of(m->dst), *m);
  if (m->t_arrive < out_min_) out_min_ = m->t_arrive;
  Message::destroy(m);
}

void Engine::deliver_local(Message* m) {
  // A message that arrives no later than the clock at which the current rank was found the earliest (zero
  // latency: ranks that share a core) may queue a rank or an applied message before it: ask again.
  if (m->t_arrive <= earliest_clock_) [[unlikely]] forget_earliest();
  if (m->kind() == Message::kApplied) {
    if (m->src_in_comm >= 0 && m->src_in_comm < 32) applied_families_ |= 1u << m->src_in_comm;
    applied_.push_back(m);
    std::push_heap(applied_.begin(), applied_.end(), LaterArrival{});
    return;
  }
  Rank& d = ranks_[static_cast<size_t>(m->dst - first_local_)];
  if (d.state == RankState::Done) {  // nobody will ever receive it
    Message::destroy(m);
    return;
  }
  d.arrivals.push_back(m);
  std::push_heap(d.arrivals.begin(), d.arrivals.end(), LaterArrival{});
  // Through the ejection link, timed in arrival order over the node's messages (finalize_incoming); a node
  // of one core has only this rank's, timed as it processes them (process_due_arrivals).
  if (contention_ && cores_per_node_ > 1 && m->model_bytes() && inter_node(m->src, m->dst)) [[unlikely]] {
    NodeNic& n = nics_[static_cast<size_t>(nic_of_local_[static_cast<size_t>(d.index)])];
    n.incoming.push_back({m->t_arrive, m->src, m->seq, m, d.index});
    std::push_heap(n.incoming.begin(), n.incoming.end(), Incoming::later);
  }
  if (d.state == RankState::Blocked && (!d.queued || m->t_arrive < d.queue_key)) enqueue(d, m->t_arrive);
}

SimTime Engine::send_applied(Message* m, int64_t dst, uint64_t model_bytes) {
  Rank& r = *current_;
  SimTime latency = message_latency(r.world, dst, model_bytes);
  m->t_arrive = fifo_arrival(r, static_cast<int32_t>(dst), r.clock + latency);
  m->seq = r.send_seq++;
  m->ack_token = -1;
  m->src = r.world;
  m->dst = static_cast<int32_t>(dst);
  m->set_kind(Message::kApplied);
  ++r.stats.messages;
  r.stats.bytes += model_bytes;
  SimTime t = m->t_arrive;
  route(m);
  return t;
}

SimTime Engine::send_applied_from(Message* m, int64_t src, int64_t dst, SimTime t, uint64_t model_bytes) {
  m->t_arrive = t + message_latency(src, dst, model_bytes);
  // After every message the rank itself sends at the same time: hooks run in an order that does not
  // depend on N, but their count here does (other processes' hooks), so they never tie with rank sends.
  m->seq = (1ull << 63) | applied_seq_++;
  m->ack_token = -1;
  m->src = static_cast<int32_t>(src);
  m->dst = static_cast<int32_t>(dst);
  m->set_kind(Message::kApplied);
  SimTime arrive = m->t_arrive;
  route(m);
  return arrive;
}

void Engine::send_applied_at(Message* m, int64_t src, int64_t dst, SimTime arrive) {
  m->t_arrive = arrive;
  m->seq = (1ull << 63) | applied_seq_++;  // as send_applied_from's
  m->ack_token = -1;
  m->src = static_cast<int32_t>(src);
  m->dst = static_cast<int32_t>(dst);
  m->set_kind(Message::kApplied);
  route(m);
}

void Engine::enter_globals(const Rank& r) {
  if (priv_) priv_->enter(static_cast<size_t>(r.index));
}

void Engine::wake(int64_t world, SimTime t) {
  forget_earliest();  // a hook's or a collective's wake-up may queue a rank at or before the current clock
  Rank* r = local_rank(world);
  if (!r || r->state != RankState::Blocked) return;
  if (!r->queued || t < r->queue_key) enqueue(*r, t);
}

void Engine::apply_next() {
  std::pop_heap(applied_.begin(), applied_.end(), LaterArrival{});
  Message* m = applied_.back();
  applied_.pop_back();
  if (m->src_in_comm == kRendezvousFamily) return handle_cts(m);
  Rank* d = local_rank(m->dst);
  if (priv_ && d) priv_->enter(static_cast<size_t>(d->index));  // the memory it touches is that rank's
  AppliedHook hook = m->src_in_comm >= 0 && m->src_in_comm < kAppliedFamilies ? applied_hooks_[m->src_in_comm]
                                                                              : nullptr;
  if (hook)
    hook(m);
  else
    Message::destroy(m);
}

void Engine::process_due_arrivals(Rank& r, SimTime upto) {
  if (r.threaded) [[unlikely]] threads_note_progress(r);  // one arrival at least is due: a waiting thread may be served
  // Every message to r's node due by `upto` is known (r is the earliest rank, inside the window): time
  // them through the node's ejection link in arrival order, before any of them is received.
  NodeNic* nic = contention_ ? &nics_[static_cast<size_t>(nic_of_local_[static_cast<size_t>(r.index)])] : nullptr;
  // Link contention: every flow that left early enough to arrive by `upto` is known (r is the earliest rank,
  // and the window is no longer than links_wire_min_): time them all, in flow order.
  if (nic) {
    if (links_) [[unlikely]] {
      links_->time_upto(upto - links_wire_min_);
      if (onnode_) onnode_->time_upto(upto - onnode_wire_min_);  // a node's flows are all this process's
    }
    if (cores_per_node_ > 1) finalize_incoming(*nic, upto);
  }
  while (!r.arrivals.empty() && r.arrivals.front()->t_arrive <= upto) {
    std::pop_heap(r.arrivals.begin(), r.arrivals.end(), LaterArrival{});
    Message* m = r.arrivals.back();
    r.arrivals.pop_back();
    if (nic) {
      if (cores_per_node_ == 1 && m->model_bytes() && m->src != m->dst) time_ejection(*nic, m);
      else if (onnode_ && m->model_bytes() && onnode_flow(m->src, m->dst)) [[unlikely]] onnode_delay(m);
    }
    if (m->kind() == Message::kAck) {
      int id = static_cast<int>(m->ack_token >> 32);
      uint32_t gen = static_cast<uint32_t>(m->ack_token & 0xffffffff);
      if (valid_request(id) && requests_[static_cast<size_t>(id)].gen == gen) {
        Request& q = requests_[static_cast<size_t>(id)];
        q.complete = true;
        q.completion = m->t_arrive;
        if (q.user_freed) release_request(id);
      }
      Message::destroy(m);
      continue;
    }
    if (m->kind() == Message::kRdata) {
      complete_rendezvous_recv(m);
      continue;
    }
    bool matched = false;
    for (size_t i = 0; i < r.posted.size(); ++i) {
      int id = r.posted[i];
      Request& q = requests_[static_cast<size_t>(id)];
      if (matches(q, m)) {
        r.posted.erase(r.posted.begin() + static_cast<long>(i));
        match_recv(r, id, q, m, m->t_arrive);
        if (q.user_freed && q.complete) release_request(id);
        matched = true;
        break;
      }
    }
    if (!matched) r.unexpected.push_back(m);
  }
}

inline void Engine::match_recv(Rank& r, int id, Request& q, Message* m, SimTime when) {
  const native::TypeFacts type_facts = native::type_facts(q.type);  // one look-up per message
  uint64_t capacity = q.count > 0 ? type_facts.size * static_cast<uint64_t>(q.count) : 0;
  uint64_t n = m->bytes();
  if (n > capacity) {
    n = capacity;
    q.set_error(MPI_ERR_TRUNCATE);
  }
  if (n > Message::kFoldedPayload || m->folded()) [[unlikely]] {
    receive_bulk(q, m, n, type_facts.contiguous);  // large data, or folded (memory folding)
  } else if (n) {
    if (type_facts.contiguous)
      copy_bytes(q.buf, m->payload(), n);
    else
      native::unpack(m->payload(), n, q.buf, q.count, q.type);
  }
  q.st_source = m->src_in_comm;
  q.st_tag = m->tag;
  q.st_bytes = n;
  if (faulty_) [[unlikely]] q.peer_world = m->src;  // a wildcard receive's peer, for failure detection
  if (observer_) [[unlikely]] notify_received(observer_, r, *m);
  if (m->kind() == Message::kRts) [[unlikely]] {
    // Rendezvous: the data is copied (it travelled with the request to send), but the receive completes when
    // the data's arrival is timed (kRdata). The clear-to-send goes back to the sender's process.
    q.awaiting_data = true;
    Message* c = message_alloc::make(0);
    c->t_arrive = when + message_latency(r.world, m->src, 0);
    c->seq = r.send_seq++;
    c->ctx = static_cast<uint64_t>(ack_token(id, q.gen));
    c->ack_token = m->ack_token;
    c->src = r.world;
    c->dst = m->src;
    c->src_in_comm = kRendezvousFamily;
    c->tag = 0;
    c->set_kind(Message::kApplied);
    Message::destroy(m);
    route(c);
    return;
  }
  q.complete = true;
  q.completion = loggp_ ? receive_done(m, when) : when;
  if (m->ack_token >= 0 && !(m->size_kind & Message::kDelayInAckBit)) send_ack(r, m, when);
  Message::destroy(m);
}

// ----------------------------------------------------------------------------------------------------
// Requests

void Engine::release_matched(Request& q) {
  if (q.msg) Message::destroy(q.msg);  // a matched message nobody received
  q.msg = nullptr;
}

int Engine::post_recv(void* buf, int count, MPI_Datatype type, int source, int tag, uint64_t ctx,
                      int32_t source_world) {
  ensure_earliest();
  Rank& r = *current_;
  process_arrivals(r, r.clock);
  int id = new_send_request(false);
  Request& q = requests_[static_cast<size_t>(id)];
  q.kind = Request::Kind::Recv;
  q.set_args(buf, count, type, source, tag);
  q.ctx = ctx;
  q.peer_world = source_world;
  if (revoked_any_) [[unlikely]]  // a revoked communicator (every revocation up to r's clock is applied)
    if (revoked(ctx, r.world)) {
      q.complete = true;
      q.completion = r.clock;
      q.set_error(kErrRevoked);
      return id;
    }
  for (size_t i = 0; i < r.unexpected.size(); ++i) {
    Message* m = r.unexpected[i];
    if (matches(q, m)) {
      r.unexpected.erase(r.unexpected.begin() + static_cast<long>(i));
      match_recv(r, id, q, m, r.clock);
      return id;
    }
  }
  r.posted.push_back(id);
  return id;
}

void Engine::mrecv(int id, void* buf, int count, MPI_Datatype type) {
  Rank& r = *current_;
  Request& q = requests_[static_cast<size_t>(id)];
  Message* m = q.msg;
  q.msg = nullptr;
  q.kind = Request::Kind::Recv;
  q.buf = buf;
  q.count = count;
  q.type = type;
  q.source = m->src_in_comm;
  q.tag = m->tag;
  q.ctx = m->ctx;
  match_recv(r, id, q, m, r.clock);  // the message arrived before it was probed: it is received now
}

}  // namespace xsim
