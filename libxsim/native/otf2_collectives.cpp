#include "native/otf2_collectives.hpp"

#include <mpi.h>

#include <vector>

// OTF2 declares this type and leaves its contents to the user of the callbacks.
struct OTF2_CollectiveContext {
  MPI_Comm comm;
};

namespace xsim::native {

namespace {

MPI_Datatype mpi_type(OTF2_Type t) {
  switch (t) {
    case OTF2_TYPE_UINT8: return MPI_UINT8_T;
    case OTF2_TYPE_UINT16: return MPI_UINT16_T;
    case OTF2_TYPE_UINT32: return MPI_UINT32_T;
    case OTF2_TYPE_UINT64: return MPI_UINT64_T;
    case OTF2_TYPE_INT8: return MPI_INT8_T;
    case OTF2_TYPE_INT16: return MPI_INT16_T;
    case OTF2_TYPE_INT32: return MPI_INT32_T;
    case OTF2_TYPE_INT64: return MPI_INT64_T;
    case OTF2_TYPE_FLOAT: return MPI_FLOAT;
    case OTF2_TYPE_DOUBLE: return MPI_DOUBLE;
    default: return MPI_DATATYPE_NULL;
  }
}

OTF2_CallbackCode code(int rc) { return rc == MPI_SUCCESS ? OTF2_CALLBACK_SUCCESS : OTF2_CALLBACK_ERROR; }

OTF2_CallbackCode get_size(void*, OTF2_CollectiveContext* c, uint32_t* size) {
  int n = 0;
  int rc = PMPI_Comm_size(c->comm, &n);
  *size = static_cast<uint32_t>(n);
  return code(rc);
}

OTF2_CallbackCode get_rank(void*, OTF2_CollectiveContext* c, uint32_t* rank) {
  int r = 0;
  int rc = PMPI_Comm_rank(c->comm, &r);
  *rank = static_cast<uint32_t>(r);
  return code(rc);
}

OTF2_CallbackCode create_local(void*, OTF2_CollectiveContext** local, OTF2_CollectiveContext* global, uint32_t,
                               uint32_t, uint32_t local_rank, uint32_t, uint32_t file_number, uint32_t) {
  auto* c = new OTF2_CollectiveContext{MPI_COMM_NULL};
  int rc = PMPI_Comm_split(global->comm, static_cast<int>(file_number), static_cast<int>(local_rank), &c->comm);
  *local = c;
  return code(rc);
}

OTF2_CallbackCode free_local(void*, OTF2_CollectiveContext* local) {
  if (local->comm != MPI_COMM_NULL) PMPI_Comm_free(&local->comm);
  delete local;
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode barrier(void*, OTF2_CollectiveContext* c) { return code(PMPI_Barrier(c->comm)); }

OTF2_CallbackCode bcast(void*, OTF2_CollectiveContext* c, void* data, uint32_t n, OTF2_Type t, uint32_t root) {
  return code(PMPI_Bcast(data, static_cast<int>(n), mpi_type(t), static_cast<int>(root), c->comm));
}

OTF2_CallbackCode gather(void*, OTF2_CollectiveContext* c, const void* in, void* out, uint32_t n, OTF2_Type t,
                         uint32_t root) {
  return code(PMPI_Gather(in, static_cast<int>(n), mpi_type(t), out, static_cast<int>(n), mpi_type(t),
                          static_cast<int>(root), c->comm));
}

// The counts of a v-collective, as MPI wants them, at the root.
void counts_and_displs(OTF2_CollectiveContext* c, const uint32_t* counts, std::vector<int>& n, std::vector<int>& d) {
  int size = 0;
  PMPI_Comm_size(c->comm, &size);
  n.resize(static_cast<size_t>(size));
  d.resize(static_cast<size_t>(size));
  int at = 0;
  for (int p = 0; p < size; ++p) {
    n[static_cast<size_t>(p)] = static_cast<int>(counts[p]);
    d[static_cast<size_t>(p)] = at;
    at += static_cast<int>(counts[p]);
  }
}

OTF2_CallbackCode gatherv(void*, OTF2_CollectiveContext* c, const void* in, uint32_t in_n, void* out,
                          const uint32_t* out_n, OTF2_Type t, uint32_t root) {
  int me = 0;
  PMPI_Comm_rank(c->comm, &me);
  std::vector<int> n, d;
  if (static_cast<uint32_t>(me) == root) counts_and_displs(c, out_n, n, d);
  return code(PMPI_Gatherv(in, static_cast<int>(in_n), mpi_type(t), out, n.data(), d.data(), mpi_type(t),
                           static_cast<int>(root), c->comm));
}

OTF2_CallbackCode scatter(void*, OTF2_CollectiveContext* c, const void* in, void* out, uint32_t n, OTF2_Type t,
                          uint32_t root) {
  return code(PMPI_Scatter(in, static_cast<int>(n), mpi_type(t), out, static_cast<int>(n), mpi_type(t),
                           static_cast<int>(root), c->comm));
}

OTF2_CallbackCode scatterv(void*, OTF2_CollectiveContext* c, const void* in, const uint32_t* in_n, void* out,
                           uint32_t out_n, OTF2_Type t, uint32_t root) {
  int me = 0;
  PMPI_Comm_rank(c->comm, &me);
  std::vector<int> n, d;
  if (static_cast<uint32_t>(me) == root) counts_and_displs(c, in_n, n, d);
  return code(PMPI_Scatterv(in, n.data(), d.data(), mpi_type(t), out, static_cast<int>(out_n), mpi_type(t),
                            static_cast<int>(root), c->comm));
}

void release(void*, OTF2_CollectiveContext* global, OTF2_CollectiveContext* local) {
  if (local) free_local(nullptr, local);
  if (global) {
    if (global->comm != MPI_COMM_NULL) PMPI_Comm_free(&global->comm);
    delete global;
  }
}

const OTF2_CollectiveCallbacks kCallbacks = {release, get_size,  get_rank, create_local, free_local, barrier,
                                             bcast,   gather,    gatherv,  scatter,      scatterv};

}  // namespace

OTF2_ErrorCode otf2_use_native_collectives(OTF2_Archive* archive) {
  auto* global = new OTF2_CollectiveContext{MPI_COMM_NULL};
  if (PMPI_Comm_dup(MPI_COMM_WORLD, &global->comm) != MPI_SUCCESS) {
    delete global;
    return OTF2_ERROR_COLLECTIVE_CALLBACK;
  }
  return OTF2_Archive_SetCollectiveCallbacks(archive, &kCallbacks, nullptr, global, nullptr);
}

}  // namespace xsim::native
