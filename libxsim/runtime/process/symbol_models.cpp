// Functions inside the program modelled by name (symbol_models.hpp): finding them in the loaded objects'
// symbol tables, patching their entry in memory, the entry stubs, the charge, and the report's lines.
#include "symbol_models.hpp"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <utility>

#include "api_support.hpp"
#include "engine.hpp"
#include "native/exchange.hpp"
#include "privatize.hpp"

namespace xsim {

namespace {

// One modelled function: its compiled model and its counters on this native process.
struct Slot {
  std::string name;
  std::vector<SymbolArgType> types;
  proc::Formula flops, bytes;
  bool has_flops = false, has_bytes = false;
  double flop_rate = 0, byte_rate = 0;  // peak x efficiency, bandwidth x efficiency
  double overhead_s = 0;
  uint64_t calls = 0;
  int64_t ps = 0;
};
Slot g_slots[kMaxSymbolModels];
size_t g_nslots = 0;

[[noreturn]] void bad_value(const Slot& s, const char* what, double v, const double* args) {
  std::string vals;
  for (size_t i = 0; i < s.types.size(); ++i) {
    char b[64];
    std::snprintf(b, sizeof b, "%s%.17g", i ? ", " : "", args[i]);
    vals += b;
  }
  char msg[160];
  std::snprintf(msg, sizeof msg, "the model's %s formula gave %.17g", what, v);
  internal_failure(s.name.c_str(), (std::string(msg) + " for the arguments (" + vals +
                                    "); a time must be finite and not negative: check the formula and the order of "
                                    "[kernels.symbols." + s.name + "] args (max(X, 0) keeps a size from going negative)")
                                       .c_str());
}

double arg_value(SymbolArgType t, uint64_t raw) {
  switch (t) {
    case SymbolArgType::i32: return static_cast<double>(static_cast<int32_t>(static_cast<uint32_t>(raw)));
    case SymbolArgType::u32: return static_cast<double>(static_cast<uint32_t>(raw));
    case SymbolArgType::i64: return static_cast<double>(static_cast<int64_t>(raw));
    default: return static_cast<double>(raw);
  }
}

// What every stub does: on a virtual rank's own fiber, charge the modelled time; elsewhere nothing.
uint64_t symbol_call(size_t slot, const uint64_t* raw) {
  Engine* e = g_engine;
  if (!t_simulation_thread || !e || !e->in_rank()) return 0;
  Slot& s = g_slots[slot];
  double args[kMaxSymbolArgs];
  for (size_t i = 0; i < s.types.size(); ++i) args[i] = arg_value(s.types[i], raw[i]);
  double secs = s.overhead_s;
  if (s.has_flops) {
    const double f = s.flops.eval(args);
    if (!(f >= 0) || !std::isfinite(f)) bad_value(s, "flops", f, args);
    secs += f / s.flop_rate;
  }
  if (s.has_bytes) {
    const double b = s.bytes.eval(args);
    if (!(b >= 0) || !std::isfinite(b)) bad_value(s, "bytes", b, args);
    secs += b / s.byte_rate;
  }
  SimTime t;
  try {  // as xsim_compute: a charge beyond the virtual time range ends the run
    e->mpi_enter();
    t = SimTime::from_seconds(secs);
    e->charge_compute(t);
  } catch (const std::exception& err) {
    internal_failure(s.name.c_str(), err.what());
  }
  e->mpi_leave();
  ++s.calls;
  s.ps += t.ps();
  return 0;
}

// The entry stubs: the patched function jumps here with its caller's registers and stack untouched, so
// the first six integer arguments are in registers and the 7th to 10th on the caller's stack, where a
// function of ten uint64_t parameters reads them (x86-64 System V). Floating-point arguments travel in
// xmm registers and take no place here. Slots past what the caller passed read its frame: harmless.
template <size_t S>
uint64_t stub(uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5, uint64_t a6,
              uint64_t a7, uint64_t a8, uint64_t a9) {
  const uint64_t a[kMaxSymbolArgs] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9};
  return symbol_call(S, a);
}
using StubFn = uint64_t (*)(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t,
                            uint64_t, uint64_t);
template <size_t... I>
constexpr std::array<StubFn, sizeof...(I)> make_stubs(std::index_sequence<I...>) {
  return {&stub<I>...};
}
constexpr std::array<StubFn, kMaxSymbolModels> kStubs = make_stubs(std::make_index_sequence<kMaxSymbolModels>());

// --- finding the functions ---------------------------------------------------------------------------

struct Object {
  std::string label;  // what messages call it
  std::string path;   // the file to read its symbol table from
  ElfW(Addr) base = 0;
  const ElfW(Phdr)* phdr = nullptr;
  int phnum = 0;
};

struct Match {
  uintptr_t addr = 0;
  uint64_t size = 0;
  int type = STT_NOTYPE;
  int prot = 0;  // the protection of the segment that holds it
};

// Definitions of `name` in the object's .symtab and .dynsym (one per address). `has_symtab` says
// whether the file has a full symbol table (a stripped one has only .dynsym).
std::vector<Match> find_in(const Object& o, const std::string& name, bool& has_symtab) {
  std::vector<Match> out;
  has_symtab = false;
  int fd = open(o.path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return out;
  struct stat st;
  void* map = fstat(fd, &st) == 0 && st.st_size >= static_cast<off_t>(sizeof(ElfW(Ehdr)))
                  ? mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0)
                  : MAP_FAILED;
  close(fd);
  if (map == MAP_FAILED) return out;
  const char* file = static_cast<const char*>(map);
  const size_t size = static_cast<size_t>(st.st_size);
  auto in_file = [&](size_t off, size_t len) { return off <= size && len <= size - off; };
  const auto* eh = reinterpret_cast<const ElfW(Ehdr)*>(file);
  if (std::memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 && eh->e_ident[EI_CLASS] == ELFCLASS64 &&
      eh->e_shentsize == sizeof(ElfW(Shdr)) && in_file(eh->e_shoff, size_t{eh->e_shnum} * sizeof(ElfW(Shdr)))) {
    const auto* sh = reinterpret_cast<const ElfW(Shdr)*>(file + eh->e_shoff);
    for (int i = 0; i < eh->e_shnum; ++i) {
      if ((sh[i].sh_type != SHT_SYMTAB && sh[i].sh_type != SHT_DYNSYM) || sh[i].sh_link >= eh->e_shnum) continue;
      has_symtab = has_symtab || sh[i].sh_type == SHT_SYMTAB;
      const ElfW(Shdr)& strs = sh[sh[i].sh_link];
      if (!in_file(sh[i].sh_offset, sh[i].sh_size) || !in_file(strs.sh_offset, strs.sh_size)) continue;
      const auto* syms = reinterpret_cast<const ElfW(Sym)*>(file + sh[i].sh_offset);
      for (size_t k = 0; k < sh[i].sh_size / sizeof(ElfW(Sym)); ++k) {
        const ElfW(Sym)& s = syms[k];
        if (s.st_shndx == SHN_UNDEF || s.st_name == 0 || s.st_name >= strs.sh_size) continue;
        const char* n = file + strs.sh_offset + s.st_name;
        if (strnlen(n, strs.sh_size - s.st_name) != name.size() || name.compare(0, name.size(), n, name.size()) != 0)
          continue;
        const uintptr_t addr = o.base + s.st_value;
        if (std::any_of(out.begin(), out.end(), [&](const Match& m) { return m.addr == addr; })) continue;
        out.push_back({addr, s.st_size, ELF64_ST_TYPE(s.st_info), 0});
      }
    }
  }
  munmap(map, size);
  for (Match& m : out)  // the protection of the segment it is loaded in
    for (int i = 0; i < o.phnum; ++i) {
      const ElfW(Phdr)& ph = o.phdr[i];
      if (ph.p_type == PT_LOAD && m.addr >= o.base + ph.p_vaddr && m.addr + m.size <= o.base + ph.p_vaddr + ph.p_memsz)
        m.prot = ((ph.p_flags & PF_R) ? PROT_READ : 0) | ((ph.p_flags & PF_W) ? PROT_WRITE : 0) |
                 ((ph.p_flags & PF_X) ? PROT_EXEC : 0);
    }
  return out;
}

// The executable, then the application's shared libraries (not xsim's, the MPI's or the system's).
std::vector<Object> search_order() {
  std::vector<Object> all;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) -> int {
        auto* v = static_cast<std::vector<Object>*>(data);
        Object o;
        o.path = info->dlpi_name ? info->dlpi_name : "";
        o.base = info->dlpi_addr;
        o.phdr = info->dlpi_phdr;
        o.phnum = info->dlpi_phnum;
        if (v->empty()) {  // the executable comes first, without a name
          char exe[4096];
          const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
          o.label = n > 0 ? std::string(exe, static_cast<size_t>(n)) : "the executable";
          o.path = "/proc/self/exe";
        } else {
          o.label = o.path;
        }
        v->push_back(std::move(o));
        return 0;
      },
      &all);
  const std::vector<std::string> app = privatize::application_libraries();
  std::vector<Object> out;
  for (size_t i = 0; i < all.size(); ++i)
    if (i == 0 || (std::find(app.begin(), app.end(), all[i].path) != app.end() && access(all[i].path.c_str(), R_OK) == 0))
      out.push_back(all[i]);  // (not the vDSO, which has no file)
  return out;
}

std::string type_name(int type) {
  switch (type) {
    case STT_OBJECT: return "a data object (STT_OBJECT)";
    case STT_GNU_IFUNC: return "an indirect function (STT_GNU_IFUNC, resolved at load time)";
    case STT_TLS: return "a thread-local variable";
    case STT_NOTYPE: return "a label without a type (STT_NOTYPE)";
    default: return "not a function (type " + std::to_string(type) + ")";
  }
}

// The functions of `spec` in the first object that defines the name, or the reason there are none.
std::vector<Match> locate(const SymbolModelSpec& spec, const std::vector<Object>& objects, std::string& error) {
  bool exe_full = false;
  for (size_t i = 0; i < objects.size(); ++i) {
    const Object& o = objects[i];
    bool full = false;
    std::vector<Match> found = find_in(o, spec.name, full);
    if (i == 0) exe_full = full;
    if (found.empty()) continue;
    for (const Match& m : found) {
      if (m.type != STT_FUNC) {
        error = spec.where + ": " + spec.name + " in " + o.label + " is " + type_name(m.type) +
                "; only functions can be modelled";
        return {};
      }
      if (m.size < kPatchBytes) {
        error = spec.where + ": the function " + spec.name + " in " + o.label + " is " + std::to_string(m.size) +
                " bytes long, shorter than the " + std::to_string(kPatchBytes) +
                "-byte jump xsim writes over its entry; it cannot be modelled (model its caller instead)";
        return {};
      }
      if (!(m.prot & PROT_EXEC)) {
        error = spec.where + ": " + spec.name + " in " + o.label + " is not in an executable segment";
        return {};
      }
    }
    return found;
  }
  error = spec.where + ": the function " + spec.name + " is not in the program: not in the symbol tables of the "
          "executable " + objects.front().label +
          (exe_full ? std::string() : " (it is stripped: no .symtab, only the exported functions' .dynsym)") +
          " nor in those of the " + std::to_string(objects.size() - 1) +
          " shared libraries of the application (xsim's, the MPI's and the C/C++ runtime's are not searched). Check the name "
          "(nm PROGRAM | grep " + spec.name + "); a stripped executable must be rebuilt without -s; a function the "
          "compiler inlined everywhere has no symbol and cannot be modelled";
  return {};
}

// Writes `movabs $target, %rax; jmp *%rax` over the first kPatchBytes bytes at `at`.
std::string patch(uintptr_t at, int prot, const void* target) {
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t lo = at & ~(page - 1), hi = (at + kPatchBytes + page - 1) & ~(page - 1);
  void* p = reinterpret_cast<void*>(lo);
  if (mprotect(p, hi - lo, PROT_READ | PROT_WRITE | PROT_EXEC) != 0 && mprotect(p, hi - lo, PROT_READ | PROT_WRITE) != 0)
    return std::string("cannot make the program's code writable (mprotect: ") + std::strerror(errno) + ")";
  unsigned char code[kPatchBytes] = {0x48, 0xB8, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xE0};
  const uint64_t imm = reinterpret_cast<uint64_t>(target);
  std::memcpy(code + 2, &imm, sizeof imm);
  std::memcpy(reinterpret_cast<void*>(at), code, kPatchBytes);
  __builtin___clear_cache(reinterpret_cast<char*>(at), reinterpret_cast<char*>(at + kPatchBytes));
  if (mprotect(p, hi - lo, prot) != 0)
    return std::string("cannot restore the protection of the program's code (mprotect: ") + std::strerror(errno) + ")";
  return "";
}

// Fills slot `i` from `spec`, or says which [kernels] parameter it needs.
std::string fill_slot(size_t i, const SymbolModelSpec& spec, double peak, double bandwidth, SimTime overhead) {
  if (spec.has_flops && !(peak > 0))
    return spec.where + " has a flops formula, but [kernels] peak is not set: give the flop/s of one core, e.g. "
                        "peak = \"57.6GF\" in [kernels]";
  if (spec.has_bytes && !(bandwidth > 0))
    return spec.where + " has a bytes formula, but [kernels] bandwidth is not set: give the memory bandwidth of one "
                        "core, e.g. bandwidth = \"3.3GB/s\" in [kernels]";
  Slot& s = g_slots[i];
  s = Slot{};
  s.name = spec.name;
  s.types = spec.types;
  s.flops = spec.flops;
  s.bytes = spec.bytes;
  s.has_flops = spec.has_flops;
  s.has_bytes = spec.has_bytes;
  s.flop_rate = peak * spec.efficiency;
  s.byte_rate = bandwidth * spec.efficiency;
  s.overhead_s = (spec.has_overhead ? spec.overhead : overhead).seconds();
  return "";
}

}  // namespace

std::string install_symbol_models(const std::vector<SymbolModelSpec>& specs, double peak, double bandwidth,
                                  SimTime overhead) {
  if (specs.empty()) return "";
#if !defined(__x86_64__)
  return specs.front().where + ": functions of the program can be modelled by name only on x86-64 (xsim patches "
                               "their entry with x86-64 code); see docs/real-programs.md for what works elsewhere";
#else
  if (specs.size() > kMaxSymbolModels) return "more than " + std::to_string(kMaxSymbolModels) + " [kernels.symbols] tables";
  const std::vector<Object> objects = search_order();
  std::vector<std::pair<uintptr_t, std::string>> taken;  // address, symbol: two names for one function
  std::vector<std::pair<size_t, std::vector<Match>>> plan;
  for (size_t i = 0; i < specs.size(); ++i) {
    std::string error = fill_slot(i, specs[i], peak, bandwidth, overhead);
    if (!error.empty()) return error;
    std::vector<Match> found = locate(specs[i], objects, error);
    if (!error.empty()) return error;
    for (const Match& m : found) {
      for (const auto& [addr, other] : taken)
        if (addr == m.addr)
          return specs[i].where + ": " + specs[i].name + " and " + other +
                 " are two names of the same function; give one model for it";
      taken.emplace_back(m.addr, specs[i].name);
    }
    plan.emplace_back(i, std::move(found));
  }
  for (const auto& [i, found] : plan)  // nothing is patched until every symbol is found
    for (const Match& m : found)
      if (std::string error = patch(m.addr, m.prot, reinterpret_cast<const void*>(kStubs[i])); !error.empty())
        return specs[i].where + ": " + specs[i].name + ": " + error;
  g_nslots = specs.size();
  return "";
#endif
}

std::string symbol_models_report() {
  if (g_nslots == 0) return "";
  std::vector<int64_t> v(2 * g_nslots);
  for (size_t i = 0; i < g_nslots; ++i) {
    v[2 * i] = static_cast<int64_t>(g_slots[i].calls);
    v[2 * i + 1] = g_slots[i].ps;
  }
  if (g_engine && g_engine->nprocs() > 1) native::allreduce_sum(v.data(), static_cast<int>(v.size()));
  std::string out;
  for (size_t i = 0; i < g_nslots; ++i) {
    char line[512];
    const double s = static_cast<double>(v[2 * i + 1]) * 1e-12;
    std::snprintf(line, sizeof line, "xsim: modelled function  %s: %lld calls, %.9f s charged (%.9f s per call)\n",
                  g_slots[i].name.c_str(), static_cast<long long>(v[2 * i]), s,
                  v[2 * i] ? s / static_cast<double>(v[2 * i]) : 0.0);
    out += line;
  }
  return out;
}

}  // namespace xsim
