// Datatype flattening (see flatten.hpp). Layer: libxsim/native.
// Derived datatypes are decoded by their constructor (MPI_Type_get_envelope/get_contents, recursively):
// contiguous, vector, hvector, indexed, hindexed, indexed_block, hindexed_block, struct, subarray, resized
// and dup. Everything else (darray, the Fortran-kind types, padded named types such as MPI_DOUBLE_INT) is
// decoded by packing a labelled copy of one element with the native MPI: each packed byte then names the
// offset it came from. That is exact for every datatype and costs one pass over the element's span per
// byte of label, so it is kept for the types whose span is small or that have no other decoding.
#include "native/flatten.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>

#include "native/abi.hpp"
#include "native/check.hpp"
#include "native/datatype.hpp"

namespace xsim::native {
namespace {

void emit(std::vector<Run>& out, int64_t off, int64_t len) {
  if (len <= 0) return;
  if (!out.empty() && out.back().offset + out.back().length == off) {
    out.back().length += len;
    return;
  }
  out.push_back({off, len});
}

void emit_all(std::vector<Run>& out, const std::vector<Run>& runs, int64_t base) {
  for (const Run& r : runs) emit(out, base + r.offset, r.length);
}

int64_t extent_of(MPI_Datatype t) {
  MPI_Count lb = 0, extent = 0;
  check(PMPI_Type_get_extent_x(t, &lb, &extent), "MPI_Type_get_extent_x");
  return static_cast<int64_t>(extent);
}

// The contents of a derived datatype; inner derived handles are freed on destruction.
struct Contents {
  int combiner = 0;
  std::vector<int> ints;
  std::vector<MPI_Aint> addrs;
  std::vector<MPI_Datatype> types;
  explicit Contents(MPI_Datatype t) {
    int ni = 0, na = 0, nd = 0;
    check(PMPI_Type_get_envelope(t, &ni, &na, &nd, &combiner), "MPI_Type_get_envelope");
    if (combiner == MPI_COMBINER_NAMED) return;
    ints.resize(static_cast<size_t>(ni));
    addrs.resize(static_cast<size_t>(na));
    types.resize(static_cast<size_t>(nd));
    check(PMPI_Type_get_contents(t, ni, na, nd, ints.data(), addrs.data(), types.data()), "MPI_Type_get_contents");
  }
  ~Contents() {
    for (MPI_Datatype& d : types)
      if (!type_is_named(d)) PMPI_Type_free(&d);
  }
  Contents(const Contents&) = delete;
  Contents& operator=(const Contents&) = delete;
};

// One element of `t` by packing labelled copies (see the file comment).
std::vector<Run> by_packing(MPI_Datatype t) {
  const uint64_t size = type_size(t);
  std::vector<Run> out;
  if (size == 0) return out;
  const Extent te = type_true_extent(t);
  const size_t span = static_cast<size_t>(std::max<MPI_Aint>(te.extent, 1));
  std::vector<unsigned char> image(span), packed(static_cast<size_t>(size));
  std::vector<uint64_t> from(static_cast<size_t>(size), 0);
  char* base = reinterpret_cast<char*>(image.data()) - te.lb;  // element address: byte i of image is offset lb+i
  for (unsigned shift = 0; shift < 64 && (shift == 0 || (span - 1) >> shift); shift += 8) {
    for (size_t i = 0; i < span; ++i) image[i] = static_cast<unsigned char>(i >> shift);
    pack(base, 1, t, packed.data());
    for (size_t k = 0; k < packed.size(); ++k) from[k] |= static_cast<uint64_t>(packed[k]) << shift;
  }
  for (size_t k = 0; k < from.size(); ++k) emit(out, te.lb + static_cast<int64_t>(from[k]), 1);
  return out;
}

std::vector<Run> element(MPI_Datatype t, int depth);

// Runs of `blocklen` consecutive elements of `old` starting at byte `at`, appended to `out`.
// A dense `old` (one run covering its whole extent, as every contiguous named type is) makes the block one
// run: the common case of columns of doubles costs O(1) per block, not one emit per element.
void block(std::vector<Run>& out, const std::vector<Run>& old, int64_t old_extent, int64_t at, int64_t blocklen) {
  if (old.size() == 1 && old[0].offset == 0 && old[0].length == old_extent) {
    emit(out, at, blocklen * old_extent);
    return;
  }
  for (int64_t j = 0; j < blocklen; ++j) emit_all(out, old, at + j * old_extent);
}

std::vector<Run> subarray(const Contents& c, int depth) {
  const int n = c.ints[0];
  const int* sizes = &c.ints[1];
  const int* subsizes = &c.ints[1 + n];
  const int* starts = &c.ints[1 + 2 * n];
  const bool fortran = c.ints[1 + 3 * n] == MPI_ORDER_FORTRAN;
  const std::vector<Run> old = element(c.types[0], depth + 1);
  const int64_t ext = extent_of(c.types[0]);
  // stride (in elements) of each dimension; dims listed from the fastest varying
  std::vector<int> dim(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) dim[static_cast<size_t>(i)] = fortran ? i : n - 1 - i;
  std::vector<int64_t> stride(static_cast<size_t>(n));
  int64_t s = 1;
  for (int i = 0; i < n; ++i) {
    stride[static_cast<size_t>(dim[static_cast<size_t>(i)])] = s;
    s *= sizes[dim[static_cast<size_t>(i)]];
  }
  std::vector<Run> out;
  for (int i = 0; i < n; ++i)
    if (subsizes[i] == 0) return out;
  std::vector<int64_t> idx(static_cast<size_t>(n), 0);
  const int fast = dim[0];
  for (;;) {
    int64_t first = 0;
    for (int d = 0; d < n; ++d) first += (starts[d] + idx[static_cast<size_t>(d)]) * stride[static_cast<size_t>(d)];
    block(out, old, ext, first * ext, subsizes[fast]);
    int i = 1;
    for (; i < n; ++i) {
      int d = dim[static_cast<size_t>(i)];
      if (++idx[static_cast<size_t>(d)] < subsizes[d]) break;
      idx[static_cast<size_t>(d)] = 0;
    }
    if (i >= n) break;
  }
  return out;
}

// The combiner whose decoding serves `combiner`: the MPI-1 Fortran combiners (MPICH keeps them, Open MPI 4
// removed them) are decoded as their MPI-2 forms, which read the displacements from the integers when
// there are no addresses.
int decoded_as(int combiner) {
#if defined(XSIM_NATIVE_MPICH)
  switch (combiner) {
    case MPI_COMBINER_HVECTOR_INTEGER: return MPI_COMBINER_HVECTOR;
    case MPI_COMBINER_HINDEXED_INTEGER: return MPI_COMBINER_HINDEXED;
    case MPI_COMBINER_STRUCT_INTEGER: return MPI_COMBINER_STRUCT;
    default: break;
  }
#endif
  return combiner;
}

std::vector<Run> element(MPI_Datatype t, int depth) {
  if (depth > 64) throw MpiError(MPI_ERR_TYPE, "datatype nested too deeply to flatten");
  Contents c(t);
  std::vector<Run> out;
  switch (decoded_as(c.combiner)) {
    case MPI_COMBINER_NAMED:
      if (type_is_contiguous(t)) {
        emit(out, 0, static_cast<int64_t>(type_size(t)));
        return out;
      }
      return by_packing(t);
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED:  // resizing moves the bounds, not the data
      return element(c.types[0], depth + 1);
    case MPI_COMBINER_CONTIGUOUS: {
      const std::vector<Run> old = element(c.types[0], depth + 1);
      block(out, old, extent_of(c.types[0]), 0, c.ints[0]);
      return out;
    }
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR: {
      const std::vector<Run> old = element(c.types[0], depth + 1);
      const int64_t ext = extent_of(c.types[0]);
      const int64_t stride = c.combiner == MPI_COMBINER_VECTOR ? int64_t{c.ints[2]} * ext
                             : c.addrs.empty()                  ? int64_t{c.ints[2]}
                                                                : static_cast<int64_t>(c.addrs[0]);
      for (int i = 0; i < c.ints[0]; ++i) block(out, old, ext, i * stride, c.ints[1]);
      return out;
    }
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED:
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK: {
      // ints: the count n, the n block lengths (one for all: _BLOCK), then the displacements in elements;
      // the H forms have theirs in bytes, in addrs (in ints: the MPI-1 Fortran combiner).
      const std::vector<Run> old = element(c.types[0], depth + 1);
      const int64_t ext = extent_of(c.types[0]);
      const int n = c.ints[0], kind = decoded_as(c.combiner);
      const bool one_length = kind == MPI_COMBINER_INDEXED_BLOCK || kind == MPI_COMBINER_HINDEXED_BLOCK;
      const bool in_elements = kind == MPI_COMBINER_INDEXED || kind == MPI_COMBINER_INDEXED_BLOCK;
      const int* displs = c.ints.data() + (one_length ? 2 : 1 + n);
      for (int i = 0; i < n; ++i) {
        const int64_t at = in_elements       ? int64_t{displs[i]} * ext
                           : c.addrs.empty() ? int64_t{displs[i]}
                                             : static_cast<int64_t>(c.addrs[static_cast<size_t>(i)]);
        block(out, old, ext, at, c.ints[one_length ? 1 : 1 + i]);
      }
      return out;
    }
    case MPI_COMBINER_STRUCT: {
      const int n = c.ints[0];
      for (int i = 0; i < n; ++i) {
        const std::vector<Run> old = element(c.types[static_cast<size_t>(i)], depth + 1);
        int64_t at = c.addrs.empty() ? int64_t{c.ints[1 + n + i]} : static_cast<int64_t>(c.addrs[static_cast<size_t>(i)]);
        block(out, old, extent_of(c.types[static_cast<size_t>(i)]), at, c.ints[1 + i]);
      }
      return out;
    }
    case MPI_COMBINER_SUBARRAY:
      return subarray(c, depth);
    default:
      return by_packing(t);
  }
}

MPI_Datatype basic_of(MPI_Datatype t, int depth) {
  if (depth > 64) return MPI_DATATYPE_NULL;
  Contents c(t);
  if (c.combiner == MPI_COMBINER_NAMED) return t;
  if (c.combiner == MPI_COMBINER_F90_REAL || c.combiner == MPI_COMBINER_F90_COMPLEX ||
      c.combiner == MPI_COMBINER_F90_INTEGER)
    return t;
  MPI_Datatype found = MPI_DATATYPE_NULL;
  for (MPI_Datatype inner : c.types) {
    MPI_Datatype b = basic_of(inner, depth + 1);
    if (b == MPI_DATATYPE_NULL || (found != MPI_DATATYPE_NULL && b != found)) return MPI_DATATYPE_NULL;
    found = b;
  }
  return found;
}

}  // namespace

std::vector<Run> flatten(MPI_Datatype t, int64_t count) {
  std::vector<Run> out;
  if (count <= 0 || type_size(t) == 0) return out;
  if (type_is_contiguous(t)) {
    emit(out, 0, static_cast<int64_t>(type_size(t)) * count);
    return out;
  }
  const std::vector<Run> one = element(t, 0);
  const int64_t ext = extent_of(t);
  out.reserve(one.size() * static_cast<size_t>(std::min<int64_t>(count, 1 << 16)));
  for (int64_t i = 0; i < count; ++i) emit_all(out, one, i * ext);
  return out;
}

namespace {
// The attribute is created once; a cached list is set once per datatype and never replaced (MPI deletes
// the old value of a replaced attribute, which would free a list another thread is walking). The mutex
// makes the first computation for a type exclusive; lookups of a cached list take no lock.
std::mutex g_runs_mutex;
std::atomic<int> g_runs_keyval{MPI_KEYVAL_INVALID};
int delete_runs(MPI_Datatype, int, void* value, void*) {
  delete static_cast<std::vector<Run>*>(value);
  return MPI_SUCCESS;
}
const std::vector<Run>* cached_runs(MPI_Datatype t, int keyval) {
  void* value = nullptr;
  int found = 0;
  check(PMPI_Type_get_attr(t, keyval, &value, &found), "MPI_Type_get_attr");
  return found ? static_cast<const std::vector<Run>*>(value) : nullptr;
}
}  // namespace

const std::vector<Run>& element_runs(MPI_Datatype t, int64_t* extent) {
  *extent = extent_of(t);
  int keyval = g_runs_keyval.load(std::memory_order_acquire);
  if (keyval != MPI_KEYVAL_INVALID)
    if (const std::vector<Run>* runs = cached_runs(t, keyval)) return *runs;
  std::lock_guard<std::mutex> lock(g_runs_mutex);
  keyval = g_runs_keyval.load(std::memory_order_relaxed);
  if (keyval == MPI_KEYVAL_INVALID) {
    check(PMPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, delete_runs, &keyval, nullptr), "MPI_Type_create_keyval");
    g_runs_keyval.store(keyval, std::memory_order_release);
  }
  if (const std::vector<Run>* runs = cached_runs(t, keyval)) return *runs;  // another thread computed it
  auto* runs = new std::vector<Run>(element(t, 0));
  int rc = PMPI_Type_set_attr(t, keyval, runs);
  if (rc != MPI_SUCCESS) {
    delete runs;
    check(rc, "MPI_Type_set_attr");
  }
  return *runs;
}

// memcpy of a run; the common short lengths as fixed-size copies (one load and store each)
inline void copy_run(void* to, const void* from, int64_t n) {
  switch (n) {
    case 1: std::memcpy(to, from, 1); break;
    case 2: std::memcpy(to, from, 2); break;
    case 4: std::memcpy(to, from, 4); break;
    case 8: std::memcpy(to, from, 8); break;
    case 16: std::memcpy(to, from, 16); break;
    default: std::memcpy(to, from, static_cast<size_t>(n)); break;
  }
}

void gather_elements(const void* base, int64_t count, MPI_Datatype t, void* out) {
  int64_t ext = 0;
  const std::vector<Run>& runs = element_runs(t, &ext);
  char* o = static_cast<char*>(out);
  const uintptr_t b = reinterpret_cast<uintptr_t>(base);  // integer arithmetic: base may be MPI_BOTTOM
  for (int64_t i = 0; i < count; ++i)
    for (const Run& r : runs) {
      copy_run(o, reinterpret_cast<const void*>(b + static_cast<uintptr_t>(i * ext + r.offset)), r.length);
      o += r.length;
    }
}

void scatter_elements(const void* in, uint64_t bytes, void* base, int64_t count, MPI_Datatype t) {
  int64_t ext = 0;
  const std::vector<Run>& runs = element_runs(t, &ext);
  const char* src = static_cast<const char*>(in);
  const uintptr_t b = reinterpret_cast<uintptr_t>(base);
  uint64_t left = bytes;
  for (int64_t i = 0; i < count && left > 0; ++i)
    for (const Run& r : runs) {
      if (left == 0) break;
      const uint64_t n = std::min<uint64_t>(static_cast<uint64_t>(r.length), left);
      copy_run(reinterpret_cast<void*>(b + static_cast<uintptr_t>(i * ext + r.offset)), src, static_cast<int64_t>(n));
      src += n;
      left -= n;
    }
}

int64_t runs_bytes(const std::vector<Run>& runs) {
  int64_t n = 0;
  for (const Run& r : runs) n += r.length;
  return n;
}

void gather_runs(const void* base, const std::vector<Run>& runs, void* out) {
  char* o = static_cast<char*>(out);
  const uintptr_t b = reinterpret_cast<uintptr_t>(base);  // integer arithmetic: base may be MPI_BOTTOM
  for (const Run& r : runs) {
    std::memcpy(o, reinterpret_cast<const void*>(b + static_cast<uintptr_t>(r.offset)), static_cast<size_t>(r.length));
    o += r.length;
  }
}

void scatter_runs(const void* in, const std::vector<Run>& runs, void* base) {
  const char* i = static_cast<const char*>(in);
  const uintptr_t b = reinterpret_cast<uintptr_t>(base);
  for (const Run& r : runs) {
    std::memcpy(reinterpret_cast<void*>(b + static_cast<uintptr_t>(r.offset)), i, static_cast<size_t>(r.length));
    i += r.length;
  }
}

MPI_Datatype basic_type(MPI_Datatype t) { return basic_of(t, 0); }

bool type_is_named(MPI_Datatype t) {
  if (t == MPI_DATATYPE_NULL) return true;
  int ni = 0, na = 0, nd = 0, combiner = 0;
  check(PMPI_Type_get_envelope(t, &ni, &na, &nd, &combiner), "MPI_Type_get_envelope");
  return combiner == MPI_COMBINER_NAMED;
}

MPI_Datatype type_keep(MPI_Datatype t) {
  if (type_is_named(t)) return t;
  MPI_Datatype d = MPI_DATATYPE_NULL;
  check(PMPI_Type_dup(t, &d), "MPI_Type_dup");
  return d;
}

void type_release(MPI_Datatype t) {
  if (type_is_named(t)) return;
  PMPI_Type_free(&t);
}

std::string error_text(int code) {
  char text[MPI_MAX_ERROR_STRING] = {0};
  int len = 0;
  if (PMPI_Error_string(code, text, &len) != MPI_SUCCESS) return "error code " + std::to_string(code);
  return text;
}

void call_failed(int rc, const char* call) { throw MpiError(rc, std::string("native ") + call + " failed: " + error_text(rc)); }

MPI_Info info_create() {
  MPI_Info info = MPI_INFO_NULL;
  check(PMPI_Info_create(&info), "MPI_Info_create");
  return info;
}

#if defined(XSIM_NATIVE_OPENMPI)
namespace {
// A fixed table of predefined handles: a handle travels as 1 + its index (0: the null handle).
template <class H>
struct WireTable {
  const H* handles;
  size_t n;
  H null;
  int error_class;   // and what it is, for the error on a handle outside the table
  const char* what;
  int32_t to_wire(H h) const {
    if (h == null) return 0;
    for (size_t i = 0; i < n; ++i)
      if (handles[i] == h) return static_cast<int32_t>(i + 1);
    throw MpiError(error_class, std::string("a ") + what + " that is not predefined cannot travel between native processes");
  }
  H from_wire(int32_t w) const { return w <= 0 || static_cast<size_t>(w) > n ? null : handles[w - 1]; }
};
// Every predefined datatype an accumulate may name (MPI 3.1, C and Fortran), in a fixed order.
const WireTable<MPI_Datatype>& wire_types() {
  static const MPI_Datatype table[] = {
      MPI_CHAR, MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR, MPI_BYTE, MPI_WCHAR, MPI_SHORT, MPI_UNSIGNED_SHORT, MPI_INT,
      MPI_UNSIGNED, MPI_LONG, MPI_UNSIGNED_LONG, MPI_LONG_LONG_INT, MPI_UNSIGNED_LONG_LONG, MPI_FLOAT, MPI_DOUBLE,
      MPI_LONG_DOUBLE, MPI_INT8_T, MPI_INT16_T, MPI_INT32_T, MPI_INT64_T, MPI_UINT8_T, MPI_UINT16_T, MPI_UINT32_T,
      MPI_UINT64_T, MPI_C_BOOL, MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX, MPI_C_LONG_DOUBLE_COMPLEX, MPI_AINT,
      MPI_OFFSET, MPI_COUNT, MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT, MPI_2INT, MPI_SHORT_INT,
      MPI_LONG_DOUBLE_INT, MPI_PACKED, MPI_CHARACTER, MPI_LOGICAL, MPI_INTEGER, MPI_REAL, MPI_DOUBLE_PRECISION,
      MPI_COMPLEX, MPI_DOUBLE_COMPLEX, MPI_INTEGER1, MPI_INTEGER2, MPI_INTEGER4, MPI_INTEGER8, MPI_REAL4, MPI_REAL8,
      MPI_2INTEGER, MPI_2REAL, MPI_2DOUBLE_PRECISION, MPI_CXX_BOOL, MPI_CXX_FLOAT_COMPLEX, MPI_CXX_DOUBLE_COMPLEX,
      MPI_CXX_LONG_DOUBLE_COMPLEX, MPI_LONG_LONG, MPI_UNSIGNED_LONG_LONG};
  static const WireTable<MPI_Datatype> wire{table, sizeof table / sizeof table[0], MPI_DATATYPE_NULL, MPI_ERR_TYPE,
                                            "datatype"};
  return wire;
}
const WireTable<MPI_Op>& wire_ops() {
  static const MPI_Op table[] = {MPI_MAX,  MPI_MIN,  MPI_SUM,  MPI_PROD,   MPI_LAND,   MPI_BAND,    MPI_LOR,
                                 MPI_BOR,  MPI_LXOR, MPI_BXOR, MPI_MINLOC, MPI_MAXLOC, MPI_REPLACE, MPI_NO_OP};
  static const WireTable<MPI_Op> wire{table, sizeof table / sizeof table[0], MPI_OP_NULL, MPI_ERR_OP,
                                      "reduction operation"};
  return wire;
}
}  // namespace

int32_t type_to_wire(MPI_Datatype t) { return wire_types().to_wire(t); }
MPI_Datatype type_from_wire(int32_t w) { return wire_types().from_wire(w); }
int32_t op_to_wire(MPI_Op op) { return wire_ops().to_wire(op); }
MPI_Op op_from_wire(int32_t w) { return wire_ops().from_wire(w); }
#else
int32_t type_to_wire(MPI_Datatype t) { return static_cast<int32_t>(t); }
MPI_Datatype type_from_wire(int32_t w) { return static_cast<MPI_Datatype>(w); }
int32_t op_to_wire(MPI_Op op) { return static_cast<int32_t>(op); }
MPI_Op op_from_wire(int32_t w) { return static_cast<MPI_Op>(w); }
#endif

}  // namespace xsim::native
