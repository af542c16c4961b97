// MPI-IO inside the simulation: files opened collectively by virtual ranks, read and written for real
// (POSIX pread/pwrite on the named file) at the offsets their views give, with the time each access takes
// charged to the rank's clock by a storage model (latency + bytes / bandwidth: -xsim-io-lat, -xsim-io-bw).
// The shared file pointer lives with rank 0 of the file's group and is updated by engine-applied
// fetch-and-add messages (engine.hpp, family kFamilyIo). Semantics and costs: docs/mpi-io.md.
// Layer: libxsim/runtime/mpi/objects (xsim_mpi). Every function runs on the calling rank's fiber inside an entry point's
// guard and reports errors by throwing MpiErr (the hook excepted, which runs in the scheduler).
#pragma once
#include <mpi.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "comm.hpp"
#include "native/flatten.hpp"
#include "xsim/simtime.hpp"

namespace xsim::io {

constexpr int kFamilyIo = 1;  // Message::src_in_comm of MPI-IO messages (engine.hpp)

// A file view (MPI 4.0 §14.3): the rank sees the file from byte `disp` on as the data bytes of `filetype`
// tiled over and over, counted in etypes.
struct View {
  MPI_Offset disp = 0;
  MPI_Datatype etype = MPI_BYTE;     // held handles (native::type_keep): the application may free its own
  MPI_Datatype filetype = MPI_BYTE;
  int64_t esize = 1;                 // bytes of one etype
  std::vector<native::Run> runs;     // one filetype's data bytes, from its start, in type-map order
  std::vector<int64_t> before;       // data bytes in the runs before each run
  int64_t ft_size = 1;               // data bytes of one filetype
  int64_t ft_extent = 1;             // extent of one filetype (the tiling step)
  bool contiguous = true;            // one run at 0 as long as the extent: file offset = disp + stream offset
  std::string datarep = "native";
};

// One member's part of an open file.
struct FileRank {
  int32_t world = 0;
  int32_t rank = 0;
  View view;
  int64_t fp = 0;                    // individual file pointer, in etypes of the view
  MPI_Errhandler errhandler = MPI_ERRORS_RETURN;
  bool shared_reply = false;         // a shared-pointer answer has arrived
  int64_t shared_value = 0;
  // split collective in progress (MPI_File_*_begin): its outcome, given back by *_end
  bool split_active = false;
  int64_t split_bytes = 0;
};

struct File {
  uint64_t id = 0;                   // also the context of its internal communicator
  MPI_File handle = MPI_FILE_NULL;
  Comm* comm = nullptr;              // internal communicator over the opening group (collective steps)
  std::string path;
  int amode = 0;
  int fd = -1;                       // this native process's descriptor
  bool atomic = false;
  int64_t shared_fp = 0;             // the shared file pointer (etypes); meaningful where rank 0 lives
  std::unordered_map<int32_t, FileRank> local;  // local members by world rank
  int refs = 0;
};

// The file behind `fh` for the current rank (MPI_ERR_FILE when invalid), or nullptr.
File* lookup(MPI_File fh);
File& check(MPI_File fh);
FileRank& mine(File& f);
// The handler for errors on `fh` (MPI_FILE_NULL, or an invalid handle: the rank's default file handler).
MPI_Errhandler errhandler_of(MPI_File fh);
void set_default_errhandler(MPI_Errhandler e);

// Collective over `c`. Returns the handle, or throws MpiErr (every member fails alike).
MPI_File open(Comm& c, const char* filename, int amode);
void close(File& f);                                   // collective; the handle is invalid afterwards
void remove(const char* filename);                     // MPI_File_delete

void set_view(File& f, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype, const char* datarep);
void set_size(File& f, MPI_Offset size);               // collective
void preallocate(File& f, MPI_Offset size);            // collective
MPI_Offset get_size(File& f);
void sync(File& f);                                    // collective
void set_atomicity(File& f, bool atomic);              // collective

// Where a data access starts.
enum class At { explicit_offset, individual, shared, ordered };
// One data access of `count` x `type` at `buf`: positioned per `at` (`offset` for explicit offsets), with
// the collective's synchronization when `collective`. Blocking: the clock moves past the storage time.
// Nonblocking (`request` != nullptr): returns at once with a request completing after the storage time.
// Returns the bytes transferred (a read stops at the end of the file).
int64_t access(File& f, At at, MPI_Offset offset, void* buf, int count, MPI_Datatype type, bool write,
               bool collective, int* request, const char* call);

// File pointers.
void seek(File& f, MPI_Offset offset, int whence);
MPI_Offset position(File& f);
void seek_shared(File& f, MPI_Offset offset, int whence);  // collective
MPI_Offset position_shared(File& f);
MPI_Offset byte_offset(File& f, MPI_Offset offset);

void install_hook();

}  // namespace xsim::io
