// The OTF2 archive of a traced run (docs/observability.md). Every native process writes the event files of
// its own virtual ranks (one OTF2 location per rank, location id = world rank) into one archive; native
// process 0 writes the anchor file and the global definitions: the clock (1 tick = 1 ps of virtual time),
// a system tree of simulated nodes, one location group and one location per rank, one region per MPI
// function, and one MPI communicator per message context (its group is every rank, so "rank in the
// communicator" is the world rank). Built only with OTF2 (XSIM_HAVE_OTF2). Layer: libxsim/runtime/observe (xsim_observing).
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "observe/trace_buffer.hpp"

namespace xsim {

class Engine;

struct Otf2Definitions {
  std::vector<std::string> regions;                          // region id -> MPI function name
  std::vector<std::pair<uint64_t, std::string>> comms;       // comm id -> (message context, name)
};

// Collective over the native processes. `local_region`: this process's region index -> region id.
// Writes `dir`/`name`.otf2, `dir`/`name`.def and `dir`/`name`/. Returns "" or what went wrong (the same on
// every process); `events` gets the number of events in the archive (at process 0).
std::string write_otf2(const std::string& dir, const std::string& name, const Engine& e, const obs::TraceBuffer& buf,
                       const Otf2Definitions& defs, const std::vector<uint32_t>& local_region, int64_t end_ps,
                       uint64_t& events);

}  // namespace xsim
