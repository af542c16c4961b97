// MPI collective entry points: argument checks, then the point-to-point algorithms of coll/.
#include "api_support.hpp"
#include "coll/collectives.hpp"
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

// Runs a collective; native errors (bad datatype, bad op) become MPI errors of the call.
template <class F>
int collective(const char* name, MPI_Comm comm, F&& body) {
  return guarded(name, comm, [&] {
    Comm& c = check_comm(comm);
    SimTransport t(c, name);
    try {
      body(c, t);
    } catch (const native::MpiError& e) {
      fail(e.code, e.what());
    }
  });
}

}  // namespace

XSIM_API int MPI_Barrier(MPI_Comm comm) {
  return collective("MPI_Barrier", comm, [&](Comm&, SimTransport& t) { coll::barrier(t); });
}

XSIM_API int MPI_Bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  return collective("MPI_Bcast", comm, [&](Comm& c, SimTransport& t) {
    check_count(count);
    check_type(type);
    check_root(c, root);
    coll::bcast(t, buf, count, type, root);
  });
}

XSIM_API int MPI_Reduce(const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, int root,
                        MPI_Comm comm) {
  return collective("MPI_Reduce", comm, [&](Comm& c, SimTransport& t) {
    check_count(count);
    check_type(type);
    check_op(op);
    check_root(c, root);
    coll::reduce(t, sbuf, rbuf, count, type, op, root);
  });
}

XSIM_API int MPI_Allreduce(const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  return collective("MPI_Allreduce", comm, [&](Comm&, SimTransport& t) {
    check_count(count);
    check_type(type);
    check_op(op);
    coll::allreduce(t, sbuf, rbuf, count, type, op);
  });
}

XSIM_API int MPI_Gather(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype,
                        int root, MPI_Comm comm) {
  return collective("MPI_Gather", comm, [&](Comm& c, SimTransport& t) {
    check_root(c, root);
    check_count(scount);
    check_count(rcount);
    coll::gather(t, sbuf, scount, stype, rbuf, rcount, rtype, root);
  });
}

XSIM_API int MPI_Gatherv(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int rcounts[],
                         const int displs[], MPI_Datatype rtype, int root, MPI_Comm comm) {
  return collective("MPI_Gatherv", comm, [&](Comm& c, SimTransport& t) {
    check_root(c, root);
    check_count(scount);
    if (t.rank() == root) check_counts(rcounts, c.size);
    coll::gatherv(t, sbuf, scount, stype, rbuf, rcounts, displs, rtype, root);
  });
}

XSIM_API int MPI_Scatter(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype,
                         int root, MPI_Comm comm) {
  return collective("MPI_Scatter", comm, [&](Comm& c, SimTransport& t) {
    check_root(c, root);
    check_count(scount);
    check_count(rcount);
    coll::scatter(t, sbuf, scount, stype, rbuf, rcount, rtype, root);
  });
}

XSIM_API int MPI_Scatterv(const void* sbuf, const int scounts[], const int displs[], MPI_Datatype stype, void* rbuf,
                          int rcount, MPI_Datatype rtype, int root, MPI_Comm comm) {
  return collective("MPI_Scatterv", comm, [&](Comm& c, SimTransport& t) {
    check_root(c, root);
    check_count(rcount);
    if (t.rank() == root) check_counts(scounts, c.size);
    coll::scatterv(t, sbuf, scounts, displs, stype, rbuf, rcount, rtype, root);
  });
}

XSIM_API int MPI_Allgather(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
                           MPI_Datatype rtype, MPI_Comm comm) {
  return collective("MPI_Allgather", comm, [&](Comm&, SimTransport& t) {
    check_count(scount);
    check_count(rcount);
    coll::allgather(t, sbuf, scount, stype, rbuf, rcount, rtype);
  });
}

XSIM_API int MPI_Allgatherv(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int rcounts[],
                            const int displs[], MPI_Datatype rtype, MPI_Comm comm) {
  return collective("MPI_Allgatherv", comm, [&](Comm& c, SimTransport& t) {
    check_count(scount);
    check_counts(rcounts, c.size);
    coll::allgatherv(t, sbuf, scount, stype, rbuf, rcounts, displs, rtype);
  });
}

XSIM_API int MPI_Alltoall(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype,
                          MPI_Comm comm) {
  return collective("MPI_Alltoall", comm, [&](Comm&, SimTransport& t) {
    check_count(scount);
    check_count(rcount);
    coll::alltoall(t, sbuf, scount, stype, rbuf, rcount, rtype);
  });
}

XSIM_API int MPI_Alltoallv(const void* sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype, void* rbuf,
                           const int rcounts[], const int rdispls[], MPI_Datatype rtype, MPI_Comm comm) {
  return collective("MPI_Alltoallv", comm, [&](Comm& c, SimTransport& t) {
    if (sbuf != MPI_IN_PLACE) check_counts(scounts, c.size);
    check_counts(rcounts, c.size);
    coll::alltoallv(t, sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype);
  });
}

XSIM_API int MPI_Reduce_scatter(const void* sbuf, void* rbuf, const int rcounts[], MPI_Datatype type, MPI_Op op,
                                MPI_Comm comm) {
  return collective("MPI_Reduce_scatter", comm, [&](Comm& c, SimTransport& t) {
    check_counts(rcounts, c.size);
    check_type(type);
    check_op(op);
    coll::reduce_scatter(t, sbuf, rbuf, rcounts, type, op);
  });
}

XSIM_API int MPI_Reduce_scatter_block(const void* sbuf, void* rbuf, int rcount, MPI_Datatype type, MPI_Op op,
                                      MPI_Comm comm) {
  return collective("MPI_Reduce_scatter_block", comm, [&](Comm&, SimTransport& t) {
    check_count(rcount);
    check_type(type);
    check_op(op);
    coll::reduce_scatter_block(t, sbuf, rbuf, rcount, type, op);
  });
}

XSIM_API int MPI_Scan(const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  return collective("MPI_Scan", comm, [&](Comm&, SimTransport& t) {
    check_count(count);
    check_type(type);
    check_op(op);
    coll::scan(t, sbuf, rbuf, count, type, op);
  });
}

XSIM_API int MPI_Exscan(const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  return collective("MPI_Exscan", comm, [&](Comm&, SimTransport& t) {
    check_count(count);
    check_type(type);
    check_op(op);
    coll::exscan(t, sbuf, rbuf, count, type, op);
  });
}

// Reductions with any op (predefined or user-defined) are applied by the native MPI.
XSIM_API int MPI_Op_create(MPI_User_function* fn, int commute, MPI_Op* op) { return PMPI_Op_create(fn, commute, op); }
XSIM_API int MPI_Op_free(MPI_Op* op) { return PMPI_Op_free(op); }
XSIM_API int MPI_Reduce_local(const void* in, void* inout, int count, MPI_Datatype type, MPI_Op op) {
  return PMPI_Reduce_local(in, inout, count, type, op);
}
XSIM_API int MPI_Op_commutative(MPI_Op op, int* commute) { return PMPI_Op_commutative(op, commute); }
