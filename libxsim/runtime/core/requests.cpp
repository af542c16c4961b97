// Engine (engine.hpp), the request table's waits, tests, probes, cancellation and allocation, carved out of
// messages.cpp (which keeps the matching of a receive with its message: release_matched, mrecv). A blocked
// rank waits here until its request completes (wait_incomplete, wait_any) or a failure is detected.
#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "engine.hpp"
#include "engine_internal.hpp"

namespace xsim {

int Engine::grow_requests() {
  int id = static_cast<int>(requests_.size());
  requests_.emplace_back();
  return id;
}

void Engine::wait_incomplete(Request& q, const BlockInfo& why) {
  Rank& r = *current_;
  const int64_t gw = group_world_;  // this rank's collective, read before other ranks run
  const SimTime gd = group_detect_;
  ensure_earliest();
  for (;;) {
    process_arrivals(r, r.clock);
    progress(r);
    if (q.complete) return;
    if (faulty_) [[unlikely]] {  // a failed peer: wake at the detection time
      if (detect_failure(q, gw, gd)) return;
      if (q.peer_world >= 0) detect_wake_ = detection_time(q.peer_world);
      if (gw >= 0) detect_wake_ = min(detect_wake_, gd);
    }
    block_then_note(why);
    detect_wake_ = SimTime::infinity();
  }
}

bool Engine::detect_failure_slow(Request& q, int64_t group_world, SimTime group_detect) {
  if (q.complete) return false;
  // The request's own peer, or (inside a collective) any failed member of its communicator.
  int64_t who = -1;
  SimTime detected = SimTime::infinity();
  if (q.peer_world >= 0 && detection_time(q.peer_world) < detected) {
    who = q.peer_world;
    detected = detection_time(q.peer_world);
  }
  if (group_world >= 0 && group_detect < detected) {
    who = group_world;
    detected = group_detect;
  }
  Rank& r = *current_;
  if (who < 0 || r.clock < detected) return false;
  const SimTime failed = fail_time(who);
  if (q.kind == Request::Kind::Recv && !q.awaiting_data)  // still posted: take it out
    for (size_t i = 0; i < r.posted.size(); ++i)
      if (&requests_[static_cast<size_t>(r.posted[i])] == &q) {
        r.posted.erase(r.posted.begin() + static_cast<long>(i));
        break;
      }
  q.awaiting_data = false;
  q.complete = true;
  q.completion = detected;
  q.set_error(kErrProcFailed);
  last_detected_ = {who, failed, detected};
  ++detections_;
  return true;
}

void Engine::revoke_contexts(uint64_t p2p_ctx, uint64_t coll_ctx, int64_t world, SimTime t) {
  Rank* r = local_rank(world);
  if (!r || revoked_.count({p2p_ctx, world})) return;
  revoked_any_ = true;
  revoked_.insert({p2p_ctx, world});
  revoked_.insert({coll_ctx, world});
  // Its posted receives on them complete now, in posting order.
  size_t kept = 0;
  for (size_t i = 0; i < r->posted.size(); ++i) {
    Request& q = requests_[static_cast<size_t>(r->posted[i])];
    if (q.ctx != p2p_ctx && q.ctx != coll_ctx) {
      r->posted[kept++] = r->posted[i];
      continue;
    }
    q.complete = true;
    q.completion = max(t, r->clock);
    q.set_error(kErrRevoked);
  }
  while (r->posted.size() > kept) r->posted.pop_back();
  wake(world, t);
}

int Engine::wait_any(int n, const int* ids, const BlockInfo& why) {
  Rank& r = *current_;
  const int64_t gw = group_world_;
  const SimTime gd = group_detect_;
  bool yielded = false;
  for (;;) {
    int best = -1, any = 0;
    for (int i = 0; i < n; ++i) {
      if (ids[i] < 0) continue;
      ++any;
      const Request& q = requests_[static_cast<size_t>(ids[i])];
      if (q.complete && (best < 0 || q.completion < requests_[static_cast<size_t>(ids[best])].completion))
        best = i;
    }
    if (any == 0) return -1;
    if (best >= 0) {
      const Request& q = requests_[static_cast<size_t>(ids[best])];
      if (r.clock < q.completion) {
        r.clock = q.completion;
        clock_moved();
      }
      return best;
    }
    if (faulty_ && yielded) [[unlikely]] {  // failed peers: detected now, or wake at the earliest detection
      bool found = false;
      for (int i = 0; i < n; ++i)
        if (ids[i] >= 0) found |= detect_failure(requests_[static_cast<size_t>(ids[i])], gw, gd);
      if (found) continue;
      for (int i = 0; i < n; ++i)
        if (ids[i] >= 0 && requests_[static_cast<size_t>(ids[i])].peer_world >= 0)
          detect_wake_ = min(detect_wake_, detection_time(requests_[static_cast<size_t>(ids[i])].peer_world));
      if (gw >= 0) detect_wake_ = min(detect_wake_, gd);
    }
    if (!yielded) {
      ensure_earliest();
      yielded = true;
    } else {
      block_then_note(why);
      detect_wake_ = SimTime::infinity();
    }
    process_arrivals(r, r.clock);
    progress(r);
  }
}

void Engine::skip_polls(Rank& r, int source, int tag, uint64_t ctx) {
  PollStreak& s = streaks_[static_cast<size_t>(r.index)];
  if (s.noted_call + 1 != s.calls || s.clock != r.clock || s.source != source || s.tag != tag || s.ctx != ctx) {
    s.count = 0;
    return;
  }
  if (++s.count < kPollStreak || r.threaded || r.pending_progress ||
      (!r.arrivals.empty() && r.arrivals.front()->t_arrive <= r.clock))
    return;
  // Nothing has arrived since the last poll found nothing: until something does, every poll finds nothing.
  const SimTime t0 = r.clock;
  block(BlockInfo{"MPI_Iprobe", source, tag, MPI_COMM_NULL});
  const int64_t step = poll_step().ps(), waited = (r.clock - t0).ps();
  const int64_t k = (waited + step - 1) / step;
  r.clock = t0 + SimTime::from_ps(k * step);  // the first poll at or after the arrival
  polls_skipped_ += static_cast<uint64_t>(k);
  s.count = 0;
  clock_moved();
}

bool Engine::test(int id) {
  Rank& r = *current_;
  Request& q = requests_[static_cast<size_t>(id)];
  if (!done_by_now(q)) {
    // ensure_earliest()'s answer stands while the clock and the switch count do (its first test); only a
    // changed clock asks whether the poll is decided without a yield.
    if ((earliest_switch_ != switches_ || earliest_clock_ != r.clock) && !poll_decided(r)) ensure_earliest();
    process_arrivals(r, r.clock);
    progress(r);
  }
  if (faulty_ && !q.complete) [[unlikely]] detect_failure(q);
  bool done = done_by_now(q);
  charge_poll();
  return done;
}

void Engine::refresh_arrivals() {
  ensure_earliest();
  process_arrivals(*current_, current_->clock);
  progress(*current_);
}

bool Engine::cancel(int id) {
  Rank& r = *current_;
  Request& q = requests_[static_cast<size_t>(id)];
  if (q.kind != Request::Kind::Recv || q.complete || q.awaiting_data) return false;
  auto it = std::find(r.posted.begin(), r.posted.end(), id);
  if (it != r.posted.end()) r.posted.erase(it);
  q.complete = true;
  q.cancelled = true;
  q.completion = r.clock;
  q.st_source = MPI_ANY_SOURCE;
  q.st_tag = MPI_ANY_TAG;
  return true;
}

Message* Engine::probe(int source, int tag, uint64_t ctx, bool blocking, const BlockInfo& why) {
  Rank& r = *current_;
  ensure_earliest();
  Request pattern;
  pattern.source = source;
  pattern.tag = tag;
  pattern.ctx = ctx;
  for (;;) {
    process_arrivals(r, r.clock);
    progress(r);
    for (Message* m : r.unexpected)
      if (matches(pattern, m)) return m;
    if (!blocking) return nullptr;
    block_then_note(why);
  }
}

int Engine::mprobe(int source, int tag, uint64_t ctx, bool blocking, const BlockInfo& why) {
  Message* m = probe(source, tag, ctx, blocking, why);
  if (!m) return -1;
  Rank& r = *current_;
  r.unexpected.erase(std::find(r.unexpected.begin(), r.unexpected.end(), m));
  int id = new_request(Request::Kind::Matched);
  Request& q = requests_[static_cast<size_t>(id)];
  q.msg = m;
  q.complete = true;
  return id;
}

int Engine::new_request(Request::Kind kind) {
  int id = new_send_request(false);
  requests_[static_cast<size_t>(id)].kind = kind;
  return id;
}

}  // namespace xsim
