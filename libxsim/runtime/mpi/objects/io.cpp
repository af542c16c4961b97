// MPI-IO inside the simulation (io.hpp; the model is docs/mpi-io.md).
// Files are real: each native process opens the named file once per collective open and its ranks access
// it with pread/pwrite at the offsets their views give. Collective steps (open, close, set_view, set_size,
// the collective data accesses...) are algorithms over virtual messages on a hidden communicator of the
// file's group, so they cost what the network model says; each data access then costs the rank
//   storage latency + bytes / storage bandwidth            (-xsim-io-lat, -xsim-io-bw)
// The shared file pointer is held by rank 0 of the group: MPI_File_*_shared send it an engine-applied
// fetch-and-add, applied by rank 0's process at its arrival time whatever rank 0 is doing; the ordered
// calls gather the sizes at rank 0, which hands out the offsets. Layer: libxsim/runtime/mpi/objects (xsim_mpi).
#include "io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "api_support.hpp"
#include "handles.hpp"
#include "coll/collectives.hpp"
#include "native/datatype.hpp"
#include "native/exchange.hpp"
#include "options.hpp"
#include "sim_transport.hpp"
#include "xsim/netmodel/network.hpp"

namespace xsim::io {

using native::Run;

namespace {

using handles::Kind;

std::vector<File*> g_files;  // by handle index
std::vector<uint32_t> g_free_files;
std::unordered_map<uint64_t, File*> g_by_id;
std::unordered_map<int32_t, MPI_Errhandler> g_default_errh;  // MPI_FILE_NULL's handler, per rank

enum Op : int32_t { kFetchAdd = 1, kFetchReply = 2 };

Engine& E() { return *g_engine; }

// Storage time of one access of `bytes` (docs/mpi-io.md).
SimTime storage_time(uint64_t bytes) {
  const Options& o = E().options();
  return o.io_latency + net::Network::transfer_time(bytes, o.io_bandwidth_bps);
}

void charge(SimTime t) {
  E().current().clock += t;
  E().clock_moved();
}

int error_class_of(int err) {
  switch (err) {
    case ENOENT: return MPI_ERR_NO_SUCH_FILE;
    case EEXIST: return MPI_ERR_FILE_EXISTS;
    case EACCES:
    case EPERM: return MPI_ERR_ACCESS;
    case ENOSPC: return MPI_ERR_NO_SPACE;
    case EROFS: return MPI_ERR_READ_ONLY;
    case EDQUOT: return MPI_ERR_QUOTA;
    case EISDIR:
    case ENOTDIR:
    case ENAMETOOLONG: return MPI_ERR_BAD_FILE;
    default: return MPI_ERR_IO;
  }
}

// ROMIO accepts a file-system prefix ("ufs:/tmp/x"); every file here is a POSIX file.
std::string strip_prefix(const char* name) {
  std::string s = name;
  for (const char* p : {"ufs:", "nfs:", "lustre:", "gpfs:", "pvfs2:", "testfs:", "xfs:", "panfs:", "daos:"})
    if (s.rfind(p, 0) == 0) return s.substr(std::strlen(p));
  return s;
}

std::string file_name(const File& f) { return "file " + f.path; }

void barrier(File& f, const char* call) {
  SimTransport t(*f.comm, call);
  coll::barrier(t);
}

// Rank 0 of the group did something that may fail; everybody learns its outcome (and waits for it).
int64_t bcast_from_root(File& f, int64_t value, const char* call) {
  SimTransport t(*f.comm, call);
  coll::bcast(t, &value, 1, MPI_INT64_T, 0);
  return value;
}

// A collective step done by rank 0 alone: once every rank has arrived (so that their earlier accesses and
// shared-pointer requests are complete), rank 0 runs `fn`, then every rank learns its result (so nobody
// goes on before it happened). Costs a barrier and a broadcast.
template <class Fn>
int64_t root_step(File& f, const FileRank& me, const char* call, Fn&& fn) {
  barrier(f, call);
  int64_t value = me.rank == 0 ? fn() : 0;
  return bcast_from_root(f, value, call);
}

void release_rank(File& f, FileRank& me) {
  native::type_release(me.view.etype);
  native::type_release(me.view.filetype);
  f.local.erase(me.world);
  comm_release(f.comm);
  if (--f.refs > 0) return;
  if (f.fd >= 0) ::close(f.fd);
  g_by_id.erase(f.id);
  uint32_t idx = 0;
  handles::decode(Kind::File, f.handle, &idx);
  g_files[idx] = nullptr;
  g_free_files.push_back(idx);
  delete &f;
}

// ---- views -----------------------------------------------------------------------------------------------

// Calls fn(file offset, stream offset relative to `stream`, bytes) for the file pieces holding the view's
// data bytes [stream, stream + len), adjacent pieces merged.
template <class Fn>
void for_each_piece(const View& v, int64_t stream, int64_t len, Fn&& fn) {
  if (len <= 0) return;
  if (v.contiguous) {
    fn(v.disp + stream, int64_t{0}, len);
    return;
  }
  int64_t tile = stream / v.ft_size, within = stream % v.ft_size;
  size_t k = static_cast<size_t>(std::upper_bound(v.before.begin(), v.before.end(), within) - v.before.begin()) - 1;
  int64_t done = 0, pend_file = -1, pend_at = 0, pend_n = 0;
  while (done < len) {
    const Run& r = v.runs[k];
    const int64_t in_run = within - v.before[k];
    const int64_t n = std::min(r.length - in_run, len - done);
    const int64_t at = v.disp + tile * v.ft_extent + r.offset + in_run;
    if (pend_n && pend_file + pend_n == at) {
      pend_n += n;
    } else {
      if (pend_n) fn(pend_file, pend_at, pend_n);
      pend_file = at;
      pend_at = done;
      pend_n = n;
    }
    done += n;
    within += n;
    if (in_run + n == r.length && ++k == v.runs.size()) {
      k = 0;
      ++tile;
      within = 0;
    }
  }
  if (pend_n) fn(pend_file, pend_at, pend_n);
}

// The view position (etypes) of the end of a file of `size` bytes: the view's data bytes below it, rounded
// up to whole etypes.
int64_t eof_position(const View& v, int64_t size) {
  if (size <= v.disp) return 0;
  const int64_t rel = size - v.disp;
  int64_t stream;
  if (v.contiguous) {
    stream = rel;
  } else {
    const int64_t tiles = rel / v.ft_extent, rest = rel % v.ft_extent;
    stream = tiles * v.ft_size;
    for (const Run& r : v.runs) stream += std::clamp<int64_t>(rest - r.offset, 0, r.length);
  }
  return (stream + v.esize - 1) / v.esize;
}

int64_t file_size(const File& f) {
  struct stat st;
  if (fstat(f.fd, &st) != 0) fail(error_class_of(errno), "cannot stat " + f.path + ": " + std::strerror(errno));
  return static_cast<int64_t>(st.st_size);
}

// ---- the shared file pointer -----------------------------------------------------------------------------

struct SharedMsg {
  int64_t value;  // kFetchAdd: the increment (etypes); kFetchReply: the pointer before it
};

Message* make(Op op, uint64_t id, int64_t value) {
  Message* m = Message::create(sizeof(SharedMsg));
  m->ctx = id;
  m->tag = op;
  m->src_in_comm = kFamilyIo;
  SharedMsg s{value};
  std::memcpy(m->payload(), &s, sizeof s);
  return m;
}

void hook(Message* m) {
  SharedMsg s;
  std::memcpy(&s, m->payload(), sizeof s);
  auto fi = g_by_id.find(m->ctx);
  if (fi != g_by_id.end()) {
    File& f = *fi->second;
    if (m->tag == kFetchAdd) {  // at rank 0's process
      int64_t old = f.shared_fp;
      f.shared_fp += s.value;
      E().send_applied_from(make(kFetchReply, f.id, old), m->dst, m->src, m->t_arrive, sizeof(int64_t));
    } else if (auto it = f.local.find(m->dst); it != f.local.end()) {
      it->second.shared_value = s.value;
      it->second.shared_reply = true;
      E().wake(m->dst, m->t_arrive);
    }
  }
  Message::destroy(m);
}

// Adds `delta` etypes to the shared pointer; returns its value before (a round trip to rank 0).
int64_t fetch_add(File& f, FileRank& me, int64_t delta, const char* call) {
  me.shared_reply = false;
  E().send_applied(make(kFetchAdd, f.id, delta), f.comm->world_of(0), sizeof(int64_t));
  E().wait_until([&] { return me.shared_reply; }, BlockInfo{call, 0, kAnyTag, f.comm->handle});
  return me.shared_value;
}

// The ordered calls: rank 0 gathers the sizes, hands out consecutive offsets from the shared pointer and
// moves it past them all.
int64_t ordered_position(File& f, FileRank& me, int64_t netypes, const char* call) {
  SimTransport t(*f.comm, call);
  const int n = f.comm->size;
  std::vector<int64_t> counts(me.rank == 0 ? static_cast<size_t>(n) : 0), starts(counts.size());
  coll::gather(t, &netypes, 1, MPI_INT64_T, counts.data(), 1, MPI_INT64_T, 0);
  if (me.rank == 0) {
    int64_t at = f.shared_fp;
    for (int i = 0; i < n; ++i) {
      starts[static_cast<size_t>(i)] = at;
      at += counts[static_cast<size_t>(i)];
    }
    f.shared_fp = at;
  }
  int64_t mine = 0;
  coll::scatter(t, starts.data(), 1, MPI_INT64_T, &mine, 1, MPI_INT64_T, 0);
  return mine;
}

// ---- the bytes ---------------------------------------------------------------------------------------------

void write_all(const File& f, const char* data, int64_t n, int64_t at) {
  while (n > 0) {
    ssize_t w = pwrite(f.fd, data, static_cast<size_t>(n), at);
    if (w < 0) {
      if (errno == EINTR) continue;
      fail(error_class_of(errno), "cannot write " + f.path + ": " + std::strerror(errno));
    }
    data += w;
    n -= w;
    at += w;
  }
}

// Returns the bytes read (fewer at the end of the file).
int64_t read_some(const File& f, char* data, int64_t n, int64_t at) {
  int64_t got = 0;
  while (got < n) {
    ssize_t r = pread(f.fd, data + got, static_cast<size_t>(n - got), at + got);
    if (r < 0) {
      if (errno == EINTR) continue;
      fail(error_class_of(errno), "cannot read " + f.path + ": " + std::strerror(errno));
    }
    if (r == 0) break;
    got += r;
  }
  return got;
}

// Moves `bytes` between the application's buffer and the view's data bytes from `stream` on.
int64_t transfer(const File& f, const View& v, int64_t stream, void* buf, int count, MPI_Datatype type,
                 int64_t bytes, bool write) {
  if (bytes == 0) return 0;
  const bool direct = native::type_is_contiguous(type);
  std::vector<char> packed(direct ? 0 : static_cast<size_t>(bytes));
  char* data = direct ? static_cast<char*>(buf) : packed.data();
  if (write) {
    if (!direct) native::pack(buf, count, type, data);
    for_each_piece(v, stream, bytes, [&](int64_t at, int64_t from, int64_t n) { write_all(f, data + from, n, at); });
    return bytes;
  }
  int64_t done = 0;
  bool short_read = false;
  for_each_piece(v, stream, bytes, [&](int64_t at, int64_t from, int64_t n) {
    if (short_read) return;
    int64_t got = read_some(f, data + from, n, at);
    done = from + got;
    if (got < n) short_read = true;
  });
  if (!direct && done > 0) native::unpack(data, static_cast<uint64_t>(done), buf, count, type);
  return done;
}

}  // namespace

void install_hook() { E().set_applied_hook(kFamilyIo, &hook); }

File* lookup(MPI_File fh) {
  uint32_t i = 0;
  if (!handles::decode(Kind::File, fh, &i) || i >= g_files.size() || !g_files[i]) return nullptr;
  File* f = g_files[i];
  return f->local.count(E().current().world) ? f : nullptr;
}

File& check(MPI_File fh) {
  if (fh == MPI_FILE_NULL) fail(MPI_ERR_FILE, "the file handle is MPI_FILE_NULL");
  File* f = lookup(fh);
  if (!f) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "invalid file handle %p", static_cast<void*>(fh));
    fail(MPI_ERR_FILE, buf);
  }
  return *f;
}

FileRank& mine(File& f) { return f.local.at(E().current().world); }

MPI_Errhandler errhandler_of(MPI_File fh) {
  if (File* f = lookup(fh)) return mine(*f).errhandler;
  auto it = g_default_errh.find(E().current().world);
  return it == g_default_errh.end() ? MPI_ERRORS_RETURN : it->second;
}

void set_default_errhandler(MPI_Errhandler e) { g_default_errh[E().current().world] = e; }

MPI_File open(Comm& c, const char* filename, int amode) {
  install_hook();
  if (c.is_inter) fail(MPI_ERR_COMM, "MPI_File_open on an intercommunicator");
  if (!filename) fail(MPI_ERR_BAD_FILE, "null file name");
  const int access = amode & (MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR);
  if (access != MPI_MODE_RDONLY && access != MPI_MODE_WRONLY && access != MPI_MODE_RDWR)
    fail(MPI_ERR_AMODE, "the access mode needs exactly one of MPI_MODE_RDONLY, MPI_MODE_WRONLY, MPI_MODE_RDWR");
  if (access == MPI_MODE_RDONLY && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL)))
    fail(MPI_ERR_AMODE, "MPI_MODE_RDONLY with MPI_MODE_CREATE or MPI_MODE_EXCL");
  if (access == MPI_MODE_RDWR && (amode & MPI_MODE_SEQUENTIAL))
    fail(MPI_ERR_AMODE, "MPI_MODE_RDWR with MPI_MODE_SEQUENTIAL");
  std::vector<int32_t> members(static_cast<size_t>(c.size));
  for (int i = 0; i < c.size; ++i) members[static_cast<size_t>(i)] = c.world_of(i);
  const uint64_t id = comm_next_id(c, 0xf11e);
  File*& slot = g_by_id[id];
  if (!slot) {
    slot = new File();
    slot->id = id;
    slot->path = strip_prefix(filename);
    slot->amode = amode;
    uint32_t idx;
    if (!g_free_files.empty()) {
      idx = g_free_files.back();
      g_free_files.pop_back();
      g_files[idx] = slot;
    } else {
      idx = static_cast<uint32_t>(g_files.size());
      g_files.push_back(slot);
    }
    slot->handle = handles::make<MPI_File>(Kind::File, idx);
  }
  File& f = *slot;
  f.comm = comm_join(id, members);
  ++f.refs;
  const int32_t world = E().current().world;
  FileRank& me = f.local[world];
  me.world = world;
  me.rank = f.comm->rank_of_world(world);
  me.errhandler = errhandler_of(MPI_FILE_NULL);  // a new file starts with MPI_FILE_NULL's handler
  const int flags = access == MPI_MODE_RDONLY ? O_RDONLY : access == MPI_MODE_WRONLY ? O_WRONLY : O_RDWR;
  int64_t err = 0;
  if (me.rank == 0) {  // creates the file if asked: the others open it once they hear that it exists
    charge(E().options().io_latency);
    if (f.fd < 0) {
      f.fd = ::open(f.path.c_str(), flags | O_CLOEXEC | (amode & MPI_MODE_CREATE ? O_CREAT : 0) |
                                       (amode & MPI_MODE_EXCL ? O_EXCL : 0), 0666);
      if (f.fd < 0) err = errno;
    }
  }
  err = bcast_from_root(f, err, "MPI_File_open");
  if (!err && f.fd < 0) {
    f.fd = ::open(f.path.c_str(), flags | O_CLOEXEC);
    if (f.fd < 0) err = errno;
  }
  if (err) {
    std::string path = f.path;
    release_rank(f, me);
    fail(error_class_of(static_cast<int>(err)), "cannot open " + path + ": " + std::strerror(static_cast<int>(err)));
  }
  if (amode & MPI_MODE_APPEND) {  // every file pointer starts at the end (the initial view counts bytes)
    me.fp = file_size(f);
    if (me.rank == 0) f.shared_fp = me.fp;
  }
  return f.handle;
}

void close(File& f) {
  FileRank& me = mine(f);
  if (me.split_active) fail(MPI_ERR_OTHER, "MPI_File_close with a split collective still open on " + file_name(f));
  barrier(f, "MPI_File_close");
  charge(E().options().io_latency);
  if (me.rank == 0 && (f.amode & MPI_MODE_DELETE_ON_CLOSE)) ::unlink(f.path.c_str());
  release_rank(f, me);
}

void remove(const char* filename) {
  if (!filename) fail(MPI_ERR_BAD_FILE, "null file name");
  std::string path = strip_prefix(filename);
  charge(E().options().io_latency);
  if (::unlink(path.c_str()) != 0)
    fail(error_class_of(errno), "cannot delete " + path + ": " + std::strerror(errno));
}

void set_view(File& f, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype, const char* datarep) {
  FileRank& me = mine(f);
  check_type(etype);
  check_type(filetype);
  std::string rep = datarep ? datarep : "";
  if (rep != "native" && rep != "internal")
    fail(MPI_ERR_UNSUPPORTED_DATAREP, "data representation \"" + rep + "\" (xsim supports \"native\" and \"internal\")");
  if (disp == MPI_DISPLACEMENT_CURRENT)
    fail(MPI_ERR_ARG, "MPI_DISPLACEMENT_CURRENT is not supported by xsim");
  if (disp < 0) fail(MPI_ERR_ARG, "negative displacement " + std::to_string(disp));
  View v;
  v.disp = disp;
  v.esize = static_cast<int64_t>(native::type_size(etype));
  v.ft_size = static_cast<int64_t>(native::type_size(filetype));
  v.ft_extent = native::type_extent(filetype).extent;
  if (v.esize <= 0) fail(MPI_ERR_ARG, "the etype has no data");
  if (v.ft_size <= 0 || v.ft_extent <= 0) fail(MPI_ERR_ARG, "the filetype has no data or no positive extent");
  if (v.ft_size % v.esize != 0) fail(MPI_ERR_ARG, "the filetype is not made of whole etypes");
  v.runs = native::flatten(filetype, 1);
  int64_t sum = 0;
  for (const Run& r : v.runs) {
    if (r.offset < 0) fail(MPI_ERR_TYPE, "the filetype has data at a negative displacement");
    v.before.push_back(sum);
    sum += r.length;
  }
  v.contiguous = v.runs.size() == 1 && v.runs[0].offset == 0 && v.runs[0].length == v.ft_extent;
  v.datarep = rep;
  v.etype = native::type_keep(etype);
  v.filetype = native::type_keep(filetype);
  native::type_release(me.view.etype);
  native::type_release(me.view.filetype);
  me.view = std::move(v);
  me.fp = 0;
  root_step(f, me, "MPI_File_set_view", [&] {
    f.shared_fp = 0;
    return int64_t{0};
  });
}

void set_size(File& f, MPI_Offset size) {
  FileRank& me = mine(f);
  if (size < 0) fail(MPI_ERR_ARG, "negative size " + std::to_string(size));
  int64_t err = root_step(f, me, "MPI_File_set_size", [&] { return int64_t{::ftruncate(f.fd, size) != 0 ? errno : 0}; });
  charge(E().options().io_latency);
  if (err) fail(error_class_of(static_cast<int>(err)), "cannot resize " + f.path + ": " + std::strerror(static_cast<int>(err)));
}

void preallocate(File& f, MPI_Offset size) {
  FileRank& me = mine(f);
  if (size < 0) fail(MPI_ERR_ARG, "negative size " + std::to_string(size));
  // bytes allocated (negative: -errno)
  int64_t grown = root_step(f, me, "MPI_File_preallocate", [&]() -> int64_t {
    struct stat st;
    if (fstat(f.fd, &st) != 0) return -errno;
    if (size <= st.st_size) return 0;
    int rc = posix_fallocate(f.fd, 0, size);
    if (rc == EOPNOTSUPP || rc == EINVAL) rc = ::ftruncate(f.fd, size) == 0 ? 0 : errno;
    return rc ? -rc : size - st.st_size;
  });
  if (grown < 0)
    fail(error_class_of(static_cast<int>(-grown)), "cannot preallocate " + f.path + ": " + std::strerror(static_cast<int>(-grown)));
  charge(storage_time(static_cast<uint64_t>(grown)));
}

MPI_Offset get_size(File& f) {
  charge(E().options().io_latency);
  return file_size(f);
}

void sync(File& f) {
  if (::fsync(f.fd) != 0 && errno != EINVAL && errno != EROFS)
    fail(error_class_of(errno), "cannot sync " + f.path + ": " + std::strerror(errno));
  charge(E().options().io_latency);
  barrier(f, "MPI_File_sync");
}

void set_atomicity(File& f, bool atomic) {
  f.atomic = atomic;
  barrier(f, "MPI_File_set_atomicity");
}

int64_t access(File& f, At at, MPI_Offset offset, void* buf, int count, MPI_Datatype type, bool write,
               bool collective, int* request, const char* call) {
  FileRank& me = mine(f);
  check_count(count);
  check_type(type);
  check_buffer(buf, count);
  const int access_mode = f.amode & (MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR);
  if (write && access_mode == MPI_MODE_RDONLY) fail(MPI_ERR_READ_ONLY, std::string(call) + " on a file opened MPI_MODE_RDONLY");
  if (!write && access_mode == MPI_MODE_WRONLY) fail(MPI_ERR_ACCESS, std::string(call) + " on a file opened MPI_MODE_WRONLY");
  if ((f.amode & MPI_MODE_SEQUENTIAL) && (at == At::explicit_offset || at == At::individual))
    fail(MPI_ERR_UNSUPPORTED_OPERATION, std::string(call) + " on a file opened MPI_MODE_SEQUENTIAL");
  if (at == At::explicit_offset && offset < 0) fail(MPI_ERR_ARG, "negative offset " + std::to_string(offset));
  const int64_t bytes = static_cast<int64_t>(native::type_size(type)) * count;
  const View& v = me.view;
  if (bytes % v.esize != 0)
    fail(MPI_ERR_ARG, std::string(call) + ": " + std::to_string(bytes) + " bytes are not a whole number of etypes (" +
                          std::to_string(v.esize) + " bytes each)");
  const int64_t netypes = bytes / v.esize;
  int64_t pos = 0;
  switch (at) {
    case At::explicit_offset: pos = offset; break;
    case At::individual: pos = me.fp; break;
    case At::shared: pos = fetch_add(f, me, netypes, call); break;
    case At::ordered: pos = ordered_position(f, me, netypes, call); break;
  }
  if (collective && at != At::ordered) barrier(f, call);
  E().yield_if_ahead();  // accesses of one process's ranks happen in virtual-time order
  const int64_t done = transfer(f, v, pos * v.esize, buf, count, type, bytes, write);
  if (at == At::individual) me.fp = pos + (done + v.esize - 1) / v.esize;
  const SimTime cost = storage_time(static_cast<uint64_t>(done));
  if (request) {  // complete at once, at the time the storage would take
    int id = E().new_send_request(true);
    Request& q = E().request(id);
    q.completion = E().current().clock + cost;
    q.st_bytes = static_cast<uint64_t>(done);
    *request = id;
  } else {
    charge(cost);
  }
  return done;
}

void seek(File& f, MPI_Offset offset, int whence) {
  FileRank& me = mine(f);
  int64_t base;
  switch (whence) {
    case MPI_SEEK_SET: base = 0; break;
    case MPI_SEEK_CUR: base = me.fp; break;
    case MPI_SEEK_END:
      charge(E().options().io_latency);
      base = eof_position(me.view, file_size(f));
      break;
    default: fail(MPI_ERR_ARG, "invalid whence " + std::to_string(whence));
  }
  if (base + offset < 0) fail(MPI_ERR_ARG, "the file pointer would become negative");
  me.fp = base + offset;
}

MPI_Offset position(File& f) { return mine(f).fp; }

void seek_shared(File& f, MPI_Offset offset, int whence) {
  FileRank& me = mine(f);
  if (whence != MPI_SEEK_SET && whence != MPI_SEEK_CUR && whence != MPI_SEEK_END)
    fail(MPI_ERR_ARG, "invalid whence " + std::to_string(whence));
  int64_t to = root_step(f, me, "MPI_File_seek_shared", [&]() -> int64_t {
    struct stat st;
    int64_t end = fstat(f.fd, &st) == 0 ? eof_position(me.view, st.st_size) : 0;
    int64_t base = whence == MPI_SEEK_SET ? 0 : whence == MPI_SEEK_CUR ? f.shared_fp : end;
    if (base + offset >= 0) f.shared_fp = base + offset;
    return base + offset;
  });
  if (to < 0) fail(MPI_ERR_ARG, "the shared file pointer would become negative");
}

MPI_Offset position_shared(File& f) { return fetch_add(f, mine(f), 0, "MPI_File_get_position_shared"); }

MPI_Offset byte_offset(File& f, MPI_Offset offset) {
  FileRank& me = mine(f);
  if (offset < 0) fail(MPI_ERR_ARG, "negative offset " + std::to_string(offset));
  MPI_Offset at = me.view.disp;
  bool first = true;
  for_each_piece(me.view, offset * me.view.esize, 1, [&](int64_t a, int64_t, int64_t) {
    if (first) at = a;
    first = false;
  });
  return at;
}

}  // namespace xsim::io
