// libc's getopt per rank (docs/privatization.md): getopt, getopt_long, getopt_long_only and __posix_getopt
// (what <unistd.h> makes of getopt in strict POSIX builds) keep their scan in one hidden libc state per
// process. The ranks of a native process would share it: a rank that switches out in the middle of its getopt
// loop (an MPI call inside it, or a parse after MPI_Init, as CoMD's) would go on with another rank's scan.
// Called by a rank's application code (app_code_running, libc_clocks.hpp), they run getopt_scan
// (getopt_state.hpp: glibc's behaviour) on the rank's own state; every other caller gets libc's.
//
// The public variables optind, optarg, optopt and opterr are the ones the application sees (the executable's
// copies when it names them, else libc's), read and written here as <unistd.h> declares them. When they lie in
// the rank's privatized image they are the rank's own already. Otherwise (privatization off, or a variable the
// executable does not name) one copy serves every rank of the process, and:
// - optind: each call leaves its value in the rank's state. A call that finds in optind exactly what another
//   rank's call left there takes the rank's own value instead; any other value was written since by the
//   application (optind = 0 to rescan, usually just before the call) and is used as it is;
// - optarg and optopt are written by every call from the rank's state (glibc keeps them there too);
// - opterr is read as it is (getopt never writes it).
// So a rank's getopt loop is right whatever runs between its calls, but code that reads optarg, optopt or
// optind after an MPI call that let other ranks parse sees what the last of them left.
// Layer: libxsim/runtime/process (xsim_process); exported through exports.map.
#include <dlfcn.h>
#include <getopt.h>
#include <unistd.h>

#include <cstdint>
#include <memory>

#include "libc_clocks.hpp"
#include "rank_libc.hpp"
#include "engine.hpp"
#include "getopt_state.hpp"
#include "privatize.hpp"

extern "C" int __posix_getopt(int argc, char* const* argv, const char* optstring) noexcept;

namespace xsim {
namespace {

// Where optind is shared: whose call last wrote it (a rank's index, or kNative for what the process left
// there before the first rank started), and the value that call left.
constexpr int32_t kNobody = -2, kNative = -1;
int32_t g_writer = kNobody;
int g_left_optind = 1;

// Whether `p` lies in the current rank's privatized image.
bool rank_private(const void* p, size_t n) {
  const privatize::Privatizer* priv = privatize::active();
  return priv && priv->overlaps(p, n);
}

int rank_getopt(int argc, char* const* argv, const GetoptCall& call) {
  RankLibc& x = rank_libc();
  if (!x.getopt) x.getopt = std::make_unique<RankGetopt>();
  RankGetopt& g = *x.getopt;
  const int32_t me = g_engine->current().index;
  const bool shared = !rank_private(&optind, sizeof optind);
  int ind = optind;
  if (shared && g_writer != me && ind == g_left_optind) ind = g.optind;  // another rank's: this rank's own
  int err = opterr;
  char* arg = nullptr;
  int opt = 0;
  const int code = getopt_scan(g.scan, {ind, arg, opt, err}, argc, const_cast<char**>(argv), call);
  optind = ind;
  optarg = arg;
  optopt = opt;
  g.optind = ind;
  if (shared) {
    g_writer = me;
    g_left_optind = ind;
  }
  return code;
}

template <typename Fn>
Fn libc(const char* name) {
  return reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
}

}  // namespace

void getopt_rank_start() {
  if (RankLibc* x = rank_libc_if_any(); x && x->getopt) *x->getopt = RankGetopt{};
  if (g_writer == kNobody) {
    g_writer = kNative;
    g_left_optind = optind;
  }
}

}  // namespace xsim

#define XSIM_LIBC_EXPORT extern "C" __attribute__((visibility("default")))

using GetoptFn = int (*)(int, char* const*, const char*);
using GetoptLongFn = int (*)(int, char* const*, const char*, const option*, int*);

XSIM_LIBC_EXPORT int getopt(int argc, char* const* argv, const char* optstring) noexcept {
  if (!xsim::app_code_running()) {
    static auto real = xsim::libc<GetoptFn>("getopt");
    return real(argc, argv, optstring);
  }
  return xsim::rank_getopt(argc, argv, {optstring});
}

XSIM_LIBC_EXPORT int __posix_getopt(int argc, char* const* argv, const char* optstring) noexcept {
  if (!xsim::app_code_running()) {
    static auto real = xsim::libc<GetoptFn>("__posix_getopt");
    return real(argc, argv, optstring);
  }
  return xsim::rank_getopt(argc, argv, {optstring, nullptr, nullptr, false, true});
}

XSIM_LIBC_EXPORT int getopt_long(int argc, char* const* argv, const char* optstring, const option* longopts,
                                 int* longindex) noexcept {
  if (!xsim::app_code_running()) {
    static auto real = xsim::libc<GetoptLongFn>("getopt_long");
    return real(argc, argv, optstring, longopts, longindex);
  }
  return xsim::rank_getopt(argc, argv, {optstring, longopts, longindex, false, false});
}

XSIM_LIBC_EXPORT int getopt_long_only(int argc, char* const* argv, const char* optstring, const option* longopts,
                                      int* longindex) noexcept {
  if (!xsim::app_code_running()) {
    static auto real = xsim::libc<GetoptLongFn>("getopt_long_only");
    return real(argc, argv, optstring, longopts, longindex);
  }
  return xsim::rank_getopt(argc, argv, {optstring, longopts, longindex, true, false});
}
