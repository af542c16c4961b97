// Per-rank communicator state: attribute caching (keyvals, copy/delete callbacks, the predefined
// attributes), names and info hints, plus the hooks MPI_Comm_dup/MPI_Comm_free/MPI_Finalize call
// (api_ext.hpp). Layer: libxsim/runtime/mpi (xsim_mpi).
// Contract: attributes, names and info belong to one virtual rank's view of a communicator, kept by
// (world rank, handle); a Comm object shared by local ranks holds none of them. Keyvals live in a
// per-process table (handles 0xa4000000 | index, MPICH's "direct keyval" form) with a reference count:
// the application's handle and every attribute set with the keyval hold one each, so a keyval freed by
// MPI_Comm_free_keyval stays usable by the callbacks of the attributes still set with it. Callbacks run
// on the rank's fiber and may call MPI: state is looked up again after every callback.
// MPICH's Fortran bindings do not call MPI_Comm_get_attr/MPI_Comm_set_attr but MPICH-internal entry points
// (MPII_Comm_get_attr, MPII_Comm_set_attr, MPII_Keyval_set_proxy); xsim defines those too, so Fortran
// attributes live here as well: an attribute records how it was set (a C pointer, or a Fortran integer),
// and a Fortran keyval's callbacks are called through the "proxy" MPICH's bindings register for it. Calls
// made outside a rank, or by the native MPI itself, go on to the native definitions.
#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "api_ext.hpp"
#include "api_support.hpp"
#include "handles.hpp"

using namespace xsim;

namespace {

Engine& E() { return *g_engine; }

// Keyval handles: MPICH's keyval object kind with the "invalid" handle kind and index + 1, a form MPICH
// never hands out (its own comm/type/win keyvals are 0xa4000000 | index), so the two never meet.
constexpr uint32_t kKeyvalKind = 0x24000000u;
constexpr uint32_t kKeyvalMask = 0x03ffffffu;

// How an attribute value was given (MPICH's MPIR_Attr_type): a C pointer, or a Fortran integer of address
// size (MPI_COMM_SET_ATTR) or of default size (MPI_ATTR_PUT).
enum AttrKind : int { kAttrPtr = 0, kAttrAint = 1, kAttrInt = 3 };
// The callbacks MPICH's Fortran bindings register for a Fortran keyval (MPII_Attr_copy_proxy and
// MPII_Attr_delete_proxy): they call the Fortran function with Fortran's conventions.
// (MPICH only: with Open MPI they stay null.)
using CopyProxy = int(MPI_Comm_copy_attr_function* fn, MPI_Comm handle, int keyval, void* extra, int kind,
                      void* value, void** out, int* flag);
using DeleteProxy = int(MPI_Comm_delete_attr_function* fn, MPI_Comm handle, int keyval, int kind, void* value,
                        void* extra);

struct Keyval {
  MPI_Comm_copy_attr_function* copy = nullptr;
  MPI_Comm_delete_attr_function* del = nullptr;
  void* extra = nullptr;
  CopyProxy* copy_proxy = nullptr;   // set for Fortran keyvals
  DeleteProxy* del_proxy = nullptr;
  int refs = 0;        // 0: free slot
  bool freed = false;  // MPI_Comm_free_keyval called: the handle is no longer valid
  void (*release)(void* extra) = nullptr;  // called with `extra` once the keyval is gone (xsim_keyval_set_release)
};
std::vector<Keyval> g_keyvals;
std::vector<uint32_t> g_free_keyvals;
// At process exit (before g_keyvals goes), the extra state of keyvals the application never freed is
// released too: xsim's own Fortran records would otherwise leak.
struct ReleaseAtExit {
  ~ReleaseAtExit() {
    for (Keyval& k : g_keyvals)
      if (k.refs > 0 && k.release) k.release(k.extra);
  }
} g_release_at_exit;

struct Attr {
  int kv;
  void* value;
  int kind;  // AttrKind
};

struct LocalState {
  bool named = false;
  std::string name;
  std::vector<Attr> attrs;  // in the order first set
  MPI_Info info = MPI_INFO_NULL;
};
std::unordered_map<uint64_t, LocalState> g_local;

uint64_t local_key(MPI_Comm c) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(E().current().world)) << 32) | handles::comm_number(c);
}
LocalState* find_state(MPI_Comm c) {
  auto it = g_local.find(local_key(c));
  return it == g_local.end() ? nullptr : &it->second;
}
LocalState& state(MPI_Comm c) { return g_local[local_key(c)]; }

// The predefined attribute keyvals: MPICH's 0x64400001..., Open MPI's enum from MPI_TAG_UB (0) to IMPI_HOST_COLOR.
#if defined(XSIM_NATIVE_OPENMPI)
bool is_builtin_keyval(int kv) { return kv >= MPI_TAG_UB && kv <= IMPI_HOST_COLOR; }
#else
bool is_builtin_keyval(int kv) { return (static_cast<uint32_t>(kv) & 0xfc000000u) == 0x64000000u; }
#endif

Keyval* keyval_entry(int kv) {
  uint32_t u = static_cast<uint32_t>(kv);
  if ((u & ~kKeyvalMask) != kKeyvalKind) return nullptr;
  uint32_t i = u & kKeyvalMask;
  if (i == 0 || i > g_keyvals.size() || g_keyvals[i - 1].refs <= 0) return nullptr;
  return &g_keyvals[i - 1];
}

// A keyval handle the application may use (not freed).
Keyval& check_keyval(int kv) {
  Keyval* k = keyval_entry(kv);
  if (!k || k->freed) fail(MPI_ERR_KEYVAL, "invalid attribute keyval " + std::to_string(kv));
  return *k;
}

void keyval_unref(int kv) {
  Keyval* k = keyval_entry(kv);
  if (!k || --k->refs > 0) return;
  void (*release)(void*) = k->release;
  void* extra = k->extra;
  *k = Keyval{};
  g_free_keyvals.push_back((static_cast<uint32_t>(kv) & kKeyvalMask) - 1);
  if (release) release(extra);
}

int keyval_create(MPI_Comm_copy_attr_function* copy, MPI_Comm_delete_attr_function* del, void* extra) {
  uint32_t i;
  if (!g_free_keyvals.empty()) {
    i = g_free_keyvals.back();
    g_free_keyvals.pop_back();
  } else {
    i = static_cast<uint32_t>(g_keyvals.size());
    g_keyvals.emplace_back();
  }
  g_keyvals[i] = Keyval{copy, del, extra, nullptr, nullptr, 1, false, nullptr};
  return static_cast<int>(kKeyvalKind | (i + 1));
}

void keyval_free(int* kv) {
  Keyval& k = check_keyval(*kv);
  k.freed = true;
  keyval_unref(*kv);
  *kv = MPI_KEYVAL_INVALID;
}

// Removes attribute `kv` from `comm` after its delete callback succeeded; false when it is not set.
bool delete_attr(MPI_Comm comm, int kv) {
  LocalState* s = find_state(comm);
  if (!s) return false;
  const Attr* a = nullptr;
  for (const Attr& x : s->attrs)
    if (x.kv == kv) a = &x;
  if (!a) return false;
  const Attr found = *a;
  if (Keyval* k = keyval_entry(kv); k && k->del) {
    int rc = k->del_proxy ? k->del_proxy(k->del, comm, kv, found.kind, found.value, k->extra)
                          : k->del(comm, kv, found.value, k->extra);
    if (rc != MPI_SUCCESS) fail(rc, "the attribute delete callback of keyval " + std::to_string(kv) + " failed");
  }
  if ((s = find_state(comm))) {  // the callback may have changed the state
    for (size_t i = 0; i < s->attrs.size(); ++i)
      if (s->attrs[i].kv == kv) {
        s->attrs.erase(s->attrs.begin() + static_cast<long>(i));
        keyval_unref(kv);
        break;
      }
  }
  return true;
}

void set_attr(MPI_Comm comm, int kv, void* value, int kind = kAttrPtr) {
  check_keyval(kv);
  delete_attr(comm, kv);  // a value already there goes through its delete callback first
  state(comm).attrs.push_back(Attr{kv, value, kind});
  ++keyval_entry(kv)->refs;
}

void delete_all_attrs(MPI_Comm comm) {
  for (;;) {
    LocalState* s = find_state(comm);
    if (!s || s->attrs.empty()) return;
    delete_attr(comm, s->attrs.back().kv);  // last set first
  }
}

// The predefined attributes (same for every rank of the simulation).
int g_tag_ub = 0x7fffffff;
int g_wtime_is_global = 1;  // every rank's clock is the simulation's one virtual time
int g_host = MPI_PROC_NULL;
int g_io = MPI_ANY_SOURCE;
int g_universe_size = 0;
int g_appnum = 0;
bool g_in_native = false;  // inside a native attribute call (MPII_* calls then go to the native MPI)

// The storage of predefined attribute `kv` (the C keyval), or nullptr for one xsim leaves to the native MPI.
int* predefined(int kv) {
  g_universe_size = static_cast<int>(E().world_size());
  switch (kv) {
    case MPI_TAG_UB: return &g_tag_ub;
    case MPI_WTIME_IS_GLOBAL: return &g_wtime_is_global;
    case MPI_HOST: return &g_host;
    case MPI_IO: return &g_io;
    case MPI_UNIVERSE_SIZE: return &g_universe_size;
    case MPI_APPNUM: return &g_appnum;
    default: return nullptr;
  }
}

// A predefined attribute the native MPI keeps (MPI_LASTUSEDCODE: the error codes the application added).
void native_predefined(int kv, void* value, int* flag) {
  g_in_native = true;
  int rc = PMPI_Comm_get_attr(MPI_COMM_WORLD, kv, value, flag);
  g_in_native = false;
  if (rc != MPI_SUCCESS) fail(rc, "invalid predefined attribute keyval " + std::to_string(kv));
}

void get_attr(MPI_Comm comm, int kv, void* value, int* flag) {
  void** out = static_cast<void**>(value);
  *flag = 0;
  if (is_builtin_keyval(kv)) {
    if (int* p = predefined(kv)) {
      *out = p;
      *flag = 1;
    } else {
      native_predefined(kv, value, flag);
    }
    return;
  }
  check_keyval(kv);
  if (LocalState* s = find_state(comm))
    for (const Attr& a : s->attrs)
      if (a.kv == kv) {
        *out = a.value;
        *flag = 1;
        return;
      }
}

void refuse_builtin(int kv, const char* what) {
  if (is_builtin_keyval(kv))
    fail(MPI_ERR_KEYVAL, std::string("predefined attributes cannot be ") + what + " (keyval " + std::to_string(kv) + ")");
}

void drop_info(LocalState& s) {
  if (s.info != MPI_INFO_NULL) PMPI_Info_free(&s.info);
  s.info = MPI_INFO_NULL;
}

}  // namespace

namespace xsim {

void comm_inherit_errhandler(MPI_Comm parent, MPI_Comm child) {
  if (child == MPI_COMM_NULL) return;
  MPI_Errhandler e = comm_errhandler(parent);
  if (e == MPI_ERRORS_ARE_FATAL) return;
  errhandler_ref(e);
  comm_set_errhandler(child, e);
}

void comm_local_dup(MPI_Comm old, MPI_Comm dup, bool copy_info) {
  comm_inherit_errhandler(old, dup);
  LocalState* s = find_state(old);
  if (!s) return;
  if (copy_info && s->info != MPI_INFO_NULL) PMPI_Info_dup(s->info, &state(dup).info);
  const std::vector<Attr> attrs = find_state(old)->attrs;  // callbacks may change it
  for (const Attr& a : attrs) {
    const int kv = a.kv;
    Keyval* k = keyval_entry(kv);
    if (!k || !k->copy) continue;  // MPI_COMM_NULL_COPY_FN: not copied
    int flag = 0;
    void* out = nullptr;
    int rc = k->copy_proxy ? k->copy_proxy(k->copy, old, kv, k->extra, a.kind, a.value, &out, &flag)
                           : k->copy(old, kv, k->extra, a.value, &out, &flag);
    if (rc != MPI_SUCCESS) {
      comm_local_free(dup);
      if (Comm* c = comm_lookup(dup)) comm_release(c);
      fail(rc, "the attribute copy callback of keyval " + std::to_string(kv) + " failed");
    }
    if (flag) {
      state(dup).attrs.push_back(Attr{kv, out, a.kind});
      ++keyval_entry(kv)->refs;
    }
  }
}

void comm_local_free(MPI_Comm c) {
  delete_all_attrs(c);
  if (LocalState* s = find_state(c)) {
    drop_info(*s);
    g_local.erase(local_key(c));
  }
  errhandler_unref(comm_errhandler(c));
  auto& list = rank_extra().errhandlers;
  for (size_t i = 0; i < list.size(); ++i)
    if (list[i].first == c) {
      list.erase(list.begin() + static_cast<long>(i));
      break;
    }
}

void comm_local_finalize() { delete_all_attrs(MPI_COMM_SELF); }

void comm_local_set_info(MPI_Comm c, MPI_Info info) {
  if (info == MPI_INFO_NULL) return;
  LocalState& s = state(c);
  if (s.info == MPI_INFO_NULL) PMPI_Info_create(&s.info);
  int n = 0;
  PMPI_Info_get_nkeys(info, &n);
  for (int i = 0; i < n; ++i) {
    char key[MPI_MAX_INFO_KEY + 1] = "";
    PMPI_Info_get_nthkey(info, i, key);
    int len = 0, flag = 0;
    PMPI_Info_get_valuelen(info, key, &len, &flag);
    std::vector<char> value(static_cast<size_t>(len) + 1, '\0');
    native::info_get_value(info, key, len, value.data(), &flag);
    PMPI_Info_set(s.info, key, value.data());
  }
}

}  // namespace xsim

// ---- keyvals ------------------------------------------------------------------------------------------

XSIM_API int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function* copy, MPI_Comm_delete_attr_function* del,
                                    int* keyval, void* extra) {
  return guarded("MPI_Comm_create_keyval", MPI_COMM_WORLD, [&] { *keyval = keyval_create(copy, del, extra); });
}

XSIM_API int MPI_Comm_free_keyval(int* keyval) {
  return guarded("MPI_Comm_free_keyval", MPI_COMM_WORLD, [&] { keyval_free(keyval); });
}

// xsim's own Fortran bindings (fortran/special.c) keep a record of the Fortran callbacks in a keyval's extra
// state: `release` frees it once the keyval is gone (MPI_Comm_free_keyval called and no attribute left set
// with it). Returns 0, and keeps nothing, for a keyval that is not one of xsim's.
extern "C" int xsim_keyval_set_release(int keyval, void (*release)(void* extra)) {
  Keyval* k = keyval_entry(keyval);
  if (!k) return 0;
  k->release = release;
  return 1;
}

// MPI-1 forms: MPI_Copy_function and MPI_Delete_function have the communicator callbacks' signatures.
XSIM_API int MPI_Keyval_create(MPI_Copy_function* copy, MPI_Delete_function* del, int* keyval, void* extra) {
  return guarded("MPI_Keyval_create", MPI_COMM_WORLD, [&] {
    *keyval = keyval_create(reinterpret_cast<MPI_Comm_copy_attr_function*>(copy),
                            reinterpret_cast<MPI_Comm_delete_attr_function*>(del), extra);
  });
}

XSIM_API int MPI_Keyval_free(int* keyval) {
  return guarded("MPI_Keyval_free", MPI_COMM_WORLD, [&] { keyval_free(keyval); });
}

// ---- attributes ---------------------------------------------------------------------------------------

XSIM_API int MPI_Comm_set_attr(MPI_Comm comm, int keyval, void* value) {
  return guarded("MPI_Comm_set_attr", comm, [&] {
    check_comm(comm);
    refuse_builtin(keyval, "set");
    set_attr(comm, keyval, value);
  });
}

XSIM_API int MPI_Attr_put(MPI_Comm comm, int keyval, void* value) {
  return guarded("MPI_Attr_put", comm, [&] {
    check_comm(comm);
    refuse_builtin(keyval, "set");
    set_attr(comm, keyval, value);
  });
}

XSIM_API int MPI_Comm_get_attr(MPI_Comm comm, int keyval, void* value, int* flag) {
  return guarded("MPI_Comm_get_attr", comm, [&] {
    check_comm(comm);
    get_attr(comm, keyval, value, flag);
  });
}

XSIM_API int MPI_Attr_get(MPI_Comm comm, int keyval, void* value, int* flag) {
  return guarded("MPI_Attr_get", comm, [&] {
    check_comm(comm);
    get_attr(comm, keyval, value, flag);
  });
}

XSIM_API int MPI_Comm_delete_attr(MPI_Comm comm, int keyval) {
  return guarded("MPI_Comm_delete_attr", comm, [&] {
    check_comm(comm);
    refuse_builtin(keyval, "deleted");
    check_keyval(keyval);
    delete_attr(comm, keyval);
  });
}

XSIM_API int MPI_Attr_delete(MPI_Comm comm, int keyval) {
  return guarded("MPI_Attr_delete", comm, [&] {
    check_comm(comm);
    refuse_builtin(keyval, "deleted");
    check_keyval(keyval);
    delete_attr(comm, keyval);
  });
}

// ---- names --------------------------------------------------------------------------------------------

XSIM_API int MPI_Comm_set_name(MPI_Comm comm, const char* name) {
  return guarded("MPI_Comm_set_name", comm, [&] {
    Comm& c = check_comm(comm);
    if (!name) fail(MPI_ERR_ARG, "the name is NULL");
    LocalState& s = state(comm);
    s.named = true;
    s.name.assign(name, strnlen(name, MPI_MAX_OBJECT_NAME - 1));
    c.name = s.name;  // diagnostics only (describe_comm); the name MPI reports is the rank's own
  });
}

XSIM_API int MPI_Comm_get_name(MPI_Comm comm, char* name, int* len) {
  return guarded("MPI_Comm_get_name", comm, [&] {
    check_comm(comm);
    std::string n;
    if (LocalState* s = find_state(comm); s && s->named) n = s->name;
    else if (comm == MPI_COMM_WORLD) n = "MPI_COMM_WORLD";
    else if (comm == MPI_COMM_SELF) n = "MPI_COMM_SELF";
    std::memcpy(name, n.c_str(), n.size() + 1);
    *len = static_cast<int>(n.size());
  });
}

// ---- info hints ---------------------------------------------------------------------------------------
// xsim keeps every hint it is given (none changes what it does) and reports them back.

XSIM_API int MPI_Comm_set_info(MPI_Comm comm, MPI_Info info) {
  return guarded("MPI_Comm_set_info", comm, [&] {
    check_comm(comm);
    comm_local_set_info(comm, info);
  });
}

XSIM_API int MPI_Comm_get_info(MPI_Comm comm, MPI_Info* info) {
  return guarded("MPI_Comm_get_info", comm, [&] {
    check_comm(comm);
    LocalState* s = find_state(comm);
    int rc = s && s->info != MPI_INFO_NULL ? PMPI_Info_dup(s->info, info) : PMPI_Info_create(info);
    if (rc != MPI_SUCCESS) fail(rc, "the native MPI could not create the info object");
  });
}

#if defined(XSIM_NATIVE_MPICH)
// ---- MPICH's Fortran bindings ------------------------------------------------------------------------------
// libmpichfort reaches attributes through these MPICH-internal functions (their MPICH 4 signatures; `kind`
// is MPIR_Attr_type). Predefined attributes asked with a Fortran keyval (the C keyval + 1) are returned by
// value, as MPICH does; user attributes come back as stored (the binding converts them).

namespace {
template <class F>
F native_fn(const char* name) {
  void* f = dlsym(RTLD_NEXT, name);
  if (!f) {
    std::fprintf(stderr, "xsim: the native MPI does not define %s (MPICH's Fortran bindings need it)\n", name);
    std::abort();
  }
  return reinterpret_cast<F>(f);
}
bool to_native() { return g_in_native || !g_engine || !g_engine->in_rank(); }
}  // namespace

extern "C" __attribute__((visibility("default"))) int MPII_Comm_get_attr(MPI_Comm comm, int kv, void* value,
                                                                          int* flag, int kind) {
  using Fn = int (*)(MPI_Comm, int, void*, int*, int);
  if (to_native()) return native_fn<Fn>("MPII_Comm_get_attr")(comm, kv, value, flag, kind);
  return guarded("MPI_Comm_get_attr", comm, [&] {
    check_comm(comm);
    const bool fortran_builtin = is_builtin_keyval(kv) && (kv & 1) == 0;
    if (!fortran_builtin) return get_attr(comm, kv, value, flag);
    int* p = predefined(kv - 1);
    int v = 0;
    if (p) {
      v = *p;
      *flag = 1;
    } else {
      int* q = nullptr;
      native_predefined(kv - 1, &q, flag);
      if (*flag && q) v = *q;
    }
    *static_cast<intptr_t*>(value) = v;
  });
}

extern "C" __attribute__((visibility("default"))) int MPII_Comm_set_attr(MPI_Comm comm, int kv, void* value,
                                                                          int kind) {
  using Fn = int (*)(MPI_Comm, int, void*, int);
  if (to_native()) return native_fn<Fn>("MPII_Comm_set_attr")(comm, kv, value, kind);
  return guarded("MPI_Comm_set_attr", comm, [&] {
    check_comm(comm);
    refuse_builtin(kv, "set");
    set_attr(comm, kv, value, kind);
  });
}

extern "C" __attribute__((visibility("default"))) void MPII_Keyval_set_proxy(int kv, CopyProxy* copy,
                                                                              DeleteProxy* del) {
  Keyval* k = keyval_entry(kv);
  if (!k) {  // a datatype or window keyval: the native MPI's
    using Fn = void (*)(int, CopyProxy*, DeleteProxy*);
    native_fn<Fn>("MPII_Keyval_set_proxy")(kv, copy, del);
    return;
  }
  k->copy_proxy = copy;
  k->del_proxy = del;
}
#endif  // XSIM_NATIVE_MPICH
