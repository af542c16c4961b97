// What the engine's translation units share and nobody else needs (engine.cpp: construction and the window
// loop; scheduler.cpp: resuming and switching ranks, their clocks; messages.cpp: sending, delivery, matching;
// requests.cpp: waits, tests, probes; fold_messages.cpp: folded messages; deadlock.cpp: the deadlock report).
// Layer: libxsim/runtime/core (xsim_core), private to it.
#pragma once
#include <boost/context/fiber.hpp>

#include "engine.hpp"

namespace xsim {

// Whether receive (or probe) pattern q matches message m: its context, source and tag (wildcards allowed).
inline bool matches(const Request& q, const Message* m) {
  return q.ctx == m->ctx && (q.source == kAnySource || q.source == m->src_in_comm) &&
         (q.tag == kAnyTag || q.tag == m->tag);
}

// Arrival order: earliest t_arrive first; ties by lowest source, then send order (docs/architecture.md §2).
struct LaterArrival {
  bool operator()(const Message* a, const Message* b) const {
    if (a->t_arrive != b->t_arrive) return a->t_arrive > b->t_arrive;
    if (a->src != b->src) return a->src > b->src;
    return a->seq > b->seq;
  }
};

// A fiber that ended through exit() can never be resumed or unwound: its continuation object is dropped
// here without running its destructor (which would try to unwind the abandoned application stack).
void forget(boost::context::fiber&& f);

// Memory folding (fold_messages.cpp): a folded message of `bytes` (> Message::kFoldedPayload) from a send
// buffer inside a folded allocation, and the receive of n > kFoldedPayload bytes or of a folded message
// into the buffer of receive request `q`.
[[gnu::noinline]] Message* make_folded_message(const void* buf, uint64_t bytes);
// The same from `count` elements of derived datatype `type` (bytes > kFoldedPayload packed bytes), or null
// when part of the packed stream's middle comes from memory that is not folded.
[[gnu::noinline]] Message* make_folded_typed_message(const void* buf, int count, MPI_Datatype type, uint64_t bytes);
[[gnu::noinline]] void receive_bulk(const Request& q, Message* m, uint64_t n, bool contiguous);

}  // namespace xsim
