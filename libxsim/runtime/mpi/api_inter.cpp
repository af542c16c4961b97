// Intercommunicators: MPI_Intercomm_create, MPI_Intercomm_merge, MPI_Comm_remote_size/remote_group,
// MPI_Comm_test_inter, dup/split/compare on intercommunicators (api_comm.cpp dispatches here), and the
// entry side of the intercommunicator collectives (api_coll.cpp checks their arguments; the algorithms are
// in coll/intercomm.cpp).
// Layer: libxsim/runtime/mpi (xsim_mpi).
// Contract:
//  - Each group's side of an intercommunicator is its own Comm object (members = local group, `remote` =
//    the other group, is_inter). Point-to-point and the cross-group steps of collectives use the shared
//    context `inter_id` (each receiver only ever hears from the remote group on it); the intra-group steps
//    run on `local`, a hidden intracommunicator over the local group.
//  - Context ids are derived deterministically, never negotiated: MPI_Intercomm_create folds each group's
//    proposal (comm_next_id of its local_comm, the same on every member) into 32 bits, and the leaders
//    swap them in the message that models MPICH's context exchange, so both groups compute the same id;
//    creations from an intercommunicator use comm_next_id keyed by `inter_id`, counted alike on both sides.
//  - The "low" group (MPICH's is_low_group) is the one holding the lower world rank: a function of the
//    groups, so both sides agree without talking.
//  - The messages model MPICH's cost (docs/collectives.md, "Intercommunicators").
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "api_ext.hpp"
#include "api_support.hpp"
#include "coll/collectives.hpp"
#include "sim_transport.hpp"

using namespace xsim;

namespace {

// Tags of the creation steps on an intercommunicator's collective context (the collectives use 101..).
constexpr int kTagCtx = 131, kTagSplit = 132, kTagMerge = 133;

// Creates (first local member) or joins this group's side of the intercommunicator with context `inter`.
Comm* join_inter(uint64_t inter, const std::vector<int32_t>& local, const std::vector<int32_t>& remote) {
  const bool low = *std::min_element(local.begin(), local.end()) < *std::min_element(remote.begin(), remote.end());
  const uint64_t side = as_context_id(context_mix(inter ^ (low ? 0x10 : 0x20)));
  Comm* n = comm_join(side, local);
  if (n->local_refs == 1) {  // a new object: set it up
    n->is_inter = true;
    n->low_group = low;
    n->inter_id = inter;
    n->remote = remote;
    n->local = comm_join(as_context_id(context_mix(side ^ 0x77)), local);
    n->local->name = "local group of an intercommunicator";
  }
  return n;
}

// MPICH's context agreement for a communicator made from intercommunicator `c`: an allreduce in each
// group, the two rank 0s swap the result, a bcast in each group.
void agree_inter(Comm& c, const char* call) {
  SimTransport lt(*c.local, call);
  PeerTransport rt(c, call);
  int v = 0, out = 0, theirs = 0;
  coll::allreduce(lt, &v, &out, 1, MPI_INT, MPI_MAX);
  if (lt.rank() == 0) rt.sendrecv(&out, 1, MPI_INT, 0, kTagCtx, &theirs, 1, MPI_INT, 0, kTagCtx);
  coll::bcast(lt, &theirs, 1, MPI_INT, 0);
}

Comm& check_inter(MPI_Comm comm, const char* what) {
  Comm& c = check_comm(comm);
  if (!c.is_inter) fail(MPI_ERR_COMM, std::string(what) + " needs an intercommunicator");
  return c;
}

}  // namespace

namespace xsim {

MPI_Comm inter_dup(Comm& c, const char* call, bool agree) {
  if (agree) agree_inter(c, call);
  return join_inter(comm_next_id(c.inter_id, 0xd1), members_of(c), c.remote)->handle;
}

MPI_Comm inter_split(Comm& c, int color, int key, const char* call) {
  // Each group gathers its (color, key) pairs; the rank 0s swap them and broadcast the other group's.
  SimTransport lt(*c.local, call);
  PeerTransport rt(c, call);
  const int lsize = c.size, rsize = c.peer_size();
  const std::vector<int> all = exchange_color_key(lt, color, key);
  std::vector<int> rall(static_cast<size_t>(rsize) * 2);
  if (lt.rank() == 0)
    rt.sendrecv(all.data(), 2 * lsize, MPI_INT, 0, kTagSplit, rall.data(), 2 * rsize, MPI_INT, 0, kTagSplit);
  coll::bcast(lt, rall.data(), 2 * rsize, MPI_INT, 0);
  agree_inter(c, call);
  const uint64_t base = comm_next_id(c.inter_id, 0x5c);
  if (color == MPI_UNDEFINED) return MPI_COMM_NULL;
  std::vector<int32_t> local = of_color(members_of(c), all, color), remote = of_color(c.remote, rall, color);
  if (remote.empty()) return MPI_COMM_NULL;  // no one of this colour on the other side
  return join_inter(as_context_id(base ^ context_mix(static_cast<uint32_t>(color))), local, remote)->handle;
}

int inter_compare(const Comm& a, const Comm& b) {
  if (a.is_inter != b.is_inter) return MPI_UNEQUAL;
  const int l = compare_members(members_of(a), members_of(b));
  const int r = compare_members(a.remote, b.remote);
  if (l == MPI_IDENT && r == MPI_IDENT) return MPI_CONGRUENT;
  if (l != MPI_UNEQUAL && r != MPI_UNEQUAL) return MPI_SIMILAR;
  return MPI_UNEQUAL;
}

}  // namespace xsim

// ---- constructors and queries -----------------------------------------------------------------------

XSIM_API int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader,
                                  int tag, MPI_Comm* newintercomm) {
  static constexpr const char* kCall = "MPI_Intercomm_create";
  return guarded(kCall, local_comm, [&] {
    Comm& lc = check_comm(local_comm);
    if (lc.is_inter) fail(MPI_ERR_COMM, "local_comm must be an intracommunicator");
    if (local_leader < 0 || local_leader >= lc.size)
      fail(MPI_ERR_RANK, "invalid local_leader " + std::to_string(local_leader) + " (" + describe_comm(local_comm) +
                             " has " + std::to_string(lc.size) + " ranks)");
    const bool leader = my_rank_in(lc) == local_leader;
    Comm* pc = nullptr;
    if (leader) {  // peer_comm, remote_leader and tag matter at the leaders only
      pc = &check_comm(peer_comm);
      check_send_tag(tag);
      if (remote_leader < 0 || remote_leader >= pc->peer_size())
        fail(MPI_ERR_RANK, "invalid remote_leader " + std::to_string(remote_leader) + " (" +
                               describe_comm(peer_comm) + " has " + std::to_string(pc->peer_size()) + " ranks)");
      if (lc.rank_of_world(pc->peer_world(remote_leader)) >= 0)
        fail(MPI_ERR_RANK, "the remote leader belongs to local_comm: the two groups must be disjoint");
    }
    SimTransport lt(lc, kCall);
    const std::vector<int32_t> local = members_of(lc);
    // 1. The leaders swap the group sizes, then the member lists (8 bytes a member, as MPICH's gpids), on
    //    peer_comm's collective context with the application's tag; each broadcasts them in its group.
    int rsize = 0;
    std::vector<int64_t> theirs;
    std::unique_ptr<PeerTransport> pt;
    if (leader) {
      pt = std::make_unique<PeerTransport>(*pc, kCall);
      int lsize = lc.size;
      pt->sendrecv(&lsize, 1, MPI_INT, remote_leader, tag, &rsize, 1, MPI_INT, remote_leader, tag);
      std::vector<int64_t> mine(local.begin(), local.end());
      theirs.resize(static_cast<size_t>(rsize));
      pt->sendrecv(mine.data(), lsize, MPI_INT64_T, remote_leader, tag, theirs.data(), rsize, MPI_INT64_T,
                   remote_leader, tag);
    }
    coll::bcast(lt, &rsize, 1, MPI_INT, local_leader);
    theirs.resize(static_cast<size_t>(rsize));
    coll::bcast(lt, theirs.data(), rsize, MPI_INT64_T, local_leader);
    // 2. Context: the agreement inside the group (allreduce), the leaders swap their groups' values, and
    //    broadcast the other's. The values swapped are the groups' proposals for the shared id.
    int v = 0, out = 0;
    coll::allreduce(lt, &v, &out, 1, MPI_INT, MPI_MAX);
    const uint64_t proposal = comm_next_id(lc, 0x1c);
    uint32_t p32 = static_cast<uint32_t>(proposal ^ (proposal >> 32)), r32 = 0;
    if (leader) pt->sendrecv(&p32, 1, MPI_UINT32_T, remote_leader, tag, &r32, 1, MPI_UINT32_T, remote_leader, tag);
    coll::bcast(lt, &r32, 1, MPI_UINT32_T, local_leader);
    const std::vector<int32_t> remote(theirs.begin(), theirs.end());
    const bool low = *std::min_element(local.begin(), local.end()) < *std::min_element(remote.begin(), remote.end());
    const uint64_t inter = as_context_id(context_mix(low ? (uint64_t{p32} << 32 | r32) : (uint64_t{r32} << 32 | p32)));
    *newintercomm = join_inter(inter, local, remote)->handle;
    comm_inherit_errhandler(local_comm, *newintercomm);
  });
}

XSIM_API int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm* newintracomm) {
  static constexpr const char* kCall = "MPI_Intercomm_merge";
  return guarded(kCall, intercomm, [&] {
    Comm& c = check_inter(intercomm, kCall);
    // The rank 0s swap the groups' `high` values and broadcast the other's.
    SimTransport lt(*c.local, kCall);
    PeerTransport rt(c, kCall);
    int mine = high ? 1 : 0, theirs = 0;
    if (lt.rank() == 0) rt.sendrecv(&mine, 1, MPI_INT, 0, kTagMerge, &theirs, 1, MPI_INT, 0, kTagMerge);
    coll::bcast(lt, &theirs, 1, MPI_INT, 0);
    // The group with high = false comes first; on a tie, the low group.
    const bool first = mine == theirs ? c.low_group : mine == 0;
    std::vector<int32_t> members = members_of(c);
    if (first) members.insert(members.end(), c.remote.begin(), c.remote.end());
    else members.insert(members.begin(), c.remote.begin(), c.remote.end());
    Comm* n = comm_join(comm_next_id(c.inter_id, 0x3e), std::move(members));
    agree_on_context(*n, kCall);  // MPICH agrees on the new context over the merged group
    *newintracomm = n->handle;
    comm_inherit_errhandler(intercomm, *newintracomm);
  });
}

XSIM_API int MPI_Comm_test_inter(MPI_Comm comm, int* flag) {
  return guarded("MPI_Comm_test_inter", comm, [&] { *flag = check_comm(comm).is_inter ? 1 : 0; });
}

XSIM_API int MPI_Comm_remote_size(MPI_Comm comm, int* size) {
  return guarded("MPI_Comm_remote_size", comm,
                 [&] { *size = check_inter(comm, "MPI_Comm_remote_size").peer_size(); });
}

XSIM_API int MPI_Comm_remote_group(MPI_Comm comm, MPI_Group* group) {
  return guarded("MPI_Comm_remote_group", comm, [&] {
    Comm& c = check_inter(comm, "MPI_Comm_remote_group");
    Group g;
    g.size = c.peer_size();
    g.members = c.remote;
    *group = group_create(std::move(g));
  });
}

// xsim never spawns processes: no rank has a parent.
XSIM_API int MPI_Comm_get_parent(MPI_Comm* parent) {
  return guarded("MPI_Comm_get_parent", MPI_COMM_WORLD, [&] { *parent = MPI_COMM_NULL; });
}

// ---- collectives ----------------------------------------------------------------------------------------

namespace xsim {

void inter_collective(Comm& c, const char* name, bool nonblocking,
                      const std::function<void(coll::Transport& local, coll::Transport& remote)>& body) {
  if (!body) fail(MPI_ERR_COMM, std::string(name) + " is not defined on intercommunicators");
  if (nonblocking)
    fail(MPI_ERR_COMM,
         std::string(name) + " on an intercommunicator is not supported by xsim yet (the blocking form is)");
  SimTransport local(*c.local, name);
  PeerTransport remote(c, name);
  body(local, remote);
}

}  // namespace xsim
