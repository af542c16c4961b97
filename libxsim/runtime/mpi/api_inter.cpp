// Intercommunicators: MPI_Intercomm_create, MPI_Intercomm_merge, MPI_Comm_remote_size/remote_group,
// MPI_Comm_test_inter, dup/split/compare on intercommunicators (api_comm.cpp dispatches here), and the
// entry side of the intercommunicator collectives (the algorithms are in coll/intercomm.cpp).
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
#include "coll/intercomm.hpp"
#include "native/datatype.hpp"
#include "sim_transport.hpp"

using namespace xsim;

namespace {

uint64_t mix(uint64_t x) {  // splitmix64 finaliser
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
uint64_t as_id(uint64_t x) { return (x & ~(3ull << 62)) | 2; }  // the form comm_next_id gives ids

// Tags of the creation steps on an intercommunicator's collective context (the collectives use 101..).
constexpr int kTagCtx = 131, kTagSplit = 132, kTagMerge = 133;

// Messages to the peers of `c` on its collective context: the remote group of an intercommunicator, or
// the communicator itself (then the same as SimTransport).
class PeerTransport final : public coll::Transport {
 public:
  PeerTransport(Comm& c, const char* call) : c_(c), me_(my_rank_in(c)), call_(call) {}
  int rank() const override { return me_; }
  int size() const override { return c_.peer_size(); }
  int isend(const void* buf, int count, MPI_Datatype type, int dest, int tag) override {
    g_engine->send(buf, count, type, c_.peer_world(dest), tag, c_.coll_ctx(), me_, -1);
    return g_engine->new_send_request(true);
  }
  int irecv(void* buf, int count, MPI_Datatype type, int source, int tag) override {
    return g_engine->post_recv(buf, count, type, source, tag, c_.coll_ctx());
  }
  void waitall(int n, const int* ids) override {
    for (int i = 0; i < n; ++i) {
      Request& q = g_engine->request(ids[i]);
      g_engine->wait(ids[i], BlockInfo{call_, q.kind == Request::Kind::Recv ? q.source : -3, q.tag, c_.handle});
      int err = q.error();
      g_engine->release_request(ids[i]);
      if (err == MPI_ERR_TRUNCATE)
        fail(MPI_ERR_TRUNCATE, "message truncated: the ranks passed inconsistent counts or datatypes");
    }
  }

 private:
  Comm& c_;
  int me_;
  const char* call_;
};

std::vector<int32_t> local_members(const Comm& c) {
  std::vector<int32_t> m(static_cast<size_t>(c.size));
  for (int i = 0; i < c.size; ++i) m[static_cast<size_t>(i)] = c.world_of(i);
  return m;
}

// Creates (first local member) or joins this group's side of the intercommunicator with context `inter`.
Comm* join_inter(uint64_t inter, const std::vector<int32_t>& local, const std::vector<int32_t>& remote) {
  const bool low = *std::min_element(local.begin(), local.end()) < *std::min_element(remote.begin(), remote.end());
  const uint64_t side = as_id(mix(inter ^ (low ? 0x10 : 0x20)));
  Comm* n = comm_join(side, local);
  if (n->local_refs == 1) {  // a new object: set it up
    n->is_inter = true;
    n->low_group = low;
    n->inter_id = inter;
    n->remote = remote;
    n->local = comm_join(as_id(mix(side ^ 0x77)), local);
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

// The members of `members` whose (color, key) entry in `ck` has `color`, ordered by key then rank.
std::vector<int32_t> of_color(const std::vector<int32_t>& members, const std::vector<int>& ck, int color) {
  std::vector<int> idx;
  for (size_t i = 0; i < members.size(); ++i)
    if (ck[i * 2] == color) idx.push_back(static_cast<int>(i));
  std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) {
    return ck[static_cast<size_t>(a) * 2 + 1] < ck[static_cast<size_t>(b) * 2 + 1];
  });
  std::vector<int32_t> out(idx.size());
  for (size_t i = 0; i < idx.size(); ++i) out[i] = members[static_cast<size_t>(idx[i])];
  return out;
}

int compare_lists(std::vector<int32_t> a, std::vector<int32_t> b) {
  if (a == b) return MPI_IDENT;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return a == b ? MPI_SIMILAR : MPI_UNEQUAL;
}

}  // namespace

namespace xsim {

MPI_Comm inter_dup(Comm& c, const char* call, bool agree) {
  if (agree) agree_inter(c, call);
  return join_inter(comm_next_id(c.inter_id, 0xd1), local_members(c), c.remote)->handle;
}

MPI_Comm inter_split(Comm& c, int color, int key, const char* call) {
  // Each group gathers its (color, key) pairs; the rank 0s swap them and broadcast the other group's.
  SimTransport lt(*c.local, call);
  PeerTransport rt(c, call);
  const int lsize = c.size, rsize = c.peer_size();
  int mine[2] = {color, key};
  std::vector<int> all(static_cast<size_t>(lsize) * 2), rall(static_cast<size_t>(rsize) * 2);
  coll::allgather(lt, mine, 2, MPI_INT, all.data(), 2, MPI_INT);
  if (lt.rank() == 0)
    rt.sendrecv(all.data(), 2 * lsize, MPI_INT, 0, kTagSplit, rall.data(), 2 * rsize, MPI_INT, 0, kTagSplit);
  coll::bcast(lt, rall.data(), 2 * rsize, MPI_INT, 0);
  agree_inter(c, call);
  const uint64_t base = comm_next_id(c.inter_id, 0x5c);
  if (color == MPI_UNDEFINED) return MPI_COMM_NULL;
  std::vector<int32_t> local = of_color(local_members(c), all, color), remote = of_color(c.remote, rall, color);
  if (remote.empty()) return MPI_COMM_NULL;  // no one of this colour on the other side
  return join_inter(as_id(base ^ mix(static_cast<uint32_t>(color))), local, remote)->handle;
}

int inter_compare(const Comm& a, const Comm& b) {
  if (a.is_inter != b.is_inter) return MPI_UNEQUAL;
  const int l = compare_lists(local_members(a), local_members(b));
  const int r = compare_lists(a.remote, b.remote);
  if (l == MPI_IDENT && r == MPI_IDENT) return MPI_CONGRUENT;
  if (l != MPI_UNEQUAL && r != MPI_UNEQUAL) return MPI_SIMILAR;
  return MPI_UNEQUAL;
}

bool is_intercomm(MPI_Comm comm) {
  if (!g_engine || !g_engine->in_rank() || comm == MPI_COMM_WORLD || comm == MPI_COMM_SELF) return false;
  Comm* c = comm_lookup(comm);
  return c && c->is_inter;
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
    const std::vector<int32_t> local = local_members(lc);
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
    const uint64_t inter = as_id(mix(low ? (uint64_t{p32} << 32 | r32) : (uint64_t{r32} << 32 | p32)));
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
    std::vector<int32_t> members = local_members(c);
    if (first) members.insert(members.end(), c.remote.begin(), c.remote.end());
    else members.insert(members.begin(), c.remote.begin(), c.remote.end());
    Comm* n = comm_join(comm_next_id(c.inter_id, 0x3e), std::move(members));
    // MPICH agrees on the new context over the merged group.
    SimTransport mt(*n, kCall);
    int v = 0, out = 0;
    coll::allreduce(mt, &v, &out, 1, MPI_INT, MPI_MAX);
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

// ---- collectives --------------------------------------------------------------------------------------

namespace {

void check_inter_root(const Comm& c, int root) {
  if (root == MPI_ROOT || root == MPI_PROC_NULL) return;
  if (root < 0 || root >= c.peer_size())
    fail(MPI_ERR_ROOT, "invalid root " + std::to_string(root) + " on an intercommunicator (MPI_ROOT, MPI_PROC_NULL, or "
                           "a rank of the remote group, which has " + std::to_string(c.peer_size()) + " ranks)");
}
void check_op(MPI_Op op) {
  if (op == MPI_OP_NULL) fail(MPI_ERR_OP, "the reduction operation is MPI_OP_NULL");
}
void check_counts(const int* counts, int n) {
  for (int i = 0; i < n; ++i) check_count(counts[i]);
}
void no_in_place(const void* buf) {
  if (buf == MPI_IN_PLACE) fail(MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed on an intercommunicator");
}

// Runs an intercommunicator collective: `body(c, local, remote)`.
template <class F>
int inter_coll(const char* name, MPI_Comm comm, MPI_Request* req, F&& body) {
  return guarded(name, comm, [&] {
    Comm& c = check_comm(comm);
    if (req)
      fail(MPI_ERR_COMM, std::string(name) +
                             " on an intercommunicator is not supported by xsim yet (the blocking form is)");
    SimTransport lt(*c.local, name);
    PeerTransport rt(c, name);
    try {
      body(c, lt, rt);
    } catch (const native::MpiError& e) {
      fail(e.code, e.what());
    }
  });
}

}  // namespace

namespace xsim {

int inter_barrier(const char* name, MPI_Comm comm, MPI_Request* req) {
  return inter_coll(name, comm, req,
                    [&](Comm& c, coll::Transport& l, coll::Transport& r) { coll::inter::barrier(l, r, c.low_group); });
}

int inter_bcast(const char* name, void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
                MPI_Request* req) {
  return inter_coll(name, comm, req, [&](Comm& c, coll::Transport& l, coll::Transport& r) {
    check_inter_root(c, root);
    check_count(count);
    check_type(type);
    coll::inter::bcast(l, r, buf, count, type, root);
  });
}

int inter_reduce(const char* name, const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, int root,
                 MPI_Comm comm, MPI_Request* req) {
  return inter_coll(name, comm, req, [&](Comm& c, coll::Transport& l, coll::Transport& r) {
    check_inter_root(c, root);
    check_count(count);
    check_type(type);
    check_op(op);
    no_in_place(sbuf);
    coll::inter::reduce(l, r, sbuf, rbuf, count, type, op, root);
  });
}

int inter_allreduce(const char* name, const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op,
                    MPI_Comm comm, MPI_Request* req) {
  return inter_coll(name, comm, req, [&](Comm&, coll::Transport& l, coll::Transport& r) {
    check_count(count);
    check_type(type);
    check_op(op);
    no_in_place(sbuf);
    coll::inter::allreduce(l, r, sbuf, rbuf, count, type, op);
  });
}

int inter_gather(const char* name, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
                 MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request* req) {
  return inter_coll(name, comm, req, [&](Comm& c, coll::Transport& l, coll::Transport& r) {
    check_inter_root(c, root);
    check_count(scount);
    check_count(rcount);
    no_in_place(sbuf);
    coll::inter::gather(l, r, sbuf, scount, stype, rbuf, rcount, rtype, root);
  });
}

int inter_gatherv(const char* name, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int rcounts[],
                  const int displs[], MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request* req) {
  return inter_coll(name, comm, req, [&](Comm& c, coll::Transport& l, coll::Transport& r) {
    check_inter_root(c, root);
    check_count(scount);
    no_in_place(sbuf);
    if (root == MPI_ROOT) check_counts(rcounts, c.peer_size());
    coll::inter::gatherv(l, r, sbuf, scount, stype, rbuf, rcounts, displs, rtype, root);
  });
}

int inter_scatter(const char* name, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
                  MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request* req) {
  return inter_coll(name, comm, req, [&](Comm& c, coll::Transport& l, coll::Transport& r) {
    check_inter_root(c, root);
    check_count(scount);
    check_count(rcount);
    no_in_place(rbuf);
    coll::inter::scatter(l, r, sbuf, scount, stype, rbuf, rcount, rtype, root);
  });
}

int inter_scatterv(const char* name, const void* sbuf, const int scounts[], const int displs[], MPI_Datatype stype,
                   void* rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request* req) {
  return inter_coll(name, comm, req, [&](Comm& c, coll::Transport& l, coll::Transport& r) {
    check_inter_root(c, root);
    check_count(rcount);
    no_in_place(rbuf);
    if (root == MPI_ROOT) check_counts(scounts, c.peer_size());
    coll::inter::scatterv(l, r, sbuf, scounts, displs, stype, rbuf, rcount, rtype, root);
  });
}

int inter_allgather(const char* name, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
                    MPI_Datatype rtype, MPI_Comm comm, MPI_Request* req) {
  return inter_coll(name, comm, req, [&](Comm& c, coll::Transport& l, coll::Transport& r) {
    check_count(scount);
    check_count(rcount);
    no_in_place(sbuf);
    coll::inter::allgather(l, r, c.low_group, sbuf, scount, stype, rbuf, rcount, rtype);
  });
}

int inter_allgatherv(const char* name, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf,
                     const int rcounts[], const int displs[], MPI_Datatype rtype, MPI_Comm comm, MPI_Request* req) {
  return inter_coll(name, comm, req, [&](Comm& c, coll::Transport& l, coll::Transport& r) {
    check_count(scount);
    check_counts(rcounts, c.peer_size());
    no_in_place(sbuf);
    coll::inter::allgatherv(l, r, c.low_group, sbuf, scount, stype, rbuf, rcounts, displs, rtype);
  });
}

int inter_alltoall(const char* name, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
                   MPI_Datatype rtype, MPI_Comm comm, MPI_Request* req) {
  return inter_coll(name, comm, req, [&](Comm&, coll::Transport& l, coll::Transport& r) {
    check_count(scount);
    check_count(rcount);
    no_in_place(sbuf);
    coll::inter::alltoall(l, r, sbuf, scount, stype, rbuf, rcount, rtype);
  });
}

int inter_alltoallv(const char* name, const void* sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype,
                    void* rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype, MPI_Comm comm,
                    MPI_Request* req) {
  return inter_coll(name, comm, req, [&](Comm& c, coll::Transport& l, coll::Transport& r) {
    no_in_place(sbuf);
    check_counts(scounts, c.peer_size());
    check_counts(rcounts, c.peer_size());
    coll::inter::alltoallv(l, r, sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype);
  });
}

int inter_alltoallw(const char* name, const void* sbuf, const int scounts[], const int sdispls[],
                    const MPI_Datatype stypes[], void* rbuf, const int rcounts[], const int rdispls[],
                    const MPI_Datatype rtypes[], MPI_Comm comm, MPI_Request* req) {
  return inter_coll(name, comm, req, [&](Comm& c, coll::Transport& l, coll::Transport& r) {
    no_in_place(sbuf);
    check_counts(scounts, c.peer_size());
    check_counts(rcounts, c.peer_size());
    for (int i = 0; i < c.peer_size(); ++i) {
      if (scounts[i] > 0) check_type(stypes[i]);
      if (rcounts[i] > 0) check_type(rtypes[i]);
    }
    coll::inter::alltoallw(l, r, sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes);
  });
}

int inter_reduce_scatter(const char* name, const void* sbuf, void* rbuf, const int rcounts[], MPI_Datatype type,
                         MPI_Op op, MPI_Comm comm, MPI_Request* req) {
  return inter_coll(name, comm, req, [&](Comm& c, coll::Transport& l, coll::Transport& r) {
    check_counts(rcounts, c.size);
    check_type(type);
    check_op(op);
    no_in_place(sbuf);
    coll::inter::reduce_scatter(l, r, c.low_group, sbuf, rbuf, rcounts, type, op);
  });
}

int inter_reduce_scatter_block(const char* name, const void* sbuf, void* rbuf, int rcount, MPI_Datatype type,
                               MPI_Op op, MPI_Comm comm, MPI_Request* req) {
  return inter_coll(name, comm, req, [&](Comm& c, coll::Transport& l, coll::Transport& r) {
    check_count(rcount);
    check_type(type);
    check_op(op);
    no_in_place(sbuf);
    coll::inter::reduce_scatter_block(l, r, c.low_group, sbuf, rbuf, rcount, type, op);
  });
}

int inter_refused(const char* name, MPI_Comm comm) {
  return guarded(name, comm, [&] {
    check_comm(comm);
    fail(MPI_ERR_COMM, std::string(name) + " is not defined on intercommunicators");
  });
}

}  // namespace xsim
