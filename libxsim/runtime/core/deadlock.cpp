// Engine (engine.hpp), the deadlock report: when no rank can run and some have not finished, every blocked
// rank's state (the call it waits in, for whom, on which communicator) and the stack of the rank that was
// running, then exit code 3 (docs/errors.md).
#include "engine.hpp"

#include <cxxabi.h>
#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <type_traits>

#include "native/exchange.hpp"
#include "xsim/units.hpp"

namespace xsim {

namespace {
// A handle as text: MPICH's are ints, Open MPI's pointers.
template <class H>
std::string handle_text(H h) {
  char buf[40];
  if constexpr (std::is_pointer_v<H>)
    std::snprintf(buf, sizeof buf, "comm %p", static_cast<const void*>(h));
  else
    std::snprintf(buf, sizeof buf, "comm 0x%08x", static_cast<unsigned>(h));
  return buf;
}
// A communicator's name: the MPI layer's ("MPI_COMM_WORLD", "comm 0x84000002"), else its handle.
std::string comm_name(const Engine::Hooks& h, MPI_Comm c) {
  if (h.describe_comm) return h.describe_comm(c);
  return handle_text(c);
}
}  // namespace

constexpr int kDeadlockExitCode = 3;

void Engine::print_stack_of_current() {
  unw_context_t uc;
  unw_cursor_t cur;
  unw_getcontext(&uc);
  unw_init_local(&cur, &uc);
  bool started = false;
  int shown = 0;
  while (unw_step(&cur) > 0 && shown < 16) {
    unw_word_t ip = 0, off = 0;
    char name[512];
    unw_get_reg(&cur, UNW_REG_IP, &ip);
    if (unw_get_proc_name(&cur, name, sizeof name, &off) != 0) std::strcpy(name, "??");
    std::string shown_name = name;
    int status = 0;
    char* dem = abi::__cxa_demangle(name, nullptr, nullptr, &status);
    if (status == 0 && dem) shown_name = dem;
    std::free(dem);
    if (!started) {  // skip the simulator's own frames: start at the application's MPI call
      if (std::strncmp(name, "MPI_", 4) == 0 || std::strncmp(name, "mpi_", 4) == 0 ||
          std::strncmp(name, "PMPI_", 5) == 0)
        started = true;
      else
        continue;
    }
    if (shown_name.find("xsim::Engine::start_fiber") != std::string::npos ||
        shown_name.find("xsim::Engine::thread_create") != std::string::npos)
      break;
    std::fprintf(stderr, "xsim:       #%d 0x%012lx %s+0x%lx\n", shown, static_cast<unsigned long>(ip),
                 shown_name.c_str(), static_cast<unsigned long>(off));
    ++shown;
  }
}

int Engine::report_deadlock(int64_t unfinished_total) {
  std::fflush(stdout);
  if (proc_ == 0)
    std::fprintf(stderr,
                 "xsim: deadlock: no virtual rank can make progress and no message is in flight; %lld of %lld "
                 "ranks have not finished:\n",
                 static_cast<long long>(unfinished_total), static_cast<long long>(nranks_));
  deadlock_reporting_ = true;
  int shown = 0;
  std::map<std::string, int64_t> rest;
  for (Rank& r : ranks_) {
    if (r.state == RankState::Done) continue;
    std::string peer = r.block.peer == kAnySource ? "MPI_ANY_SOURCE"
                       : r.block.peer == -3       ? "several"
                                                  : std::to_string(r.block.peer);
    std::string tag = r.block.tag == kAnyTag ? "MPI_ANY_TAG" : std::to_string(r.block.tag);
    if (r.state != RankState::Blocked) {
      std::fprintf(stderr, "xsim:   rank %d: not blocked (state %d) at virtual time %.9f s\n", r.world,
                   static_cast<int>(r.state), r.clock.seconds());
      continue;
    }
    if (shown < 16) {
      // A peer of MPI_COMM_WORLD on this process that has already ended: say so (it is the usual cause).
      std::string gone;
      if (r.block.comm == MPI_COMM_WORLD && r.block.peer >= 0)
        if (const Rank* p = local_rank(r.block.peer); p && p->state == RankState::Done)
          gone = "; rank " + std::to_string(p->world) + " has already ended" +
                 (p->mpi_finalized ? "" : " without calling MPI_Finalize");
      std::fprintf(stderr, "xsim:   rank %d at virtual time %.9f s: blocked in %s (peer %s, tag %s, %s)%s%s\n",
                   r.world, r.clock.seconds(), r.block.call, peer.c_str(), tag.c_str(),
                   comm_name(hooks_, r.block.comm).c_str(), gone.c_str(), r.threaded ? threads_summary(r).c_str() : "");
      std::fflush(stderr);
      resume(r);  // the rank prints its own stack and comes straight back
      ++shown;
    } else {
      ++rest[r.block.call];
    }
  }
  for (auto& [call, n] : rest)
    std::fprintf(stderr, "xsim:   ... and %lld more ranks on native process %d blocked in %s\n",
                 static_cast<long long>(n), proc_, call.c_str());
  // Ranks that returned from main (or called exit) without MPI_Finalize: whoever waits for them waits forever.
  int64_t unfinalized = 0;
  for (const Rank& r : ranks_) {
    if (r.state != RankState::Done || !r.mpi_initialized || r.mpi_finalized) continue;
    if (++unfinalized <= 16)
      std::fprintf(stderr,
                   "xsim:   rank %d ended at virtual time %.9f s with exit code %d without calling MPI_Finalize\n",
                   r.world, r.finish_time.seconds(), r.exit_code);
  }
  if (unfinalized > 16)
    std::fprintf(stderr, "xsim:   ... and %lld more ranks on native process %d ended without calling MPI_Finalize\n",
                 static_cast<long long>(unfinalized - 16), proc_);
  std::fflush(stderr);
  return kDeadlockExitCode;
}

}  // namespace xsim
