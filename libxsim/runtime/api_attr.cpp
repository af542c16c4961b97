// Per-rank communicator state: attribute caching (keyvals, copy/delete callbacks, the predefined
// attributes), names and info hints, plus the hooks MPI_Comm_dup/MPI_Comm_free/MPI_Finalize call
// (api_ext.hpp). Layer: libxsim/runtime (api side).
// Contract: attributes, names and info belong to one virtual rank's view of a communicator, kept by
// (world rank, handle); a Comm object shared by local ranks holds none of them. Keyvals live in a
// per-process table (handles 0xa4000000 | index, MPICH's "direct keyval" form) with a reference count:
// the application's handle and every attribute set with the keyval hold one each, so a keyval freed by
// MPI_Comm_free_keyval stays usable by the callbacks of the attributes still set with it. Callbacks run
// on the rank's fiber and may call MPI: state is looked up again after every callback.
#include <cstring>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "api_ext.hpp"
#include "api_support.hpp"

using namespace xsim;

namespace {

Engine& E() { return *g_engine; }

constexpr uint32_t kKeyvalKind = 0xa4000000u;
constexpr uint32_t kKeyvalMask = 0x03ffffffu;

struct Keyval {
  MPI_Comm_copy_attr_function* copy = nullptr;
  MPI_Comm_delete_attr_function* del = nullptr;
  void* extra = nullptr;
  int refs = 0;        // 0: free slot
  bool freed = false;  // MPI_Comm_free_keyval called: the handle is no longer valid
};
std::vector<Keyval> g_keyvals;
std::vector<uint32_t> g_free_keyvals;

struct LocalState {
  bool named = false;
  std::string name;
  std::vector<std::pair<int, void*>> attrs;  // (keyval, value) in the order first set
  MPI_Info info = MPI_INFO_NULL;
};
std::unordered_map<uint64_t, LocalState> g_local;

uint64_t local_key(MPI_Comm c) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(E().current().world)) << 32) | static_cast<uint32_t>(c);
}
LocalState* find_state(MPI_Comm c) {
  auto it = g_local.find(local_key(c));
  return it == g_local.end() ? nullptr : &it->second;
}
LocalState& state(MPI_Comm c) { return g_local[local_key(c)]; }

bool is_builtin_keyval(int kv) { return (static_cast<uint32_t>(kv) & 0xfc000000u) == 0x64000000u; }

Keyval* keyval_entry(int kv) {
  uint32_t u = static_cast<uint32_t>(kv);
  if ((u & ~kKeyvalMask) != kKeyvalKind) return nullptr;
  uint32_t i = u & kKeyvalMask;
  if (i >= g_keyvals.size() || g_keyvals[i].refs <= 0) return nullptr;
  return &g_keyvals[i];
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
  *k = Keyval{};
  g_free_keyvals.push_back(static_cast<uint32_t>(kv) & kKeyvalMask);
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
  g_keyvals[i] = Keyval{copy, del, extra, 1, false};
  return static_cast<int>(kKeyvalKind | i);
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
  void* value = nullptr;
  bool found = false;
  for (auto& [k, v] : s->attrs)
    if (k == kv) value = v, found = true;
  if (!found) return false;
  if (Keyval* k = keyval_entry(kv); k && k->del) {
    int rc = k->del(comm, kv, value, k->extra);
    if (rc != MPI_SUCCESS) fail(rc, "the attribute delete callback of keyval " + std::to_string(kv) + " failed");
  }
  if ((s = find_state(comm))) {  // the callback may have changed the state
    for (size_t i = 0; i < s->attrs.size(); ++i)
      if (s->attrs[i].first == kv) {
        s->attrs.erase(s->attrs.begin() + static_cast<long>(i));
        keyval_unref(kv);
        break;
      }
  }
  return true;
}

void set_attr(MPI_Comm comm, int kv, void* value) {
  check_keyval(kv);
  delete_attr(comm, kv);  // a value already there goes through its delete callback first
  state(comm).attrs.emplace_back(kv, value);
  ++keyval_entry(kv)->refs;
}

void delete_all_attrs(MPI_Comm comm) {
  for (;;) {
    LocalState* s = find_state(comm);
    if (!s || s->attrs.empty()) return;
    delete_attr(comm, s->attrs.back().first);  // last set first
  }
}

// The predefined attributes (same for every rank of the simulation).
int g_tag_ub = 0x7fffffff;
int g_wtime_is_global = 1;  // every rank's clock is the simulation's one virtual time
int g_host = MPI_PROC_NULL;
int g_io = MPI_ANY_SOURCE;
int g_universe_size = 0;
int g_appnum = 0;

void get_attr(MPI_Comm comm, int kv, void* value, int* flag) {
  void** out = static_cast<void**>(value);
  *flag = 0;
  if (is_builtin_keyval(kv)) {
    *flag = 1;
    g_universe_size = static_cast<int>(E().world_size());
    switch (kv) {
      case MPI_TAG_UB: *out = &g_tag_ub; return;
      case MPI_WTIME_IS_GLOBAL: *out = &g_wtime_is_global; return;
      case MPI_HOST: *out = &g_host; return;
      case MPI_IO: *out = &g_io; return;
      case MPI_UNIVERSE_SIZE: *out = &g_universe_size; return;
      case MPI_APPNUM: *out = &g_appnum; return;
      default: {  // e.g. MPI_LASTUSEDCODE: the native MPI keeps the error codes the application added
        int rc = PMPI_Comm_get_attr(MPI_COMM_WORLD, kv, value, flag);
        if (rc != MPI_SUCCESS) fail(rc, "invalid predefined attribute keyval " + std::to_string(kv));
        return;
      }
    }
  }
  check_keyval(kv);
  if (LocalState* s = find_state(comm))
    for (auto& [k, v] : s->attrs)
      if (k == kv) {
        *out = v;
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
  const std::vector<std::pair<int, void*>> attrs = find_state(old)->attrs;  // callbacks may change it
  for (auto& [kv, value] : attrs) {
    Keyval* k = keyval_entry(kv);
    if (!k || !k->copy) continue;  // MPI_COMM_NULL_COPY_FN: not copied
    int flag = 0;
    void* out = nullptr;
    int rc = k->copy(old, kv, k->extra, value, &out, &flag);
    if (rc != MPI_SUCCESS) {
      comm_local_free(dup);
      if (Comm* c = comm_lookup(dup)) comm_release(c);
      fail(rc, "the attribute copy callback of keyval " + std::to_string(kv) + " failed");
    }
    if (flag) {
      state(dup).attrs.emplace_back(kv, out);
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
    int buflen = len + 1;
    PMPI_Info_get_string(info, key, &buflen, value.data(), &flag);
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
