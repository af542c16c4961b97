// MPI one-sided communication entry points (windows, epochs, operations) and MPI_Alloc_mem/MPI_Free_mem:
// argument checks and handle translation in front of rma.cpp; docs/rma.md has the semantics and costs.
// Errors go to the window's error handler (MPI_ERRORS_ARE_FATAL unless MPI_Win_set_errhandler chose
// MPI_ERRORS_RETURN). Layer: libxsim/runtime/mpi (xsim_mpi); runs on the calling rank's fiber.
#include <cstdlib>
#include <cstring>

#include "api_support.hpp"
#include "native/flatten.hpp"
#include "object_guard.hpp"
#include "rma.hpp"

using namespace xsim;

namespace {

// The handler of window `win` for the current rank: its own, or MPI_COMM_WORLD's when `win` is invalid.
auto handler_of(MPI_Win win) {
  return [win] {
    rma::Window* w = rma::lookup(win);
    return w ? rma::mine(*w).errhandler : comm_errhandler(MPI_COMM_WORLD);
  };
}

template <class F>
int win_call(const char* name, MPI_Win win, F&& body) {
  return object_guarded(name, "window", handler_of(win), [&] { body(rma::check(win)); });
}

template <class F>
int create_call(const char* name, MPI_Comm comm, F&& body) {
  return guarded(name, comm, [&] { body(check_comm(comm)); });
}

int data_op(const char* name, rma::Op op, rma::Buf origin, rma::Buf result, const void* compare, int target,
            MPI_Aint disp, rma::Buf tgt, MPI_Op mop, MPI_Win win, MPI_Request* req) {
  return win_call(name, win, [&](rma::Window& w) {
    if (req) *req = MPI_REQUEST_NULL;
    int id = rma::operate(w, op, origin, result, compare, target, disp, tgt, mop, req != nullptr, name);
    if (req) *req = to_handle(id);
  });
}

}  // namespace

// ---- windows ---------------------------------------------------------------------------------------------

XSIM_API int MPI_Win_create(void* base, MPI_Aint size, int disp_unit, MPI_Info, MPI_Comm comm, MPI_Win* win) {
  return create_call("MPI_Win_create", comm, [&](Comm& c) {
    if (!base && size > 0) fail(MPI_ERR_BUFFER, "null window memory of " + std::to_string(size) + " bytes");
    *win = rma::create(c, MPI_WIN_FLAVOR_CREATE, &base, size, disp_unit, "MPI_Win_create");
  });
}

XSIM_API int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info, MPI_Comm comm, void* baseptr, MPI_Win* win) {
  return create_call("MPI_Win_allocate", comm, [&](Comm& c) {
    *win = rma::create(c, MPI_WIN_FLAVOR_ALLOCATE, static_cast<void**>(baseptr), size, disp_unit, "MPI_Win_allocate");
  });
}

XSIM_API int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info, MPI_Comm comm, void* baseptr,
                                     MPI_Win* win) {
  return create_call("MPI_Win_allocate_shared", comm, [&](Comm& c) {
    *win = rma::create(c, MPI_WIN_FLAVOR_SHARED, static_cast<void**>(baseptr), size, disp_unit,
                       "MPI_Win_allocate_shared");
  });
}

XSIM_API int MPI_Win_create_dynamic(MPI_Info, MPI_Comm comm, MPI_Win* win) {
  return create_call("MPI_Win_create_dynamic", comm, [&](Comm& c) {
    void* none = nullptr;
    *win = rma::create(c, MPI_WIN_FLAVOR_DYNAMIC, &none, 0, 1, "MPI_Win_create_dynamic");
  });
}

XSIM_API int MPI_Win_attach(MPI_Win win, void* base, MPI_Aint size) {
  return win_call("MPI_Win_attach", win, [&](rma::Window& w) {
    rma::WinRank& me = rma::mine(w);
    if (me.flavor != MPI_WIN_FLAVOR_DYNAMIC) fail(MPI_ERR_RMA_FLAVOR, "MPI_Win_attach needs a dynamic window");
    if (size < 0) fail(MPI_ERR_SIZE, "negative size " + std::to_string(size));
    if (size > 0 && !base) fail(MPI_ERR_BUFFER, "null memory to attach");
    uintptr_t a = reinterpret_cast<uintptr_t>(base);
    for (auto& r : me.attached)
      if (a < r.second && r.first < a + static_cast<uintptr_t>(size))
        fail(MPI_ERR_RMA_ATTACH, "the memory overlaps memory already attached to the window");
    me.attached.emplace_back(a, a + static_cast<uintptr_t>(size));
  });
}

XSIM_API int MPI_Win_detach(MPI_Win win, const void* base) {
  return win_call("MPI_Win_detach", win, [&](rma::Window& w) {
    rma::WinRank& me = rma::mine(w);
    if (me.flavor != MPI_WIN_FLAVOR_DYNAMIC) fail(MPI_ERR_RMA_FLAVOR, "MPI_Win_detach needs a dynamic window");
    uintptr_t a = reinterpret_cast<uintptr_t>(base);
    for (size_t i = 0; i < me.attached.size(); ++i)
      if (me.attached[i].first == a) {
        me.attached.erase(me.attached.begin() + static_cast<long>(i));
        return;
      }
    fail(MPI_ERR_RMA_ATTACH, "no memory attached at this address");
  });
}

XSIM_API int MPI_Win_free(MPI_Win* win) {
  return win_call("MPI_Win_free", *win, [&](rma::Window& w) {
    rma::free_window(w, "MPI_Win_free");
    *win = MPI_WIN_NULL;
  });
}

// ---- synchronization -----------------------------------------------------------------------------------

XSIM_API int MPI_Win_fence(int assert_flags, MPI_Win win) {
  return win_call("MPI_Win_fence", win, [&](rma::Window& w) { rma::fence(w, assert_flags); });
}
XSIM_API int MPI_Win_lock(int lock_type, int rank, int assert_flags, MPI_Win win) {
  return win_call("MPI_Win_lock", win, [&](rma::Window& w) { rma::lock(w, lock_type, rank, assert_flags); });
}
XSIM_API int MPI_Win_unlock(int rank, MPI_Win win) {
  return win_call("MPI_Win_unlock", win, [&](rma::Window& w) { rma::unlock(w, rank); });
}
XSIM_API int MPI_Win_lock_all(int assert_flags, MPI_Win win) {
  return win_call("MPI_Win_lock_all", win, [&](rma::Window& w) { rma::lock_all(w, assert_flags); });
}
XSIM_API int MPI_Win_unlock_all(MPI_Win win) {
  return win_call("MPI_Win_unlock_all", win, [&](rma::Window& w) { rma::unlock_all(w); });
}
XSIM_API int MPI_Win_flush(int rank, MPI_Win win) {
  return win_call("MPI_Win_flush", win, [&](rma::Window& w) { rma::flush(w, rank, false, "MPI_Win_flush"); });
}
XSIM_API int MPI_Win_flush_all(MPI_Win win) {
  return win_call("MPI_Win_flush_all", win, [&](rma::Window& w) { rma::flush(w, rma::kAllTargets, false, "MPI_Win_flush_all"); });
}
XSIM_API int MPI_Win_flush_local(int rank, MPI_Win win) {
  return win_call("MPI_Win_flush_local", win,
                  [&](rma::Window& w) { rma::flush(w, rank, true, "MPI_Win_flush_local"); });
}
XSIM_API int MPI_Win_flush_local_all(MPI_Win win) {
  return win_call("MPI_Win_flush_local_all", win,
                  [&](rma::Window& w) { rma::flush(w, rma::kAllTargets, true, "MPI_Win_flush_local_all"); });
}
XSIM_API int MPI_Win_post(MPI_Group group, int assert_flags, MPI_Win win) {
  return win_call("MPI_Win_post", win,
                  [&](rma::Window& w) { rma::post(w, rma::ranks_of_group(w, group), assert_flags); });
}
XSIM_API int MPI_Win_start(MPI_Group group, int assert_flags, MPI_Win win) {
  return win_call("MPI_Win_start", win,
                  [&](rma::Window& w) { rma::start(w, rma::ranks_of_group(w, group), assert_flags); });
}
XSIM_API int MPI_Win_complete(MPI_Win win) {
  return win_call("MPI_Win_complete", win, [&](rma::Window& w) { rma::complete(w); });
}
XSIM_API int MPI_Win_wait(MPI_Win win) {
  return win_call("MPI_Win_wait", win, [&](rma::Window& w) { rma::wait(w); });
}
XSIM_API int MPI_Win_test(MPI_Win win, int* flag) {
  return win_call("MPI_Win_test", win, [&](rma::Window& w) { *flag = rma::test(w) ? 1 : 0; });
}
XSIM_API int MPI_Win_sync(MPI_Win win) {
  return win_call("MPI_Win_sync", win, [&](rma::Window& w) { rma::sync(w); });
}

// ---- operations ----------------------------------------------------------------------------------------

XSIM_API int MPI_Put(const void* origin_addr, int origin_count, MPI_Datatype origin_type, int target_rank,
                     MPI_Aint target_disp, int target_count, MPI_Datatype target_type, MPI_Win win) {
  return data_op("MPI_Put", rma::kPut, {origin_addr, origin_count, origin_type}, {}, nullptr, target_rank,
                 target_disp, {nullptr, target_count, target_type}, MPI_OP_NULL, win, nullptr);
}
XSIM_API int MPI_Get(void* origin_addr, int origin_count, MPI_Datatype origin_type, int target_rank,
                     MPI_Aint target_disp, int target_count, MPI_Datatype target_type, MPI_Win win) {
  return data_op("MPI_Get", rma::kGet, {}, {origin_addr, origin_count, origin_type}, nullptr, target_rank,
                 target_disp, {nullptr, target_count, target_type}, MPI_OP_NULL, win, nullptr);
}
XSIM_API int MPI_Accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_type, int target_rank,
                            MPI_Aint target_disp, int target_count, MPI_Datatype target_type, MPI_Op op,
                            MPI_Win win) {
  return data_op("MPI_Accumulate", rma::kAcc, {origin_addr, origin_count, origin_type}, {}, nullptr, target_rank,
                 target_disp, {nullptr, target_count, target_type}, op, win, nullptr);
}
XSIM_API int MPI_Get_accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_type,
                                void* result_addr, int result_count, MPI_Datatype result_type, int target_rank,
                                MPI_Aint target_disp, int target_count, MPI_Datatype target_type, MPI_Op op,
                                MPI_Win win) {
  return data_op("MPI_Get_accumulate", rma::kGetAcc, {origin_addr, origin_count, origin_type},
                 {result_addr, result_count, result_type}, nullptr, target_rank, target_disp,
                 {nullptr, target_count, target_type}, op, win, nullptr);
}
XSIM_API int MPI_Fetch_and_op(const void* origin_addr, void* result_addr, MPI_Datatype type, int target_rank,
                              MPI_Aint target_disp, MPI_Op op, MPI_Win win) {
  return data_op("MPI_Fetch_and_op", rma::kGetAcc, {origin_addr, 1, type}, {result_addr, 1, type}, nullptr,
                 target_rank, target_disp, {nullptr, 1, type}, op, win, nullptr);
}
XSIM_API int MPI_Compare_and_swap(const void* origin_addr, const void* compare_addr, void* result_addr,
                                  MPI_Datatype type, int target_rank, MPI_Aint target_disp, MPI_Win win) {
  return data_op("MPI_Compare_and_swap", rma::kCas, {origin_addr, 1, type}, {result_addr, 1, type}, compare_addr,
                 target_rank, target_disp, {nullptr, 1, type}, MPI_REPLACE, win, nullptr);
}
XSIM_API int MPI_Rput(const void* origin_addr, int origin_count, MPI_Datatype origin_type, int target_rank,
                      MPI_Aint target_disp, int target_count, MPI_Datatype target_type, MPI_Win win,
                      MPI_Request* req) {
  return data_op("MPI_Rput", rma::kPut, {origin_addr, origin_count, origin_type}, {}, nullptr, target_rank,
                 target_disp, {nullptr, target_count, target_type}, MPI_OP_NULL, win, req);
}
XSIM_API int MPI_Rget(void* origin_addr, int origin_count, MPI_Datatype origin_type, int target_rank,
                      MPI_Aint target_disp, int target_count, MPI_Datatype target_type, MPI_Win win,
                      MPI_Request* req) {
  return data_op("MPI_Rget", rma::kGet, {}, {origin_addr, origin_count, origin_type}, nullptr, target_rank,
                 target_disp, {nullptr, target_count, target_type}, MPI_OP_NULL, win, req);
}
XSIM_API int MPI_Raccumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_type, int target_rank,
                             MPI_Aint target_disp, int target_count, MPI_Datatype target_type, MPI_Op op,
                             MPI_Win win, MPI_Request* req) {
  return data_op("MPI_Raccumulate", rma::kAcc, {origin_addr, origin_count, origin_type}, {}, nullptr, target_rank,
                 target_disp, {nullptr, target_count, target_type}, op, win, req);
}
XSIM_API int MPI_Rget_accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_type,
                                 void* result_addr, int result_count, MPI_Datatype result_type, int target_rank,
                                 MPI_Aint target_disp, int target_count, MPI_Datatype target_type, MPI_Op op,
                                 MPI_Win win, MPI_Request* req) {
  return data_op("MPI_Rget_accumulate", rma::kGetAcc, {origin_addr, origin_count, origin_type},
                 {result_addr, result_count, result_type}, nullptr, target_rank, target_disp,
                 {nullptr, target_count, target_type}, op, win, req);
}

// ---- queries ---------------------------------------------------------------------------------------------

XSIM_API int MPI_Win_get_attr(MPI_Win win, int keyval, void* attribute_val, int* flag) {
  return win_call("MPI_Win_get_attr", win, [&](rma::Window& w) {
    rma::WinRank& me = rma::mine(w);
    // Predefined attributes are returned by pointer (the base: the pointer itself), as MPI specifies; the
    // values live as long as the window.
    static_assert(sizeof(MPI_Aint) == sizeof(void*));
    *flag = 1;
    switch (keyval) {
      case MPI_WIN_BASE: *static_cast<void**>(attribute_val) = me.base; break;
      case MPI_WIN_SIZE: *static_cast<MPI_Aint**>(attribute_val) = &me.size; break;
      case MPI_WIN_DISP_UNIT: *static_cast<int**>(attribute_val) = &me.disp_unit; break;
      case MPI_WIN_CREATE_FLAVOR: *static_cast<int**>(attribute_val) = &me.flavor; break;
      case MPI_WIN_MODEL: *static_cast<int**>(attribute_val) = &me.model; break;
      default: *flag = 0; break;  // user attributes are not kept on windows
    }
  });
}

XSIM_API int MPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint* size, int* disp_unit, void* baseptr) {
  return win_call("MPI_Win_shared_query", win, [&](rma::Window& w) {
    if (w.flavor != MPI_WIN_FLAVOR_SHARED)
      fail(MPI_ERR_RMA_FLAVOR, "MPI_Win_shared_query needs a window from MPI_Win_allocate_shared");
    int r = rank;
    if (rank == MPI_PROC_NULL) {  // the lowest rank with memory
      r = 0;
      while (r < w.comm->size - 1 && w.sizes[static_cast<size_t>(r)] == 0) ++r;
    } else if (rank < 0 || rank >= w.comm->size) {
      fail(MPI_ERR_RANK, "invalid rank " + std::to_string(rank));
    }
    *size = static_cast<MPI_Aint>(w.sizes[static_cast<size_t>(r)]);
    *disp_unit = w.disp_units[static_cast<size_t>(r)];
    *static_cast<void**>(baseptr) = w.segment + w.seg_offset[static_cast<size_t>(r)];
  });
}

XSIM_API int MPI_Win_get_group(MPI_Win win, MPI_Group* group) {
  return win_call("MPI_Win_get_group", win, [&](rma::Window& w) {
    Group g;
    g.size = w.comm->size;
    for (int i = 0; i < g.size; ++i) g.members.push_back(w.comm->world_of(i));
    *group = group_create(std::move(g));
  });
}

XSIM_API int MPI_Win_set_name(MPI_Win win, const char* name) {
  return win_call("MPI_Win_set_name", win, [&](rma::Window& w) {
    rma::mine(w).name = std::string(name).substr(0, MPI_MAX_OBJECT_NAME - 1);
  });
}

XSIM_API int MPI_Win_get_name(MPI_Win win, char* name, int* resultlen) {
  return win_call("MPI_Win_get_name", win, [&](rma::Window& w) {
    const std::string& n = rma::mine(w).name;
    std::memcpy(name, n.c_str(), n.size() + 1);
    *resultlen = static_cast<int>(n.size());
  });
}

XSIM_API int MPI_Win_get_info(MPI_Win win, MPI_Info* info) {
  return win_call("MPI_Win_get_info", win, [&](rma::Window&) { *info = native::info_create(); });
}

XSIM_API int MPI_Win_set_info(MPI_Win win, MPI_Info) {
  return win_call("MPI_Win_set_info", win, [&](rma::Window&) {});  // hints change nothing in the model
}

XSIM_API int MPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler) {
  return win_call("MPI_Win_set_errhandler", win, [&](rma::Window& w) {
    if (errhandler != MPI_ERRORS_RETURN && errhandler != MPI_ERRORS_ARE_FATAL && errhandler != XSIM_ERRORS_ABORT)
      fail(MPI_ERR_ARG, "xsim supports only the predefined error handlers on windows");
    rma::mine(w).errhandler = errhandler;
  });
}

XSIM_API int MPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler* errhandler) {
  return win_call("MPI_Win_get_errhandler", win, [&](rma::Window& w) { *errhandler = rma::mine(w).errhandler; });
}

XSIM_API int MPI_Win_call_errhandler(MPI_Win win, int errorcode) {
  return win_call("MPI_Win_call_errhandler", win, [&](rma::Window&) {
    fail(errorcode, "MPI_Win_call_errhandler");
  });
}

// ---- memory ----------------------------------------------------------------------------------------------

XSIM_API int MPI_Alloc_mem(MPI_Aint size, MPI_Info, void* baseptr) {
  return guarded("MPI_Alloc_mem", MPI_COMM_WORLD, [&] {
    if (size < 0) fail(MPI_ERR_SIZE, "negative size " + std::to_string(size));
    void* p = nullptr;
    if (posix_memalign(&p, 64, static_cast<size_t>(size > 0 ? size : 1)) != 0)
      fail(MPI_ERR_NO_MEM, "cannot allocate " + std::to_string(size) + " bytes");
    *static_cast<void**>(baseptr) = p;
  });
}

XSIM_API int MPI_Free_mem(void* base) {
  return guarded("MPI_Free_mem", MPI_COMM_WORLD, [&] { std::free(base); });
}
