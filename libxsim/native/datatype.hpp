// Datatype and reduction helpers answered by the native MPI (PMPI_*): sizes, extents, packing, local
// reductions. Layer: libxsim/native, the only layer that calls PMPI_*. Pure functions of their arguments;
// callable from any fiber. Errors from the native MPI are reported as MpiError (class + message).
#pragma once
#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "native/abi.hpp"

namespace xsim::native {

struct MpiError : std::runtime_error {
  int code;
  MpiError(int c, const std::string& what) : std::runtime_error(what), code(c) {}
};

struct Extent {
  MPI_Aint lb, extent;
};
// What a message needs to know of a datatype: the bytes of data in one element, and whether the type is
// known to be dense (one element's data is `size` bytes at offset 0 with no gaps, so `count` elements are
// one block of count * size bytes: a memcpy). Predefined types are answered inline from a small
// direct-mapped cache (they never change; safe from several threads); the first look-up of a type, and
// every look-up of a derived type, asks the native MPI. Derived types always report contiguous = false:
// pack/unpack find their layout.
struct TypeFacts {
  uint64_t size;
  bool contiguous;
};
inline TypeFacts type_facts(MPI_Datatype t);
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
// Where the native MPI's deep calls run. MPICH 4 puts 128 KiB frames on the stack in MPI_Reduce_local,
// MPI_Pack and MPI_Unpack, more than a virtual rank's stack at scale: the runtime installs a runner that
// moves such calls onto a large stack (runtime/core/native_stack.hpp); without one they run in place.
// reduce_local, pack and unpack use it; so do the interposers of the native calls a program makes itself.
using StackRunner = void (*)(void (*)(void*), void*);
void set_stack_runner(StackRunner r);
extern StackRunner g_stack_runner;
template <class F>
void on_deep_stack(F&& f) {
  if (!g_stack_runner) return f();
  g_stack_runner([](void* p) { (*static_cast<std::remove_reference_t<F>*>(p))(); }, &f);
}
bool op_is_commutative(MPI_Op op);
// Allocates a buffer able to hold `count` elements of `t` and returns the pointer to use as its base
// (already shifted by -true_lb); free with free_typed_buffer.
void* alloc_typed_buffer(int count, MPI_Datatype t, void** raw);
inline void free_typed_buffer(void* raw) { std::free(raw); }
// Owns such a buffer for `count` elements of `t` (get() is the base to use); holds nothing, get() == nullptr,
// when constructed with wanted == false.
class TypedBuffer {
 public:
  TypedBuffer(int count, MPI_Datatype t, bool wanted = true) {
    if (wanted) base_ = static_cast<char*>(alloc_typed_buffer(count, t, &raw_));
  }
  ~TypedBuffer() { free_typed_buffer(raw_); }
  TypedBuffer(const TypedBuffer&) = delete;
  TypedBuffer& operator=(const TypedBuffer&) = delete;
  char* get() const { return base_; }

 private:
  void* raw_ = nullptr;
  char* base_ = nullptr;
};

// Stores a received byte count and the cancelled flag in a status, as MPI_Status_set_elements_x(st, MPI_BYTE,
// bytes) and MPI_Status_set_cancelled would: written straight into the native MPI's status layout (two
// native calls per receive otherwise), after a one-time check that the direct write agrees with the native
// calls (if it ever did not, the native calls are used).
inline void set_status_count(MPI_Status* st, uint64_t bytes, bool cancelled);

namespace detail {
// A slot is filled once and never reused: `claimed` picks the one filler, which writes size and contiguous
// and then publishes `handle` (release), so a reader that sees its handle there (acquire) reads them whole,
// from any thread. A second type hashed to a taken slot is answered by the native MPI every time.
struct NamedInfo {
  std::atomic<MPI_Datatype> handle{MPI_DATATYPE_NULL};
  std::atomic<bool> claimed{false};
  bool contiguous = false;
  uint64_t size = 0;
};
extern NamedInfo g_named[256];  // direct-mapped cache of predefined types (datatype.cpp)
inline NamedInfo& named_slot(MPI_Datatype t) {
  const uint64_t h = handle_bits(t);
  return g_named[(h ^ (h >> 8) ^ (h >> 16)) & 255];
}
TypeFacts type_facts_slow(MPI_Datatype t);
// set_status_count's way: 0 not yet checked, 1 direct writes (they agree with the native calls), 2 the calls.
extern std::atomic<int> g_status_way;
void set_status_count_slow(MPI_Status* st, uint64_t bytes, bool cancelled);
// MPICH 4: count_lo, count_hi_and_cancelled (bit 0: cancelled; the count's high word shifted left by one).
// Open MPI 4: _cancelled, _ucount (bytes).
inline void set_status_direct(MPI_Status* st, uint64_t bytes, bool cancelled) {
#if defined(XSIM_NATIVE_MPICH)
  st->count_lo = static_cast<int>(static_cast<uint32_t>(bytes));
  st->count_hi_and_cancelled = static_cast<int>(static_cast<uint32_t>((bytes >> 32) << 1)) | (cancelled ? 1 : 0);
#else
  st->_ucount = static_cast<size_t>(bytes);
  st->_cancelled = cancelled ? 1 : 0;
#endif
}
}  // namespace detail

inline void set_status_count(MPI_Status* st, uint64_t bytes, bool cancelled) {
  if (detail::g_status_way.load(std::memory_order_relaxed) == 1) [[likely]]
    detail::set_status_direct(st, bytes, cancelled);
  else
    detail::set_status_count_slow(st, bytes, cancelled);
}

inline TypeFacts type_facts(MPI_Datatype t) {
  const detail::NamedInfo& n = detail::named_slot(t);
  if (n.handle.load(std::memory_order_acquire) == t && t != MPI_DATATYPE_NULL) [[likely]]
    return {n.size, n.contiguous};
  return detail::type_facts_slow(t);
}

}  // namespace xsim::native
