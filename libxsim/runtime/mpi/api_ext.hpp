// Hooks between the communicator entry points: per-rank communicator state (names, cached attributes,
// info hints: api_attr.cpp), user error handlers (api_errh.cpp) and intercommunicators (api_inter.cpp).
// Layer: libxsim/runtime/mpi (xsim_mpi). Every function runs on the calling rank's fiber, inside an entry
// point's guard (failures throw MpiErr).
//
// Per-rank state: a Comm object is shared by the local members of a communicator, but a communicator's
// name, attributes, info and error handler are each rank's own (MPI keeps them per process). They are kept
// by (world rank, handle) and dropped by comm_local_free, before the handle can be reused.
#pragma once
#include <mpi.h>

#include "comm.hpp"

namespace xsim {

// ---- per-rank communicator state (api_attr.cpp) ----------------------------------------------------------
// MPI_Comm_dup (and its variants): `dup` inherits `old`'s error handler and info hints, and `old`'s
// attributes go through their copy callbacks. A failing callback releases `dup` and fails with its code.
void comm_local_dup(MPI_Comm old, MPI_Comm dup, bool copy_info = true);
// Every other constructor: a new communicator inherits its parent's error handler (MPI 4.0 §9.3); nothing
// when `child` is MPI_COMM_NULL.
void comm_inherit_errhandler(MPI_Comm parent, MPI_Comm child);
// MPI_Comm_free: runs the delete callbacks (last set first), drops the name, info and error handler.
// A failing delete callback fails with its code and leaves the communicator as it is.
void comm_local_free(MPI_Comm c);
// MPI_Finalize: frees MPI_COMM_SELF's attributes (MPI 4.0 §11.2.4), last set first.
void comm_local_finalize();
// Info hints (a native MPI_Info owned by the state; MPI_INFO_NULL when none were set).
void comm_local_set_info(MPI_Comm c, MPI_Info info);

// ---- error handlers (api_errh.cpp) --------------------------------------------------------------------
bool errhandler_is_user(MPI_Errhandler e);
// Calls the user handler `e` as MPI does for an error `code` raised on `comm`; returns `code`.
int errhandler_invoke(MPI_Errhandler e, MPI_Comm comm, int code);
void errhandler_ref(MPI_Errhandler e);
void errhandler_unref(MPI_Errhandler e);

// ---- duplication (api_comm.cpp) ---------------------------------------------------------------------------
// MPI_Comm_dup and its variants: a new communicator with `comm`'s groups (intra or inter), its per-rank
// state copied (comm_local_dup). `agree`: model the context-id agreement (MPICH's allreduce); the
// nonblocking MPI_Comm_idup models it with a nonblocking collective of its own instead.
MPI_Comm comm_dup_impl(MPI_Comm comm, const char* call, bool agree, bool copy_info);

// ---- intercommunicators (api_inter.cpp) ------------------------------------------------------------------
// Creations from an intercommunicator `c` (collective over both groups); they return the new handle or
// MPI_COMM_NULL. `call` names the entry point in deadlock reports. The context ids are derived from `c`'s
// without talking; the messages only model MPICH's cost (`agree` = false: none).
MPI_Comm inter_dup(Comm& c, const char* call, bool agree);
MPI_Comm inter_split(Comm& c, int color, int key, const char* call);
int inter_compare(const Comm& a, const Comm& b);
// True when `comm` is an intercommunicator the calling rank belongs to (the collectives dispatch on it).
bool is_intercomm(MPI_Comm comm);

// Collectives on intercommunicators (MPI_ROOT / MPI_PROC_NULL roots); `req` != nullptr (nonblocking
// forms) is refused with MPI_ERR_COMM.
int inter_barrier(const char* name, MPI_Comm comm, MPI_Request* req);
int inter_bcast(const char* name, void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
                MPI_Request* req);
int inter_reduce(const char* name, const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, int root,
                 MPI_Comm comm, MPI_Request* req);
int inter_allreduce(const char* name, const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op,
                    MPI_Comm comm, MPI_Request* req);
int inter_gather(const char* name, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
                 MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request* req);
int inter_gatherv(const char* name, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int rcounts[],
                  const int displs[], MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request* req);
int inter_scatter(const char* name, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
                  MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request* req);
int inter_scatterv(const char* name, const void* sbuf, const int scounts[], const int displs[], MPI_Datatype stype,
                   void* rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request* req);
int inter_allgather(const char* name, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
                    MPI_Datatype rtype, MPI_Comm comm, MPI_Request* req);
int inter_allgatherv(const char* name, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf,
                     const int rcounts[], const int displs[], MPI_Datatype rtype, MPI_Comm comm, MPI_Request* req);
int inter_alltoall(const char* name, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
                   MPI_Datatype rtype, MPI_Comm comm, MPI_Request* req);
int inter_alltoallv(const char* name, const void* sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype,
                    void* rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype, MPI_Comm comm,
                    MPI_Request* req);
int inter_alltoallw(const char* name, const void* sbuf, const int scounts[], const int sdispls[],
                    const MPI_Datatype stypes[], void* rbuf, const int rcounts[], const int rdispls[],
                    const MPI_Datatype rtypes[], MPI_Comm comm, MPI_Request* req);
int inter_reduce_scatter(const char* name, const void* sbuf, void* rbuf, const int rcounts[], MPI_Datatype type,
                         MPI_Op op, MPI_Comm comm, MPI_Request* req);
int inter_reduce_scatter_block(const char* name, const void* sbuf, void* rbuf, int rcount, MPI_Datatype type,
                               MPI_Op op, MPI_Comm comm, MPI_Request* req);
// Scan and exscan are not defined on intercommunicators: fails with MPI_ERR_COMM.
int inter_refused(const char* name, MPI_Comm comm);

}  // namespace xsim
