// Which native MPI xsim was built against, and the few ABI facts that differ between MPICH (int handles,
// MPI-4.0 with large-count calls) and Open MPI (handles are pointers to library objects, MPI-3.1).
// Layer: libxsim/native; any layer above may include it. Constant data only (no state, any fiber/thread).
// The choice is made at configure time (XSIM_MPI=mpich|openmpi) by compiling against that MPI's mpi.h.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <type_traits>

#if defined(OPEN_MPI) && OPEN_MPI
#define XSIM_NATIVE_OPENMPI 1
#elif defined(MPICH)
#define XSIM_NATIVE_MPICH 1
#else
#error "xsim supports MPICH and Open MPI as the native MPI; this mpi.h is neither (set XSIM_MPI at configure time)"
#endif

// MPI-4 large-count entry points (MPI_Pack_c, ...): MPICH 4 has them, Open MPI 4.1 (MPI 3.1) does not.
#if MPI_VERSION >= 4
#define XSIM_NATIVE_HAS_LARGE_COUNT 1
#else
#define XSIM_NATIVE_HAS_LARGE_COUNT 0
#endif

// MPI-4's MPI_ERRORS_ABORT. An MPI-3 application cannot name it; xsim then compares with MPI_ERRHANDLER_NULL,
// which no communicator, window or file ever has as its handler.
#if defined(MPI_ERRORS_ABORT)
#define XSIM_ERRORS_ABORT MPI_ERRORS_ABORT
#else
#define XSIM_ERRORS_ABORT MPI_ERRHANDLER_NULL
#endif

namespace xsim::native {

#if defined(XSIM_NATIVE_OPENMPI)
inline constexpr const char* kMpiName = "Open MPI";
#else
inline constexpr const char* kMpiName = "MPICH";
#endif

// A handle's bits as an integer, whatever the handle type is (int in MPICH, a pointer in Open MPI; MPICH's
// MPI_File is a pointer too): for hashing and printing only, never to dereference.
template <typename H>
inline uint64_t handle_bits(H h) {
  if constexpr (std::is_pointer_v<H>)
    return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(h));
  else
    return static_cast<uint64_t>(static_cast<uint32_t>(h));
}

// The value of `key` in `info` into buf[0..valuelen] (valuelen from MPI_Info_get_valuelen; buf holds
// valuelen + 1 chars): MPI_Info_get_string where the native MPI has it (MPI 4), else MPI_Info_get.
inline int info_get_value(MPI_Info info, const char* key, int valuelen, char* buf, int* flag) {
#if MPI_VERSION >= 4
  int buflen = valuelen + 1;
  return PMPI_Info_get_string(info, key, &buflen, buf, flag);
#else
  return PMPI_Info_get(info, key, valuelen, buf, flag);
#endif
}

}  // namespace xsim::native
