// Datatype and reduction helpers answered by the native MPI (see datatype.hpp). Layer: libxsim/native.
// Contiguous data takes a memcpy fast path; derived datatypes are packed along their own type map
// (native/flatten: built from MPI_Type_get_contents, not from the native pack engine), because MPICH 4.0.2's
// pack engine gets some derived types wrong once a process holds more than ~512 of them (a single block of
// an odd number of chars packs one byte short; docs/testing.md), and under xsim every virtual rank of a
// native process adds its datatypes to that count. Named non-contiguous types (MPI_DOUBLE_INT & co.) go
// through the native pack engine on MPI_COMM_SELF (large-count variants: a message above 2 GiB packs).
#include "native/datatype.hpp"

#include <climits>
#include "native/flatten.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include "native/abi.hpp"
#include "native/check.hpp"

namespace xsim::native {
using detail::NamedInfo;
namespace {

// MPICH's MPI_Pack/MPI_Unpack refuse a null buffer, yet MPI_BOTTOM (null) with absolute addresses in the
// datatype is legal MPI (and what Fortran's MPI_BOTTOM becomes). Such a buffer is described to the native
// MPI as one struct block of `count` elements of `t` displaced by -&anchor, used from the non-null &anchor:
// every address comes out the same.
class NonNullBase {
 public:
  NonNullBase(const void* buf, MPI_Count count, MPI_Datatype t) : buf_(buf), count_(count), type_(t) {
    if (buf != nullptr) return;
    static const char anchor = 0;  // only its address is used
#if XSIM_NATIVE_HAS_LARGE_COUNT
    MPI_Count blen = count, disp = -static_cast<MPI_Count>(reinterpret_cast<uintptr_t>(&anchor));
    check(PMPI_Type_create_struct_c(1, &blen, &disp, &t, &type_), "MPI_Type_create_struct_c");
#else
    if (count > INT_MAX) throw MpiError(MPI_ERR_COUNT, "more than INT_MAX elements at MPI_BOTTOM");
    int blen = static_cast<int>(count);
    MPI_Aint disp = -static_cast<MPI_Aint>(reinterpret_cast<uintptr_t>(&anchor));
    check(PMPI_Type_create_struct(1, &blen, &disp, &t, &type_), "MPI_Type_create_struct");
#endif
    int rc = PMPI_Type_commit(&type_);
    if (rc != MPI_SUCCESS) {
      PMPI_Type_free(&type_);
      call_failed(rc, "MPI_Type_commit");
    }
    owned_ = true;
    buf_ = &anchor;
    count_ = 1;
  }
  ~NonNullBase() {
    if (owned_) PMPI_Type_free(&type_);
  }
  NonNullBase(const NonNullBase&) = delete;
  NonNullBase& operator=(const NonNullBase&) = delete;
  void* buf() const { return const_cast<void*>(buf_); }
  MPI_Count count() const { return count_; }
  MPI_Datatype type() const { return type_; }

 private:
  const void* buf_;
  MPI_Count count_;
  MPI_Datatype type_;
  bool owned_ = false;
};

// MPI_Pack/MPI_Unpack of `count` elements with 64-bit sizes: the large-count calls where the native MPI has
// them (MPI 4), otherwise int-count calls over pieces of whole elements of at most INT_MAX bytes each (the
// buffer's addresses advance by the extent as integers: the buffer may be MPI_BOTTOM, i.e. null).
#if !XSIM_NATIVE_HAS_LARGE_COUNT
// The pieces: `piece(at, n)` for n elements of `t` at byte `at` of the buffer, in order.
template <class Piece>
void in_pieces(MPI_Count count, MPI_Datatype t, Piece piece) {
  int size = 0;
  MPI_Aint lb = 0, extent = 0;
  check(PMPI_Type_size(t, &size), "MPI_Type_size");
  check(PMPI_Type_get_extent(t, &lb, &extent), "MPI_Type_get_extent");
  if (size > 0 && static_cast<MPI_Count>(size) > INT_MAX) throw MpiError(MPI_ERR_COUNT, "a datatype above 2 GiB");
  const MPI_Count step = size > 0 ? std::max<MPI_Count>(1, INT_MAX / size) : count;
  for (MPI_Count done = 0; done < count;) {
    const MPI_Count n = std::min(step, count - done);
    piece(static_cast<uintptr_t>(static_cast<MPI_Aint>(done) * extent), static_cast<int>(n));
    done += n;
  }
}
#endif

void pack_native(const void* buf, MPI_Count count, MPI_Datatype t, void* out, MPI_Count outsize, MPI_Count* pos) {
#if XSIM_NATIVE_HAS_LARGE_COUNT
  int rc = MPI_SUCCESS;
  on_deep_stack([&] { rc = PMPI_Pack_c(buf, count, t, out, outsize, pos, MPI_COMM_SELF); });
  check(rc, "MPI_Pack_c");
#else
  in_pieces(count, t, [&](uintptr_t at, int n) {
    int p = 0, rc = MPI_SUCCESS;
    on_deep_stack([&] {
      rc = PMPI_Pack(reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(buf) + at), n, t,
                     static_cast<char*>(out) + *pos, static_cast<int>(std::min<MPI_Count>(outsize - *pos, INT_MAX)),
                     &p, MPI_COMM_SELF);
    });
    check(rc, "MPI_Pack");
    *pos += p;
  });
#endif
}

void unpack_native(const void* in, MPI_Count insize, MPI_Count* pos, void* buf, MPI_Count count, MPI_Datatype t) {
#if XSIM_NATIVE_HAS_LARGE_COUNT
  int rc = MPI_SUCCESS;
  on_deep_stack([&] { rc = PMPI_Unpack_c(in, insize, pos, buf, count, t, MPI_COMM_SELF); });
  check(rc, "MPI_Unpack_c");
#else
  in_pieces(count, t, [&](uintptr_t at, int n) {
    int p = 0, rc = MPI_SUCCESS;
    on_deep_stack([&] {
      rc = PMPI_Unpack(static_cast<const char*>(in) + *pos, static_cast<int>(std::min<MPI_Count>(insize - *pos, INT_MAX)),
                       &p, reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(buf) + at), n, t, MPI_COMM_SELF);
    });
    check(rc, "MPI_Unpack");
    *pos += p;
  });
#endif
}

// One element of `t` is `size` bytes at offset 0 with nothing between them and consecutive elements
// follow each other without gaps (lb == true_lb == 0, extent == true_extent == size).
bool dense_layout(MPI_Datatype t) {
  MPI_Count size = 0, lb = 0, extent = 0, tlb = 0, textent = 0;
  check(PMPI_Type_size_x(t, &size), "MPI_Type_size_x");
  check(PMPI_Type_get_extent_x(t, &lb, &extent), "MPI_Type_get_extent_x");
  check(PMPI_Type_get_true_extent_x(t, &tlb, &textent), "MPI_Type_get_true_extent_x");
  return lb == 0 && tlb == 0 && extent == size && textent == size;
}

// Named types are dense when their layout says so (pair types such as MPI_DOUBLE_INT have padding);
// derived types only when built as a contiguous (or dup) of a type that is itself contiguous.
bool contiguous_by_construction(MPI_Datatype t, int depth) {
  int ni = 0, na = 0, nd = 0, combiner = 0;
  check(PMPI_Type_get_envelope(t, &ni, &na, &nd, &combiner), "MPI_Type_get_envelope");
  if (combiner == MPI_COMBINER_NAMED) return true;
  if ((combiner != MPI_COMBINER_CONTIGUOUS && combiner != MPI_COMBINER_DUP) || depth > 32 || nd != 1) return false;
  std::vector<int> ints(std::max(ni, 1));
  std::vector<MPI_Aint> addrs(std::max(na, 1));
  MPI_Datatype inner = MPI_DATATYPE_NULL;
  check(PMPI_Type_get_contents(t, ni, na, nd, ints.data(), addrs.data(), &inner), "MPI_Type_get_contents");
  int ini = 0, ina = 0, ind = 0, icomb = 0;
  check(PMPI_Type_get_envelope(inner, &ini, &ina, &ind, &icomb), "MPI_Type_get_envelope");
  bool ok = dense_layout(inner) && contiguous_by_construction(inner, depth + 1);
  if (icomb != MPI_COMBINER_NAMED) PMPI_Type_free(&inner);  // get_contents returned a new handle
  return ok;
}

// Predefined (named) datatypes never change and are never freed, so their size and layout are asked of
// the native MPI once and remembered (detail::g_named, looked up inline by type_facts); every message asks
// for them. Derived types are always asked anew (their handles can be freed and reused). Direct-mapped; a
// type whose slot another type holds asks the native MPI each time. False for a derived type.
bool named_facts(MPI_Datatype t, TypeFacts* facts) {
  detail::NamedInfo& slot = detail::named_slot(t);
  if (slot.handle.load(std::memory_order_acquire) == t && t != MPI_DATATYPE_NULL) {
    *facts = {slot.size, slot.contiguous};
    return true;
  }
  int ni = 0, na = 0, nd = 0, combiner = 0;
  check(PMPI_Type_get_envelope(t, &ni, &na, &nd, &combiner), "MPI_Type_get_envelope");
  if (combiner != MPI_COMBINER_NAMED) return false;
  MPI_Count size = 0;
  check(PMPI_Type_size_x(t, &size), "MPI_Type_size_x");
  *facts = {static_cast<uint64_t>(size), dense_layout(t)};
  if (!slot.claimed.exchange(true, std::memory_order_relaxed)) {
    slot.size = facts->size;
    slot.contiguous = facts->contiguous;
    slot.handle.store(t, std::memory_order_release);
  }
  return true;
}

using detail::set_status_direct;

void set_status_native(MPI_Status* st, uint64_t bytes, bool cancelled) {
  PMPI_Status_set_elements_x(st, MPI_BYTE, static_cast<MPI_Count>(bytes));
  PMPI_Status_set_cancelled(st, cancelled ? 1 : 0);
}

// Whether set_status_direct writes what the native calls write (every byte of the status, and what the
// native MPI reads back), for a few counts around the 32-bit boundary, cancelled or not.
bool status_direct_agrees() {
  const uint64_t counts[] = {0, 1, 7, 65536, 0x7fffffffull, 0x80000000ull, 0xffffffffull, 0x100000000ull,
                             0x123456789abull};
  for (uint64_t n : counts)
    for (bool cancelled : {false, true}) {
      MPI_Status a, b;
      std::memset(&a, 0x5a, sizeof a);
      std::memset(&b, 0x5a, sizeof b);
      set_status_native(&a, n, cancelled);
      set_status_direct(&b, n, cancelled);
      if (std::memcmp(&a, &b, sizeof a) != 0) return false;
      MPI_Count got = -1;
      int flag = -1;
      if (PMPI_Get_elements_x(&b, MPI_BYTE, &got) != MPI_SUCCESS || got != static_cast<MPI_Count>(n)) return false;
      if (PMPI_Test_cancelled(&b, &flag) != MPI_SUCCESS || (flag != 0) != cancelled) return false;
    }
  return true;
}

}  // namespace

namespace detail {
NamedInfo g_named[256];

TypeFacts type_facts_slow(MPI_Datatype t) {
  if (TypeFacts n; named_facts(t, &n)) return n;
  MPI_Count size = 0;
  check(PMPI_Type_size_x(t, &size), "MPI_Type_size_x");
  return {static_cast<uint64_t>(size), false};  // derived: pack/unpack find their layout
}
}  // namespace detail

namespace detail {
std::atomic<int> g_status_way{0};

void set_status_count_slow(MPI_Status* st, uint64_t bytes, bool cancelled) {
  int way = g_status_way.load(std::memory_order_relaxed);
  if (way == 0) {  // once per process (threads that race here store the same answer)
    way = status_direct_agrees() ? 1 : 2;
    g_status_way.store(way, std::memory_order_relaxed);
  }
  if (way == 1)
    set_status_direct(st, bytes, cancelled);
  else
    set_status_native(st, bytes, cancelled);
}
}  // namespace detail

uint64_t type_size(MPI_Datatype t) {
  if (TypeFacts n; named_facts(t, &n)) return n.size;
  MPI_Count size = 0;
  check(PMPI_Type_size_x(t, &size), "MPI_Type_size_x");
  return static_cast<uint64_t>(size);
}

Extent type_extent(MPI_Datatype t) {
  MPI_Aint lb = 0, extent = 0;
  check(PMPI_Type_get_extent(t, &lb, &extent), "MPI_Type_get_extent");
  return {lb, extent};
}

Extent type_true_extent(MPI_Datatype t) {
  MPI_Aint lb = 0, extent = 0;
  check(PMPI_Type_get_true_extent(t, &lb, &extent), "MPI_Type_get_true_extent");
  return {lb, extent};
}

bool type_is_contiguous(MPI_Datatype t) {
  if (TypeFacts n; named_facts(t, &n)) return n.contiguous;
  return dense_layout(t) && contiguous_by_construction(t, 0);
}

void pack(const void* buf, int count, MPI_Datatype t, void* out) {
  if (count <= 0) return;
  if (TypeFacts n; named_facts(t, &n) && n.contiguous) {  // the common case: one cache look-up
    std::memcpy(out, buf, static_cast<size_t>(n.size) * static_cast<size_t>(count));
    return;
  }
  if (type_is_contiguous(t)) {
    std::memcpy(out, buf, static_cast<size_t>(type_size(t)) * static_cast<size_t>(count));
    return;
  }
  if (!type_is_named(t)) {  // derived: along its own type map (see the file comment)
    gather_elements(buf, count, t, out);
    return;
  }
  MPI_Count position = 0;
  MPI_Count outsize = static_cast<MPI_Count>(type_size(t)) * count;
  NonNullBase in(buf, count, t);
  pack_native(in.buf(), in.count(), in.type(), out, outsize, &position);
}

void unpack(const void* in, uint64_t bytes, void* buf, int count, MPI_Datatype t) {
  if (count <= 0 || bytes == 0) return;
  if (TypeFacts n; named_facts(t, &n) && n.contiguous) {  // the common case: one cache look-up
    std::memcpy(buf, in, static_cast<size_t>(std::min<uint64_t>(bytes, n.size * static_cast<uint64_t>(count))));
    return;
  }
  const uint64_t size = type_size(t);
  if (size == 0) return;
  bytes = std::min<uint64_t>(bytes, size * static_cast<uint64_t>(count));
  if (type_is_contiguous(t)) {
    std::memcpy(buf, in, static_cast<size_t>(bytes));
    return;
  }
  if (!type_is_named(t)) {  // derived: a short message fills the first `bytes` bytes of the type map
    scatter_elements(in, bytes, buf, count, t);
    return;
  }
  const uint64_t whole = bytes / size, rest = bytes % size;
  MPI_Count position = 0;
  if (whole > 0) {
    NonNullBase out(buf, static_cast<MPI_Count>(whole), t);
    unpack_native(in, static_cast<MPI_Count>(whole * size), &position, out.buf(), out.count(), out.type());
  }
  if (rest > 0) {
    // A partial trailing element: fill only its first `rest` data bytes, as a receive of a short message
    // does. Pack the element's current contents, overlay the incoming bytes, unpack the whole element.
    // (integer arithmetic: buf may be MPI_BOTTOM, i.e. null)
    void* elem = reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(buf) +
                                         static_cast<uintptr_t>(static_cast<MPI_Aint>(whole) * type_extent(t).extent));
    std::vector<char> scratch(size);
    NonNullBase e(elem, 1, t);
    MPI_Count p = 0;
    pack_native(e.buf(), e.count(), e.type(), scratch.data(), static_cast<MPI_Count>(size), &p);
    std::memcpy(scratch.data(), static_cast<const char*>(in) + whole * size, static_cast<size_t>(rest));
    p = 0;
    unpack_native(scratch.data(), static_cast<MPI_Count>(size), &p, e.buf(), e.count(), e.type());
  }
}

void copy(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype) {
  if (scount <= 0 || rcount <= 0) return;
  const uint64_t sbytes = type_size(stype) * static_cast<uint64_t>(scount);
  const uint64_t rbytes = type_size(rtype) * static_cast<uint64_t>(rcount);
  const uint64_t bytes = std::min(sbytes, rbytes);
  if (bytes == 0) return;
  const bool scontig = type_is_contiguous(stype), rcontig = type_is_contiguous(rtype);
  if (scontig && rcontig) {
    if (sbuf != rbuf) std::memmove(rbuf, sbuf, static_cast<size_t>(bytes));
    return;
  }
  if (scontig) {
    unpack(sbuf, bytes, rbuf, rcount, rtype);
    return;
  }
  std::vector<char> packed(static_cast<size_t>(sbytes));
  pack(sbuf, scount, stype, packed.data());
  unpack(packed.data(), bytes, rbuf, rcount, rtype);
}

StackRunner g_stack_runner = nullptr;
void set_stack_runner(StackRunner r) { g_stack_runner = r; }

void reduce_local(const void* in, void* inout, int count, MPI_Datatype t, MPI_Op op) {
  if (count <= 0) return;
  int rc = MPI_SUCCESS;
  on_deep_stack([&] { rc = PMPI_Reduce_local(in, inout, count, t, op); });
  check(rc, "MPI_Reduce_local");
}

bool op_is_commutative(MPI_Op op) {
  int commute = 0;
  check(PMPI_Op_commutative(op, &commute), "MPI_Op_commutative");
  return commute != 0;
}

void* alloc_typed_buffer(int count, MPI_Datatype t, void** raw) {
  const Extent e = type_extent(t), te = type_true_extent(t);
  MPI_Aint lo = te.lb, hi = te.lb + te.extent;  // span of data bytes relative to the base pointer
  if (count > 1) {
    const MPI_Aint step = static_cast<MPI_Aint>(count - 1) * e.extent;
    if (step >= 0) hi += step; else lo += step;
  }
  const size_t bytes = count > 0 ? static_cast<size_t>(std::max<MPI_Aint>(hi - lo, 0)) : 0;
  void* mem = std::malloc(std::max<size_t>(bytes, 1));
  if (mem == nullptr) throw std::bad_alloc();
  *raw = mem;
  return static_cast<char*>(mem) - (count > 0 ? lo : 0);
}

}  // namespace xsim::native
