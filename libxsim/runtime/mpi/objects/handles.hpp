// The application's handles for the objects xsim owns (communicators, groups, requests, messages, windows,
// files, error handlers): (kind, index) <-> handle for the native MPI's ABI, and their Fortran integers.
// Layer: libxsim/runtime/mpi/objects (xsim_mpi). Handles are never dereferenced by anyone; decode() is a pure check.
//  - MPICH (int handles; MPI_File a pointer): `prefix(kind) | index`, MPICH's encoding of a "direct" object
//    of that kind, so tools and debuggers read them as MPICH would. Fortran integers are the same values.
//  - Open MPI (handles are pointers to library objects): addresses inside one reserved PROT_NONE region of
//    kKinds << 26 bytes (never a valid object: a dereference faults at once; membership is a range check).
//    Fortran integers of xsim objects are the MPICH-style values above, which never collide with Open
//    MPI's own Fortran indices (small non-negative numbers: MPI_COMM_WORLD 0, MPI_COMM_SELF 1, ...).
// Predefined handles (MPI_COMM_WORLD, MPI_COMM_SELF, MPI_GROUP_EMPTY, the null handles, MPI_ERRORS_*) keep
// the native MPI's own values; native objects (datatypes, ops, info) are the native MPI's handles.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <type_traits>

#include "native/abi.hpp"

namespace xsim::handles {

enum class Kind : uint32_t { Comm = 0, Group, Request, Message, Win, File, Errhandler, kCount };
inline constexpr uint32_t kIndexBits = 26;
inline constexpr uint32_t kIndexMask = (1u << kIndexBits) - 1;  // up to 67,108,864 live objects per kind

// MPICH's handle word for a "direct" object of each kind (object kind in bits 26..29, direct = 0b10 on top).
constexpr uint32_t mpich_prefix(Kind k) {
  constexpr uint32_t prefix[] = {0x84000000u, 0x88000000u, 0xac000000u, 0xb0000000u,
                                 0xa0000000u, 0x9c000000u, 0x94000000u};
  return prefix[static_cast<uint32_t>(k)];
}

#if defined(XSIM_NATIVE_OPENMPI)
// Start of the reserved region (reserved on first use; a failure to reserve stops the process with a message).
uintptr_t region_base();
inline constexpr uintptr_t kRegionBytes = static_cast<uintptr_t>(Kind::kCount) << kIndexBits;
#endif

// The handle of object `index` of kind `k`.
template <typename H>
inline H make(Kind k, uint32_t index) {
#if defined(XSIM_NATIVE_OPENMPI)
  static_assert(std::is_pointer_v<H>, "Open MPI handles are pointers");
  return reinterpret_cast<H>(region_base() + (static_cast<uintptr_t>(k) << kIndexBits) + index);
#else
  if constexpr (std::is_pointer_v<H>)
    return reinterpret_cast<H>(static_cast<uintptr_t>(mpich_prefix(k) | index));
  else
    return static_cast<H>(mpich_prefix(k) | index);
#endif
}

// Whether `h` is a handle of kind `k` made by make(); if so its index goes to *index.
template <typename H>
inline bool decode(Kind k, H h, uint32_t* index) {
#if defined(XSIM_NATIVE_OPENMPI)
  const uintptr_t off = reinterpret_cast<uintptr_t>(h) - region_base();
  if (off >= kRegionBytes || (off >> kIndexBits) != static_cast<uintptr_t>(k)) return false;
  *index = static_cast<uint32_t>(off & kIndexMask);
  return true;
#else
  const uint64_t u = native::handle_bits(h);
  if ((u & ~static_cast<uint64_t>(kIndexMask)) != mpich_prefix(k)) return false;
  *index = static_cast<uint32_t>(u & kIndexMask);
  return true;
#endif
}

// Fortran integers of xsim's objects (MPI_*_c2f / MPI_*_f2c; with MPICH the C value itself).
inline MPI_Fint to_fint(Kind k, uint32_t index) { return static_cast<MPI_Fint>(mpich_prefix(k) | index); }
inline bool from_fint(Kind k, MPI_Fint f, uint32_t* index) {
  const uint32_t u = static_cast<uint32_t>(f);
  if ((u & ~kIndexMask) != mpich_prefix(k)) return false;
  *index = u & kIndexMask;
  return true;
}

// A 32-bit number for communicator `c`, unique among the communicators a rank can name: MPICH's handle value
// (with Open MPI: xsim's communicators' MPICH-style values, MPICH's values of MPI_COMM_WORLD, _SELF, _NULL).
inline uint32_t comm_number(MPI_Comm c) {
#if defined(XSIM_NATIVE_OPENMPI)
  uint32_t i = 0;
  if (decode(Kind::Comm, c, &i)) return static_cast<uint32_t>(to_fint(Kind::Comm, i));
  if (c == MPI_COMM_WORLD) return 0x44000000u;
  if (c == MPI_COMM_SELF) return 0x44000001u;
  return 0x04000000u;
#else
  return static_cast<uint32_t>(c);
#endif
}

// The number error messages show for handle `h` of kind `k`: its MPICH-style value when it is one of xsim's
// (the same text whatever the native MPI), else its bits. Print with "0x%08llx".
template <typename H>
inline unsigned long long shown(Kind k, H h) {
  uint32_t i = 0;
  if (decode(k, h, &i)) return static_cast<uint32_t>(to_fint(k, i));
  return native::handle_bits(h);
}

}  // namespace xsim::handles
