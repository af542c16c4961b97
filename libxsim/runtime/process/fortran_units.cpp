// Per-rank Fortran units (docs/privatization.md). The ranks of a native process share libgfortran's unit
// table (its units are heap objects its globals point to: not privatizable), so unit 10 of one rank would be
// unit 10 of every other: one rank's OPEN(10, ...) closes another's file, and one rank's CLOSE(6) closes
// stdout for all. libxsim therefore interposes libgfortran's I/O statement entry points (_gfortran_st_open,
// st_close, st_inquire, st_read, st_write, st_rewind, st_backspace, st_endfile, st_flush, st_wait,
// st_wait_async) and the FLUSH intrinsic subroutine; every caller but a rank's code (rank_calling: its
// application code, or a callback of it that an MPI call runs) gets libgfortran's function unchanged.
// In a native process of two or more ranks, a statement on unit u >= 0 goes to a unit of the rank's own: the
// rank's first OPEN of u (or its first READ, WRITE or ENDFILE, which open u implicitly) opens it with
// NEWUNIT=, so that libgfortran picks a negative number unique in the process, and the rank's table
// (RankLibc::funits, rank_libc.hpp) maps u to that number until the rank closes u. A file named by neither FILE= nor
// STATUS='SCRATCH' is `fort.u`, as for u itself. Negative numbers (NEWUNIT=, internal files) are unique
// already and go through as given. The preconnected units (0, 5, 6 and those GFORTRAN_STDIN_UNIT,
// GFORTRAN_STDOUT_UNIT, GFORTRAN_STDERR_UNIT name) stay shared until a rank opens one with FILE=, and a rank's
// CLOSE of a shared one does nothing (IOSTAT= 0); these two hold with one rank per process too, so that the
// output is the same on any number of native processes. The caller's unit is put back into the parameter
// block after every statement but READ and WRITE (whose block the transfer calls that follow still use), and
// NUMBER= of an INQUIRE is the rank's unit. Layer: libxsim/runtime/process (xsim_process); exported through exports.map.
#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

#include "api_support.hpp"
#include "rank_libc.hpp"
#include "engine.hpp"

namespace xsim {
namespace {

// ---- libgfortran's statement parameter blocks (libgfortran.so.5, io.h), the fields xsim reads or sets.
// The layout of gfortran 12 (GCC 8 on: gfc_charlen_type is size_t), checked against the compiler's stores
// (gfortran -S, -fdump-tree-original): CHARACTER1 fields are (pointer, length), CHARACTER2 (length, pointer).

struct Common {  // st_parameter_common: every block starts with it
  int32_t flags;
  int32_t unit;
  const char* filename;
  int32_t line;
  size_t iomsg_len;
  char* iomsg;
  int32_t* iostat;
};
static_assert(offsetof(Common, unit) == 4 && offsetof(Common, iomsg_len) == 24 && offsetof(Common, iostat) == 40 &&
              sizeof(Common) == 48, "st_parameter_common of libgfortran.so.5");

struct Open {  // st_parameter_open
  Common common;
  int64_t recl_in;
  size_t file_len;
  const char* file;
  const char* status;
  size_t status_len;
  size_t access_len;
  const char* access;
  const char* form;
  size_t form_len;
  size_t blank_len;
  const char* blank;
  const char* position;
  size_t position_len;
  size_t action_len;
  const char* action;
  char delim_to_asynchronous[128];  // delim, pad, convert, decimal, encoding, round, sign, asynchronous
  int32_t* newunit;
  int32_t readonly;
};
static_assert(offsetof(Open, file) == 64 && offsetof(Open, status) == 72 && offsetof(Open, access) == 96 &&
              offsetof(Open, form) == 104 && offsetof(Open, action) == 160 && offsetof(Open, newunit) == 296 &&
              offsetof(Open, readonly) == 304, "st_parameter_open of gfortran 12");

struct Inquire {  // st_parameter_inquire, up to NUMBER=
  Common common;
  int32_t* exist;
  int32_t* opened;
  int32_t* number;
};
static_assert(offsetof(Inquire, opened) == 56 && offsetof(Inquire, number) == 64, "st_parameter_inquire");

// A parameter block xsim fills itself: zero (`Own<X> o{}` zeroes `bytes`, all of it) beyond the fields it sets,
// and larger than any of libgfortran's (which reads only the fields its flags name).
template <typename Block>
union Own {
  unsigned char bytes[1024];
  Block b;
};

// common.flags (io.h: IOPARM_*)
constexpr int32_t kLibreturnMask = 3;  // the statement's outcome, set by libgfortran: 0 is success
constexpr int32_t kHasIostat = 1 << 5;
constexpr int32_t kCommonMask = (1 << 7) - 1;
constexpr int32_t kOpenHasFile = 1 << 8, kOpenHasStatus = 1 << 9, kOpenHasAccess = 1 << 10;
constexpr int32_t kOpenHasForm = 1 << 11, kOpenHasAction = 1 << 14, kOpenHasNewunit = 1 << 23;
constexpr int32_t kInquireHasOpened = 1 << 8, kInquireHasNumber = 1 << 9, kInquireHasFile = 1 << 14;
// What makes a data transfer formatted, as libgfortran tells when it opens a unit implicitly: a format,
// list-directed (*), or a namelist (IONML_SET is set by st_set_nml_var, before st_read/st_write).
constexpr int32_t kDtFormatted = (1 << 7) | (1 << 12) | (1 << 15) | static_cast<int32_t>(1u << 31);

bool succeeded(const Common& c) { return (c.flags & kLibreturnMask) == 0; }

template <typename Fn>
Fn libgfortran(const char* name) {
  auto fn = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
  if (!fn) {  // only a Fortran program calls these, and it loaded libgfortran
    std::fprintf(stderr, "xsim: libgfortran's %s not found\n", name);
    std::abort();
  }
  return fn;
}

using OpenFn = void (*)(Open*);
using InquireFn = void (*)(Inquire*);
using StatementFn = void (*)(Common*);  // every other statement: xsim reads only its common part

OpenFn real_open() {
  static OpenFn fn = libgfortran<OpenFn>("_gfortran_st_open");
  return fn;
}
InquireFn real_inquire() {
  static InquireFn fn = libgfortran<InquireFn>("_gfortran_st_inquire");
  return fn;
}

// The units libgfortran connects at start-up, shared by the ranks (its defaults, or its environment).
bool preconnected(int32_t u) {
  static const int32_t pre[3] = {
      [] {
        const char* s = std::getenv("GFORTRAN_STDIN_UNIT");
        return s ? static_cast<int32_t>(std::strtol(s, nullptr, 10)) : 5;
      }(),
      [] {
        const char* s = std::getenv("GFORTRAN_STDOUT_UNIT");
        return s ? static_cast<int32_t>(std::strtol(s, nullptr, 10)) : 6;
      }(),
      [] {
        const char* s = std::getenv("GFORTRAN_STDERR_UNIT");
        return s ? static_cast<int32_t>(std::strtol(s, nullptr, 10)) : 0;
      }()};
  return u == 0 || u == 5 || u == 6 || u == pre[0] || u == pre[1] || u == pre[2];
}

// Whether a rank's code is the caller: on the simulation's thread, inside a rank. Its application code, or a
// callback of it that an MPI call runs (an error handler, a user-defined reduction), but no other thread.
bool rank_calling() { return t_simulation_thread && g_engine && g_engine->in_rank(); }

// Whether the native process holds other ranks than the caller's (with one, libgfortran's numbers are the
// rank's own already). For a rank's code (rank_calling).
bool several_ranks() {
  const Engine& e = *g_engine;
  return e.first_rank_of(e.proc() + 1) - e.first_rank_of(e.proc()) > 1;
}

// ---- the rank's table: (its unit number, libgfortran's), sorted by the first. Units it opened with NEWUNIT=
// are in it too, as (n, n), so that INQUIRE(FILE=...) can tell its own units from other ranks'.
using Units = std::vector<std::pair<int32_t, int32_t>>;

Units* units_if_any() {
  RankLibc* x = rank_libc_if_any();
  return x ? &x->funits : nullptr;
}

// libgfortran's number for the rank's unit `u`, or 0 (never one of those: they are negative).
int32_t internal_of(int32_t u) {
  const Units* t = units_if_any();
  if (!t) return 0;
  auto it = std::lower_bound(t->begin(), t->end(), std::make_pair(u, INT32_MIN));
  return it != t->end() && it->first == u ? it->second : 0;
}

void remember(int32_t u, int32_t n) {
  Units& t = rank_libc().funits;
  auto it = std::lower_bound(t.begin(), t.end(), std::make_pair(u, INT32_MIN));
  if (it != t.end() && it->first == u)
    it->second = n;
  else
    t.insert(it, {u, n});
}

void forget(int32_t u) {
  Units* t = units_if_any();
  if (!t) return;
  auto it = std::lower_bound(t->begin(), t->end(), std::make_pair(u, INT32_MIN));
  if (it != t->end() && it->first == u) t->erase(it);
}

// After an OPEN or CLOSE that failed, whether libgfortran's unit `n` is still connected decides whether
// the rank's unit `u` still maps to it (a failed OPEN of a new file closes the unit's old one).
void forget_unless_connected(int32_t u, int32_t n) {
  Own<Inquire> q{};
  int32_t iostat = 0, opened = 0;
  q.b.common.flags = kInquireHasOpened | kHasIostat;
  q.b.common.unit = n;
  q.b.common.iostat = &iostat;
  q.b.opened = &opened;
  real_inquire()(&q.b);
  if (iostat != 0 || !opened) forget(u);
}

// Opens the rank's unit `u` as a READ, WRITE or ENDFILE statement (`c`) would open it implicitly: sequential,
// READWRITE, STATUS='UNKNOWN', file `fort.u`, formatted or not as the statement is, with the statement's
// IOSTAT=, IOMSG= and ERR= (as libgfortran's own implicit open). Returns libgfortran's number, or 0 when the
// open failed (and the statement asked for the error: otherwise libgfortran has ended the program).
int32_t open_implicitly(const Common& c, int32_t u) {
  char name[24];
  std::snprintf(name, sizeof name, "fort.%d", static_cast<int>(u));
  const bool formatted = (c.flags & kDtFormatted) != 0;
  Own<Open> o{};
  int32_t n = 0;
  o.b.common = c;
  o.b.common.flags = (c.flags & kCommonMask & ~kLibreturnMask) | kOpenHasFile | kOpenHasStatus | kOpenHasAccess |
                     kOpenHasForm | kOpenHasAction | kOpenHasNewunit;
  o.b.common.unit = u;
  o.b.file = name;
  o.b.file_len = std::strlen(name);
  o.b.status = "unknown";
  o.b.status_len = 7;
  o.b.access = "sequential";
  o.b.access_len = 10;
  o.b.form = formatted ? "formatted" : "unformatted";
  o.b.form_len = std::strlen(o.b.form);
  o.b.action = "readwrite";
  o.b.action_len = 9;
  o.b.newunit = &n;
  real_open()(&o.b);
  if (!succeeded(o.b.common) || n == 0) return 0;
  remember(u, n);
  return n;
}

// A statement other than OPEN, CLOSE and INQUIRE on the rank's unit: libgfortran's unit in the block while
// it runs. `opens`: the statement opens an unconnected unit (READ, WRITE, ENDFILE). `restore`: put the
// caller's unit back afterwards (not for READ and WRITE, whose block the transfer calls that follow use).
void on_unit(Common* c, StatementFn real, bool opens, bool restore) {
  if (!rank_calling()) return real(c);
  const int32_t u = c->unit;
  if (u < 0) return real(c);  // NEWUNIT= numbers and internal files: unique already
  int32_t n = internal_of(u);
  if (n == 0) {
    // A unit the rank has not connected: libgfortran answers for the number as given (no other rank's is
    // ever that number), unless the statement would open it.
    if (!opens || preconnected(u) || !several_ranks()) return real(c);
    n = open_implicitly(*c, u);
    // The open failed and the statement asked for the error: libgfortran's own implicit open of the number
    // as given (the same file) fails alike and reports it in the statement.
    if (n == 0) return real(c);
  }
  c->unit = n;
  real(c);
  if (restore) c->unit = u;
}

// The rank's unit for libgfortran's negative number `m`, that INQUIRE(FILE=...) named; -1 (and OPENED= false)
// when `m` is another rank's.
int32_t user_unit_of(int32_t m, Inquire* p, int32_t flags) {
  if (const Units* t = units_if_any())
    for (const auto& [u, n] : *t)
      if (n == m) return u;
  if (!several_ranks()) return m;  // the rank's own NEWUNIT= unit
  if (flags & kInquireHasOpened) *p->opened = 0;
  return -1;
}

bool is_scratch(const Open& p) {
  if (!(p.common.flags & kOpenHasStatus) || !p.status) return false;
  size_t len = p.status_len;
  while (len > 0 && p.status[len - 1] == ' ') --len;
  if (len != 7) return false;
  for (size_t i = 0; i < len; ++i)
    if (std::tolower(static_cast<unsigned char>(p.status[i])) != "scratch"[i]) return false;
  return true;
}

}  // namespace
}  // namespace xsim

using namespace xsim;

#define XSIM_GFORTRAN_EXPORT extern "C" __attribute__((visibility("default")))

XSIM_GFORTRAN_EXPORT void _gfortran_st_open(Open* p) {
  if (!rank_calling()) return real_open()(p);
  const int32_t u = p->common.unit;
  if (p->common.flags & kOpenHasNewunit) {  // OPEN(NEWUNIT=n): noted, for INQUIRE(FILE=...)
    real_open()(p);
    if (succeeded(p->common) && several_ranks()) remember(*p->newunit, *p->newunit);
    return;
  }
  if (u < 0) return real_open()(p);  // reopening a NEWUNIT= unit
  if (const int32_t n = internal_of(u)) {  // reopening the rank's own unit
    p->common.unit = n;
    real_open()(p);
    p->common.unit = u;
    if (!succeeded(p->common)) forget_unless_connected(u, n);
    return;
  }
  const bool scratch = is_scratch(*p);
  if (preconnected(u)) {
    // Without a file: changes the modes of the shared unit, as given. With one: a unit of the rank's own, even
    // alone in its process (its CLOSE must not close the shared unit, below).
    if (!(p->common.flags & kOpenHasFile) && !scratch) return real_open()(p);
  } else if (!several_ranks()) {
    return real_open()(p);
  }
  // A new unit of the rank's own: the same statement with NEWUNIT= (and the file `fort.u` where it names none).
  const int32_t flags = p->common.flags;
  const char* file = p->file;
  const size_t file_len = p->file_len;
  int32_t* newunit = p->newunit;
  char name[24];
  int32_t n = 0;
  if (!(flags & kOpenHasFile) && !scratch) {
    std::snprintf(name, sizeof name, "fort.%d", static_cast<int>(u));
    p->file = name;
    p->file_len = std::strlen(name);
    p->common.flags |= kOpenHasFile;
  }
  p->common.flags |= kOpenHasNewunit;
  p->newunit = &n;
  real_open()(p);
  p->common.flags = (flags & ~kLibreturnMask) | (p->common.flags & kLibreturnMask);
  p->common.unit = u;
  p->file = file;
  p->file_len = file_len;
  p->newunit = newunit;
  if (succeeded(p->common) && n != 0) remember(u, n);
}

XSIM_GFORTRAN_EXPORT void _gfortran_st_close(Common* p) {
  static StatementFn real = libgfortran<StatementFn>("_gfortran_st_close");
  if (!rank_calling()) return real(p);
  const int32_t u = p->unit;
  if (u < 0) {  // a NEWUNIT= unit
    real(p);
    if (succeeded(*p))
      forget(u);
    else
      forget_unless_connected(u, u);
    return;
  }
  const int32_t n = internal_of(u);
  if (n == 0) {
    // The shared stdin, stdout or stderr: the other ranks still use it. Even alone in its process, so that the
    // output is the same on any number of native processes.
    if (preconnected(u)) {
      if (p->flags & kHasIostat) *p->iostat = 0;
      p->flags &= ~kLibreturnMask;
      return;
    }
    return real(p);  // a unit the rank has not connected: nothing to close
  }
  p->unit = n;
  real(p);
  p->unit = u;
  if (succeeded(*p))
    forget(u);
  else
    forget_unless_connected(u, n);
}

XSIM_GFORTRAN_EXPORT void _gfortran_st_inquire(Inquire* p) {
  if (!rank_calling()) return real_inquire()(p);
  if (p->common.flags & kInquireHasFile) {
    // By file: libgfortran names the unit connected to it, which may be another rank's. Ask for NUMBER= to
    // tell; a unit of another rank (a negative number not in the rank's table) is not connected for this one.
    if (!(p->common.flags & (kInquireHasNumber | kInquireHasOpened))) return real_inquire()(p);
    const int32_t flags = p->common.flags;
    int32_t* number = p->number;
    int32_t m = -1;
    p->common.flags |= kInquireHasNumber;
    p->number = &m;
    real_inquire()(p);
    p->common.flags = (flags & ~kLibreturnMask) | (p->common.flags & kLibreturnMask);
    p->number = number;
    if (succeeded(p->common) && m < -1) m = user_unit_of(m, p, flags);
    if (flags & kInquireHasNumber) *number = m;
    return;
  }
  const int32_t u = p->common.unit;
  const int32_t n = u < 0 ? 0 : internal_of(u);
  if (n == 0) return real_inquire()(p);  // unconnected for the rank, shared, or a NEWUNIT= number: as given
  p->common.unit = n;
  real_inquire()(p);
  p->common.unit = u;
  if ((p->common.flags & kInquireHasNumber) && *p->number == n) *p->number = u;
}

XSIM_GFORTRAN_EXPORT void _gfortran_st_read(Common* p) {
  static StatementFn real = libgfortran<StatementFn>("_gfortran_st_read");
  on_unit(p, real, true, false);
}

XSIM_GFORTRAN_EXPORT void _gfortran_st_write(Common* p) {
  static StatementFn real = libgfortran<StatementFn>("_gfortran_st_write");
  on_unit(p, real, true, false);
}

XSIM_GFORTRAN_EXPORT void _gfortran_st_endfile(Common* p) {
  static StatementFn real = libgfortran<StatementFn>("_gfortran_st_endfile");
  on_unit(p, real, true, true);
}

XSIM_GFORTRAN_EXPORT void _gfortran_st_rewind(Common* p) {
  static StatementFn real = libgfortran<StatementFn>("_gfortran_st_rewind");
  on_unit(p, real, false, true);
}

XSIM_GFORTRAN_EXPORT void _gfortran_st_backspace(Common* p) {
  static StatementFn real = libgfortran<StatementFn>("_gfortran_st_backspace");
  on_unit(p, real, false, true);
}

XSIM_GFORTRAN_EXPORT void _gfortran_st_flush(Common* p) {
  static StatementFn real = libgfortran<StatementFn>("_gfortran_st_flush");
  on_unit(p, real, false, true);
}

XSIM_GFORTRAN_EXPORT void _gfortran_st_wait(Common* p) {
  static StatementFn real = libgfortran<StatementFn>("_gfortran_st_wait");
  on_unit(p, real, false, true);
}

XSIM_GFORTRAN_EXPORT void _gfortran_st_wait_async(Common* p) {
  static StatementFn real = libgfortran<StatementFn>("_gfortran_st_wait_async");
  on_unit(p, real, false, true);
}

// CALL FLUSH(unit), the GNU extension (without an argument: every unit).
XSIM_GFORTRAN_EXPORT void _gfortran_flush_i4(int32_t* unit) {
  static auto real = libgfortran<void (*)(int32_t*)>("_gfortran_flush_i4");
  int32_t n = unit && *unit >= 0 && rank_calling() ? internal_of(*unit) : 0;
  real(n != 0 ? &n : unit);
}

XSIM_GFORTRAN_EXPORT void _gfortran_flush_i8(int64_t* unit) {
  static auto real = libgfortran<void (*)(int64_t*)>("_gfortran_flush_i8");
  int64_t n = 0;
  if (unit && *unit >= 0 && *unit <= INT32_MAX && rank_calling()) n = internal_of(static_cast<int32_t>(*unit));
  real(n != 0 ? &n : unit);
}
