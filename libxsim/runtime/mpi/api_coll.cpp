// MPI collective entry points, blocking and nonblocking: argument checks, then the point-to-point
// algorithms of coll/ (MPI_Barrier and MPI_Allreduce first try the fast path of coll_replay.hpp). Each
// collective is written once: its checks run in the call, and its algorithm runs either at once (blocking
// form, on a SimTransport) or as a nonblocking collective (start_nbc, nbc.cpp).
#include "api_ext.hpp"
#include "api_support.hpp"
#include "coll/collectives.hpp"
#include "coll_replay.hpp"
#include "native/datatype.hpp"
#include "sim_transport.hpp"

using namespace xsim;

namespace {

void check_root(const Comm& c, int root) {
  if (root < 0 || root >= c.size)
    fail(MPI_ERR_ROOT, "invalid root " + std::to_string(root) + " (" + describe_comm(c.handle) + " has " +
                           std::to_string(c.size) + " ranks)");
}
void check_op(MPI_Op op) {
  if (op == MPI_OP_NULL) fail(MPI_ERR_OP, "the reduction operation is MPI_OP_NULL");
}
void check_counts(const int* counts, int n) {
  for (int i = 0; i < n; ++i) check_count(counts[i]);
}

// Runs a collective. `check(c, me)` validates the arguments; `algo(t)` is the algorithm, run now on the
// calling rank (req == nullptr) or started as a nonblocking collective whose request goes to *req. The
// algorithm captures its arguments by value: a nonblocking one runs after the call has returned.
// `fast(c)`, for the blocking form only, may complete the call by the fast path (coll_replay.hpp) and say
// so by returning true; otherwise the algorithm runs.
template <class Check, class Algo, class Fast>
int collective(const char* name, MPI_Comm comm, MPI_Request* req, Check&& check, Algo algo, Fast&& fast) {
  return guarded(name, comm, [&] {
    Comm& c = check_comm(comm);
    check(c, my_rank_in(c));
    if (req) {
      *req = start_nbc(c, name, algo);
      return;
    }
    try {
      if (fast(c)) return;
    } catch (const native::MpiError& e) {
      fail(e.code, e.what());
    }
    SimTransport t(c, name);
    try {
      algo(t);
    } catch (const native::MpiError& e) {
      fail(e.code, e.what());
    }
  });
}
template <class Check, class Algo>
int collective(const char* name, MPI_Comm comm, MPI_Request* req, Check&& check, Algo algo) {
  return collective(name, comm, req, std::forward<Check>(check), algo, [](Comm&) { return false; });
}

int barrier(const char* name, MPI_Comm comm, MPI_Request* req) {
  if (is_intercomm(comm)) return inter_barrier(name, comm, req);  // api_inter.cpp
  return collective(
      name, comm, req, [](Comm&, int) {}, [](coll::Transport& t) { coll::barrier(t); },
      [name](Comm& c) { return replay_barrier(c, name); });
}

int bcast(const char* name, void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request* req) {
  if (is_intercomm(comm)) return inter_bcast(name, buf, count, type, root, comm, req);  // api_inter.cpp
  return collective(
      name, comm, req,
      [&](Comm& c, int) {
        check_count(count);
        check_type(type);
        check_root(c, root);
      },
      [=](coll::Transport& t) { coll::bcast(t, buf, count, type, root); });
}

int reduce(const char* name, const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, int root,
           MPI_Comm comm, MPI_Request* req) {
  if (is_intercomm(comm)) return inter_reduce(name, sbuf, rbuf, count, type, op, root, comm, req);  // api_inter.cpp
  return collective(
      name, comm, req,
      [&](Comm& c, int) {
        check_count(count);
        check_type(type);
        check_op(op);
        check_root(c, root);
      },
      [=](coll::Transport& t) { coll::reduce(t, sbuf, rbuf, count, type, op, root); });
}

int allreduce(const char* name, const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
              MPI_Request* req) {
  if (is_intercomm(comm)) return inter_allreduce(name, sbuf, rbuf, count, type, op, comm, req);  // api_inter.cpp
  return collective(
      name, comm, req,
      [&](Comm&, int) {
        check_count(count);
        check_type(type);
        check_op(op);
      },
      [=](coll::Transport& t) { coll::allreduce(t, sbuf, rbuf, count, type, op); },
      [=](Comm& c) { return replay_allreduce(c, name, sbuf, rbuf, count, type, op); });
}

int gather(const char* name, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
           MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request* req) {
  if (is_intercomm(comm)) return inter_gather(name, sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req);  // api_inter.cpp
  return collective(
      name, comm, req,
      [&](Comm& c, int) {
        check_root(c, root);
        check_count(scount);
        check_count(rcount);
      },
      [=](coll::Transport& t) { coll::gather(t, sbuf, scount, stype, rbuf, rcount, rtype, root); });
}

int gatherv(const char* name, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int rcounts[],
            const int displs[], MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request* req) {
  if (is_intercomm(comm)) return inter_gatherv(name, sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm, req);  // api_inter.cpp
  return collective(
      name, comm, req,
      [&](Comm& c, int me) {
        check_root(c, root);
        check_count(scount);
        if (me == root) check_counts(rcounts, c.size);
      },
      [=](coll::Transport& t) { coll::gatherv(t, sbuf, scount, stype, rbuf, rcounts, displs, rtype, root); });
}

int scatter(const char* name, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
            MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request* req) {
  if (is_intercomm(comm)) return inter_scatter(name, sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req);  // api_inter.cpp
  return collective(
      name, comm, req,
      [&](Comm& c, int) {
        check_root(c, root);
        check_count(scount);
        check_count(rcount);
      },
      [=](coll::Transport& t) { coll::scatter(t, sbuf, scount, stype, rbuf, rcount, rtype, root); });
}

int scatterv(const char* name, const void* sbuf, const int scounts[], const int displs[], MPI_Datatype stype,
             void* rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request* req) {
  if (is_intercomm(comm)) return inter_scatterv(name, sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm, req);  // api_inter.cpp
  return collective(
      name, comm, req,
      [&](Comm& c, int me) {
        check_root(c, root);
        check_count(rcount);
        if (me == root) check_counts(scounts, c.size);
      },
      [=](coll::Transport& t) { coll::scatterv(t, sbuf, scounts, displs, stype, rbuf, rcount, rtype, root); });
}

int allgather(const char* name, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
              MPI_Datatype rtype, MPI_Comm comm, MPI_Request* req) {
  if (is_intercomm(comm)) return inter_allgather(name, sbuf, scount, stype, rbuf, rcount, rtype, comm, req);  // api_inter.cpp
  return collective(
      name, comm, req,
      [&](Comm&, int) {
        check_count(scount);
        check_count(rcount);
      },
      [=](coll::Transport& t) { coll::allgather(t, sbuf, scount, stype, rbuf, rcount, rtype); });
}

int allgatherv(const char* name, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int rcounts[],
               const int displs[], MPI_Datatype rtype, MPI_Comm comm, MPI_Request* req) {
  if (is_intercomm(comm)) return inter_allgatherv(name, sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, req);  // api_inter.cpp
  return collective(
      name, comm, req,
      [&](Comm& c, int) {
        check_count(scount);
        check_counts(rcounts, c.size);
      },
      [=](coll::Transport& t) { coll::allgatherv(t, sbuf, scount, stype, rbuf, rcounts, displs, rtype); });
}

int alltoall(const char* name, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
             MPI_Datatype rtype, MPI_Comm comm, MPI_Request* req) {
  if (is_intercomm(comm)) return inter_alltoall(name, sbuf, scount, stype, rbuf, rcount, rtype, comm, req);  // api_inter.cpp
  return collective(
      name, comm, req,
      [&](Comm&, int) {
        check_count(scount);
        check_count(rcount);
      },
      [=](coll::Transport& t) { coll::alltoall(t, sbuf, scount, stype, rbuf, rcount, rtype); });
}

int alltoallv(const char* name, const void* sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype,
              void* rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype, MPI_Comm comm,
              MPI_Request* req) {
  if (is_intercomm(comm)) return inter_alltoallv(name, sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, req);  // api_inter.cpp
  return collective(
      name, comm, req,
      [&](Comm& c, int) {
        if (sbuf != MPI_IN_PLACE) check_counts(scounts, c.size);
        check_counts(rcounts, c.size);
      },
      [=](coll::Transport& t) { coll::alltoallv(t, sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype); });
}

int alltoallw(const char* name, const void* sbuf, const int scounts[], const int sdispls[],
              const MPI_Datatype stypes[], void* rbuf, const int rcounts[], const int rdispls[],
              const MPI_Datatype rtypes[], MPI_Comm comm, MPI_Request* req) {
  if (is_intercomm(comm))  // api_inter.cpp
    return inter_alltoallw(name, sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm, req);
  return collective(
      name, comm, req,
      [&](Comm& c, int) {
        for (int i = 0; i < c.size; ++i) {
          if (sbuf != MPI_IN_PLACE) {
            check_count(scounts[i]);
            if (scounts[i] > 0) check_type(stypes[i]);
          }
          check_count(rcounts[i]);
          if (rcounts[i] > 0) check_type(rtypes[i]);
        }
      },
      [=](coll::Transport& t) { coll::alltoallw(t, sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes); });
}

int reduce_scatter(const char* name, const void* sbuf, void* rbuf, const int rcounts[], MPI_Datatype type, MPI_Op op,
                   MPI_Comm comm, MPI_Request* req) {
  if (is_intercomm(comm)) return inter_reduce_scatter(name, sbuf, rbuf, rcounts, type, op, comm, req);  // api_inter.cpp
  return collective(
      name, comm, req,
      [&](Comm& c, int) {
        check_counts(rcounts, c.size);
        check_type(type);
        check_op(op);
      },
      [=](coll::Transport& t) { coll::reduce_scatter(t, sbuf, rbuf, rcounts, type, op); });
}

int reduce_scatter_block(const char* name, const void* sbuf, void* rbuf, int rcount, MPI_Datatype type, MPI_Op op,
                         MPI_Comm comm, MPI_Request* req) {
  if (is_intercomm(comm)) return inter_reduce_scatter_block(name, sbuf, rbuf, rcount, type, op, comm, req);  // api_inter.cpp
  return collective(
      name, comm, req,
      [&](Comm&, int) {
        check_count(rcount);
        check_type(type);
        check_op(op);
      },
      [=](coll::Transport& t) { coll::reduce_scatter_block(t, sbuf, rbuf, rcount, type, op); });
}

// scan and exscan share their checks
template <class Algo>
int prefix(const char* name, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request* req, Algo algo) {
  if (is_intercomm(comm)) return inter_refused(name, comm);  // api_inter.cpp
  return collective(
      name, comm, req,
      [&](Comm&, int) {
        check_count(count);
        check_type(type);
        check_op(op);
      },
      algo);
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
  return gather("MPI_Gather", sbuf, scount, stype, rbuf, rcount, rtype, root, comm, nullptr);
}
XSIM_API int MPI_Igather(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype,
                         int root, MPI_Comm comm, MPI_Request* req) {
  return gather("MPI_Igather", sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req);
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
  return scatter("MPI_Scatter", sbuf, scount, stype, rbuf, rcount, rtype, root, comm, nullptr);
}
XSIM_API int MPI_Iscatter(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
                          MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request* req) {
  return scatter("MPI_Iscatter", sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req);
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
  return allgather("MPI_Allgather", sbuf, scount, stype, rbuf, rcount, rtype, comm, nullptr);
}
XSIM_API int MPI_Iallgather(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
                            MPI_Datatype rtype, MPI_Comm comm, MPI_Request* req) {
  return allgather("MPI_Iallgather", sbuf, scount, stype, rbuf, rcount, rtype, comm, req);
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
  return alltoall("MPI_Alltoall", sbuf, scount, stype, rbuf, rcount, rtype, comm, nullptr);
}
XSIM_API int MPI_Ialltoall(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
                           MPI_Datatype rtype, MPI_Comm comm, MPI_Request* req) {
  return alltoall("MPI_Ialltoall", sbuf, scount, stype, rbuf, rcount, rtype, comm, req);
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
  return prefix("MPI_Scan", count, type, op, comm, nullptr,
                [=](coll::Transport& t) { coll::scan(t, sbuf, rbuf, count, type, op); });
}
XSIM_API int MPI_Iscan(const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                       MPI_Request* req) {
  return prefix("MPI_Iscan", count, type, op, comm, req,
                [=](coll::Transport& t) { coll::scan(t, sbuf, rbuf, count, type, op); });
}

XSIM_API int MPI_Exscan(const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  return prefix("MPI_Exscan", count, type, op, comm, nullptr,
                [=](coll::Transport& t) { coll::exscan(t, sbuf, rbuf, count, type, op); });
}
XSIM_API int MPI_Iexscan(const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                         MPI_Request* req) {
  return prefix("MPI_Iexscan", count, type, op, comm, req,
                [=](coll::Transport& t) { coll::exscan(t, sbuf, rbuf, count, type, op); });
}

// Reductions with any op (predefined or user-defined) are applied by the native MPI.
XSIM_API int MPI_Op_create(MPI_User_function* fn, int commute, MPI_Op* op) { return PMPI_Op_create(fn, commute, op); }
XSIM_API int MPI_Op_free(MPI_Op* op) { return PMPI_Op_free(op); }
XSIM_API int MPI_Reduce_local(const void* in, void* inout, int count, MPI_Datatype type, MPI_Op op) {
  return PMPI_Reduce_local(in, inout, count, type, op);
}
XSIM_API int MPI_Op_commutative(MPI_Op op, int* commute) { return PMPI_Op_commutative(op, commute); }
