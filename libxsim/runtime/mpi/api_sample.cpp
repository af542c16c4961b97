// Sampling of annotated regions (include/xsim.h: XSIM_SAMPLE_LOCAL / XSIM_SAMPLE_GLOBAL; docs/real-programs.md
// "Sampling"): a region keyed by its call site runs and is measured until the site has n samples (per rank,
// or pooled over the native process's ranks), then every later execution is skipped and charged the mean.
// A region's cost is the virtual time between xsim_sample_begin and xsim_sample_end, after the host time
// before each is charged through the processor model (so -xsim-cpu scaled measures host time, and explicit
// xsim_compute charges inside count exactly).
#include <cstdio>
#include <string>
#include <unordered_map>
#include <vector>

#include "api_support.hpp"
#include "xsim.h"

using namespace xsim;

namespace {

struct Samples {
  int64_t sum_ps = 0;  // measured executions' cost
  int64_t count = 0;
};
struct Open {  // a region being measured on a rank
  std::string site;
  SimTime start;
  bool global;
};
struct RankSampling {
  std::unordered_map<std::string, Samples> local;
  std::vector<Open> open;  // nested regions, innermost last
};

std::unordered_map<std::string, Samples> g_global;  // pooled over the native process's ranks
std::vector<RankSampling> g_ranks;                   // by local rank index

bool rank_calling() { return t_simulation_thread && g_engine && g_engine->in_rank(); }

RankSampling& mine() {
  const size_t i = static_cast<size_t>(g_engine->current().index);
  if (g_ranks.size() <= i) g_ranks.resize(g_engine->ranks().size() > i ? g_engine->ranks().size() : i + 1);
  return g_ranks[i];
}

std::string site_of(const char* file, int line) { return std::string(file ? file : "?") + ":" + std::to_string(line); }

// The rank's clock after the host time computed since its last call is charged (processor model).
SimTime charged_clock(const char* name) {
  Engine& e = *g_engine;
  try {
    e.mpi_enter();
  } catch (const std::exception& err) {
    internal_failure(name, err.what());
  }
  const SimTime t = e.current().clock;
  e.mpi_leave();
  return t;
}

int begin(const char* site_file, int line, int n, int global) {
  if (!rank_calling()) return 1;  // not simulated: the region runs
  const std::string site = site_of(site_file, line);
  if (n < 1)
    internal_failure("xsim_sample_begin", ("the region at " + site + " asks for " + std::to_string(n) +
                                           " samples; give at least 1").c_str());
  RankSampling& r = mine();
  for (const Open& o : r.open)
    if (o.site == site)
      internal_failure("xsim_sample_begin", ("the region at " + site +
                                             " is begun again before its end (did a break, goto or return leave it?)")
                                                .c_str());
  const Samples& s = global ? g_global[site] : r.local[site];
  if (s.count >= n) {  // enough samples: skip the region, charge their mean
    const int64_t mean = (s.sum_ps + s.count / 2) / s.count;
    Engine& e = *g_engine;
    try {
      e.mpi_enter();
      e.charge_compute(SimTime::from_ps(mean));
    } catch (const std::exception& err) {
      internal_failure("xsim_sample_begin", err.what());
    }
    e.mpi_leave();
    return 0;
  }
  r.open.push_back({site, charged_clock("xsim_sample_begin"), global != 0});
  return 1;
}

int end(const char* site_file, int line) {
  if (!rank_calling()) return 0;
  const std::string site = site_of(site_file, line);
  RankSampling& r = mine();
  if (r.open.empty() || r.open.back().site != site)
    internal_failure("xsim_sample_end",
                     ("the region ending at " + site + " " +
                      (r.open.empty() ? std::string("was not begun")
                                      : "is not the innermost one begun, " + r.open.back().site +
                                            " (did a break, goto or return leave a sampled region?)"))
                         .c_str());
  const Open o = r.open.back();
  r.open.pop_back();
  const SimTime cost = charged_clock("xsim_sample_end") - o.start;
  Samples& s = o.global ? g_global[site] : r.local[site];
  s.sum_ps += cost.ps();
  ++s.count;
  return 0;
}

}  // namespace

XSIM_API int xsim_sample_begin(const char* file, int line, int n, int global) { return begin(file, line, n, global); }
XSIM_API int xsim_sample_end(const char* file, int line) { return end(file, line); }

// Fortran (any compiler that appends one underscore, as gfortran does): INTEGER FUNCTION
// XSIM_SAMPLE_BEGIN(SITE, N, GLOBAL) and SUBROUTINE XSIM_SAMPLE_END(SITE), SITE an integer of the caller's
// choosing that names the region (e.g. __LINE__ in a preprocessed .F90 file).
XSIM_API int xsim_sample_begin_(const int* site, const int* n, const int* global) {
  return begin("fortran site", *site, *n, *global);
}
XSIM_API void xsim_sample_end_(const int* site) { end("fortran site", *site); }
