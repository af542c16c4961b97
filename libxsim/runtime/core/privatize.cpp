// Privatization of globals per virtual rank (privatize.hpp, docs/privatization.md). The exit handlers a
// rank registers reach Privatizer::add_exit_handler through the interposers of process/exit_handlers.cpp.
#include "privatize.hpp"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <ios>
#include <sstream>
#include <stdexcept>

#include "fiber_switch.hpp"

namespace xsim::privatize {

namespace {

// libstdc++'s standard streams are constructed once, before any image is taken: a copy relocation may
// place std::cout in the executable's .bss, and the first ios_base::Init constructs it there.
[[maybe_unused]] std::ios_base::Init g_streams;

const size_t kPage = static_cast<size_t>(sysconf(_SC_PAGESIZE));

char* page_down(const char* p) { return reinterpret_cast<char*>(reinterpret_cast<uintptr_t>(p) & ~(kPage - 1)); }
char* page_up(const char* p) {
  return reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(p) + kPage - 1) & ~(kPage - 1));
}

std::string sys_error(const std::string& what) { return what + ": " + std::strerror(errno); }

Privatizer* g_active = nullptr;
bool g_deferred = false;
InitFn g_legacy_init = nullptr;

// --- the loaded program ------------------------------------------------------------------------------

struct LoadedObject {
  std::string name;  // "" for the executable
  ElfW(Addr) base = 0;
  const ElfW(Phdr)* phdr = nullptr;
  ElfW(Half) phnum = 0;
  void* tls_data = nullptr;
};

std::vector<LoadedObject> loaded_objects() {
  std::vector<LoadedObject> out;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t size, void* data) -> int {
        LoadedObject o;
        o.name = info->dlpi_name ? info->dlpi_name : "";
        o.base = info->dlpi_addr;
        o.phdr = info->dlpi_phdr;
        o.phnum = info->dlpi_phnum;
        if (size >= offsetof(dl_phdr_info, dlpi_tls_data) + sizeof(void*)) o.tls_data = info->dlpi_tls_data;
        static_cast<std::vector<LoadedObject>*>(data)->push_back(std::move(o));
        return 0;
      },
      &out);
  return out;
}

// An address from the object's dynamic section: glibc relocates some entries in place (DT_PLTGOT), not
// others (DT_INIT_ARRAY); a value below the load base is still relative.
ElfW(Addr) dyn_addr(const LoadedObject& o, ElfW(Addr) v) { return v >= o.base ? v : o.base + v; }

const ElfW(Dyn)* dynamic_of(const LoadedObject& o) {
  for (int i = 0; i < o.phnum; ++i)
    if (o.phdr[i].p_type == PT_DYNAMIC) return reinterpret_cast<const ElfW(Dyn)*>(o.base + o.phdr[i].p_vaddr);
  return nullptr;
}

// End of the object's .got.plt (0 if none): the lazily bound function addresses. The same for every rank,
// so they stay shared: a function is bound once, not once per rank (binding is costly in time and stack).
ElfW(Addr) got_plt_end(const LoadedObject& o) {
  const ElfW(Dyn)* dyn = dynamic_of(o);
  if (!dyn) return 0;
  ElfW(Addr) got = 0, relsz = 0, kind = DT_RELA;
  for (; dyn->d_tag != DT_NULL; ++dyn) {
    if (dyn->d_tag == DT_PLTGOT) got = dyn_addr(o, dyn->d_un.d_ptr);
    if (dyn->d_tag == DT_PLTRELSZ) relsz = dyn->d_un.d_val;
    if (dyn->d_tag == DT_PLTREL) kind = dyn->d_un.d_val;
  }
  if (!got) return 0;
  const size_t entries = relsz / (kind == DT_RELA ? sizeof(ElfW(Rela)) : sizeof(ElfW(Rel)));
  return got + (3 + entries) * sizeof(ElfW(Addr));  // three reserved slots, then one per PLT entry
}

void tls_region_of(const LoadedObject& o, const std::string& label, std::vector<RegionSpec>& out);

// The object's writable data after RELRO and .got.plt, and its TLS block.
void regions_of(const LoadedObject& o, const std::string& label, std::vector<RegionSpec>& out) {
  ElfW(Addr) relro_lo = 0, relro_hi = 0;
  for (int i = 0; i < o.phnum; ++i)
    if (o.phdr[i].p_type == PT_GNU_RELRO) {
      relro_lo = o.base + o.phdr[i].p_vaddr;
      relro_hi = relro_lo + o.phdr[i].p_memsz;
    }
  const ElfW(Addr) got_end = got_plt_end(o);
  for (int i = 0; i < o.phnum; ++i) {
    const ElfW(Phdr)& ph = o.phdr[i];
    if (ph.p_type == PT_LOAD && (ph.p_flags & PF_W) && ph.p_memsz > 0) {
      ElfW(Addr) lo = o.base + ph.p_vaddr, hi = lo + ph.p_memsz, file_hi = lo + ph.p_filesz;
      if (relro_hi > lo && relro_lo < hi) lo = std::max(lo, relro_hi);  // the GOT stays shared and read-only
      // Before .got.plt's end the segment holds only what the dynamic linker fills in: shared, too.
      if (got_end > lo && got_end < hi) lo = got_end;
      if (lo >= hi) continue;
      RegionSpec r;
      r.object = label;
      r.addr = reinterpret_cast<char*>(lo);
      r.len = hi - lo;
      r.file_len = file_hi > lo ? file_hi - lo : 0;
      out.push_back(r);
    }
  }
  tls_region_of(o, label, out);
}

// The object's TLS block for the native thread that runs the ranks (none when it has none).
void tls_region_of(const LoadedObject& o, const std::string& label, std::vector<RegionSpec>& out) {
  for (int i = 0; i < o.phnum; ++i) {
    const ElfW(Phdr)& ph = o.phdr[i];
    if (ph.p_type == PT_TLS && ph.p_memsz > 0 && o.tls_data) {
      RegionSpec r;
      r.object = label;
      r.tls = true;
      r.addr = static_cast<char*>(o.tls_data);
      r.len = ph.p_memsz;
      r.file_len = ph.p_filesz;
      out.push_back(r);
    }
  }
}

std::string base_name(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Libraries whose state xsim itself or the native MPI relies on: their globals must stay shared.
bool refused_library(const std::string& file) {
  // xsim's own library under either name (libxsim.so, libxsim-openmpi.so), not any library whose name
  // merely starts with "libxsim" (the tests' libxsim_privtest.so must stay privatizable).
  if (file.rfind("libxsim.so", 0) == 0 || file.rfind("libxsim-", 0) == 0) return true;
  for (const char* p : {"libopen-pal", "libopen-rte", "libpmix", "libevent", "libc.so", "libc-", "ld-linux", "ld64.so", "libmpi", "libpmpi", "libucp",
                        "libucs", "libuct", "libucm", "libfabric", "libstdc++", "libgcc_s", "libunwind", "libboost",
                        "libpthread", "libdl.", "libhwloc", "libgfortran", "libquadmath"})
    if (file.rfind(p, 0) == 0) return true;
  return false;
}

// --- copies of the program's data -----------------------------------------------------------------------

// Copies bytes of a privatized region (or into it). Under AddressSanitizer the executable's globals are
// separated by poisoned redzones, which belong to the image like the globals themselves: the copy must not
// check them (ASan's memcpy would report a global-buffer-overflow). The shadow needs no change, since
// every rank's image has the same layout as the process image.
#if XSIM_ASAN
[[gnu::no_sanitize_address]] void copy_image(void* dst, const void* src, size_t n) {
#if defined(__x86_64__)
  asm volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");  // no call to the checked memcpy
#else
  auto d = static_cast<volatile char*>(dst);
  auto s = static_cast<const volatile char*>(src);
  for (size_t i = 0; i < n; ++i) d[i] = s[i];
#endif
}
#else
inline void copy_image(void* dst, const void* src, size_t n) { std::memcpy(dst, src, n); }
#endif

// --- page snapshots for mapped regions -----------------------------------------------------------------

[[gnu::no_sanitize_address]] bool all_zero(const char* p, size_t n) {
  for (size_t i = 0; i < n; i += sizeof(uint64_t)) {
    uint64_t v;
    std::memcpy(&v, p + i, sizeof v);
    if (v) return false;
  }
  return true;
}

// Pages of [base, base+len) that are neither present nor swapped out were never written: zero pages of the
// bss. Read from /proc/self/pagemap (flags only, no privileges needed); empty when unreadable.
std::vector<uint8_t> untouched_pages(const char* base, size_t len) {
  size_t n = len / kPage;
  std::vector<uint8_t> out;
  int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return out;
  std::vector<uint64_t> entries(n);
  off_t at = static_cast<off_t>(reinterpret_cast<uintptr_t>(base) / kPage * sizeof(uint64_t));
  ssize_t got = pread(fd, entries.data(), n * sizeof(uint64_t), at);
  close(fd);
  if (got != static_cast<ssize_t>(n * sizeof(uint64_t))) return out;
  out.resize(n);
  for (size_t i = 0; i < n; ++i) out[i] = (entries[i] & (3ull << 62)) == 0;
  return out;
}

// Page indices (from page_down(spec.addr)) of the initial image's non-zero pages: every page the file
// initialises and every bss page that was ever written, unless all zero.
std::vector<uint32_t> nonzero_pages(const RegionSpec& spec) {
  char* base = page_down(spec.addr);
  size_t len = static_cast<size_t>(page_up(spec.addr + spec.len) - base);
  char* file_end = page_up(spec.addr + spec.file_len);
  std::vector<uint8_t> untouched = untouched_pages(base, len);
  std::vector<uint32_t> out;
  for (size_t i = 0; i < len / kPage; ++i) {
    const char* page = base + i * kPage;
    if (page >= file_end && !untouched.empty() && untouched[i]) continue;
    if (!all_zero(page, kPage)) out.push_back(static_cast<uint32_t>(i));
  }
  return out;
}

void write_all(int fd, const char* p, size_t n, off_t at) {
  while (n > 0) {
    ssize_t w = pwrite(fd, p, n, at);
    if (w < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(sys_error("privatization: cannot write a rank's initial image"));
    }
    p += w;
    n -= static_cast<size_t>(w);
    at += w;
  }
}

// The executable's constructors as glibc's call_init finds them.
struct InitFunctions {
  void (*init)(int, char**, char**) = nullptr;
  std::vector<InitFn> array;
};

InitFunctions executable_init_functions() {
  InitFunctions f;
  std::vector<LoadedObject> objs = loaded_objects();
  if (objs.empty()) return f;
  const LoadedObject& exe = objs.front();
  const ElfW(Dyn)* dyn = dynamic_of(exe);
  if (!dyn) return f;
  ElfW(Addr) init = 0, array = 0, array_size = 0;
  for (; dyn->d_tag != DT_NULL; ++dyn) {
    if (dyn->d_tag == DT_INIT) init = dyn->d_un.d_ptr;
    if (dyn->d_tag == DT_INIT_ARRAY) array = dyn->d_un.d_ptr;
    if (dyn->d_tag == DT_INIT_ARRAYSZ) array_size = dyn->d_un.d_val;
  }
  if (init) f.init = reinterpret_cast<InitFn>(dyn_addr(exe, init));
  if (array) {
    auto fns = reinterpret_cast<const ElfW(Addr)*>(dyn_addr(exe, array));
    for (size_t i = 0; i < array_size / sizeof(ElfW(Addr)); ++i)
      if (fns[i] != 0 && fns[i] != static_cast<ElfW(Addr)>(-1)) f.array.push_back(reinterpret_cast<InitFn>(fns[i]));
  }
  return f;
}

}  // namespace

// ----------------------------------------------------------------------------------------------------

bool holds_program_variables(const RegionSpec& spec) {
  if (spec.tls || spec.object != "executable") return true;
  std::vector<LoadedObject> objs = loaded_objects();
  if (objs.empty()) return true;
  const ElfW(Addr) base = objs.front().base;
  int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return true;
  struct stat st;
  void* map = fstat(fd, &st) == 0 && st.st_size > 0
                  ? mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0)
                  : MAP_FAILED;
  close(fd);
  if (map == MAP_FAILED) return true;
  const auto* file = static_cast<const char*>(map);
  const size_t size = static_cast<size_t>(st.st_size);
  bool holds = true;  // until the symbol table says otherwise
  const auto* eh = reinterpret_cast<const ElfW(Ehdr)*>(file);
  auto in_file = [&](size_t off, size_t len) { return off <= size && len <= size - off; };
  if (in_file(0, sizeof(ElfW(Ehdr))) && std::memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 &&
      eh->e_shentsize == sizeof(ElfW(Shdr)) && in_file(eh->e_shoff, size_t{eh->e_shnum} * sizeof(ElfW(Shdr)))) {
    const auto* sh = reinterpret_cast<const ElfW(Shdr)*>(file + eh->e_shoff);
    for (int i = 0; i < eh->e_shnum; ++i) {
      if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum) continue;
      const ElfW(Shdr)& strtab = sh[sh[i].sh_link];
      if (!in_file(sh[i].sh_offset, sh[i].sh_size) || !in_file(strtab.sh_offset, strtab.sh_size)) break;
      const auto* sym = reinterpret_cast<const ElfW(Sym)*>(file + sh[i].sh_offset);
      const size_t nsym = sh[i].sh_size / sizeof(ElfW(Sym));
      const auto lo = reinterpret_cast<ElfW(Addr)>(spec.addr), hi = lo + spec.len;
      holds = false;
      for (size_t k = 0; k < nsym && !holds; ++k) {
        const int type = ELF64_ST_TYPE(sym[k].st_info);
        if (sym[k].st_shndx == SHN_UNDEF || sym[k].st_shndx >= SHN_LORESERVE) continue;
        if (type == STT_FUNC || type == STT_SECTION || type == STT_FILE) continue;
        if (sym[k].st_size == 0 && type != STT_OBJECT) continue;  // labels: __bss_start, _edata, _end, ...
        const ElfW(Addr) a = base + sym[k].st_value;
        if (a + std::max<ElfW(Addr)>(sym[k].st_size, 1) <= lo || a >= hi) continue;
        if (sym[k].st_name >= strtab.sh_size) {
          holds = true;
          break;
        }
        const char* name = file + strtab.sh_offset + sym[k].st_name;
        const size_t n = strnlen(name, strtab.sh_size - sym[k].st_name);
        std::string bare(name, n);
        bare = bare.substr(0, bare.find('@'));  // "stdout@GLIBC_2.2.5"
        static const char* const kCarried[] = {"completed.0", "__dso_handle", "__data_start", "data_start",
                                               "__TMC_END__", "stdin", "stdout", "stderr"};
        // Open MPI's predefined objects (MPI_COMM_WORLD is &ompi_mpi_comm_world) copied into the
        // executable are the native MPI's state, not the program's.
        holds = bare.rfind("ompi_mpi_", 0) != 0 &&
                std::find_if(std::begin(kCarried), std::end(kCarried),
                             [&](const char* c) { return bare == c; }) == std::end(kCarried);
      }
      break;
    }
  }
  munmap(map, size);
  return holds;
}

void for_each_import(const char* path, const std::function<void(const char*)>& fn) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  struct stat st;
  void* map = fstat(fd, &st) == 0 && st.st_size >= static_cast<off_t>(sizeof(ElfW(Ehdr)))
                  ? mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0)
                  : MAP_FAILED;
  close(fd);
  if (map == MAP_FAILED) return;
  const char* file = static_cast<const char*>(map);
  const size_t size = static_cast<size_t>(st.st_size);
  auto in_file = [&](size_t off, size_t len) { return off <= size && len <= size - off; };
  const auto* eh = reinterpret_cast<const ElfW(Ehdr)*>(file);
  if (std::memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 && eh->e_ident[EI_CLASS] == ELFCLASS64 &&
      eh->e_shentsize == sizeof(ElfW(Shdr)) && in_file(eh->e_shoff, size_t{eh->e_shnum} * sizeof(ElfW(Shdr)))) {
    const auto* sh = reinterpret_cast<const ElfW(Shdr)*>(file + eh->e_shoff);
    for (int i = 0; i < eh->e_shnum; ++i) {
      if (sh[i].sh_type != SHT_DYNSYM || sh[i].sh_link >= eh->e_shnum) continue;
      const ElfW(Shdr)& strs = sh[sh[i].sh_link];
      if (!in_file(sh[i].sh_offset, sh[i].sh_size) || !in_file(strs.sh_offset, strs.sh_size)) continue;
      const auto* syms = reinterpret_cast<const ElfW(Sym)*>(file + sh[i].sh_offset);
      for (size_t k = 0; k < sh[i].sh_size / sizeof(ElfW(Sym)); ++k) {
        if (syms[k].st_shndx != SHN_UNDEF || syms[k].st_name == 0 || syms[k].st_name >= strs.sh_size) continue;
        const char* name = file + strs.sh_offset + syms[k].st_name;
        if (strnlen(name, strs.sh_size - syms[k].st_name) < strs.sh_size - syms[k].st_name) fn(name);
      }
    }
  }
  munmap(map, size);
}

std::vector<std::string> application_libraries() {
  std::vector<std::string> out;
  std::vector<LoadedObject> objs = loaded_objects();
  for (size_t i = 1; i < objs.size(); ++i) {
    const std::string file = base_name(objs[i].name);
    if (!file.empty() && !refused_library(file) && file.rfind("mca_", 0) != 0) out.push_back(objs[i].name);
  }
  return out;
}

bool imports_mpi(const std::string& path) {
  bool found = false;
  for_each_import(path.c_str(), [&](const char* name) {
    found = found || !std::strncmp(name, "MPI_", 4) || !std::strncmp(name, "PMPI_", 5) ||
            !std::strncmp(name, "mpi_", 4) || !std::strncmp(name, "pmpi_", 5);
  });
  return found;
}

std::vector<RegionSpec> find_regions(const std::vector<std::string>& libs) {
  std::vector<LoadedObject> objs = loaded_objects();
  std::vector<RegionSpec> out;
  if (objs.empty()) return out;
  regions_of(objs.front(), "executable", out);
  std::vector<const LoadedObject*> taken;
  bool automatic = false;
  for (const std::string& want : libs) {
    if (want.empty() || want == "none") continue;
    if (want == "auto") {
      automatic = true;
      continue;
    }
    const LoadedObject* hit = nullptr;
    for (size_t i = 1; i < objs.size() && !hit; ++i) {
      std::string file = base_name(objs[i].name);
      // "libfoo.so" names libfoo.so and libfoo.so.1.2, "libfoo" names libfoo.so*: never libfoobar.so
      if (!file.empty() && (objs[i].name == want || file == want || file.rfind(want + ".", 0) == 0)) hit = &objs[i];
    }
    if (!hit)
      throw std::runtime_error("-xsim-privatize-libs: no loaded library is called \"" + want +
                               "\" (give the file name of a library the application links, e.g. libfoo.so)");
    std::string file = base_name(hit->name);
    if (refused_library(file))
      throw std::runtime_error("-xsim-privatize-libs: " + file +
                               " cannot be privatized: xsim or the native MPI keep their own state in it");
    if (std::find(taken.begin(), taken.end(), hit) != taken.end()) continue;
    taken.push_back(hit);
    regions_of(*hit, hit->name, out);
  }
  // OpenMP runtimes keep the state of the thread that runs a parallel region (its team, its pool of worker
  // threads, the nesting level) in TLS. Every rank is a fiber of the one native thread, so without a block of
  // its own a rank whose master thread makes an MPI call inside a parallel region (and lets another rank
  // run) would find the other rank's region in progress: nested, one thread, a wrong reduction. Only the
  // TLS block: the runtime's global data belongs to its worker threads, which run natively.
  for (size_t i = 1; i < objs.size(); ++i) {
    const std::string file = base_name(objs[i].name);
    if (file.rfind("libgomp.so", 0) == 0 || file.rfind("libomp.so", 0) == 0 || file.rfind("libiomp5.so", 0) == 0)
      tls_region_of(objs[i], objs[i].name, out);
  }
  if (automatic)  // every other library that calls MPI itself: its state is per rank, as in a process per rank
    for (const std::string& path : application_libraries()) {
      auto same = [&](const LoadedObject* o) { return o->name == path; };
      if (std::find_if(taken.begin(), taken.end(), same) != taken.end() || !imports_mpi(path)) continue;
      for (size_t i = 1; i < objs.size(); ++i)
        if (objs[i].name == path) regions_of(objs[i], path, out);
    }
  return out;
}

Privatizer::Privatizer(std::vector<RegionSpec> specs, size_t ranks, bool force_copy, bool force_map)
    : ranks_(ranks), current_(ranks), has_image_(ranks + 1, 0) {
  std::vector<LoadedObject> objs = loaded_objects();
  if (!objs.empty()) {
    const LoadedObject& exe = objs.front();
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (int i = 0; i < exe.phnum; ++i)
      if (exe.phdr[i].p_type == PT_LOAD) {
        lo = std::min<uintptr_t>(lo, exe.base + exe.phdr[i].p_vaddr);
        hi = std::max<uintptr_t>(hi, exe.base + exe.phdr[i].p_vaddr + exe.phdr[i].p_memsz);
      }
    if (lo < hi) exe_lo_ = reinterpret_cast<const void*>(lo), exe_hi_ = reinterpret_cast<const void*>(hi);
  }
  const size_t slots = ranks + 1;
  for (RegionSpec& spec : specs) {
    Region r;
    r.spec = spec;
    r.method = method_for(spec, force_copy, force_map);
    if (r.method == Method::copy) {
      r.base = spec.addr;
      r.len = spec.len;
      r.stride = (spec.len + 63) & ~size_t{63};
      r.initial.resize(spec.len);
      copy_image(r.initial.data(), spec.addr, spec.len);
      void* p = mmap(nullptr, r.stride * slots, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                     -1, 0);
      if (p == MAP_FAILED)
        throw std::runtime_error(sys_error("privatization: cannot reserve " + std::to_string(r.stride * slots) +
                                           " bytes for the ranks' images"));
      r.slots = static_cast<char*>(p);
      lsan_root_region(p, r.stride * slots);  // the other ranks' globals point to their heap blocks
      // Every switch touches two images of thousands: on huge pages they cost no TLB misses.
      if (r.stride * slots >= (2u << 20)) madvise(p, r.stride * slots, MADV_HUGEPAGE);
    } else {
      r.base = page_down(spec.addr);
      r.len = static_cast<size_t>(page_up(spec.addr + spec.len) - r.base);
      r.stride = r.len;
      // The initial image: its non-zero pages (the others read as zero in a fresh memfd slice).
      r.pages = nonzero_pages(spec);
      r.page_data.resize(r.pages.size() * kPage);
      for (size_t k = 0; k < r.pages.size(); ++k)
        copy_image(r.page_data.data() + k * kPage, r.base + r.pages[k] * kPage, kPage);
      r.fd = memfd_create("xsim-privatized", MFD_CLOEXEC);
      if (r.fd < 0) throw std::runtime_error(sys_error("privatization: memfd_create"));
      if (ftruncate(r.fd, static_cast<off_t>(r.stride * slots)) != 0)
        throw std::runtime_error(sys_error("privatization: cannot size the images' memfd to " +
                                           std::to_string(r.stride * slots) + " bytes"));
#if XSIM_ASAN
      // LeakSanitizer scans only the image mapped now: show it every rank's, read-only.
      void* view = mmap(nullptr, r.stride * slots, PROT_READ, MAP_SHARED, r.fd, 0);
      if (view != MAP_FAILED) {
        r.lsan_view = static_cast<char*>(view);
        lsan_root_region(view, r.stride * slots);
      }
#endif
    }
    regions_.push_back(std::move(r));
  }
  // Mapped regions: from now on the process image, too, lives in the memfd (its own slice).
  for (Region& r : regions_) {
    if (r.method != Method::map) continue;
    load_initial(r, ranks_);
    if (mmap(r.base, r.len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, r.fd,
             static_cast<off_t>(ranks_ * r.stride)) == MAP_FAILED)
      throw std::runtime_error(sys_error("privatization: cannot map the process image"));
  }
}

Privatizer::~Privatizer() {
  if (g_active == this) g_active = nullptr;
  enter_process();
  for (Region& r : regions_) {
    if (r.slots) {
      lsan_forget_root_region(r.slots, r.stride * (ranks_ + 1));
      munmap(r.slots, r.stride * (ranks_ + 1));
    }
    if (r.lsan_view) {
      lsan_forget_root_region(r.lsan_view, r.stride * (ranks_ + 1));
      munmap(r.lsan_view, r.stride * (ranks_ + 1));
    }
    if (r.fd >= 0) {
      // The process slice stays mapped (and alive); the ranks' slices go back to the system.
      fallocate(r.fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, static_cast<off_t>(ranks_ * r.stride));
      close(r.fd);
    }
  }
}

void Privatizer::load_initial(Region& r, size_t s) {
  off_t at = static_cast<off_t>(s * r.stride);
  for (size_t k = 0; k < r.pages.size(); ++k)
    write_all(r.fd, r.page_data.data() + k * kPage, kPage, at + static_cast<off_t>(r.pages[k] * kPage));
}

void Privatizer::swap(size_t s) {
  const size_t from = current_;
  const bool fresh = !has_image_[s];
  for (Region& r : regions_) {
    if (r.method == Method::copy) {
      copy_image(r.slots + from * r.stride, r.base, r.len);
      copy_image(r.base, fresh ? r.initial.data() : r.slots + s * r.stride, r.len);
    } else {
      if (fresh) load_initial(r, s);
      if (mmap(r.base, r.len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, r.fd,
               static_cast<off_t>(s * r.stride)) == MAP_FAILED) {
        std::fprintf(stderr, "xsim: privatization: cannot map rank image %zu over %p (%s)\n", s,
                     static_cast<void*>(r.base), std::strerror(errno));
        std::abort();
      }
    }
  }
  has_image_[from] = 1;
  if (fresh && s < ranks_) ++started_;
  has_image_[s] = 1;  // from now on its storage (or live memory) holds its image
  current_ = s;
  ++swaps_;
}

uint64_t Privatizer::image_bytes() const {
  uint64_t n = 0;
  for (const Region& r : regions_) n += r.len;
  return n;
}

Method Privatizer::method_for(const RegionSpec& spec, bool force_copy, bool force_map) {
  if (spec.tls || force_copy) return Method::copy;
  return force_map || spec.len > kCopyMax ? Method::map : Method::copy;
}

uint64_t Privatizer::estimate_per_rank(const std::vector<RegionSpec>& regions, bool force_copy, bool force_map) {
  uint64_t n = 0;
  for (const RegionSpec& r : regions)
    n += method_for(r, force_copy, force_map) == Method::copy ? (r.len + 63) & ~size_t{63}
                                                              : nonzero_pages(r).size() * kPage;
  return n;
}

uint64_t Privatizer::min_commit_per_rank() const {
  uint64_t n = 0;
  for (const Region& r : regions_) n += r.method == Method::copy ? r.stride : r.pages.size() * kPage;
  return n;
}

uint64_t Privatizer::committed_bytes() const {
  uint64_t n = 0;
  for (const Region& r : regions_) {
    if (r.method == Method::copy) {
      n += static_cast<uint64_t>(started_) * r.stride;
    } else {
      struct stat st;
      if (fstat(r.fd, &st) == 0) {
        uint64_t all = static_cast<uint64_t>(st.st_blocks) * 512, process = r.pages.size() * kPage;
        n += all > process ? all - process : 0;
      }
    }
  }
  return n;
}

void Privatizer::add_exit_handler(size_t s, void (*fn)(void*), void* arg) {
  if (handlers_.size() <= s) handlers_.resize(s + 1);
  handlers_[s].push_back({fn, arg});
}

void Privatizer::run_exit_handlers(size_t s) {
  if (s >= handlers_.size()) return;
  auto& list = handlers_[s];
  while (!list.empty()) {  // a handler may register more
    Handler h = list.back();
    list.pop_back();
    h.fn(h.arg);
  }
  list.shrink_to_fit();
}

namespace {
std::string g_note;
}
void set_note(std::string note) { g_note = std::move(note); }
const std::string& note() { return g_note; }

Privatizer* active() { return g_active; }
void set_active(Privatizer* p) { g_active = p; }

namespace {
InitFunctions g_init;  // found once, at program start: each rank then only calls them (little stack)
}

void defer_constructors(InitFn legacy_init) {
  g_deferred = true;
  g_legacy_init = legacy_init;
  if (!legacy_init) g_init = executable_init_functions();
}

bool constructors_deferred() { return g_deferred; }

void run_constructors(int argc, char** argv, char** envp) {
  if (!g_deferred) return;
  if (g_legacy_init) {  // a pre-2.34 start file: its init function runs DT_INIT and the init array
    g_legacy_init(argc, argv, envp);
    return;
  }
  if (g_init.init) g_init.init(argc, argv, envp);
  for (InitFn fn : g_init.array) fn(argc, argv, envp);
}

std::string human_size(uint64_t bytes) {
  static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024.0 && u < 6) v /= 1024.0, ++u;
  char buf[32];
  if (u == 0) std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
  else std::snprintf(buf, sizeof buf, v < 10 ? "%.2f %s" : v < 100 ? "%.1f %s" : "%.0f %s", v, units[u]);
  return buf;
}

uint64_t available_memory() {
  uint64_t avail = UINT64_MAX;
  {
    std::ifstream f("/proc/meminfo");
    std::string key;
    uint64_t kib = 0;
    std::string unit;
    while (f >> key >> kib) {
      std::getline(f, unit);
      if (key == "MemAvailable:") {
        avail = kib * 1024;
        break;
      }
    }
  }
  // cgroup v2: the limit of this process's group, less what the group already uses.
  std::ifstream cg("/proc/self/cgroup");
  std::string line;
  while (std::getline(cg, line)) {
    if (line.rfind("0::", 0) != 0) continue;
    std::string dir = "/sys/fs/cgroup" + line.substr(3);
    std::ifstream max_f(dir + "/memory.max"), cur_f(dir + "/memory.current");
    std::string max_s;
    uint64_t cur = 0;
    if (max_f >> max_s && max_s != "max" && cur_f >> cur) {
      uint64_t limit = std::stoull(max_s);
      avail = std::min(avail, limit > cur ? limit - cur : 0);
    }
  }
  return avail;
}

}  // namespace xsim::privatize
