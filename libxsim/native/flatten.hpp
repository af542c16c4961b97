// Datatype flattening: where the data bytes of `count` elements of a datatype lie, as (offset, length)
// runs relative to the buffer address, in type-map order (the order MPI_Pack visits the bytes), adjacent
// runs merged. One-sided operations send such runs to the target instead of a datatype handle (handles are
// local to a native process and may be freed while an operation is in flight), and MPI-IO maps a view's
// filetype onto file offsets with them. Layer: libxsim/native (asks the native MPI through PMPI_* only).
// Contract: gathering the bytes of the runs in order gives exactly MPI_Pack's output (native data
// representation); scattering packed bytes over them is MPI_Unpack. Pure functions; any fiber.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace xsim::native {

struct Run {
  int64_t offset;  // bytes from the buffer address (may be negative: datatypes with negative displacements)
  int64_t length;  // bytes, > 0
};

// Runs of `count` elements of `t` (element i at i x extent(t)). Throws MpiError for an invalid type.
std::vector<Run> flatten(MPI_Datatype t, int64_t count);
// The runs of one element of a derived (not named) datatype, computed once and kept on the datatype as an
// attribute (released with it), and its extent: pack/unpack walk them count times. Safe to call from
// several threads at once (the unit tests run ranks as threads).
const std::vector<Run>& element_runs(MPI_Datatype t, int64_t* extent);
// Copies up to `bytes` data bytes of `count` elements of `t` at `base` to `out` in type-map order (a pack),
// or from `in` back to `base` (an unpack that stops after `bytes`, as a short message does).
void gather_elements(const void* base, int64_t count, MPI_Datatype t, void* out);
void scatter_elements(const void* in, uint64_t bytes, void* base, int64_t count, MPI_Datatype t);
// Total bytes of a run list.
int64_t runs_bytes(const std::vector<Run>& runs);
// Copies the bytes of `runs` at `base` into `out`, in order (a pack), or back (an unpack).
void gather_runs(const void* base, const std::vector<Run>& runs, void* out);
void scatter_runs(const void* in, const std::vector<Run>& runs, void* base);

// The one predefined datatype every basic element of `t` is (MPI_INT for a vector of ints), or
// MPI_DATATYPE_NULL when `t` mixes several (the accumulate operations need one).
MPI_Datatype basic_type(MPI_Datatype t);
bool type_is_named(MPI_Datatype t);
// Predefined datatypes and reduction operations as 32-bit codes that mean the same in every native process
// (for messages between them): MPICH's handle values themselves; with Open MPI, whose handles are addresses
// that differ between processes, 1 + the index in a fixed table (0: the null handle). A handle outside the
// table throws MpiError(MPI_ERR_TYPE / MPI_ERR_OP).
int32_t type_to_wire(MPI_Datatype t);
MPI_Datatype type_from_wire(int32_t w);
int32_t op_to_wire(MPI_Op op);
MPI_Op op_from_wire(int32_t w);
// A handle of one's own to `t` (a duplicate for derived types; named types are returned as they are), so
// that the application may free its handle; release it with type_release.
MPI_Datatype type_keep(MPI_Datatype t);
void type_release(MPI_Datatype t);

// Odds and ends the one-sided and MPI-IO entry points ask the native MPI.
std::string error_text(int code);  // MPI_Error_string
MPI_Info info_create();            // a new empty info object (MPI_Win_get_info, MPI_File_get_info)

}  // namespace xsim::native
