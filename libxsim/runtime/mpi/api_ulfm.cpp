// ULFM, User-Level Failure Mitigation (docs/resilience.md): MPIX_Comm_revoke, MPIX_Comm_agree,
// MPIX_Comm_shrink, MPIX_Comm_failure_ack, MPIX_Comm_failure_get_acked, as MPICH declares them.
// Layer: libxsim/runtime/mpi (xsim_mpi). Entry points run on the calling rank's fiber; the hook runs in the
// destination's native process with no rank current (engine-applied messages, family kFamilyUlfm).
//
// The algorithms, as messages of the network model, identical for any number of native processes:
//  - revoke: the revoking rank sends one small message to every other member; a member learns of the
//    revocation when it arrives (Engine::revoke_contexts: its receives on the communicator fail with
//    MPIX_ERR_REVOKED from then on). A member that revokes again sends nothing more.
//  - agree and shrink: one all-to-all exchange. Every member that enters the call alive sends its
//    contribution (agree: the flag) to every other member, in one step (a rank fails only at MPI call
//    boundaries, so it sends to all or to none). Member j counts as failed for member i once
//    T_j + max(detect, L(j -> i)) has passed without its message (T_j: j's failure time; a message j sent
//    before T_j arrives before then). So every survivor sees the same contributors: the agreed value is
//    the AND of their flags, shrink's new communicator is the contributors in rank order. Messages bypass
//    the NICs' gap and contention and the per-pair FIFO order (they are timed by latency alone), and are
//    simulated as one message per contributor and native process (exchange).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "api_ext.hpp"
#include "api_support.hpp"

namespace xsim {
namespace {

Engine& E() { return *g_engine; }

constexpr int32_t kOpRevoke = 1, kOpContribute = 2;
constexpr uint64_t kModelBytes = 8;  // what a revocation or contribution costs on the network

struct RevokePayload {
  uint64_t p2p_ctx, coll_ctx;
};
struct ContributionPayload {
  uint64_t comm_id, seq;
  SimTime sent;     // when the contributor entered the call (its contributions' departure)
  int32_t from;     // the contributor's rank in the communicator
  int32_t flag;
  int32_t mortal;   // 1 if the contributor has a failure time (it may not contribute)
  int32_t immortal_total;  // the members that have none (every one of them contributes)
  int32_t local_members;   // the communicator's members in the destination's process
};

// One agreement (or shrink) on one communicator as this process sees it: the contributions that reached it
// (one message per contributor and native process, not one per member pair: see exchange) and its members
// waiting here. "Ready" once every member without a failure time has contributed: only then can a waiting
// member know its outcome (and after that, a mortal member's late contribution wakes them again).
struct Round {
  struct Contribution {
    SimTime sent;
    int32_t from, flag;
  };
  std::vector<Contribution> got;
  std::vector<uint32_t> by_sent;  // indices into `got`, latest departure first (sorted once `got` is final)
  int32_t immortal_got = 0, immortal_total = 0;
  int32_t unfinished = 0;  // local members that have not left the call yet (the round is dropped at 0)
  std::vector<int32_t> waiting;  // world ranks of local members blocked in it
  bool ready() const { return immortal_got >= immortal_total; }
};
std::map<std::pair<uint64_t, uint64_t>, Round> g_rounds;

uint64_t g_revokes = 0, g_agreements = 0, g_shrinks = 0;  // this process's calls (the run report)
uint64_t g_agree_ps = 0;                                  // virtual time its ranks spent in agree and shrink

void hook(Message* m) {
  if (m->tag == kOpRevoke) {
    RevokePayload p;
    std::memcpy(&p, m->payload(), sizeof p);
    E().revoke_contexts(p.p2p_ctx, p.coll_ctx, m->dst, m->t_arrive);
  } else {
    ContributionPayload p;
    std::memcpy(&p, m->payload(), sizeof p);
    auto [it, fresh] = g_rounds.try_emplace({p.comm_id, p.seq});
    Round& r = it->second;
    if (fresh) {
      r.immortal_total = p.immortal_total;
      r.unfinished = p.local_members;
    }
    const bool was_ready = r.ready();
    r.got.push_back({p.sent, p.from, p.flag});
    if (!p.mortal) ++r.immortal_got;
    // The waiting members can decide once the round is ready; a mortal member's contribution after that
    // changes their outcome (it was not yet known whether it would come).
    if (r.ready() && (!was_ready || p.mortal))
      for (int32_t w : r.waiting) E().wake(w, m->t_arrive);
  }
  Message::destroy(m);
}

// Sends `payload` from the current rank to world rank `dst`, arriving at `arrive`.
template <class T>
void send_ulfm(int32_t op, const T& payload, int64_t dst, SimTime arrive) {
  Message* m = Message::create(sizeof(T));
  std::memcpy(m->payload(), &payload, sizeof(T));
  m->ctx = 0;
  m->tag = op;
  m->src_in_comm = kFamilyUlfm;
  E().send_applied_at(m, E().current().world, dst, arrive);
}

Comm& check_ulfm_comm(MPI_Comm comm, const char* call) {
  Comm& c = check_comm(comm);
  if (c.is_inter)
    fail(MPI_ERR_COMM, std::string(call) + " on an intercommunicator: xsim implements ULFM on intracommunicators");
  return c;
}

// The number of the agreement (or shrink) the current rank starts on `c` (the same on every member).
uint64_t next_agreement(const Comm& c) {
  auto& v = rank_extra().agreements;
  for (auto& [id, n] : v)
    if (id == c.id) return n++;
  v.emplace_back(c.id, 1);
  return 0;
}

std::vector<int32_t>& acked_of(const Comm& c) {
  auto& v = rank_extra().acked;
  for (auto& [id, worlds] : v)
    if (id == c.id) return worlds;
  v.emplace_back(c.id, std::vector<int32_t>{});
  return v.back().second;
}

struct Outcome {
  int value = 1;
  std::vector<int> failed;  // the members (comm ranks) that did not contribute, in rank order
};

// Per communicator and process, made once: one member in each native process that holds members (where
// contributions go), how many members each of those processes holds, and how many members have no failure
// time. Communicator ids are never reused, so the map only grows with the communicators that agree.
struct Layout {
  std::vector<int32_t> targets, local_members;
  int32_t immortal = 0;
  // By local member (world rank): the largest L(j -> it) over the other members, made on its first agreement
  // (O(n) once per communicator and member), so that evaluations can stop early (exchange).
  std::unordered_map<int32_t, SimTime> latest_latency;
};
std::unordered_map<uint64_t, Layout> g_layouts;

Layout& layout_of(Comm& c) {
  auto [it, fresh] = g_layouts.try_emplace(c.id);
  Layout& lay = it->second;
  if (!fresh) return lay;
  Engine& e = E();
  std::vector<int32_t> first(static_cast<size_t>(e.nprocs()), -1), count(static_cast<size_t>(e.nprocs()), 0);
  for (int j = 0; j < c.size; ++j) {
    const int32_t w = c.world_of(j);
    const auto p = static_cast<size_t>(e.owner_of(w));
    if (first[p] < 0) first[p] = w;
    ++count[p];
    if (e.fail_time(w) == SimTime::infinity()) ++lay.immortal;
  }
  for (size_t p = 0; p < first.size(); ++p)
    if (first[p] >= 0) {
      lay.targets.push_back(first[p]);
      lay.local_members.push_back(count[p]);
    }
  return lay;
}

// The exchange of agree and shrink (see the top of the file). Every member's contribution is the same
// message for all the others, so it travels once to each native process, arriving there no later than it
// could reach any member (at once in its own process, a lookahead later elsewhere); member i then sees j's
// contribution at j's entry + L(j -> i), exactly when a message of its own would have arrived. The virtual
// times are those of n - 1 messages per member; the simulation handles one per native process.
Outcome exchange(Comm& c, int flag, const char* call) {
  Engine& e = E();
  const int n = c.size, me = my_rank_in(c);
  const int32_t my_world = e.current().world;
  const uint64_t seq = next_agreement(c);
  const SimTime start = e.current().clock;
  Layout& lay = layout_of(c);
  auto [lat_it, lat_fresh] = lay.latest_latency.try_emplace(my_world, SimTime::zero());
  if (lat_fresh)
    for (int j = 0; j < n; ++j)
      if (j != me) lat_it->second = max(lat_it->second, e.message_latency(c.world_of(j), my_world, kModelBytes));
  const SimTime latest_latency = lat_it->second;
  ContributionPayload out{c.id, seq, start, me, flag, e.fail_time(my_world) != SimTime::infinity() ? 1 : 0,
                          lay.immortal, 0};
  int32_t here = 0;  // this process's members
  for (size_t k = 0; k < lay.targets.size(); ++k) {
    const bool local = e.owner_of(lay.targets[k]) == e.proc();
    if (local) here = lay.local_members[k];
    out.local_members = lay.local_members[k];
    send_ulfm(kOpContribute, out, lay.targets[k], local ? start : start + e.lookahead());
  }
  auto [it, fresh] = g_rounds.try_emplace({c.id, seq});
  Round& round = it->second;  // std::map: the reference stays valid while other rounds come and go
  if (fresh) {
    round.immortal_total = lay.immortal;
    round.unfinished = here;
  }
  round.waiting.push_back(my_world);
  // When this member can decide: every contribution it got visible (entry + L(j -> me)), every missing member
  // known not to have contributed (T_j + max(detect, L(j -> me))). Infinity until the round is ready.
  size_t evaluated = ~size_t{0};
  SimTime decide = SimTime::infinity();
  std::vector<char> got;
  auto evaluate = [&] {
    if (!round.ready()) return SimTime::infinity();
    if (round.got.size() == evaluated) return decide;
    evaluated = round.got.size();
    got.assign(static_cast<size_t>(n), 0);
    got[static_cast<size_t>(me)] = 1;
    decide = start;
    for (const Round::Contribution& x : round.got) got[static_cast<size_t>(x.from)] = 1;
    // The latest visibility: departures latest first, until none left could beat it even over the
    // slowest path to this member.
    if (round.by_sent.size() != round.got.size()) {
      round.by_sent.resize(round.got.size());
      for (uint32_t k = 0; k < round.by_sent.size(); ++k) round.by_sent[k] = k;
      std::sort(round.by_sent.begin(), round.by_sent.end(), [&](uint32_t a, uint32_t b) {
        const Round::Contribution &x = round.got[a], &y = round.got[b];
        return x.sent != y.sent ? x.sent > y.sent : x.from < y.from;
      });
    }
    for (uint32_t k : round.by_sent) {
      const Round::Contribution& x = round.got[k];
      if (x.sent + latest_latency <= decide) break;
      if (x.from != me)
        decide = max(decide, x.sent + e.message_latency(c.world_of(x.from), my_world, kModelBytes));
    }
    for (int j = 0; j < n; ++j)
      if (!got[static_cast<size_t>(j)]) {  // a member with a failure time (the round is ready)
        const int64_t w = c.world_of(j);
        const SimTime t = e.fail_time(w);
        decide = max(decide, t + max(e.detection_time(w) - t, e.message_latency(w, my_world, kModelBytes)));
      }
    return decide;
  };
  e.wait_until([&] { return e.current().clock >= evaluate(); }, evaluate, BlockInfo{call, -3, 0, c.handle});
  g_agree_ps += static_cast<uint64_t>((e.current().clock - start).ps());
  Outcome o;
  o.value = flag;
  for (const Round::Contribution& x : round.got)
    if (x.from != me) o.value &= x.flag;
  for (int j = 0; j < n; ++j)
    if (!got[static_cast<size_t>(j)]) o.failed.push_back(j);
  round.waiting.erase(std::find(round.waiting.begin(), round.waiting.end(), my_world));
  if (--round.unfinished == 0) g_rounds.erase(it);
  return o;
}

std::string describe_failed(Comm& c, int j) {
  const int64_t w = c.world_of(j);
  char buf[160];
  std::snprintf(buf, sizeof buf, "rank %d of the communicator (world rank %lld) failed at virtual time %.9f s", j,
                static_cast<long long>(w), E().fail_time(w).seconds());
  return buf;
}

}  // namespace

void ulfm_install(Engine& e) { e.set_applied_hook(kFamilyUlfm, &hook); }

void ulfm_counts(uint64_t* revokes, uint64_t* agreements, uint64_t* shrinks, uint64_t* agree_ps) {
  *revokes = g_revokes;
  *agreements = g_agreements;
  *shrinks = g_shrinks;
  *agree_ps = g_agree_ps;
}

}  // namespace xsim

using namespace xsim;

XSIM_API int MPIX_Comm_revoke(MPI_Comm comm) {
  return guarded("MPIX_Comm_revoke", comm, [&] {
    Comm& c = check_ulfm_comm(comm, "MPIX_Comm_revoke");
    Engine& e = E();
    const Rank& r = e.current();
    if (e.revoked(c.p2p_ctx(), r.world)) return;  // revoked already (by it or by another member)
    ++g_revokes;
    e.revoke_contexts(c.p2p_ctx(), c.coll_ctx(), r.world, r.clock);
    const RevokePayload p{c.p2p_ctx(), c.coll_ctx()};
    const int me = my_rank_in(c);
    for (int j = 0; j < c.size; ++j)
      if (j != me) {
        const int64_t w = c.world_of(j);
        send_ulfm(kOpRevoke, p, w, r.clock + e.message_latency(r.world, w, kModelBytes));
      }
  });
}

XSIM_API int MPIX_Comm_agree(MPI_Comm comm, int* flag) {
  return guarded("MPIX_Comm_agree", comm, [&] {
    Comm& c = check_ulfm_comm(comm, "MPIX_Comm_agree");
    check_pointer(flag, MPI_ERR_ARG, "the flag");
    ++g_agreements;
    Outcome o = exchange(c, *flag, "MPIX_Comm_agree");
    *flag = o.value;
    // Failed members this rank has not acknowledged make the call report a process failure (the value
    // is agreed all the same).
    const std::vector<int32_t>& acked = acked_of(c);
    for (int j : o.failed)
      if (std::find(acked.begin(), acked.end(), c.world_of(j)) == acked.end()) {
        E().count_detection();
        fail(kErrProcFailed, "process failure: " + describe_failed(c, j) +
                                 ", not acknowledged with MPIX_Comm_failure_ack (the agreed flag is returned)");
      }
  });
}

XSIM_API int MPIX_Comm_shrink(MPI_Comm comm, MPI_Comm* newcomm) {
  return guarded("MPIX_Comm_shrink", comm, [&] {
    Comm& c = check_ulfm_comm(comm, "MPIX_Comm_shrink");
    check_pointer(newcomm, MPI_ERR_ARG, "the new communicator");
    ++g_shrinks;
    Outcome o = exchange(c, 1, "MPIX_Comm_shrink");
    std::vector<int32_t> members;
    members.reserve(static_cast<size_t>(c.size) - o.failed.size());
    size_t f = 0;
    for (int j = 0; j < c.size; ++j) {
      if (f < o.failed.size() && o.failed[f] == j) {
        ++f;
        continue;
      }
      members.push_back(c.world_of(j));
    }
    Comm* n = comm_join(comm_next_id(c, 0x5f), std::move(members));
    *newcomm = n->handle;
    comm_inherit_errhandler(comm, *newcomm);
  });
}

XSIM_API int MPIX_Comm_failure_ack(MPI_Comm comm) {
  return guarded("MPIX_Comm_failure_ack", comm, [&] {
    Comm& c = check_ulfm_comm(comm, "MPIX_Comm_failure_ack");
    // The failures this rank knows of: those detected by its clock (failure time + detection delay).
    Engine& e = E();
    std::vector<int32_t>& acked = acked_of(c);
    acked.clear();
    if (!e.faults()) return;
    const SimTime now = e.current().clock;
    for (int j = 0; j < c.size; ++j)
      if (e.detection_time(c.world_of(j)) <= now) acked.push_back(c.world_of(j));
  });
}

XSIM_API int MPIX_Comm_failure_get_acked(MPI_Comm comm, MPI_Group* failed) {
  return guarded("MPIX_Comm_failure_get_acked", comm, [&] {
    Comm& c = check_ulfm_comm(comm, "MPIX_Comm_failure_get_acked");
    check_pointer(failed, MPI_ERR_ARG, "the group");
    Group g;
    g.members = acked_of(c);
    g.size = static_cast<int>(g.members.size());
    *failed = g.size == 0 ? MPI_GROUP_EMPTY : group_create(std::move(g));
  });
}
