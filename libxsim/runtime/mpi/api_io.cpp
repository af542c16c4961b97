// MPI-IO entry points: argument checks, handle translation and statuses in front of io.cpp;
// docs/mpi-io.md has the semantics and the storage cost model. Errors go to the file's error handler,
// MPI_ERRORS_RETURN unless MPI_File_set_errhandler chose otherwise (MPI_FILE_NULL's handler for
// MPI_File_open, MPI_File_delete and invalid handles), as the standard prescribes for files.
// Layer: libxsim/runtime/mpi (xsim_mpi); runs on the calling rank's fiber.
#include <cstring>

#include "api_support.hpp"
#include "handles.hpp"
#include "io.hpp"
#include "native/datatype.hpp"
#include "native/exchange.hpp"
#include "native/flatten.hpp"
#include "object_guard.hpp"

using namespace xsim;

namespace {

template <class F>
int file_call(const char* name, MPI_File fh, F&& body) {
  return object_guarded(name, "file", [fh] { return io::errhandler_of(fh); }, [&] { body(io::check(fh)); });
}

void io_status(MPI_Status* st, int64_t bytes) {
  if (st == MPI_STATUS_IGNORE) return;
  st->MPI_SOURCE = MPI_PROC_NULL;
  st->MPI_TAG = MPI_ANY_TAG;
  st->MPI_ERROR = MPI_SUCCESS;
  native::set_status_count(st, static_cast<uint64_t>(bytes), false);
}

int data(const char* name, MPI_File fh, io::At at, MPI_Offset offset, const void* buf, int count, MPI_Datatype type,
         bool write, bool collective, MPI_Status* st, MPI_Request* req) {
  return file_call(name, fh, [&](io::File& f) {
    int id = -1;
    int64_t bytes =
        io::access(f, at, offset, const_cast<void*>(buf), count, type, write, collective, req ? &id : nullptr, name);
    if (req)
      *req = to_handle(id);
    else
      io_status(st, bytes);
  });
}

// Split collectives: *_begin performs the collective access (MPI lets it block) and *_end hands its status.
int split_begin(const char* name, MPI_File fh, io::At at, MPI_Offset offset, const void* buf, int count,
                MPI_Datatype type, bool write) {
  return file_call(name, fh, [&](io::File& f) {
    io::FileRank& me = io::mine(f);
    if (me.split_active) fail(MPI_ERR_OTHER, std::string(name) + " while another split collective is active on the file");
    me.split_bytes = io::access(f, at, offset, const_cast<void*>(buf), count, type, write, true, nullptr, name);
    me.split_active = true;
  });
}

int split_end(const char* name, MPI_File fh, MPI_Status* st) {
  return file_call(name, fh, [&](io::File& f) {
    io::FileRank& me = io::mine(f);
    if (!me.split_active) fail(MPI_ERR_OTHER, std::string(name) + " without its *_begin");
    me.split_active = false;
    io_status(st, me.split_bytes);
  });
}

}  // namespace

// ---- files -----------------------------------------------------------------------------------------------

XSIM_API int MPI_File_open(MPI_Comm comm, const char* filename, int amode, MPI_Info, MPI_File* fh) {
  return object_guarded("MPI_File_open", "file", [] { return io::errhandler_of(MPI_FILE_NULL); }, [&] {
    *fh = MPI_FILE_NULL;
    *fh = io::open(check_comm(comm), filename, amode);
  });
}

XSIM_API int MPI_File_close(MPI_File* fh) {
  return file_call("MPI_File_close", *fh, [&](io::File& f) {
    io::close(f);
    *fh = MPI_FILE_NULL;
  });
}

XSIM_API int MPI_File_delete(const char* filename, MPI_Info) {
  return object_guarded("MPI_File_delete", "file", [] { return io::errhandler_of(MPI_FILE_NULL); },
                        [&] { io::remove(filename); });
}

XSIM_API int MPI_File_set_size(MPI_File fh, MPI_Offset size) {
  return file_call("MPI_File_set_size", fh, [&](io::File& f) { io::set_size(f, size); });
}
XSIM_API int MPI_File_preallocate(MPI_File fh, MPI_Offset size) {
  return file_call("MPI_File_preallocate", fh, [&](io::File& f) { io::preallocate(f, size); });
}
XSIM_API int MPI_File_get_size(MPI_File fh, MPI_Offset* size) {
  return file_call("MPI_File_get_size", fh, [&](io::File& f) { *size = io::get_size(f); });
}
XSIM_API int MPI_File_sync(MPI_File fh) {
  return file_call("MPI_File_sync", fh, [&](io::File& f) { io::sync(f); });
}

XSIM_API int MPI_File_get_group(MPI_File fh, MPI_Group* group) {
  return file_call("MPI_File_get_group", fh, [&](io::File& f) {
    Group g;
    g.size = f.comm->size;
    for (int i = 0; i < g.size; ++i) g.members.push_back(f.comm->world_of(i));
    *group = group_create(std::move(g));
  });
}
XSIM_API int MPI_File_get_amode(MPI_File fh, int* amode) {
  return file_call("MPI_File_get_amode", fh, [&](io::File& f) { *amode = f.amode; });
}
XSIM_API int MPI_File_set_info(MPI_File fh, MPI_Info) {
  return file_call("MPI_File_set_info", fh, [&](io::File&) {});  // hints change nothing in the model
}
XSIM_API int MPI_File_get_info(MPI_File fh, MPI_Info* info) {
  return file_call("MPI_File_get_info", fh, [&](io::File&) { *info = native::info_create(); });
}
XSIM_API int MPI_File_set_atomicity(MPI_File fh, int flag) {
  return file_call("MPI_File_set_atomicity", fh, [&](io::File& f) { io::set_atomicity(f, flag != 0); });
}
XSIM_API int MPI_File_get_atomicity(MPI_File fh, int* flag) {
  return file_call("MPI_File_get_atomicity", fh, [&](io::File& f) { *flag = f.atomic ? 1 : 0; });
}
XSIM_API int MPI_File_get_type_extent(MPI_File fh, MPI_Datatype type, MPI_Aint* extent) {
  return file_call("MPI_File_get_type_extent", fh, [&](io::File&) {
    check_type(type);
    *extent = native::type_extent(type).extent;  // the native representation: as in memory
  });
}

// ---- views -----------------------------------------------------------------------------------------------

XSIM_API int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                               const char* datarep, MPI_Info) {
  return file_call("MPI_File_set_view", fh, [&](io::File& f) { io::set_view(f, disp, etype, filetype, datarep); });
}

XSIM_API int MPI_File_get_view(MPI_File fh, MPI_Offset* disp, MPI_Datatype* etype, MPI_Datatype* filetype,
                               char* datarep) {
  return file_call("MPI_File_get_view", fh, [&](io::File& f) {
    const io::View& v = io::mine(f).view;
    *disp = v.disp;
    *etype = native::type_keep(v.etype);  // derived types: a new handle the application frees
    *filetype = native::type_keep(v.filetype);
    std::memcpy(datarep, v.datarep.c_str(), v.datarep.size() + 1);
  });
}

XSIM_API int MPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset* disp) {
  return file_call("MPI_File_get_byte_offset", fh, [&](io::File& f) { *disp = io::byte_offset(f, offset); });
}

// ---- data access: explicit offsets -----------------------------------------------------------------------

XSIM_API int MPI_File_read_at(MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype type,
                              MPI_Status* st) {
  return data("MPI_File_read_at", fh, io::At::explicit_offset, offset, buf, count, type, false, false, st, nullptr);
}
XSIM_API int MPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype type,
                                  MPI_Status* st) {
  return data("MPI_File_read_at_all", fh, io::At::explicit_offset, offset, buf, count, type, false, true, st, nullptr);
}
XSIM_API int MPI_File_write_at(MPI_File fh, MPI_Offset offset, const void* buf, int count, MPI_Datatype type,
                               MPI_Status* st) {
  return data("MPI_File_write_at", fh, io::At::explicit_offset, offset, buf, count, type, true, false, st, nullptr);
}
XSIM_API int MPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void* buf, int count, MPI_Datatype type,
                                   MPI_Status* st) {
  return data("MPI_File_write_at_all", fh, io::At::explicit_offset, offset, buf, count, type, true, true, st, nullptr);
}
XSIM_API int MPI_File_iread_at(MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype type,
                               MPI_Request* req) {
  return data("MPI_File_iread_at", fh, io::At::explicit_offset, offset, buf, count, type, false, false, nullptr, req);
}
XSIM_API int MPI_File_iwrite_at(MPI_File fh, MPI_Offset offset, const void* buf, int count, MPI_Datatype type,
                                MPI_Request* req) {
  return data("MPI_File_iwrite_at", fh, io::At::explicit_offset, offset, buf, count, type, true, false, nullptr, req);
}

// ---- data access: individual file pointers -----------------------------------------------------------------

XSIM_API int MPI_File_read(MPI_File fh, void* buf, int count, MPI_Datatype type, MPI_Status* st) {
  return data("MPI_File_read", fh, io::At::individual, 0, buf, count, type, false, false, st, nullptr);
}
XSIM_API int MPI_File_read_all(MPI_File fh, void* buf, int count, MPI_Datatype type, MPI_Status* st) {
  return data("MPI_File_read_all", fh, io::At::individual, 0, buf, count, type, false, true, st, nullptr);
}
XSIM_API int MPI_File_write(MPI_File fh, const void* buf, int count, MPI_Datatype type, MPI_Status* st) {
  return data("MPI_File_write", fh, io::At::individual, 0, buf, count, type, true, false, st, nullptr);
}
XSIM_API int MPI_File_write_all(MPI_File fh, const void* buf, int count, MPI_Datatype type, MPI_Status* st) {
  return data("MPI_File_write_all", fh, io::At::individual, 0, buf, count, type, true, true, st, nullptr);
}
XSIM_API int MPI_File_iread(MPI_File fh, void* buf, int count, MPI_Datatype type, MPI_Request* req) {
  return data("MPI_File_iread", fh, io::At::individual, 0, buf, count, type, false, false, nullptr, req);
}
XSIM_API int MPI_File_iwrite(MPI_File fh, const void* buf, int count, MPI_Datatype type, MPI_Request* req) {
  return data("MPI_File_iwrite", fh, io::At::individual, 0, buf, count, type, true, false, nullptr, req);
}
XSIM_API int MPI_File_seek(MPI_File fh, MPI_Offset offset, int whence) {
  return file_call("MPI_File_seek", fh, [&](io::File& f) { io::seek(f, offset, whence); });
}
XSIM_API int MPI_File_get_position(MPI_File fh, MPI_Offset* offset) {
  return file_call("MPI_File_get_position", fh, [&](io::File& f) { *offset = io::position(f); });
}

// ---- data access: the shared file pointer ------------------------------------------------------------------

XSIM_API int MPI_File_read_shared(MPI_File fh, void* buf, int count, MPI_Datatype type, MPI_Status* st) {
  return data("MPI_File_read_shared", fh, io::At::shared, 0, buf, count, type, false, false, st, nullptr);
}
XSIM_API int MPI_File_write_shared(MPI_File fh, const void* buf, int count, MPI_Datatype type, MPI_Status* st) {
  return data("MPI_File_write_shared", fh, io::At::shared, 0, buf, count, type, true, false, st, nullptr);
}
XSIM_API int MPI_File_iread_shared(MPI_File fh, void* buf, int count, MPI_Datatype type, MPI_Request* req) {
  return data("MPI_File_iread_shared", fh, io::At::shared, 0, buf, count, type, false, false, nullptr, req);
}
XSIM_API int MPI_File_iwrite_shared(MPI_File fh, const void* buf, int count, MPI_Datatype type, MPI_Request* req) {
  return data("MPI_File_iwrite_shared", fh, io::At::shared, 0, buf, count, type, true, false, nullptr, req);
}
XSIM_API int MPI_File_read_ordered(MPI_File fh, void* buf, int count, MPI_Datatype type, MPI_Status* st) {
  return data("MPI_File_read_ordered", fh, io::At::ordered, 0, buf, count, type, false, true, st, nullptr);
}
XSIM_API int MPI_File_write_ordered(MPI_File fh, const void* buf, int count, MPI_Datatype type, MPI_Status* st) {
  return data("MPI_File_write_ordered", fh, io::At::ordered, 0, buf, count, type, true, true, st, nullptr);
}
XSIM_API int MPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence) {
  return file_call("MPI_File_seek_shared", fh, [&](io::File& f) { io::seek_shared(f, offset, whence); });
}
XSIM_API int MPI_File_get_position_shared(MPI_File fh, MPI_Offset* offset) {
  return file_call("MPI_File_get_position_shared", fh, [&](io::File& f) { *offset = io::position_shared(f); });
}

// ---- split collectives -------------------------------------------------------------------------------------

XSIM_API int MPI_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype type) {
  return split_begin("MPI_File_read_at_all_begin", fh, io::At::explicit_offset, offset, buf, count, type, false);
}
XSIM_API int MPI_File_read_at_all_end(MPI_File fh, void*, MPI_Status* st) {
  return split_end("MPI_File_read_at_all_end", fh, st);
}
XSIM_API int MPI_File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void* buf, int count,
                                         MPI_Datatype type) {
  return split_begin("MPI_File_write_at_all_begin", fh, io::At::explicit_offset, offset, buf, count, type, true);
}
XSIM_API int MPI_File_write_at_all_end(MPI_File fh, const void*, MPI_Status* st) {
  return split_end("MPI_File_write_at_all_end", fh, st);
}
XSIM_API int MPI_File_read_all_begin(MPI_File fh, void* buf, int count, MPI_Datatype type) {
  return split_begin("MPI_File_read_all_begin", fh, io::At::individual, 0, buf, count, type, false);
}
XSIM_API int MPI_File_read_all_end(MPI_File fh, void*, MPI_Status* st) {
  return split_end("MPI_File_read_all_end", fh, st);
}
XSIM_API int MPI_File_write_all_begin(MPI_File fh, const void* buf, int count, MPI_Datatype type) {
  return split_begin("MPI_File_write_all_begin", fh, io::At::individual, 0, buf, count, type, true);
}
XSIM_API int MPI_File_write_all_end(MPI_File fh, const void*, MPI_Status* st) {
  return split_end("MPI_File_write_all_end", fh, st);
}
XSIM_API int MPI_File_read_ordered_begin(MPI_File fh, void* buf, int count, MPI_Datatype type) {
  return split_begin("MPI_File_read_ordered_begin", fh, io::At::ordered, 0, buf, count, type, false);
}
XSIM_API int MPI_File_read_ordered_end(MPI_File fh, void*, MPI_Status* st) {
  return split_end("MPI_File_read_ordered_end", fh, st);
}
XSIM_API int MPI_File_write_ordered_begin(MPI_File fh, const void* buf, int count, MPI_Datatype type) {
  return split_begin("MPI_File_write_ordered_begin", fh, io::At::ordered, 0, buf, count, type, true);
}
XSIM_API int MPI_File_write_ordered_end(MPI_File fh, const void*, MPI_Status* st) {
  return split_end("MPI_File_write_ordered_end", fh, st);
}

// ---- error handlers and handle conversion ------------------------------------------------------------------

XSIM_API int MPI_File_set_errhandler(MPI_File fh, MPI_Errhandler errhandler) {
  return object_guarded("MPI_File_set_errhandler", "file", [fh] { return io::errhandler_of(fh); }, [&] {
    if (errhandler != MPI_ERRORS_RETURN && errhandler != MPI_ERRORS_ARE_FATAL && errhandler != XSIM_ERRORS_ABORT)
      fail(MPI_ERR_ARG, "xsim supports only the predefined error handlers on files");
    if (fh == MPI_FILE_NULL)
      io::set_default_errhandler(errhandler);
    else
      io::mine(io::check(fh)).errhandler = errhandler;
  });
}

XSIM_API int MPI_File_get_errhandler(MPI_File fh, MPI_Errhandler* errhandler) {
  return object_guarded("MPI_File_get_errhandler", "file", [fh] { return io::errhandler_of(fh); }, [&] {
    if (fh != MPI_FILE_NULL) io::check(fh);
    *errhandler = io::errhandler_of(fh);
  });
}

XSIM_API int MPI_File_call_errhandler(MPI_File fh, int errorcode) {
  return object_guarded("MPI_File_call_errhandler", "file", [fh] { return io::errhandler_of(fh); },
                        [&] { fail(errorcode, "MPI_File_call_errhandler"); });
}

// Fortran handles: the index + 1 (0 is MPI_FILE_NULL, in MPICH's and Open MPI's mpif.h alike).
XSIM_API MPI_Fint MPI_File_c2f(MPI_File fh) {
  uint32_t i = 0;
  if (fh == MPI_FILE_NULL || !handles::decode(handles::Kind::File, fh, &i)) return 0;
  return static_cast<MPI_Fint>(i + 1);
}

XSIM_API MPI_File MPI_File_f2c(MPI_Fint fh) {
  if (fh <= 0) return MPI_FILE_NULL;
  return handles::make<MPI_File>(handles::Kind::File, static_cast<uint32_t>(fh - 1));
}
