// The reserved region of Open MPI-ABI handles (handles.hpp). Nothing to do for MPICH's integer handles.
#include "handles.hpp"

#if defined(XSIM_NATIVE_OPENMPI)
#include <sys/mman.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace xsim::handles {

uintptr_t region_base() {
  static const uintptr_t base = [] {
    void* p = mmap(nullptr, kRegionBytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
      std::fprintf(stderr,
                   "xsim: cannot reserve %zu MiB of address space for MPI handles (mmap: %s); raise the address "
                   "space limit (ulimit -v)\n",
                   static_cast<size_t>(kRegionBytes >> 20), std::strerror(errno));
      std::abort();
    }
    return reinterpret_cast<uintptr_t>(p);
  }();
  return base;
}

}  // namespace xsim::handles
#endif
