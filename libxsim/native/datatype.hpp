// Datatype and reduction helpers answered by the native MPI (PMPI_*): sizes, extents, packing, local
// reductions. Layer: libxsim/native, the only layer that calls PMPI_*. Pure functions of their arguments;
// callable from any fiber. Errors from the native MPI are reported as MpiError (class + message).
#pragma once
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace xsim::native {

struct MpiError : std::runtime_error {
  int code;
  MpiError(int c, const std::string& what) : std::runtime_error(what), code(c) {}
};

struct Extent {
  MPI_Aint lb, extent;
};
uint64_t type_size(MPI_Datatype t);             // bytes of data in one element
Extent type_extent(MPI_Datatype t);
Extent type_true_extent(MPI_Datatype t);
bool type_is_contiguous(MPI_Datatype t);        // one element's data is `type_size` bytes at offset 0, no gaps
// Packs `count` elements at `buf` into `out` (which holds type_size(t) * count bytes).
void pack(const void* buf, int count, MPI_Datatype t, void* out);
// Unpacks `bytes` packed bytes into `buf` laid out as up to `count` elements of `t`.
void unpack(const void* in, uint64_t bytes, void* buf, int count, MPI_Datatype t);
// Copies typed data locally, as a matched send/receive would (sizes must match: the caller checks).
void copy(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype);
// inout[i] = in[i] op inout[i] (MPI_Reduce_local semantics; works for predefined and user ops).
void reduce_local(const void* in, void* inout, int count, MPI_Datatype t, MPI_Op op);
bool op_is_commutative(MPI_Op op);
// Allocates a buffer able to hold `count` elements of `t` and returns the pointer to use as its base
// (already shifted by -true_lb); free with free_typed_buffer.
void* alloc_typed_buffer(int count, MPI_Datatype t, void** raw);
inline void free_typed_buffer(void* raw) { std::free(raw); }

}  // namespace xsim::native
