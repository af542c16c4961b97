// The libc (and libgfortran) state that xsim keeps per virtual rank, for the interposers of this folder:
// random numbers (libc_random.cpp), getopt (libc_getopt.cpp), strtok (libc_strtok.cpp) and Fortran units
// (fortran_units.cpp). One record per local rank, made on the rank's first such call; records live until
// the process ends. Layer: libxsim/runtime/process (xsim_process). [rank] functions run on the calling rank's fiber.
#pragma once
#include <stdlib.h>  // random_data, drand48_data

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "getopt_state.hpp"

namespace xsim {

// A rank's own state of libc's random number generators, made on its first call.
struct RankRandom {
  random_data data{};   // rand/random
  int32_t state[32]{};  // glibc's default: 128 bytes, the generator of degree 31
  drand48_data d48{};   // the drand48 family: zero, as libc's starts
};

// A rank's own getopt: its scan, and, where the public variables are shared by the ranks of the native
// process, the optind its last call left in them.
struct RankGetopt {
  GetoptState scan;
  int optind = 1;
};

struct RankLibc {
  std::unique_ptr<RankRandom> random;  // made on first use
  std::unique_ptr<RankGetopt> getopt;  // made on first use
  char* strtok_next = nullptr;         // strtok's position
  std::vector<std::pair<int32_t, int32_t>> funits;  // Fortran units: (the rank's, libgfortran's), sorted
};

// [rank] The calling rank's record (made now if it has none).
RankLibc& rank_libc();
// [rank] The calling rank's record, or nullptr when it has none yet.
RankLibc* rank_libc_if_any();

}  // namespace xsim
