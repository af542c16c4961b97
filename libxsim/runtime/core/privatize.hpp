// Privatization (docs/privatization.md): every virtual rank gets its own copy of the application's global
// and static variables. Owns the executable's writable data (.data/.bss after RELRO) and its TLS block, plus
// those of libraries the user names; keeps one image of each per local rank and makes the incoming rank's
// image current on every switch to a different rank (small regions: copied; large ones: a slice of a memfd
// mapped over the region). Also runs the executable's constructors once per rank and keeps its exit handlers
// per rank. Layer: libxsim/runtime/core (xsim_core). Single-threaded: everything runs on the native thread;
// enter() is called by the scheduler, never from a rank's fiber.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace xsim::privatize {

enum class Method : uint8_t { copy, map };

// Regions up to this size are copied on a switch, larger ones mapped (docs/privatization.md has the
// measurements behind it). TLS blocks are always copied.
constexpr size_t kCopyMax = 256 * 1024;

// One address range to privatize, as found in the loaded program.
struct RegionSpec {
  std::string object;     // "executable" or the library's path (reports)
  bool tls = false;       // the object's TLS block (else its writable data)
  char* addr = nullptr;   // exact start: the first byte after RELRO, or the TLS block
  size_t len = 0;         // exact length (.data + .bss, or the TLS block)
  size_t file_len = 0;    // leading bytes the file initialises; the rest started as zero (bss)
};

// The executable's writable data and TLS, then for each name in `libs` (a loaded library whose file name
// is or begins with it) the same. Throws std::runtime_error naming the library when one is not loaded or is
// one xsim itself depends on (libc, the dynamic linker, MPI, libstdc++, ...). The name "auto" adds every
// other loaded library that calls MPI itself (imports_mpi) and is not one of those; "none" adds nothing.
std::vector<RegionSpec> find_regions(const std::vector<std::string>& libs);

// Calls `fn` with the name of each undefined symbol in the dynamic symbol table of the ELF file at `path`
// (what it imports); nothing when the file cannot be read.
void for_each_import(const char* path, const std::function<void(const char*)>& fn);
// Paths of the loaded shared libraries that belong to the application: not xsim's, the native MPI's, its
// plugins' or the system libraries xsim relies on (those -xsim-privatize-libs refuses).
std::vector<std::string> application_libraries();
// Whether the ELF file at `path` imports MPI functions (C: MPI_*, PMPI_*; Fortran: mpi_*, pmpi_*).
bool imports_mpi(const std::string& path);

// Whether `spec` may hold variables of the program's own. Always true for TLS blocks and libraries' data;
// for the executable's writable data, true unless its symbol table (.symtab of /proc/self/exe) shows only
// what every C program carries: the C runtime's own (completed.0, __dso_handle, zero-size labels) and
// libc's standard streams copied into it (stdin, stdout, stderr), and under Open MPI its predefined objects
// the program names (ompi_mpi_comm_world, ompi_mpi_int, ...). A stripped executable counts as holding
// variables. `auto` privatization skips regions for which this is false (every switch saves two copies).
bool holds_program_variables(const RegionSpec& spec);

// One privatized region as set up.
struct Region {
  RegionSpec spec;
  Method method = Method::copy;
  char* base = nullptr;             // what is swapped: spec.addr/len (copy) or whole pages around it (map)
  size_t len = 0;
  size_t stride = 0;                // bytes per image in the slot storage / memfd
  std::vector<char> initial;        // copy: the initial image, len bytes
  std::vector<uint32_t> pages;      // map: non-zero pages of the initial image (page index from base)
  std::vector<char> page_data;      // map: their contents, one page each
  char* lsan_view = nullptr;        // map, ASan builds: all images mapped read-only for LeakSanitizer
  char* slots = nullptr;            // copy: saved images, one per slot, committed on first use
  int fd = -1;                      // map: memfd holding one slice per slot
};

class Privatizer {
 public:
  // Images for `ranks` local ranks (slots 0..ranks-1) and for the process itself (slot `ranks`, current at
  // first). The initial image of every rank is the regions' content now. `force_map`/`force_copy` choose
  // the method of every data region (default: by size, kCopyMax). Throws std::runtime_error on failure.
  Privatizer(std::vector<RegionSpec> regions, size_t ranks, bool force_copy = false, bool force_map = false);
  ~Privatizer();  // makes the process image current again
  Privatizer(const Privatizer&) = delete;
  Privatizer& operator=(const Privatizer&) = delete;

  // Makes slot `s`'s image current (nothing to do when it already is).
  void enter(size_t s) {
    if (s != current_) swap(s);
  }
  void enter_process() { enter(ranks_); }
  size_t current() const { return current_; }

  const std::vector<Region>& regions() const { return regions_; }
  size_t ranks() const { return ranks_; }
  // Bytes privatized per rank (the image size), and a lower bound of the memory a rank's image will use
  // (copy: the image; map: the initial image's non-zero pages).
  uint64_t image_bytes() const;
  uint64_t min_commit_per_rank() const;
  // The same lower bound before anything is built (for the memory check): cheap, no copies.
  static uint64_t estimate_per_rank(const std::vector<RegionSpec>& regions, bool force_copy, bool force_map);
  static Method method_for(const RegionSpec& spec, bool force_copy, bool force_map);
  // Memory the rank images use now (copied images of ranks that ran; memfd pages allocated), and the
  // number of ranks that have an image.
  uint64_t committed_bytes() const;
  size_t ranks_started() const { return started_; }
  uint64_t swaps() const { return swaps_; }

  // Exit handlers the executable registered (__cxa_atexit, atexit) while rank `s` ran: run them, last
  // registered first, when that rank ends.
  void add_exit_handler(size_t s, void (*fn)(void*), void* arg);
  void run_exit_handlers(size_t s);
  // True when any of the `n` bytes at `p` lies in a privatized region (its content depends on which rank's
  // image is current): memory another rank's fiber must not read or write for this rank.
  bool overlaps(const void* p, size_t n) const {
    const char* lo = static_cast<const char*>(p);
    for (const Region& r : regions_)
      if (lo < r.base + r.len && lo + n > r.base) return true;
    return false;
  }
  // True when `p` lies in the executable's mapped image (its __dso_handle identifies it).
  bool in_executable(const void* p) const { return p >= exe_lo_ && p < exe_hi_; }

 private:
  void swap(size_t s);
  void load_initial(Region& r, size_t s);

  std::vector<Region> regions_;
  size_t ranks_ = 0;
  size_t current_ = 0;
  size_t started_ = 0;
  uint64_t swaps_ = 0;
  std::vector<uint8_t> has_image_;   // per slot: its image exists in the slot storage
  struct Handler {
    void (*fn)(void*);
    void* arg;
  };
  std::vector<std::vector<Handler>> handlers_;
  const void* exe_lo_ = nullptr;
  const void* exe_hi_ = nullptr;
};

// The privatizer of the running simulation, or nullptr (the interposed __cxa_atexit asks it).
Privatizer* active();
void set_active(Privatizer* p);

// --- constructors ------------------------------------------------------------------------------------
// startup.cpp keeps the executable's constructors from running at program start; `legacy_init` is the
// init function a pre-2.34 glibc start file passed (nullptr for current binaries). run_constructors() then
// runs them (DT_INIT, then DT_INIT_ARRAY, as glibc would): once per native process when privatization is
// off, or on each rank's own image before its main when it is on.
using InitFn = void (*)(int, char**, char**);
void defer_constructors(InitFn legacy_init);
bool constructors_deferred();
void run_constructors(int argc, char** argv, char** envp);

// Why privatization is off in this process ("" when it is on), for the report.
void set_note(std::string note);
const std::string& note();

// "4.3 KiB", "24.4 TiB": a size for messages and the report (three significant digits at most).
std::string human_size(uint64_t bytes);

// Memory this host can give the run: MemAvailable, or the cgroup's limit minus its use when lower.
uint64_t available_memory();

}  // namespace xsim::privatize
