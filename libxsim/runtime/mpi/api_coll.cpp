// MPI collective entry points, blocking and nonblocking, on intra- and intercommunicators: argument checks,
// then the point-to-point algorithms of coll/ (MPI_Barrier and MPI_Allreduce first try the fast path of
// coll_replay.hpp). Each collective is written once: its checks run in the call, the same for both kinds of
// communicator; on an intracommunicator its algorithm runs either at once (blocking form, on a
// SimTransport) or as a nonblocking collective (start_nbc, nbc.cpp), on an intercommunicator the
// algorithm of coll/intercomm runs through inter_collective (api_inter.cpp).
#include <functional>
#include <type_traits>

#include "api_ext.hpp"
#include "api_support.hpp"
#include "coll/collectives.hpp"
#include "coll/intercomm.hpp"
#include "coll_replay.hpp"
#include "native/datatype.hpp"
#include "sim_transport.hpp"

using namespace xsim;
using coll::Transport;

namespace {

// The checks tell the two kinds of communicator apart where MPI does. A root is a rank of the
// communicator, or on an intercommunicator MPI_ROOT (the root), MPI_PROC_NULL (the rest of its group) or a
// rank of the remote group; the root's own arguments are checked at the root (is_root). MPI_IN_PLACE is
// not allowed on an intercommunicator. Arrays of counts or datatypes have one entry per peer
// (c.peer_size(): on an intercommunicator, the remote group's size).
void check_root(const Comm& c, int root) {
  if (!c.is_inter) {
    if (root < 0 || root >= c.size)
      fail(MPI_ERR_ROOT, "invalid root " + std::to_string(root) + " (" + describe_comm(c.handle) + " has " +
                             std::to_string(c.size) + " ranks)");
    return;
  }
  if (root == MPI_ROOT || root == MPI_PROC_NULL) return;
  if (root < 0 || root >= c.peer_size())
    fail(MPI_ERR_ROOT, "invalid root " + std::to_string(root) + " on an intercommunicator (MPI_ROOT, MPI_PROC_NULL, or "
                           "a rank of the remote group, which has " + std::to_string(c.peer_size()) + " ranks)");
}
bool is_root(const Comm& c, int me, int root) { return c.is_inter ? root == MPI_ROOT : me == root; }
void check_not_in_place(const Comm& c, const void* buf) {
  if (c.is_inter && buf == MPI_IN_PLACE) fail(MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed on an intercommunicator");
}
void check_op(MPI_Op op) {
  if (op == MPI_OP_NULL) fail(MPI_ERR_OP, "the reduction operation is MPI_OP_NULL");
}
void check_reduction(int count, MPI_Datatype type, MPI_Op op) {
  check_count(count);
  check_type(type);
  check_op(op);
}

// The `inter` of a collective MPI does not define on intercommunicators (scan, exscan).
struct NotOnInter {};

// Runs a collective. `check(c, me)` validates the arguments. On an intracommunicator `algo(t)` is the
// algorithm, run now on the calling rank (req == nullptr) or started as a nonblocking collective whose
// request goes to *req; it captures its arguments by value: a nonblocking one runs after the call has
// returned. `fast(c)`, for the blocking form only, may complete the call by the fast path
// (coll_replay.hpp) and say so by returning true; otherwise the algorithm runs. On an intercommunicator
// `inter(c, local, remote)` is the algorithm (inter_collective: blocking forms only). Errors the native MPI
// finds (an invalid datatype or op: native::MpiError) are the call's own (guarded).
template <class Check, class Algo, class Inter, class Fast>
int collective(const char* name, MPI_Comm comm, MPI_Request* req, Check&& check, Algo algo, Inter inter, Fast&& fast) {
  return guarded(name, comm, [&] {
    Comm& c = check_comm(comm);
    const int me = my_rank_in(c);
    if (c.is_inter) {
      std::function<void(Transport&, Transport&)> body;
      if constexpr (!std::is_same_v<Inter, NotOnInter>)
        body = [&](Transport& local, Transport& remote) {
          check(c, me);
          inter(c, local, remote);
        };
      return inter_collective(c, name, req != nullptr, body);
    }
    check(c, me);
    if (g_engine->revoked_now(c.coll_ctx(), kFamilyUlfm)) [[unlikely]]  // MPIX_Comm_revoke (docs/resilience.md)
      fail(kErrRevoked, "the communicator was revoked (MPIX_Comm_revoke)");
    if (req) {
      *req = start_nbc(c, name, algo);
      return;
    }
    if (fast(c)) return;
    SimTransport t(c, name);
    algo(t);
  });
}
template <class Check, class Algo, class Inter>
int collective(const char* name, MPI_Comm comm, MPI_Request* req, Check&& check, Algo algo, Inter inter) {
  return collective(name, comm, req, std::forward<Check>(check), algo, inter, [](Comm&) { return false; });
}

int barrier(const char* name, MPI_Comm comm, MPI_Request* req) {
  return collective(
      name, comm, req, [](Comm&, int) {}, [](Transport& t) { coll::barrier(t); },
      [](Comm& c, Transport& l, Transport& r) { coll::inter::barrier(l, r, c.low_group); },
      [name](Comm& c) { return replay_barrier(c, name); });
}

int bcast(const char* name, void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request* req) {
  return collective(
      name, comm, req,
      [&](Comm& c, int) {
        check_count(count);
        check_type(type);
        check_root(c, root);
      },
      [=](Transport& t) { coll::bcast(t, buf, count, type, root); },
      [=](Comm&, Transport& l, Transport& r) { coll::inter::bcast(l, r, buf, count, type, root); });
}

int reduce(const char* name, const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, int root,
           MPI_Comm comm, MPI_Request* req) {
  return collective(
      name, comm, req,
      [&](Comm& c, int) {
        check_reduction(count, type, op);
        check_root(c, root);
        check_not_in_place(c, sbuf);
      },
      [=](Transport& t) { coll::reduce(t, sbuf, rbuf, count, type, op, root); },
      [=](Comm&, Transport& l, Transport& r) { coll::inter::reduce(l, r, sbuf, rbuf, count, type, op, root); });
}

int allreduce(const char* name, const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
              MPI_Request* req) {
  return collective(
      name, comm, req,
      [&](Comm& c, int) {
        check_reduction(count, type, op);
        check_not_in_place(c, sbuf);
      },
      [=](Transport& t) { coll::allreduce(t, sbuf, rbuf, count, type, op); },
      [=](Comm&, Transport& l, Transport& r) { coll::inter::allreduce(l, r, sbuf, rbuf, count, type, op); },
      [=](Comm& c) { return replay_allreduce(c, name, sbuf, rbuf, count, type, op); });
}

// Gather and scatter: the same arguments, checked alike. MPI_IN_PLACE may stand for the root's own block
// (gather: sbuf, scatter: rbuf: `own_block`) on an intracommunicator.
using Rooted = void (*)(Transport&, const void*, int, MPI_Datatype, void*, int, MPI_Datatype, int);
using InterRooted = void (*)(Transport&, Transport&, const void*, int, MPI_Datatype, void*, int, MPI_Datatype, int);
int rooted(const char* name, Rooted algo, InterRooted inter, const void* own_block, const void* sbuf, int scount,
           MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request* req) {
  return collective(
      name, comm, req,
      [&](Comm& c, int) {
        check_root(c, root);
        check_count(scount);
        check_count(rcount);
        check_not_in_place(c, own_block);
      },
      [=](Transport& t) { algo(t, sbuf, scount, stype, rbuf, rcount, rtype, root); },
      [=](Comm&, Transport& l, Transport& r) { inter(l, r, sbuf, scount, stype, rbuf, rcount, rtype, root); });
}

int gatherv(const char* name, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int rcounts[],
            const int displs[], MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request* req) {
  return collective(
      name, comm, req,
      [&](Comm& c, int me) {
        check_root(c, root);
        check_count(scount);
        check_not_in_place(c, sbuf);
        if (is_root(c, me, root)) check_counts(rcounts, c.peer_size());
      },
      [=](Transport& t) { coll::gatherv(t, sbuf, scount, stype, rbuf, rcounts, displs, rtype, root); },
      [=](Comm&, Transport& l, Transport& r) {
        coll::inter::gatherv(l, r, sbuf, scount, stype, rbuf, rcounts, displs, rtype, root);
      });
}

int scatterv(const char* name, const void* sbuf, const int scounts[], const int displs[], MPI_Datatype stype,
             void* rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request* req) {
  return collective(
      name, comm, req,
      [&](Comm& c, int me) {
        check_root(c, root);
        check_count(rcount);
        check_not_in_place(c, rbuf);
        if (is_root(c, me, root)) check_counts(scounts, c.peer_size());
      },
      [=](Transport& t) { coll::scatterv(t, sbuf, scounts, displs, stype, rbuf, rcount, rtype, root); },
      [=](Comm&, Transport& l, Transport& r) {
        coll::inter::scatterv(l, r, sbuf, scounts, displs, stype, rbuf, rcount, rtype, root);
      });
}

// Allgather and alltoall: one count and datatype each way, checked alike. `inter` gets the low group's flag.
using Uniform = void (*)(Transport&, const void*, int, MPI_Datatype, void*, int, MPI_Datatype);
using InterUniform = void (*)(Transport&, Transport&, bool, const void*, int, MPI_Datatype, void*, int, MPI_Datatype);
int uniform(const char* name, Uniform algo, InterUniform inter, const void* sbuf, int scount, MPI_Datatype stype,
            void* rbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Request* req) {
  return collective(
      name, comm, req,
      [&](Comm& c, int) {
        check_count(scount);
        check_count(rcount);
        check_not_in_place(c, sbuf);
      },
      [=](Transport& t) { algo(t, sbuf, scount, stype, rbuf, rcount, rtype); },
      [=](Comm& c, Transport& l, Transport& r) { inter(l, r, c.low_group, sbuf, scount, stype, rbuf, rcount, rtype); });
}
// coll::inter::alltoall as an InterUniform (pairwise: no group goes first).
void inter_alltoall(Transport& l, Transport& r, bool, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf,
                    int rcount, MPI_Datatype rtype) {
  coll::inter::alltoall(l, r, sbuf, scount, stype, rbuf, rcount, rtype);
}

int allgatherv(const char* name, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int rcounts[],
               const int displs[], MPI_Datatype rtype, MPI_Comm comm, MPI_Request* req) {
  return collective(
      name, comm, req,
      [&](Comm& c, int) {
        check_count(scount);
        check_counts(rcounts, c.peer_size());
        check_not_in_place(c, sbuf);
      },
      [=](Transport& t) { coll::allgatherv(t, sbuf, scount, stype, rbuf, rcounts, displs, rtype); },
      [=](Comm& c, Transport& l, Transport& r) {
        coll::inter::allgatherv(l, r, c.low_group, sbuf, scount, stype, rbuf, rcounts, displs, rtype);
      });
}

int alltoallv(const char* name, const void* sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype,
              void* rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype, MPI_Comm comm,
              MPI_Request* req) {
  return collective(
      name, comm, req,
      [&](Comm& c, int) {
        check_not_in_place(c, sbuf);
        if (sbuf != MPI_IN_PLACE) check_counts(scounts, c.peer_size());
        check_counts(rcounts, c.peer_size());
      },
      [=](Transport& t) { coll::alltoallv(t, sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype); },
      [=](Comm&, Transport& l, Transport& r) {
        coll::inter::alltoallv(l, r, sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype);
      });
}

int alltoallw(const char* name, const void* sbuf, const int scounts[], const int sdispls[],
              const MPI_Datatype stypes[], void* rbuf, const int rcounts[], const int rdispls[],
              const MPI_Datatype rtypes[], MPI_Comm comm, MPI_Request* req) {
  return collective(
      name, comm, req,
      [&](Comm& c, int) {
        check_not_in_place(c, sbuf);
        for (int i = 0; i < c.peer_size(); ++i) {
          if (sbuf != MPI_IN_PLACE) {
            check_count(scounts[i]);
            if (scounts[i] > 0) check_type(stypes[i]);
          }
          check_count(rcounts[i]);
          if (rcounts[i] > 0) check_type(rtypes[i]);
        }
      },
      [=](Transport& t) { coll::alltoallw(t, sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes); },
      [=](Comm&, Transport& l, Transport& r) {
        coll::inter::alltoallw(l, r, sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes);
      });
}

int reduce_scatter(const char* name, const void* sbuf, void* rbuf, const int rcounts[], MPI_Datatype type, MPI_Op op,
                   MPI_Comm comm, MPI_Request* req) {
  return collective(
      name, comm, req,
      [&](Comm& c, int) {
        check_counts(rcounts, static_cast<size_t>(c.size));  // the local group's blocks
        check_type(type);
        check_op(op);
        check_not_in_place(c, sbuf);
      },
      [=](Transport& t) { coll::reduce_scatter(t, sbuf, rbuf, rcounts, type, op); },
      [=](Comm& c, Transport& l, Transport& r) {
        coll::inter::reduce_scatter(l, r, c.low_group, sbuf, rbuf, rcounts, type, op);
      });
}

int reduce_scatter_block(const char* name, const void* sbuf, void* rbuf, int rcount, MPI_Datatype type, MPI_Op op,
                         MPI_Comm comm, MPI_Request* req) {
  return collective(
      name, comm, req,
      [&](Comm& c, int) {
        check_reduction(rcount, type, op);
        check_not_in_place(c, sbuf);
      },
      [=](Transport& t) { coll::reduce_scatter_block(t, sbuf, rbuf, rcount, type, op); },
      [=](Comm& c, Transport& l, Transport& r) {
        coll::inter::reduce_scatter_block(l, r, c.low_group, sbuf, rbuf, rcount, type, op);
      });
}

// Scan (exclusive = false) and exscan: not defined on intercommunicators.
int prefix(const char* name, bool exclusive, const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op,
           MPI_Comm comm, MPI_Request* req) {
  return collective(
      name, comm, req, [&](Comm&, int) { check_reduction(count, type, op); },
      [=](Transport& t) { (exclusive ? coll::exscan : coll::scan)(t, sbuf, rbuf, count, type, op); }, NotOnInter{});
}

}  // namespace

XSIM_API int MPI_Barrier(MPI_Comm comm) { return barrier("MPI_Barrier", comm, nullptr); }
XSIM_API int MPI_Ibarrier(MPI_Comm comm, MPI_Request* req) { return barrier("MPI_Ibarrier", comm, req); }

XSIM_API int MPI_Bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  return bcast("MPI_Bcast", buf, count, type, root, comm, nullptr);
}
XSIM_API int MPI_Ibcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request* req) {
  return bcast("MPI_Ibcast", buf, count, type, root, comm, req);
}

XSIM_API int MPI_Reduce(const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, int root,
                        MPI_Comm comm) {
  return reduce("MPI_Reduce", sbuf, rbuf, count, type, op, root, comm, nullptr);
}
XSIM_API int MPI_Ireduce(const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, int root,
                         MPI_Comm comm, MPI_Request* req) {
  return reduce("MPI_Ireduce", sbuf, rbuf, count, type, op, root, comm, req);
}

XSIM_API int MPI_Allreduce(const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  return allreduce("MPI_Allreduce", sbuf, rbuf, count, type, op, comm, nullptr);
}
XSIM_API int MPI_Iallreduce(const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                            MPI_Request* req) {
  return allreduce("MPI_Iallreduce", sbuf, rbuf, count, type, op, comm, req);
}

XSIM_API int MPI_Gather(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype,
                        int root, MPI_Comm comm) {
  return rooted("MPI_Gather", coll::gather, coll::inter::gather, sbuf, sbuf, scount, stype, rbuf, rcount, rtype, root,
                comm, nullptr);
}
XSIM_API int MPI_Igather(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype,
                         int root, MPI_Comm comm, MPI_Request* req) {
  return rooted("MPI_Igather", coll::gather, coll::inter::gather, sbuf, sbuf, scount, stype, rbuf, rcount, rtype, root,
                comm, req);
}

XSIM_API int MPI_Gatherv(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int rcounts[],
                         const int displs[], MPI_Datatype rtype, int root, MPI_Comm comm) {
  return gatherv("MPI_Gatherv", sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm, nullptr);
}
XSIM_API int MPI_Igatherv(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int rcounts[],
                          const int displs[], MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request* req) {
  return gatherv("MPI_Igatherv", sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm, req);
}

XSIM_API int MPI_Scatter(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype,
                         int root, MPI_Comm comm) {
  return rooted("MPI_Scatter", coll::scatter, coll::inter::scatter, rbuf, sbuf, scount, stype, rbuf, rcount, rtype,
                root, comm, nullptr);
}
XSIM_API int MPI_Iscatter(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
                          MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request* req) {
  return rooted("MPI_Iscatter", coll::scatter, coll::inter::scatter, rbuf, sbuf, scount, stype, rbuf, rcount, rtype,
                root, comm, req);
}

XSIM_API int MPI_Scatterv(const void* sbuf, const int scounts[], const int displs[], MPI_Datatype stype, void* rbuf,
                          int rcount, MPI_Datatype rtype, int root, MPI_Comm comm) {
  return scatterv("MPI_Scatterv", sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm, nullptr);
}
XSIM_API int MPI_Iscatterv(const void* sbuf, const int scounts[], const int displs[], MPI_Datatype stype, void* rbuf,
                           int rcount, MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request* req) {
  return scatterv("MPI_Iscatterv", sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm, req);
}

XSIM_API int MPI_Allgather(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
                           MPI_Datatype rtype, MPI_Comm comm) {
  return uniform("MPI_Allgather", coll::allgather, coll::inter::allgather, sbuf, scount, stype, rbuf, rcount, rtype,
                 comm, nullptr);
}
XSIM_API int MPI_Iallgather(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
                            MPI_Datatype rtype, MPI_Comm comm, MPI_Request* req) {
  return uniform("MPI_Iallgather", coll::allgather, coll::inter::allgather, sbuf, scount, stype, rbuf, rcount, rtype,
                 comm, req);
}

XSIM_API int MPI_Allgatherv(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int rcounts[],
                            const int displs[], MPI_Datatype rtype, MPI_Comm comm) {
  return allgatherv("MPI_Allgatherv", sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, nullptr);
}
XSIM_API int MPI_Iallgatherv(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int rcounts[],
                             const int displs[], MPI_Datatype rtype, MPI_Comm comm, MPI_Request* req) {
  return allgatherv("MPI_Iallgatherv", sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, req);
}

XSIM_API int MPI_Alltoall(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype,
                          MPI_Comm comm) {
  return uniform("MPI_Alltoall", coll::alltoall, inter_alltoall, sbuf, scount, stype, rbuf, rcount, rtype, comm,
                 nullptr);
}
XSIM_API int MPI_Ialltoall(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
                           MPI_Datatype rtype, MPI_Comm comm, MPI_Request* req) {
  return uniform("MPI_Ialltoall", coll::alltoall, inter_alltoall, sbuf, scount, stype, rbuf, rcount, rtype, comm, req);
}

XSIM_API int MPI_Alltoallv(const void* sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype, void* rbuf,
                           const int rcounts[], const int rdispls[], MPI_Datatype rtype, MPI_Comm comm) {
  return alltoallv("MPI_Alltoallv", sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, nullptr);
}
XSIM_API int MPI_Ialltoallv(const void* sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype, void* rbuf,
                            const int rcounts[], const int rdispls[], MPI_Datatype rtype, MPI_Comm comm,
                            MPI_Request* req) {
  return alltoallv("MPI_Ialltoallv", sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, req);
}

XSIM_API int MPI_Alltoallw(const void* sbuf, const int scounts[], const int sdispls[], const MPI_Datatype stypes[],
                           void* rbuf, const int rcounts[], const int rdispls[], const MPI_Datatype rtypes[],
                           MPI_Comm comm) {
  return alltoallw("MPI_Alltoallw", sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm, nullptr);
}
XSIM_API int MPI_Ialltoallw(const void* sbuf, const int scounts[], const int sdispls[], const MPI_Datatype stypes[],
                            void* rbuf, const int rcounts[], const int rdispls[], const MPI_Datatype rtypes[],
                            MPI_Comm comm, MPI_Request* req) {
  return alltoallw("MPI_Ialltoallw", sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm, req);
}

XSIM_API int MPI_Reduce_scatter(const void* sbuf, void* rbuf, const int rcounts[], MPI_Datatype type, MPI_Op op,
                                MPI_Comm comm) {
  return reduce_scatter("MPI_Reduce_scatter", sbuf, rbuf, rcounts, type, op, comm, nullptr);
}
XSIM_API int MPI_Ireduce_scatter(const void* sbuf, void* rbuf, const int rcounts[], MPI_Datatype type, MPI_Op op,
                                 MPI_Comm comm, MPI_Request* req) {
  return reduce_scatter("MPI_Ireduce_scatter", sbuf, rbuf, rcounts, type, op, comm, req);
}

XSIM_API int MPI_Reduce_scatter_block(const void* sbuf, void* rbuf, int rcount, MPI_Datatype type, MPI_Op op,
                                      MPI_Comm comm) {
  return reduce_scatter_block("MPI_Reduce_scatter_block", sbuf, rbuf, rcount, type, op, comm, nullptr);
}
XSIM_API int MPI_Ireduce_scatter_block(const void* sbuf, void* rbuf, int rcount, MPI_Datatype type, MPI_Op op,
                                       MPI_Comm comm, MPI_Request* req) {
  return reduce_scatter_block("MPI_Ireduce_scatter_block", sbuf, rbuf, rcount, type, op, comm, req);
}

XSIM_API int MPI_Scan(const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  return prefix("MPI_Scan", false, sbuf, rbuf, count, type, op, comm, nullptr);
}
XSIM_API int MPI_Iscan(const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                       MPI_Request* req) {
  return prefix("MPI_Iscan", false, sbuf, rbuf, count, type, op, comm, req);
}

XSIM_API int MPI_Exscan(const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  return prefix("MPI_Exscan", true, sbuf, rbuf, count, type, op, comm, nullptr);
}
XSIM_API int MPI_Iexscan(const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                         MPI_Request* req) {
  return prefix("MPI_Iexscan", true, sbuf, rbuf, count, type, op, comm, req);
}

// Reductions with any op (predefined or user-defined) are applied by the native MPI.
XSIM_API int MPI_Op_create(MPI_User_function* fn, int commute, MPI_Op* op) { return PMPI_Op_create(fn, commute, op); }
XSIM_API int MPI_Op_free(MPI_Op* op) { return PMPI_Op_free(op); }
// These run on the native stack (native::on_deep_stack): MPICH's datatype engine needs more than 128 KiB of
// stack for them, more than a virtual rank has at scale. (MPI_Pack_external and MPI_Unpack_external still go
// to the native MPI directly, on the rank's stack: give such a program -xsim-stack 256K or more.)
XSIM_API int MPI_Reduce_local(const void* in, void* inout, int count, MPI_Datatype type, MPI_Op op) {
  int rc = MPI_SUCCESS;
  native::on_deep_stack([&] { rc = PMPI_Reduce_local(in, inout, count, type, op); });
  return rc;
}
#if XSIM_NATIVE_HAS_LARGE_COUNT
XSIM_API int MPI_Reduce_local_c(const void* in, void* inout, MPI_Count count, MPI_Datatype type, MPI_Op op) {
  int rc = MPI_SUCCESS;
  native::on_deep_stack([&] { rc = PMPI_Reduce_local_c(in, inout, count, type, op); });
  return rc;
}
#endif
XSIM_API int MPI_Op_commutative(MPI_Op op, int* commute) { return PMPI_Op_commutative(op, commute); }
