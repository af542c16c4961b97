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
//    the NICs' gap and contention and the per-pair FIFO order (they are timed by latency alone).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <tuple>
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
  int32_t from;  // the contributor's rank in the communicator
  int32_t flag;
};

// Contributions that arrived, by (communicator id, agreement number, destination world rank).
struct Arrived {
  int32_t from;
  int32_t flag;
};
std::map<std::tuple<uint64_t, uint64_t, int32_t>, std::vector<Arrived>> g_arrived;

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
    g_arrived[{p.comm_id, p.seq, m->dst}].push_back({p.from, p.flag});
    E().wake(m->dst, m->t_arrive);
  }
  Message::destroy(m);
}

template <class T>
void send_ulfm(int32_t op, const T& payload, int64_t dst) {
  Engine& e = E();
  Message* m = Message::create(sizeof(T));
  std::memcpy(m->payload(), &payload, sizeof(T));
  m->ctx = 0;
  m->tag = op;
  m->src_in_comm = kFamilyUlfm;
  e.send_applied_from(m, e.current().world, dst, e.current().clock, kModelBytes);
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

// The all-to-all exchange of agree and shrink (see the top of the file).
Outcome exchange(Comm& c, int flag, const char* call) {
  Engine& e = E();
  const int n = c.size, me = my_rank_in(c);
  const int32_t my_world = e.current().world;
  const uint64_t seq = next_agreement(c);
  const SimTime start = e.current().clock;
  const ContributionPayload out{c.id, seq, me, flag};
  for (int j = 0; j < n; ++j)
    if (j != me) send_ulfm(kOpContribute, out, c.world_of(j));
  Outcome o;
  o.value = flag;
  std::vector<char> got(static_cast<size_t>(n), 0);
  got[static_cast<size_t>(me)] = 1;
  // When member j is known not to have contributed: T_j + max(detect, L(j -> me)); infinity when it does not
  // fail. `alive_missing` counts the missing members that do not fail: while one is missing, no deadline can
  // complete the call (only its contribution can), so the waits cost O(1) per arrival.
  std::vector<SimTime> gone(static_cast<size_t>(n), SimTime::infinity());
  int alive_missing = 0;
  for (int j = 0; j < n; ++j) {
    if (j == me) continue;
    const int64_t w = c.world_of(j);
    const SimTime t = e.fail_time(w);
    if (t == SimTime::infinity()) {
      ++alive_missing;
      continue;
    }
    gone[static_cast<size_t>(j)] = t + max(e.detection_time(w) - t, e.message_latency(w, my_world, kModelBytes));
  }
  const auto key = std::make_tuple(c.id, seq, my_world);
  auto absorb = [&] {
    auto it = g_arrived.find(key);
    if (it == g_arrived.end()) return;
    for (const Arrived& a : it->second)
      if (!got[static_cast<size_t>(a.from)]) {
        got[static_cast<size_t>(a.from)] = 1;
        o.value &= a.flag;
        if (gone[static_cast<size_t>(a.from)] == SimTime::infinity()) --alive_missing;
      }
    g_arrived.erase(it);
  };
  auto last_gone = [&] {  // the latest deadline among the missing members (all of them fail)
    SimTime t = SimTime::zero();
    for (int j = 0; j < n; ++j)
      if (!got[static_cast<size_t>(j)]) t = max(t, gone[static_cast<size_t>(j)]);
    return t;
  };
  auto done = [&] {
    absorb();
    return alive_missing == 0 && e.current().clock >= last_gone();
  };
  auto deadline = [&] {  // when the missing members are all known not to have contributed (infinity: never)
    return alive_missing > 0 ? SimTime::infinity() : last_gone();
  };
  e.wait_until(done, deadline, BlockInfo{call, -3, 0, c.handle});
  g_agree_ps += static_cast<uint64_t>((e.current().clock - start).ps());
  for (int j = 0; j < n; ++j)
    if (!got[static_cast<size_t>(j)]) o.failed.push_back(j);
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
      if (j != me) send_ulfm(kOpRevoke, p, c.world_of(j));
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
